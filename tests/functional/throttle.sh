#!/bin/sh
# throttle(N) on a destination: at most N messages a second after a first
# second's worth, with flow control holding the rest back, nothing lost.
# 600 lines at throttle(200) take at least 2 s (200 at once, then 400 at
# 200 a second); the check is a lower bound only, so a slow machine cannot
# fail it.  throttle(0), syslog-ng's default, is no limit.
# Usage: throttle.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2
gen "$work/in.log" 600
cat >"$work/conf" <<EOF2
@version: 3.38
source s { file("$work/in.log"); };
destination d { file("$work/out.log" throttle(200)); };
destination d0 { file("$work/out0.log" throttle(0)); };
log { source(s); destination(d); destination(d0); flags(flow-control); };
EOF2
t0=$(date +%s.%N)
start_sluice "$sluice" "$work/conf" -R "$work/persist"
arrived "throttle(200)"
t1=$(date +%s.%N)
wait_lines "$work/out0.log" 600
stop_sluice
elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
echo "600 lines through throttle(200) in $elapsed s"
awk -v e="$elapsed" 'BEGIN { exit !(e >= 1.9) }' || fail "throttle(200) let 600 lines through in $elapsed s"
"$loggen" --check "$work/out.log" >"$work/report" || { cat "$work/report"; fail "loss"; }
grep -q "received=600 missing=0 duplicated=0 reordered=0: OK\$" "$work/report" || { cat "$work/report"; fail "report"; }
[ "$(wc -l <"$work/out0.log")" -eq 600 ] || fail "throttle(0): $(wc -l <"$work/out0.log") lines"
