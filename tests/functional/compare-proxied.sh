#!/bin/sh
# transport("proxied-tcp") against syslog-ng 3.38: PROXY v1 headers (TCP4,
# TCP6, UNKNOWN, odd ports, LF only) give the same PROXIED_* values on
# every message of their connection, and what is not such a header (another
# start, too few fields, longer than 107 bytes) closes its connection with
# nothing taken from it, in both daemons.  loggen --proxied's headers too.
# proxied-tls (the header inside TLS) and proxied-tls-passthrough (the
# header in plain text, then TLS) likewise.
# Usage: compare-proxied.sh SLUICE LOGGEN   (SLUICE_SYSLOG_NG as for compare.sh)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/relay/relp-certs.sh"
sluice=$1 loggen=$2
need_syslog_ng
make_certs "$work/certs"
c=$work/certs

conf() { # conf OUT PORT TLS-PORT PASSTHROUGH-PORT
  cat <<EOC
@version: 3.38
options { keep-hostname(yes); stats-freq(0); };
template t { template("\$(format-json --scope nv-pairs --exclude TRANSPORT --exclude HOST_FROM)\n"); };
source s { network(ip(127.0.0.1) port($2) transport("proxied-tcp")); };
source s_tls { network(ip(127.0.0.1) port($3) transport("proxied-tls")
                       tls(key-file("$c/server.key") cert-file("$c/server.pem") peer-verify(optional-untrusted))); };
source s_pass { network(ip(127.0.0.1) port($4) transport("proxied-tls-passthrough")
                        tls(key-file("$c/server.key") cert-file("$c/server.pem") peer-verify(optional-untrusted))); };
destination d { file("$1" template(t)); };
destination d_tls { file("$1.tls" template(t)); };
destination d_pass { file("$1.pass" template(t)); };
log { source(s); destination(d); };
log { source(s_tls); destination(d_tls); };
log { source(s_pass); destination(d_pass); };
EOC
}

send_tls() { # send_tls TLS-PORT PASSTHROUGH-PORT
  python3 - "$1" "$2" <<'EOP'
import socket, ssl, sys, time
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
def one(port, header_outside, header, lines):
    raw = socket.create_connection(("127.0.0.1", port))
    if header_outside:
        raw.sendall(header)
        time.sleep(0.05)
    s = ctx.wrap_socket(raw)
    s.sendall((b"" if header_outside else header) + lines)
    time.sleep(0.2)
    s.close()
one(int(sys.argv[1]), False, b"PROXY TCP4 7.7.7.7 8.8.8.8 7 8\r\n", b"<13>Nov 22 10:00:00 t1 app: inside tls\n")
one(int(sys.argv[2]), True, b"PROXY TCP6 ::1 ::2 9 10\r\n", b"<13>Nov 22 10:00:00 t2 app: before tls\n")
EOP
}

send() { # send PORT
  python3 - "$1" <<'EOP'
import socket, sys, time
port = int(sys.argv[1])
def conn(*pieces):
    s = socket.create_connection(("127.0.0.1", port))
    for p in pieces:
        s.sendall(p)
        time.sleep(0.05)
    time.sleep(0.1)
    s.close()
conn(b"PROXY TCP4 1.2.3.4 5.6.7.8 1111 2222\r\n<13>Nov 22 10:00:00 h1 app: v4 one\n<13>Nov 22 10:00:00 h1 app: v4 two\n")
conn(b"PROXY TCP6 2001:db8::1 2001:db8::2 65535 514\r\n<13>Nov 22 10:00:00 h2 app: v6\n")
conn(b"PROXY UNKNOWN\r\n<13>Nov 22 10:00:00 h3 app: unknown\n")
conn(b"PROXY TCP4 1.1.1.1 2.2.2.2 70000 x5 extra\n<13>Nov 22 10:00:00 h4 app: odd ports, LF only\n")
conn(b"HELLO there\r\n<13>Nov 22 10:00:00 h5 app: not proxied\n")
conn(b"PROXY TCP4 1.1.1.1\r\n<13>Nov 22 10:00:00 h6 app: too few\n")
conn(b"PROXY TCP4 " + b"9" * 120 + b"\r\n<13>Nov 22 10:00:00 h7 app: too long\n")
conn(b"PROXY TCP4 3.3.3.3 ", b"4.4.4.4 1 2\r", b"\n<13>Nov 22 10:00:00 h8 app: header in three pieces\n")
EOP
  "$loggen" -S --proxied --proxy-src-ip 10.0.0.9 --proxy-src-port 4242 -n 3 -r 1000 127.0.0.1 "$1" >/dev/null 2>&1 ||
    fail "loggen --proxied"
}

set -- $(free_ports tcp tcp tcp tcp tcp tcp)
conf "$work/sluice.out" "$1" "$3" "$4" >"$work/sluice.conf"
conf "$work/sng.out" "$2" "$5" "$6" >"$work/sng.conf"
start_sluice "$sluice" "$work/sluice.conf"
send "$1"
send_tls "$3" "$4"
wait_lines "$work/sluice.out" 9
wait_lines "$work/sluice.out.pass" 1
# hostile: half a header, and the connection held open: the daemon waits
# for the rest without spinning on the unread bytes (CPU over 1.5 s)
cpu() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
python3 - "$1" "$4" <<'EOP' &
import socket, sys, time
held = [socket.create_connection(("127.0.0.1", int(p))) for p in sys.argv[1:3]]
for s in held:
    s.sendall(b"PROXY TCP4 1.2.3")
time.sleep(2.5)
EOP
holder=$!
sleep 0.5
before=$(cpu)
sleep 1.5
after=$(cpu)
wait $holder
[ $((after - before)) -lt 50 ] || fail "half a PROXY header took $((after - before)) ticks of CPU in 1.5 s"
stop_sluice
sng_start sng
send "$2"
send_tls "$5" "$6"
wait_lines "$work/sng.out" 9
wait_lines "$work/sng.out.pass" 1
kill $sng_pids
wait $sng_pids || true
sng_pids=
# loggen's lines carry their run's id and time
for f in sng sluice; do sed -E 's/runid: [0-9]+, stamp: [^ ]+/R/' "$work/$f.out" >"$work/$f.cmp"; done
cmp -s "$work/sng.cmp" "$work/sluice.cmp" || { diff "$work/sng.cmp" "$work/sluice.cmp"; fail "differs"; }
[ "$(grep -c '"PROXIED_SRCIP":"10.0.0.9"' "$work/sluice.out")" -eq 3 ] || fail "loggen's headers: $(cat "$work/sluice.out")"
for x in tls pass; do
  cmp -s "$work/sng.out.$x" "$work/sluice.out.$x" || { diff "$work/sng.out.$x" "$work/sluice.out.$x"; fail "$x differs"; }
done
grep -q '"PROXIED_SRCIP":"7.7.7.7"' "$work/sluice.out.tls" || fail "proxied-tls: $(cat "$work/sluice.out.tls")"
grep -q '"PROXIED_SRCIP":"::1"' "$work/sluice.out.pass" || fail "passthrough: $(cat "$work/sluice.out.pass")"
[ "$(grep -c "Error parsing PROXY protocol header" "$work/sluice.log")" -eq 3 ] || fail "not three refused headers"
echo "compare-proxied: $(wc -l <"$work/sluice.out") lines identical to syslog-ng 3.38's"
