#!/bin/sh
# Clients that connect to a TLS port and never start the handshake (issue
# 22): a network(transport(tls)) source and a relp(tls()) source, each with
# max-connections(10), peer-verify(required-trusted) and
# tls(handshake-timeout(2)), get 10 raw TCP connections that send nothing.
# They hold every slot at first: a trusted client is refused.  After 2 s
# the daemon closes them ("TLS handshake timed out", each logged), and a
# trusted client (python's ssl with the client certificate) gets in within
# a few seconds of the timeout: a syslog line over TLS, a RELP session over
# TLS; both written.  The daemon's RSS is printed.
#
# Usage: tls-silent.sh SLUICE
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../relay/relp-certs.sh"
sluice=$1
timeout=2
c=$work/certs
make_certs "$c"
set -- $(free_ports tcp tcp)
p_net=$1 p_relp=$2
tls="key-file(\"$c/server.key\") cert-file(\"$c/server.pem\") ca-file(\"$c/ca.pem\")
  peer-verify(required-trusted) handshake-timeout($timeout)"
cat >"$work/sluice.conf" <<EOC
@version: 3.38
options { stats-freq(0); };
source s_net { network(ip(127.0.0.1) port($p_net) transport(tls) max-connections(10) tls($tls)); };
source s_relp { relp(ip(127.0.0.1) port($p_relp) max-connections(10) tls($tls)); };
destination d_net { file("$work/net.log" template("\$MSG\n")); };
destination d_relp { file("$work/relp.log" template("\$MSG\n")); };
log { source(s_net); destination(d_net); };
log { source(s_relp); destination(d_relp); };
EOC
start_sluice "$sluice" "$work/sluice.conf"

# silent_then_trusted KIND PORT: prints the seconds from the silent
# connections' connect to the trusted client's success
cat >"$work/client.py" <<'PY'
import socket, ssl, sys, time
kind, port, certs, timeout = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])

ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.load_cert_chain(certs + "/client.pem", certs + "/client.key")
ctx.load_verify_locations(certs + "/ca.pem")

def relp_frame(txnr, cmd, data=b""):
    return b"%d %s %d%s\n" % (txnr, cmd, len(data), b" " + data if data else b"")

def relp_answer(t):
    got = b""
    while True:
        head = got.split(b" ", 3)
        if len(head) == 4 and len(head[3]) > int(head[2]):
            return got
        b = t.recv(4096)
        if not b:
            raise ConnectionError("closed: %r" % got)
        got += b

def trusted(tag):
    """One trusted client; True when its session was taken."""
    try:
        raw = socket.create_connection(("127.0.0.1", port), timeout=3)
        t = ctx.wrap_socket(raw, server_hostname="localhost")
        if kind == "net":
            t.sendall(b"<13>client: trusted %s\n" % tag)
            # a refused certificate would end the session here; ours is
            # accepted, so the server stays silent until we close
            t.settimeout(0.3)
            try:
                if t.recv(1) == b"":
                    return False
            except socket.timeout:
                pass
        else:
            t.sendall(relp_frame(1, b"open", b"relp_version=0\nrelp_software=t\ncommands=syslog"))
            if b"200 OK" not in relp_answer(t):
                return False
            t.sendall(relp_frame(2, b"syslog", b"<13>client: trusted %s" % tag))
            if not relp_answer(t).startswith(b"2 rsp 6 200 OK"):
                return False
            t.sendall(relp_frame(3, b"close"))
            relp_answer(t)
        t.close()
        return True
    except (OSError, ssl.SSLError, ConnectionError):
        return False

start = time.monotonic()
silent = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(10)]
time.sleep(0.3)
if trusted(b"early"):
    sys.exit("%s: a trusted client got in while 10 silent connections were open" % kind)
print("%s: trusted client refused while 10 silent connections hold the slots" % kind)
while not trusted(b"late"):
    if time.monotonic() - start > timeout + 8:
        sys.exit("%s: no trusted client got in %.1f s after the silent connections" % (kind, timeout + 8))
    time.sleep(0.1)
took = time.monotonic() - start
print("%s: trusted client in %.2f s after the silent connections (handshake-timeout %g s)" % (kind, took, timeout))
# the silent ones were closed by the server, not earlier than the timeout
for s in silent:
    s.settimeout(5)
    try:
        closed = s.recv(1) == b""
    except ConnectionResetError:
        closed = True
    if not closed:
        sys.exit("%s: a silent connection got bytes" % kind)
if took < timeout - 0.5:
    sys.exit("%s: got in before the timeout: the slots were not held" % kind)
if took > timeout + 3:
    sys.exit("%s: took too long" % kind)
PY
for kind in net relp; do
  eval port=\$p_$kind
  python3 "$work/client.py" "$kind" "$port" "$c" "$timeout" || fail "$kind: silent clients kept a trusted one out"
done
[ "$(grep -c "TLS handshake timed out, closing connection" "$work/sluice.log")" -eq 20 ] \
  || fail "20 handshake timeouts were not logged"
wait_lines "$work/net.log" 1
wait_lines "$work/relp.log" 1
[ "$(cat "$work/net.log")" = "trusted late" ] || fail "net.log: $(cat "$work/net.log")"
[ "$(cat "$work/relp.log")" = "trusted late" ] || fail "relp.log: $(cat "$work/relp.log")"
echo "daemon memory: $(rss_kb)"
stop_sluice
