#!/bin/sh
# default-network-drivers() in Sluice (its own driver, network-drivers.c)
# and in Debian's syslog-ng 3.38 (its SCL block): the same bytes to the TCP
# and UDP syslog ports (BSD lines with and without a host, RFC 5424, a line
# without PRI) and the RFC 5424 TCP port (octet-counted frames) give the
# same files; without tls() Sluice opens no TLS port and says so; with
# tls(key-file() cert-file() peer-verify(no)) a frame sent over TLS to the
# RFC 5424 TLS port arrives in both as the same line.
# Usage: compare-default-network-drivers.sh SLUICE
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/relay/relp-certs.sh"
sluice=$1
need_syslog_ng
[ -f "$sng/etc/syslog-ng/scl.conf" ] || fail "$sng has no syslog-ng-scl (scripts/fetch-syslog-ng.sh unpacks it)"

conf() { # conf OUT TCP UDP RFC5424-TCP TLS [OPTIONS]
  cat <<EOF2
@version: 3.38
@include "scl.conf"
options { use-dns(no); };
source s { default-network-drivers(tcp-port($2) udp-port($3) rfc5424-tcp-port($4) rfc5424-tls-port($5) ${6:-}); };
destination d { file("$1" template("\${PROGRAM}|\${PID}|\${MSG}|\${HOST}|\${HOST_FROM}|\${FACILITY}.\${LEVEL}|\${MSGID}|\${SDATA}|\${SOURCE}\n")); };
log { source(s); destination(d); };
EOF2
}
set -- $(free_ports tcp udp tcp tcp tcp udp tcp tcp)
conf "$work/sluice.out" "$1" "$2" "$3" "$4" >"$work/sluice.conf"
{ sng_include_path
  conf "$work/sng.out" "$5" "$6" "$7" "$8"; } >"$work/sng.conf"

send() { # send TCP UDP RFC5424-TCP
  python3 - "$1" "$2" "$3" <<'EOF2'
import socket, sys, time
tcp, udp, r5424 = (int(a) for a in sys.argv[1:4])
lines = [
    b"<13>Nov 26 10:00:00 host1 app[12]: bsd with a host",
    b"<14>Nov 26 10:00:01 app2: bsd without a host",
    b'<165>1 2026-11-26T10:00:00.123Z host5424 app5 77 ID47 [ex@32473 a="b"] rfc5424 on the syslog port',
    b"no pri at all",
]
s = socket.create_connection(("127.0.0.1", tcp))
s.sendall(b"".join(l.replace(b"all", b"all tcp") + b"\n" for l in lines))
s.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for l in lines:
    u.sendto(l + b" udp", ("127.0.0.1", udp))
frames = [
    b'<34>1 2026-11-26T10:00:02Z host601 app6 - ID1 - rfc5424 on 601',
    b"<13>Nov 26 10:00:03 host601b app7[3]: bsd on 601",
]
s = socket.create_connection(("127.0.0.1", r5424))
s.sendall(b"".join(b"%d %s" % (len(f), f) for f in frames))
s.close()
EOF2
}

start_sluice "$sluice" "$work/sluice.conf" -R "$work/persist"
grep -q "TLS port is not opened" "$work/sluice.log" || fail "no word on the TLS port"
[ "$(python3 "$(dirname "$0")/tcp-sockets.py" listen "$4")" = 0 ] || fail "the TLS port was opened without tls()"
sng_start sng
send "$1" "$2" "$3"
send "$5" "$6" "$7"
wait_lines "$work/sluice.out" 10
wait_lines "$work/sng.out" 10
sleep 0.5
stop_sluice
sort "$work/sluice.out" >"$work/a"
sort "$work/sng.out" >"$work/b"
cmp -s "$work/b" "$work/a" || { diff -u "$work/b" "$work/a"; fail "Sluice and syslog-ng differ"; }
[ "$(wc -l <"$work/a")" -eq 10 ] || fail "$(wc -l <"$work/a") lines, want 10"

# tls(): the TLS port is opened with it (syslog-ng's old peer-verify(no):
# a client without a certificate is served)
make_certs "$work/certs"
tls="tls(key-file(\"$work/certs/server.key\") cert-file(\"$work/certs/server.pem\") peer-verify(no))"
set -- $(free_ports tcp udp tcp tcp tcp udp tcp tcp)
conf "$work/sluice-tls.out" "$1" "$2" "$3" "$4" "$tls" >"$work/sluice-tls.conf"
{ sng_include_path
  conf "$work/sng-tls.out" "$5" "$6" "$7" "$8" "$tls"; } >"$work/sng2.conf"
start_sluice "$sluice" "$work/sluice-tls.conf" -R "$work/persist-tls"
! grep -q "TLS port is not opened" "$work/sluice.log" || fail "the TLS port was not opened with tls()"
sng_start sng2
send_tls() { # send_tls PORT
  python3 - "$1" <<'EOF2'
import socket, ssl, sys
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
f = b'<165>1 2026-11-26T10:00:04Z hosttls apptls 9 ID9 - rfc5424 over tls'
with ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1])))) as s:
    s.sendall(b"%d %s" % (len(f), f))
EOF2
}
send_tls "$4" || fail "no TLS session with Sluice's TLS port"
send_tls "$8" || fail "no TLS session with syslog-ng's TLS port"
wait_lines "$work/sluice-tls.out" 1
wait_lines "$work/sng-tls.out" 1
stop_sluice
cmp -s "$work/sng-tls.out" "$work/sluice-tls.out" ||
  { diff -u "$work/sng-tls.out" "$work/sluice-tls.out"; fail "over TLS, Sluice and syslog-ng differ"; }
grep -q "^apptls|9|rfc5424 over tls|" "$work/sluice-tls.out" || fail "over TLS: $(cat "$work/sluice-tls.out")"
echo "default-network-drivers: 10 messages on 3 ports as syslog-ng 3.38 writes them"
echo "default-network-drivers: with tls(), a frame over TLS as syslog-ng 3.38 writes it"
