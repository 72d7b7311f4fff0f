#!/bin/sh
# A burst into a source without flow control: loggen sends as fast as it can
# over four TCP connections into a file() (log-fifo-size(10000)).  syslog-ng
# drops what does not fit in log-fifo-size; Sluice slows the readers down
# while the writer catches up (logqueue.h, congestion), so nothing is lost.
# A destination whose writer is failing must not slow anything down: its
# messages are dropped and counted while the healthy one gets them all.
# Usage: burst.sh SLUICE LOGGEN
set -eu
LC_ALL=C
export LC_ALL
sluice=$1 loggen=$2
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $*"
  [ -f "$work/sluice.log" ] && tail -20 "$work/sluice.log"
  exit 1
}

port=$(python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')

cat >"$work/sluice.conf" <<CONF
@version: 3.38
options { stats-freq(0); };
source s { network(ip(127.0.0.1) port($port)); };
destination d_ok { file("$work/out.log"); };
destination d_dead { file("$work/missing-dir/out.log" create-dirs(no)); };
log { source(s); destination(d_ok); };
log { source(s); destination(d_dead); };
CONF

"$sluice" -F -v -f "$work/sluice.conf" -p "$work/pid" >"$work/sluice.log" 2>&1 &
pid=$!
i=0
while ! grep -q "starting up" "$work/sluice.log" 2>/dev/null; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "sluice did not start"
  sleep 0.1
done

"$loggen" -S -Q -r 100000000 -n 25000 -I 100 --active-connections=4 127.0.0.1 "$port" 2>/dev/null \
  || fail "loggen"
want=100000
i=0
while [ "$(wc -l <"$work/out.log" 2>/dev/null || echo 0)" -lt $want ]; do
  i=$((i + 1))
  [ $i -lt 600 ] || break
  sleep 0.1
done
kill -TERM "$pid"
wait "$pid" || true
pid=

"$loggen" --check "$work/out.log" --expect 25000 >"$work/report" || { cat "$work/report"; fail "loss in a burst"; }
grep -q "^check: threads=4 received=$want missing=0 duplicated=0 reordered=0: OK\$" "$work/report" \
  || { cat "$work/report"; fail "report"; }
grep -q "Destination write failed" "$work/sluice.log" || fail "the dead destination never failed"
echo "burst: all $want lines arrived past a dead destination"
