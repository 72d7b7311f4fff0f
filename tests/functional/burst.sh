#!/bin/sh
# A burst into a source without flow control: loggen sends as fast as it can
# over four TCP connections into a file() (log-fifo-size(10000)).  syslog-ng
# drops what does not fit in log-fifo-size; Sluice slows the readers down
# while the writer catches up (logqueue.h, congestion), so nothing is lost.
# A destination whose writer is failing must not slow anything down: its
# messages are dropped and counted while the healthy one gets them all.
# Usage: burst.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2
port=$(free_ports tcp)

cat >"$work/sluice.conf" <<CONF
@version: 3.38
options { stats-freq(0); };
source s { network(ip(127.0.0.1) port($port)); };
destination d_ok { file("$work/out.log"); };
destination d_dead { file("$work/missing-dir/out.log" create-dirs(no)); };
log { source(s); destination(d_ok); };
log { source(s); destination(d_dead); };
CONF

start_sluice "$sluice" "$work/sluice.conf"
"$loggen" -S -Q -r 100000000 -n 25000 -I 100 --active-connections=4 127.0.0.1 "$port" 2>/dev/null \
  || fail "loggen"
want=100000
wait_lines "$work/out.log" $want
# the dead destination's queue cannot be written out: the exit is not clean
kill -TERM "$pid"
wait "$pid" || true
pid=

"$loggen" --check "$work/out.log" --expect 25000 >"$work/report" || { cat "$work/report"; fail "loss in a burst"; }
grep -q "^check: threads=4 received=$want missing=0 duplicated=0 reordered=0: OK\$" "$work/report" \
  || { cat "$work/report"; fail "report"; }
grep -q "Destination write failed" "$work/sluice.log" || fail "the dead destination never failed"
echo "burst: all $want lines arrived past a dead destination"
