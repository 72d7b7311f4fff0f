#!/bin/sh
# program() source: a shell loop that prints N lines in loggen's format (a
# runid of its own per run) and exits is restarted, after a wait that
# grows while it keeps ending at once; its child runs in its own process
# group with stdin and stderr on /dev/null; a reload stops the old program
# (and what it left in its group) and starts the new configuration's; a
# stop ends the program and its process group.  loggen's checker counts
# every line: every run's lines, none missing, none twice.
# Usage: program-source.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2
n=300

# one run: N lines, a runid from a counter kept in $work, then exit
cat >"$work/gen.sh" <<EOF2
runs=\$(cat "$work/runs" 2>/dev/null || echo 0)
runs=\$((runs + 1))
echo \$runs >"$work/runs"
awk -v n=$n -v r=\$((1764000000 + runs)) 'BEGIN {
  for (i = 0; i < n; i++)
    printf "<13>Nov 22 10:00:00 host app[1]: seq: %010d, thread: 0000, runid: %d, stamp: x PADD\n", i, r
}'
EOF2
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { program("sh $work/gen.sh"); };
# leaves a sleep in its process group and prints nothing: a stop must end both
source s_idle { program("sleep 600 & exec sleep 601"); };
destination d { file("$work/out.log" template("\$HOST \$PROGRAM [\$TRANSPORT] \$MSG\n")); };
log { source(s); source(s_idle); destination(d); };
EOF2

runs() { cat "$work/runs" 2>/dev/null || echo 0; }
# wait_runs K: until the program has run K times
wait_runs() {
  _w=0
  while [ "$(runs)" -lt "$1" ]; do
    _w=$((_w + 1))
    [ $_w -lt 200 ] || fail "the program ran $(runs) times, want $1"
    sleep 0.1
  done
}
# idle_pgid: the process group of the daemon's child running "sleep 601"
idle_pgid() {
  for _c in $(ps -o pid= --ppid "$pid"); do
    if tr '\0' ' ' <"/proc/$_c/cmdline" 2>/dev/null | grep -q "sleep 601"; then
      ps -o pgid= -p "$_c" | tr -d ' '
      return
    fi
  done
}

start_sluice "$sluice" "$work/sluice.conf"
wait_runs 3
wait_lines "$work/out.log" $((3 * n))
grep -q "restart_in_seconds='1.000'" "$work/sluice.log" || fail "no first wait of 1 s"
grep -q "restart_in_seconds='2.000'" "$work/sluice.log" || fail "the wait did not grow"
head -1 "$work/out.log" | grep -q "^$(hostname | cut -d. -f1) app \[local+program\] seq: " \
  || fail "HOST, PROGRAM or TRANSPORT: $(head -1 "$work/out.log")"

g=$(idle_pgid)
[ -n "$g" ] || fail "the idle program is not running"
for f in 0 2; do
  [ "$(readlink "/proc/$g/fd/$f")" = /dev/null ] || fail "fd $f is not /dev/null: $(readlink "/proc/$g/fd/$f")"
done
readlink "/proc/$g/fd/1" | grep -q "^pipe:" || fail "stdout is not a pipe: $(readlink "/proc/$g/fd/1")"
[ "$(pgrep -g "$g" | wc -l)" -eq 2 ] || fail "process group $g: $(pgrep -g "$g" | tr '\n' ' ')"

# a reload: the old program and its group go, the new configuration's starts
reload_sluice
i=0
while pgrep -g "$g" >/dev/null; do
  i=$((i + 1))
  [ $i -lt 50 ] || fail "the old program's group outlived the reload: $(pgrep -g "$g" | tr '\n' ' ')"
  sleep 0.1
done
g2=$(idle_pgid)
[ -n "$g2" ] && [ "$g2" != "$g" ] || fail "no new program after the reload"

# a stop ends the program and everything in its process group
before=$(runs)
stop_sluice
# (signalled before the daemon exited; a moment to be reaped by init)
i=0
while pgrep -g "$g2" >/dev/null; do
  i=$((i + 1))
  [ $i -lt 20 ] || fail "the program's group outlived the stop: $(pgrep -g "$g2" | tr '\n' ' ')"
  sleep 0.1
done
sleep 1.2
[ "$(runs)" -eq "$before" ] || fail "the program was started after the stop"

# every run that started printed its N lines (a stop may cut the last)
"$loggen" --check "$work/out.log" >"$work/report" || true
grep -q "missing=0 duplicated=0 reordered=0" "$work/report" || { cat "$work/report"; fail "loss"; }
got=$(wc -l <"$work/out.log")
[ "$got" -ge $(((before - 1) * n)) ] || fail "$got lines from $before runs of $n"
echo "program-source: $before runs, $got lines, restarted with a growing wait, reloaded, stopped"
