#!/bin/sh
# loggen sends to a loopback sink over TCP, UDP, unix stream and unix dgram,
# in syslog-ng loggen's line format, and the loss checker finds every line.
# Usage: loggen.sh LOGGEN SINK
set -eu
LC_ALL=C
export LC_ALL
loggen=$1 sink=$2
work=$(mktemp -d)
sink_pid=
trap '[ -n "$sink_pid" ] && kill "$sink_pid" 2>/dev/null; rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $*"
  exit 1
}
. "$(dirname "$0")/sink-lib.sh"

# start_sink KIND OUT: a sink in the background; sets $port (TCP and UDP).
start_sink() {
  rm -f "$work/port"
  case $1 in
    tcp | udp) "$sink" "--$1" --port-file "$work/port" --out "$2" --idle 1 --max 60 & ;;
    *) "$sink" "--$1" "$work/sock" --port-file "$work/port" --out "$2" --idle 1 --max 60 & ;;
  esac
  sink_pid=$!
  sink_port
}

summary_re='^average rate = [0-9]+\.[0-9]{2} msg/sec, count=%s, time=[0-9.e+-]+, \(average\) msg size=%s, bandwidth=[0-9]+\.[0-9]{2} kB/sec$'

# 1. TCP, three connections, RFC 3164: syslog-ng's line, byte for byte but the digits.
start_sink tcp "$work/tcp.out"
"$loggen" -S -n 3000 -r 1000000 --active-connections=3 127.0.0.1 "$port" 2>"$work/err" || fail "loggen tcp"
stop_sink
grep -Eq "$(printf "$summary_re" 9000 256)" "$work/err" || { cat "$work/err"; fail "summary line"; }
[ "$(wc -l <"$work/tcp.out")" -eq 9000 ] || fail "tcp line count"
line=$(grep 'seq: 0000000007, thread: 0001' "$work/tcp.out" | sed -E 's/[0-9]/9/g')
expect='<99>9999-99-99T99:99:99 localhost prg99999[9999]: seq: 9999999999, thread: 9999, runid: 9999999999, stamp: 9999-99-99T99:99:99 PADD'
case $line in
  "$expect"PADD*D) ;;
  *) fail "line format: $line" ;;
esac
[ "$(head -1 "$work/tcp.out" | wc -c)" -eq 256 ] || fail "line size"
"$loggen" --check "$work/tcp.out" --expect 3000 >"$work/check" || { cat "$work/check"; fail "tcp check"; }
grep -q '^check: threads=3 received=9000 missing=0 duplicated=0 reordered=0: OK$' "$work/check" || fail "tcp report"

# 2. RFC 5424 with sdata, octet-counted (the count includes the newline).
start_sink tcp "$work/proto.out"
"$loggen" -P -p '[test name="value"]' -s 300 -n 100 -r 1000000 127.0.0.1 "$port" 2>"$work/err" || fail "loggen -P"
stop_sink
grep -Eq "$(printf "$summary_re" 100 304)" "$work/err" || { cat "$work/err"; fail "-P summary"; }
first=$(head -c 45 "$work/proto.out")
case $first in
  "300 <38>1 "????-??-??T??:??:??[+-]??:??" localhost") ;;
  *) fail "-P frame: $first" ;;
esac
grep -q ' prg00000 1234 - \[test name="value"\] ...seq: 0000000099' "$work/proto.out" || fail "-P body"
"$loggen" --check "$work/proto.out" --expect 100 >/dev/null || fail "-P check"

# 3. -P -F: no frame.
start_sink tcp "$work/nf.out"
"$loggen" -P -F -n 10 127.0.0.1 "$port" 2>/dev/null || fail "loggen -P -F"
stop_sink
[ "$(head -c 6 "$work/nf.out")" = "<38>1 " ] || fail "-F still framed"

# 3b. -H: a PROXY protocol v1 line first on each connection, not counted.
start_sink tcp "$work/px.out"
"$loggen" -H --proxy-src-ip=10.1.2.3 --proxy-dst-ip=10.9.9.9 --proxy-src-port=1111 --proxy-dst-port=2222 \
  -n 5 127.0.0.1 "$port" 2>"$work/err" || fail "loggen -H"
stop_sink
[ "$(head -1 "$work/px.out")" = "$(printf 'PROXY TCP4 10.1.2.3 10.9.9.9 1111 2222\r')" ] || fail "-H header"
grep -q 'count=5,' "$work/err" || fail "-H counted the header"
"$loggen" --check "$work/px.out" --expect 5 >/dev/null || fail "-H check"
if "$loggen" -D -H -n 1 127.0.0.1 1 2>/dev/null; then fail "-H -D accepted"; fi

# 4. UDP: one datagram per line (evenly spaced: a burst could overflow the
#    socket buffer, UDP has no flow control).
start_sink udp "$work/udp.out"
"$loggen" -D --steady -n 300 -r 3000 127.0.0.1 "$port" 2>/dev/null || fail "loggen udp"
stop_sink
"$loggen" --check "$work/udp.out" --expect 300 >/dev/null || fail "udp check"

# 5. unix stream and unix dgram.
start_sink unix-stream "$work/us.out"
"$loggen" -x -n 500 -r 1000000 --active-connections=2 --idle-connections=2 "$work/sock" 2>/dev/null \
  || fail "loggen unix-stream"
stop_sink
"$loggen" --check "$work/us.out" --expect 500 >"$work/check" || fail "unix-stream check"
grep -q 'threads=2 received=1000 ' "$work/check" || fail "unix-stream report"
start_sink unix-dgram "$work/ud.out"
"$loggen" -x -D -n 500 -r 1000000 "$work/sock" 2>/dev/null || fail "loggen unix-dgram"
stop_sink
"$loggen" --check "$work/ud.out" --expect 500 >/dev/null || fail "unix-dgram check"

# 6. -R: parsed lines are sent again with loggen's own header, -d as they are,
#    -l starts over, --skip-tokens drops a prefix; a bad line is skipped.
printf '%s\n' '<13>Nov 23 10:00:00 myhost sshd[42]: Accepted password for bob' \
  'garbage line' \
  '<14>1 2026-11-23T10:00:00+00:00 h2 app 77 ID47 [ex@1 a="b"] hello 5424' >"$work/in.txt"
start_sink tcp "$work/r.out"
"$loggen" -R "$work/in.txt" 127.0.0.1 "$port" 2>"$work/err" || fail "loggen -R"
stop_sink
grep -q '^Invalid line 2$' "$work/err" || fail "-R invalid line"
grep -Eq '^<38>[A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} myhost sshd\[42\]: Accepted password for bob$' "$work/r.out" \
  || fail "-R 3164 line"
grep -Eq '^<38>.{15} h2 app\[77\]: hello 5424$' "$work/r.out" || fail "-R 5424 line"
[ "$(wc -l <"$work/r.out")" -eq 2 ] || fail "-R count"
start_sink tcp "$work/rp.out"
"$loggen" -R "$work/in.txt" -P 127.0.0.1 "$port" 2>/dev/null || fail "loggen -R -P"
stop_sink
grep -q ' <14>1 .* h2 app 77 ID47 \[ex@1 a="b"\] ...hello 5424$' "$work/rp.out" || fail "-R -P line"
start_sink tcp "$work/rl.out"
"$loggen" -R "$work/in.txt" -d -l -n 7 127.0.0.1 "$port" 2>/dev/null || fail "loggen -R -d -l"
stop_sink
[ "$(wc -l <"$work/rl.out")" -eq 7 ] || fail "-l count"
[ "$(grep -c '^garbage line$' "$work/rl.out")" -eq 2 ] || fail "-d keeps lines as they are"
sed 's/^/2026-11-23 relay1 /' "$work/in.txt" >"$work/pre.txt"
start_sink tcp "$work/rs.out"
"$loggen" -R "$work/pre.txt" --skip-tokens=2 127.0.0.1 "$port" 2>/dev/null || fail "loggen --skip-tokens"
stop_sink
grep -q ' myhost sshd\[42\]: Accepted' "$work/rs.out" || fail "--skip-tokens"

# 7. mixed traffic: many hosts and programs, both formats, 100..2000 bytes, still checkable.
start_sink tcp "$work/mixed.out"
"$loggen" --mixed -n 2000 -r 1000000 127.0.0.1 "$port" 2>/dev/null || fail "loggen --mixed"
stop_sink
"$loggen" --check "$work/mixed.out" --expect 2000 >/dev/null || fail "mixed check"
[ "$(cut -d' ' -f3 "$work/mixed.out" | sort -u | wc -l)" -gt 50 ] || fail "mixed hosts"
grep -q '^<[0-9]*>1 ' "$work/mixed.out" || fail "mixed without RFC 5424"
grep -Eq '^<[0-9]+>[A-Z][a-z]{2} ' "$work/mixed.out" || fail "mixed without RFC 3164"
awk '{ n = length($0) + 1; if (n > 2000) bad = 1; if (n > 1500) long = 1 } END { exit bad || !long }' \
  "$work/mixed.out" || fail "mixed lengths"

# 8. steady rate: a latency line after the summary.
start_sink tcp "$work/steady.out"
"$loggen" --steady -r 2000 -n 400 127.0.0.1 "$port" 2>"$work/err" || fail "loggen --steady"
stop_sink
grep -Eq '^latency \(usec behind schedule\): count=400, avg=[0-9.]+, p50<=[0-9]+, p99<=[0-9]+, p99.9<=[0-9]+, max=[0-9]+$' \
  "$work/err" || { cat "$work/err"; fail "steady latency line"; }

# 8b. --latency-listen: here loggen sends to its own listener, which matches
#     every line that comes back to its send time.
"$loggen" -x --steady -r 2000 -n 300 --active-connections=2 --latency-listen="$work/lat.sock" "$work/lat.sock" \
  2>"$work/err" || { cat "$work/err"; fail "loggen --latency-listen"; }
grep -Eq '^latency \(usec end to end\): received=600 of 600, duplicated=0, unmatched=0, foreign=0, count=600, avg=[0-9.]+, p50<=[0-9]+, p99<=[0-9]+, p99.9<=[0-9]+, max=[0-9]+$' \
  "$work/err" || { cat "$work/err"; fail "end-to-end latency line"; }
[ ! -e "$work/lat.sock" ] || fail "latency socket left behind"

# 9. TLS with a client certificate: framed as syslog-ng's loggen does over TLS.
tls=$SLUICE_SRCDIR/tests/functional/data/loggen-tls
start_tls_sink() {
  rm -f "$work/port"
  "$sink" --tcp --tls-cert "$tls/server.pem" --tls-key "$tls/server.key" --tls-ca "$tls/ca.pem" \
    --port-file "$work/port" --out "$1" --idle 1 --max "$2" &
  sink_pid=$!
  sink_port
}
start_tls_sink "$work/tls.out" 20
"$loggen" -U --tls-cert "$tls/client.pem" --tls-key "$tls/client.key" --tls-ca "$tls/ca.pem" \
  -n 1000 -r 1000000 --active-connections=2 127.0.0.1 "$port" 2>"$work/err" || { cat "$work/err"; fail "loggen -U"; }
stop_sink
"$loggen" --check "$work/tls.out" --expect 1000 >/dev/null || fail "tls check"
[ "$(head -c 9 "$work/tls.out")" = "256 <38>2" ] || fail "tls framing"
# no client certificate: the sink refuses it, nothing arrives
start_tls_sink "$work/nocert.out" 2
"$loggen" -U -n 10 127.0.0.1 "$port" >/dev/null 2>&1 || true
stop_sink
[ ! -s "$work/nocert.out" ] || fail "data arrived without a client certificate"
# a server certificate from another CA fails the handshake
start_tls_sink "$work/otherca.out" 2
if "$loggen" -U --tls-ca "$tls/other-ca.pem" -n 10 127.0.0.1 "$port" 2>"$work/err"; then fail "wrong CA accepted"; fi
kill "$sink_pid" 2>/dev/null || true
wait "$sink_pid" || true
sink_pid=
grep -q 'TLS handshake failed' "$work/err" || fail "wrong CA message"
if "$loggen" --tls-cert "$tls/client.pem" 127.0.0.1 1 2>/dev/null; then fail "--tls-cert without -U accepted"; fi
# --proxied-tls-passthrough: the PROXY line in plain text, then TLS (a
# server that reads the line, then the handshake, then lines until EOF)
rm -f "$work/port"
python3 - "$tls" "$work/port" "$work/pp.out" <<'EOP' &
import socket, ssl, sys
tls, port_file, out = sys.argv[1:]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(tls + "/server.pem", tls + "/server.key")
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(1)
srv.settimeout(30)
open(port_file, "w").write(str(srv.getsockname()[1]))
conn, _ = srv.accept()
conn.settimeout(30)
head = b""
while not head.endswith(b"\n"):
    head += conn.recv(1)
s = ctx.wrap_socket(conn, server_side=True)
data = b""
while True:
    try:
        chunk = s.recv(65536)
    except (ssl.SSLError, OSError):
        break
    if not chunk:
        break
    data += chunk
open(out, "wb").write(head + data)
EOP
pp_pid=$!
i=0
while [ ! -s "$work/port" ]; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "passthrough server did not start"
  sleep 0.1
done
"$loggen" -U --proxied-tls-passthrough --proxy-src-ip=1.1.1.1 --proxy-dst-ip=2.2.2.2 --proxy-src-port=3333 \
  --proxy-dst-port=4444 -n 3 127.0.0.1 "$(cat "$work/port")" 2>"$work/err" \
  || { cat "$work/err"; fail "passthrough"; }
wait "$pp_pid" || fail "passthrough server"
[ "$(head -1 "$work/pp.out")" = "$(printf 'PROXY TCP4 1.1.1.1 2.2.2.2 3333 4444\r')" ] \
  || fail "passthrough header"
[ "$(grep -c 'seq: ' "$work/pp.out")" -eq 3 ] || fail "passthrough: $(cat "$work/pp.out")"
if "$loggen" --proxied-tls-passthrough 127.0.0.1 1 2>/dev/null; then
  fail "passthrough without -U accepted"
fi

# 10. --reconnect: the sink goes away and comes back on the same port; the
#     numbers go on where they stopped (the lines in flight at the close are lost).
rm -f "$work/port"
"$sink" --tcp --port-file "$work/port" --out "$work/rc1.out" --max 1 2>/dev/null &
sink1=$!
sink_port
"$loggen" -S -I 6 -r 1000 --reconnect 127.0.0.1 "$port" 2>"$work/err" &
loggen_pid=$!
wait "$sink1"
"$sink" --tcp --port "$port" --out "$work/rc2.out" --idle 1 --max 20 2>/dev/null &
sink_pid=$!
wait "$loggen_pid" || fail "loggen --reconnect"
stop_sink
grep -q 'is lost, try to reconnect' "$work/err" || fail "reconnect message"
[ -s "$work/rc1.out" ] && [ -s "$work/rc2.out" ] || fail "reconnect: a sink got nothing"
first=$(head -1 "$work/rc2.out" | sed -n 's/.*seq: \([0-9]*\),.*/\1/p')
[ "$first" -gt 0 ] || fail "reconnect started over at $first"
"$loggen" --check "$work/rc1.out" "$work/rc2.out" >"$work/check" || true
grep -q '^check: threads=1 ' "$work/check" || fail "reconnect check"

# 10b. -T runs until SIGINT, which stops it with the summary of what went out.
start_sink tcp "$work/int.out"
"$loggen" -T -r 1000 127.0.0.1 "$port" 2>"$work/err" &
loggen_pid=$!
i=0
while [ ! -s "$work/int.out" ]; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "-T sent nothing"
  sleep 0.1
done
kill -INT "$loggen_pid"
wait "$loggen_pid" || fail "loggen -T after SIGINT"
stop_sink
grep -Eq '^average rate = .* msg/sec, count=[0-9]+, ' "$work/err" || fail "no summary after SIGINT"
"$loggen" --check "$work/int.out" >/dev/null || fail "-T check"

# 11. IPv6 (-6) on ::1.
rm -f "$work/port"
"$sink" --tcp --ipv6 --port-file "$work/port" --out "$work/v6.out" --idle 1 --max 20 &
sink_pid=$!
sink_port
"$loggen" -6 -n 100 ::1 "$(cat "$work/port")" 2>/dev/null || fail "loggen -6"
stop_sink
"$loggen" --check "$work/v6.out" --expect 100 >/dev/null || fail "ipv6 check"

# 12. errors: bad values and a refused connection fail clearly.
if "$loggen" -r 0 127.0.0.1 1 2>"$work/err"; then fail "-r 0 accepted"; fi
grep -q 'must be positive' "$work/err" || fail "-r 0 message"
if "$loggen" -S 2>"$work/err"; then fail "no target accepted"; fi
grep -q 'target and port are missing' "$work/err" || fail "no target message"
if "$loggen" -S -n 1 -x "$work/nosuch.sock" 2>"$work/err"; then fail "refused connection gave 0"; fi
grep -q 'can not connect' "$work/err" || fail "refused message"
if "$loggen" --bogus 2>/dev/null; then fail "unknown option accepted"; fi
echo "loggen: all cases passed"
