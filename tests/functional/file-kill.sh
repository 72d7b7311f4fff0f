#!/bin/sh
# file() source following a file that grows at a steady 20,000 lines a
# second, SIGKILLed five times (1.5 s into each run), each time started
# again on the same persist file (-R): every line arrives, and a kill
# repeats only what was read since the persist file was last written (it
# is written once a second) and what was not yet written: at most about
# two seconds of lines per kill.  Positions that never reached the persist
# file would make each start repeat every earlier run.  Then a SIGTERM
# and a start again: not one line twice.  loggen's checker counts them.
# Usage: file-kill.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2

batch=2000 batches=120 # 20,000 lines a second for 12 s
lines=$((batch * batches))
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { file("$work/in.log" follow-freq(1)); };
destination d { file("$work/out.log" template("\$MSG\n")); };
log { source(s); destination(d); flags(flow-control); };
EOF2

: >"$work/in.log"
awk -v b="$batch" -v n="$batches" 'BEGIN {
  for (k = 0; k < n; k++) {
    for (i = k * b; i < (k + 1) * b; i++)
      printf "<13>Nov 22 10:00:00 host app[1]: seq: %010d, thread: 0000, runid: 1764000030, stamp: x PADD\n", i
    fflush()
    system("sleep 0.1")
  }
}' >>"$work/in.log" &
writer=$!

start() {
  start_sluice "$sluice" "$work/sluice.conf" -R "$work/sluice.persist"
}
# check: $uniq (distinct lines) and $dups from loggen's checker
check() {
  "$loggen" --check "$work/out.log" --allow-duplicates >"$work/report" || { cat "$work/report"; fail "$1: loss"; }
  dups=$(sed -n 's/^check: .* duplicated=\([0-9]*\) .*/\1/p' "$work/report")
  uniq=$(($(sed -n 's/^check: .* received=\([0-9]*\) .*/\1/p' "$work/report") - dups))
}

kills=0
while [ $kills -lt 5 ]; do
  start
  sleep 1.5
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
  kills=$((kills + 1))
  check "kill $kills"
  echo "kill $kills: $(wc -l <"$work/out.log") lines arrived, $uniq different, $dups twice"
done
kill -0 $writer 2>/dev/null || fail "the writer ended before the last kill: the kills were not mid-file"

# a graceful stop while the file grows (this run repeats what the last
# kill left unsaved): the run after it repeats nothing
start
sleep 1
stop_sluice
check "SIGTERM"
dups_kill=$dups
wait $writer
start
wait_lines "$work/out.log" $((lines + dups))
stop_sluice
check "after the SIGTERM"
cat "$work/report"
[ "$uniq" -eq "$lines" ] || fail "$uniq of $lines lines arrived"
[ "$dups" -eq "$dups_kill" ] || fail "the start after the SIGTERM repeated $((dups - dups_kill)) lines"
# per kill: a second between writes of the persist file, and a second more
# for the run's start and the kill's timing, at 20,000 lines a second
bound=$((kills * 2 * 20000))
echo "file-kill: $lines lines, $kills SIGKILLs and a SIGTERM: none lost, $dups_kill twice (bound $bound)"
[ "$dups_kill" -le "$bound" ] || fail "$dups_kill lines twice after $kills kills, more than $bound"
