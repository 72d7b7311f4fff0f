#!/bin/sh
# file() source killed with SIGKILL in the middle of a big file, five
# times, each time started again on the same persist file (-R): every line
# arrives, and a kill repeats no more than what its own run wrote (the
# persist file is written once a second, so a kill repeats what was read
# since it was last written and what was not yet written; positions that
# never reached the file would make each start repeat every earlier run
# too).  Then a SIGTERM in the middle of the file and a start again: not
# one line twice.  loggen's checker counts them.
# Usage: file-kill.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2

lines=${FILE_KILL_LINES:-500000}
iw=1000
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { file("$work/in.log" follow-freq(1) log-iw-size($iw)); };
destination d { file("$work/out.log" template("\$MSG\n")); };
log { source(s); destination(d); flags(flow-control); };
EOF2

# lines in loggen's format, numbered 0.., all of one length
awk -v n="$lines" 'BEGIN {
  for (i = 0; i < n; i++)
    printf "<13>Nov 22 10:00:00 host app[1]: seq: %010d, thread: 0000, runid: 1764000030, stamp: x PADD\n", i
}' >"$work/in.log"
# what one line is in out.log ($MSG and a newline)
linelen=$(head -n 1 "$work/in.log" | sed 's/^.*app\[1\]: //' | wc -c)

start() {
  start_sluice "$sluice" "$work/sluice.conf" -R "$work/sluice.persist"
}
# grow N: until out.log holds N lines more than when called (by its size:
# the lines are all as long), or 60 s passed
grow() {
  _g0=$(($(stat -c %s "$work/out.log" 2>/dev/null || echo 0) / linelen))
  _u=0
  while [ "$(($(stat -c %s "$work/out.log" 2>/dev/null || echo 0) / linelen - _g0))" -lt "$1" ]; do
    _u=$((_u + 1))
    [ $_u -lt 1200 ] || fail "out.log did not grow by $1 lines"
    sleep 0.02
  done
}
# check: $report from loggen's checker, $uniq (distinct lines) and $dups
check() {
  "$loggen" --check "$work/out.log" --allow-duplicates >"$work/report" || { cat "$work/report"; fail "$1: loss"; }
  dups=$(sed -n 's/^check: .* duplicated=\([0-9]*\) .*/\1/p' "$work/report")
  uniq=$(($(sed -n 's/^check: .* received=\([0-9]*\) .*/\1/p' "$work/report") - dups))
}

# five kills, each after a tenth of the file more arrived
kills=0
written=0
while [ $kills -lt 5 ]; do
  _w0=$(wc -l <"$work/out.log" 2>/dev/null || echo 0)
  start
  grow $((lines / 10))
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
  kills=$((kills + 1))
  written=$((written + $(wc -l <"$work/out.log") - _w0))
  check "kill $kills"
  echo "kill $kills: $(wc -l <"$work/out.log") lines arrived, $uniq different, $dups twice"
done
[ "$uniq" -lt "$lines" ] || fail "the file was read to its end before the last kill: make it bigger"

# a graceful stop in the middle of the file: the run after it repeats
# nothing this run wrote (what this run repeats itself is the last kill's)
n0=$(wc -l <"$work/out.log")
start
grow $((lines / 10))
stop_sluice
check "SIGTERM"
[ "$uniq" -lt "$lines" ] || fail "the file was read to its end before the SIGTERM: make it bigger"
n1=$(wc -l <"$work/out.log")
dups_kill=$dups
echo "SIGTERM: $n1 lines arrived, $uniq different, $dups twice"
start
# on to the file's last line (the file is read in order)
last=$(tail -n 1 "$work/in.log" | sed 's/.*\(seq: [0-9]*\).*/\1/')
i=0
until tail -n 1 "$work/out.log" | grep -q "$last"; do
  i=$((i + 1))
  [ $i -lt 600 ] || fail "the file's last line did not arrive"
  sleep 0.1
done
stop_sluice
check "after the SIGTERM"
cat "$work/report"
[ "$uniq" -eq "$lines" ] || fail "$uniq of $lines lines arrived"
seqs() { sed -n "$1,$2p" "$work/out.log" | sed 's/.*seq: \([0-9]*\).*/\1/' | sort; }
seqs $((n0 + 1)) "$n1" >"$work/term.seqs"
seqs $((n1 + 1)) '$' >"$work/after.seqs"
again=$(comm -12 "$work/term.seqs" "$work/after.seqs" | wc -l)
[ "$again" -eq 0 ] || fail "the start after the SIGTERM repeated $again lines the stopped run wrote"
# A kill repeats at most what its own run wrote (everything since the
# persist file was last written, at worst all of the run), plus, for the
# lines read before the start and not yet acknowledged, the window
# (log-iw-size(): with flow control a message holds its slot until the
# destination wrote it) and one read (64 KiB, LOG_FRAMER_READ_SIZE).
# Positions that never reached the persist file would repeat every
# earlier run at each start: about twice this.
bound=$((written + kills * (iw + 65536 / linelen)))
echo "file-kill: $lines lines, $kills SIGKILLs and a SIGTERM: none lost, $dups_kill twice (bound $bound)"
[ "$dups_kill" -le "$bound" ] || fail "$dups_kill lines twice after $kills kills, more than $bound"
