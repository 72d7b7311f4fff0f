#!/bin/sh
# Many connections over a few sender threads, against the loopback sink:
# every connection's numbers complete, the per-connection rate kept, idle
# connections held, TLS, a reconnection, unix stream and UDP in a group of
# several (the non-blocking path), and a stalled receiver holds back only
# its own connection.
# Usage: loggen-groups.sh LOGGEN SINK
set -eu
LC_ALL=C
export LC_ALL
loggen=$1 sink=$2
work=$(mktemp -d)
sink_pid=
loggen_pid=
trap '[ -n "$sink_pid" ] && kill "$sink_pid" 2>/dev/null; [ -n "$loggen_pid" ] && kill "$loggen_pid" 2>/dev/null; rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $*"
  [ -f "$work/err" ] && tail -5 "$work/err"
  [ -f "$work/check" ] && tail -3 "$work/check"
  exit 1
}
. "$(dirname "$0")/sink-lib.sh"

# start_sink OUT [SINK OPTIONS...]: a TCP sink in the background; sets $port.
start_sink() {
  out=$1
  shift
  rm -f "$work/port"
  "$sink" --tcp --port-file "$work/port" --out "$out" --idle 2 --max 60 "$@" &
  sink_pid=$!
  sink_port
}

# 1. 200 connections over 2 threads, as fast as they go: exactly -n each,
#    every number of every connection once and in order (sockets fill up,
#    so the rest-kept-for-later path runs too).
start_sink "$work/many.out"
"$loggen" -S -n 300 -r 100000000 -I 60 --active-connections=200 --sender-threads=2 --debug 127.0.0.1 "$port" \
  2>"$work/err" || fail "loggen 200 connections"
stop_sink
grep -q '^debug: 200 active connections over 2 sender threads$' "$work/err" || fail "thread count"
grep -q 'count=60000,' "$work/err" || fail "summary count"
"$loggen" --check "$work/many.out" --expect 300 --expect-threads 200 >"$work/check" || fail "200 connections check"
grep -q '^check: threads=200 received=60000 missing=0 duplicated=0 reordered=0: OK$' "$work/check" \
  || fail "200 connections report"

# 2. Bigger batches than a socket takes at once, 4 connections on one thread.
start_sink "$work/big.out"
"$loggen" -S -Q -n 100000 -r 100000000 -I 60 --active-connections=4 --sender-threads=1 127.0.0.1 "$port" \
  2>"$work/err" || fail "loggen 4 connections"
stop_sink
"$loggen" --check "$work/big.out" --expect 100000 --expect-threads 4 >"$work/check" || fail "4 connections check"

# 3. The rate is per connection: 200 connections at -r 50 for 4 s send
#    200 x (45 at once, the bucket starting 90% full, + 50 x 4) = 49,000.
start_sink "$work/rate.out"
"$loggen" -S -r 50 -I 4 --active-connections=200 --sender-threads=2 127.0.0.1 "$port" 2>"$work/err" \
  || fail "loggen -r 50"
stop_sink
count=$(wc -l <"$work/rate.out")
[ "$count" -ge 40000 ] && [ "$count" -le 55000 ] || fail "-r 50 x 200 x 4 s sent $count, not about 49000"
"$loggen" --check "$work/rate.out" --expect-threads 200 >"$work/check" || fail "rate check"
# --steady: 50 connections at 100/s for 2 s, evenly: 10,000, and the lateness line
start_sink "$work/steady.out"
"$loggen" -S --steady -r 100 -I 2 --active-connections=50 --sender-threads=2 127.0.0.1 "$port" 2>"$work/err" \
  || fail "loggen --steady"
stop_sink
count=$(wc -l <"$work/steady.out")
[ "$count" -ge 9000 ] && [ "$count" -le 10100 ] || fail "--steady sent $count, not about 10000"
grep -Eq "^latency \(usec behind schedule\): count=$count, " "$work/err" || fail "--steady latency line"

# 4. Idle connections are held while the active ones send.
start_sink "$work/idle.out"
"$loggen" -S -Q -r 10 -I 3 --active-connections=2 --idle-connections=40 --sender-threads=2 127.0.0.1 "$port" \
  2>"$work/err" &
loggen_pid=$!
sleep 1.5
held=$(python3 "$SLUICE_SRCDIR/tests/functional/tcp-sockets.py" established "$port")
wait "$loggen_pid" || fail "loggen idle"
loggen_pid=
stop_sink
[ "$held" -eq 42 ] || fail "$held connections held, not 42"
"$loggen" --check "$work/idle.out" --expect-threads 2 >"$work/check" || fail "idle check"

# 5. TLS, 6 connections over 2 threads (non-blocking TLS writes).
tls=$SLUICE_SRCDIR/tests/functional/data/loggen-tls
start_sink "$work/tls.out" --tls-cert "$tls/server.pem" --tls-key "$tls/server.key"
"$loggen" -U -n 20000 -r 100000000 -I 60 --active-connections=6 --sender-threads=2 127.0.0.1 "$port" \
  2>"$work/err" || fail "loggen -U"
stop_sink
"$loggen" --check "$work/tls.out" --expect 20000 --expect-threads 6 >"$work/check" || fail "tls check"

# 6. --reconnect with 3 connections on one thread: the sink goes away and
#    comes back on the same port; each connection goes on where it stopped.
rm -f "$work/port"
"$sink" --tcp --port-file "$work/port" --out "$work/rc1.out" --max 1 2>/dev/null &
sink1=$!
sink_port
"$loggen" -S -I 5 -r 500 --reconnect --active-connections=3 --sender-threads=1 127.0.0.1 "$port" 2>"$work/err" &
loggen_pid=$!
wait "$sink1"
"$sink" --tcp --port "$port" --out "$work/rc2.out" --idle 1 --max 30 2>/dev/null &
sink_pid=$!
wait "$loggen_pid" || fail "loggen --reconnect"
loggen_pid=
stop_sink
# (a connection made while the first sink is closing is lost once more)
[ "$(grep -c 'is lost, try to reconnect' "$work/err")" -ge 3 ] || fail "reconnect messages"
for t in 0000 0001 0002; do
  first=$(grep "thread: $t," "$work/rc2.out" | head -1 | sed -n 's/.*seq: \([0-9]*\),.*/\1/p')
  [ -n "$first" ] && [ "$first" -gt 0 ] || fail "thread $t started over at '$first' after reconnecting"
done
"$loggen" --check "$work/rc1.out" "$work/rc2.out" --expect-threads 3 >"$work/check" || true
grep -q '^check: threads=3 ' "$work/check" || fail "reconnect check"

# 7. A receiver that stops reading holds back only its own connection: a
#    server reads the first connection and leaves the second unread for 3 s;
#    meanwhile the first of the same thread goes on.
rm -f "$work/port"
python3 - "$work/port" "$work/slow.out" <<'EOP' &
import socket, sys, time, select
port_file, out = sys.argv[1:]
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(2)
srv.settimeout(30)
open(port_file, "w").write(str(srv.getsockname()[1]))
fast, _ = srv.accept()
slow, _ = srv.accept()
start = time.monotonic()
fast_lines = 0
while time.monotonic() - start < 3:
    if select.select([fast], [], [], 0.1)[0]:
        fast_lines += fast.recv(1 << 20).count(b"\n")
# now drain both until loggen closes them
slow_lines = 0
open_socks = [fast, slow]
while open_socks:
    for s in select.select(open_socks, [], [], 30)[0]:
        data = s.recv(1 << 20)
        if not data:
            open_socks.remove(s)
        elif s is slow:
            slow_lines += data.count(b"\n")
open(out, "w").write("%d %d\n" % (fast_lines, slow_lines))
EOP
py_pid=$!
sink_port
"$loggen" -S -Q -r 100000000 -I 2 --active-connections=2 --sender-threads=1 127.0.0.1 "$port" \
  2>"$work/err" || fail "loggen with a stalled receiver"
wait "$py_pid" || fail "slow server"
read -r fast slow <"$work/slow.out"
# the unread one fills its socket buffers (a few MB at most, some 10,000 lines)
[ "$fast" -gt 200000 ] || fail "the first connection sent only $fast lines while the second was stalled"

# 8. A unix stream socket and UDP, several connections on one thread.
rm -f "$work/port"
"$sink" --unix-stream "$work/sock" --port-file "$work/port" --out "$work/us.out" --idle 1 --max 60 &
sink_pid=$!
sink_port
"$loggen" -x -Q -n 20000 -r 100000000 -I 60 --active-connections=4 --sender-threads=1 "$work/sock" 2>"$work/err" \
  || fail "loggen -x"
stop_sink
"$loggen" --check "$work/us.out" --expect 20000 --expect-threads 4 >"$work/check" || fail "unix stream check"
rm -f "$work/port"
"$sink" --udp --port-file "$work/port" --out "$work/udp.out" --idle 1 --max 60 &
sink_pid=$!
sink_port
"$loggen" -D --steady -Q -n 300 -r 3000 --active-connections=3 --sender-threads=1 127.0.0.1 "$port" \
  2>"$work/err" || fail "loggen -D"
stop_sink
"$loggen" --check "$work/udp.out" --expect 300 --expect-threads 3 >"$work/check" || fail "udp check"

# 9. --sender-threads must not be negative.
if "$loggen" --sender-threads=-1 127.0.0.1 1 2>"$work/err"; then fail "--sender-threads=-1 accepted"; fi
echo "loggen-groups: all cases passed"
