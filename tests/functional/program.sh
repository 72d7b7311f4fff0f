#!/bin/sh
# program(): the daemon runs `cat >> out.log` once and writes its lines to
# the program's stdin.  A child killed with SIGKILL is restarted after
# time-reopen() and the lines sent while it was down wait in the queue; a
# reload keeps the same process while the running configuration says
# keep-alive(yes) and starts a new one after keep-alive(no); a stop ends
# the program and whatever it left in its process group.  loggen's checker
# counts every line: none missing, none twice.
# Usage: program.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2
set -- $(free_ports tcp)
port=$1

# conf KEEP_ALIVE: write the configuration
conf() {
  cat >"$work/sluice.conf" <<EOF2
@version: 3.38
options { keep-hostname(yes); };
source s { network(ip(127.0.0.1) port($port)); };
destination d { program("cat >> $work/out.log" time-reopen(3) keep-alive($1)); };
# leaves a sleep in its process group: a stop must end that too
destination d2 { program("sleep 600 & cat > /dev/null"); };
log { source(s); destination(d); destination(d2); flags(flow-control); };
EOF2
}

# child COMMAND_PATTERN: the pid of the daemon's child running it
child() {
  for _c in $(ps -o pid= --ppid "$pid"); do
    if tr '\0' ' ' <"/proc/$_c/cmdline" 2>/dev/null | grep -q -- "$1"; then
      echo "$_c"
      return
    fi
  done
}

# send N: N lines over TCP, then wait until out.log has WANT lines
sent=0
send() {
  sleep 1.1 # each loggen run gets its own runid (a second apart)
  "$loggen" -S -Q -r 20000 -n "$1" 127.0.0.1 "$port" 2>/dev/null || fail "loggen"
  sent=$((sent + $1))
}
arrived() {
  wait_lines "$work/out.log" $sent
  [ "$(wc -l <"$work/out.log")" -eq $sent ] || fail "out.log has $(wc -l <"$work/out.log") lines, want $sent"
}


conf yes
start_sluice "$sluice" "$work/sluice.conf"
c1=$(child "cat >> ")
[ -n "$c1" ] || fail "the program was not started at start"
pg=$(ps -o pgid= -p "$c1" | tr -d ' ')
[ "$pg" = "$c1" ] || fail "the program is not in its own process group ($pg)"
[ "$(readlink /proc/$c1/fd/1)" = /dev/null ] || [ "$(readlink /proc/$c1/fd/1)" = "$work/out.log" ] \
  || fail "stdout: $(readlink /proc/$c1/fd/1)"
[ "$(readlink /proc/$c1/fd/2)" = /dev/null ] || fail "stderr is not /dev/null: $(readlink /proc/$c1/fd/2)"
# no descriptor of the daemon's but the pipe (its listener least of all)
ls -l "/proc/$c1/fd/" | grep -q "socket:" && fail "the program holds the daemon's sockets: $(ls -l /proc/$c1/fd/)"

send 2000
arrived
[ "$(child "cat >> ")" = "$c1" ] || fail "one program for every message, not one per message"
reader=$(pgrep -g "$c1" -x cat | head -1)
[ -n "$reader" ] || fail "no cat in the program's process group"
[ -r "/proc/$reader/io" ] || fail "no /proc/PID/io (task I/O accounting) to tell what cat holds"
# io_gap: how many bytes cat has read and not written, and what it read at
# its start (cat is idle now: every line is in out.log)
io_gap() {
  awk '$1 == "rchar:" { r = $2 } $1 == "wchar:" { w = $2 } END { print r - w }' "/proc/$reader/io"
}
base=$(io_gap)

# SIGKILL to the program's process group (the shell and its cat) while
# lines stream in: what was unread in its pipe goes to the next one, which starts
# after time-reopen(3), not at once; what comes meanwhile waits in the
# queue
sleep 1.1
"$loggen" -S -Q -r 4000 -n 6000 127.0.0.1 "$port" 2>/dev/null &
lg=$!
# stopped first, so that its pipe fills up: the kill leaves lines in it.
# Only while cat holds nothing it read and did not write: stopped between
# a read and its write, cat would take those lines with it (a loss no
# daemon can help).  /proc/PID/io tells: cat read RCHAR bytes and wrote
# WCHAR; when it holds nothing, the two differ by its start's reads alone
# (the base, taken above).  A stop right after a read
# returned still shows read(2) in /proc/PID/syscall, so that is no test.
sleep 0.4
i=0
while :; do
  /bin/kill -STOP -- "-$c1"
  sleep 0.02
  [ "$(io_gap)" = "$base" ] && break
  /bin/kill -CONT -- "-$c1"
  i=$((i + 1)); [ $i -lt 500 ] || fail "cat was never caught holding nothing (read - written: $(io_gap), base $base)"
  sleep 0.005
done
sleep 0.3
/bin/kill -KILL -- "-$c1"
sleep 0.5
[ -z "$(child "cat >> ")" ] || fail "restarted before time-reopen()"
wait $lg || fail "loggen"
sent=$((sent + 6000))
wait_log "Child program exited, restarting"
wait_log "Lines the program did not read go to its next run"
i=0
while c2=$(child "cat >> "); [ -z "$c2" ] || [ "$c2" = "$c1" ]; do
  i=$((i + 1)); [ $i -lt 100 ] || fail "the program was not restarted"; sleep 0.1
done
arrived
kill -0 "$pid" || fail "the daemon died (SIGPIPE?)"

# reload with keep-alive(yes): the same process writes on
reload_sluice
[ "$(child "cat >> ")" = "$c2" ] || fail "keep-alive(yes): the program was restarted by the reload"
send 1000
arrived
# the new configuration says keep-alive(no); the running one said yes: kept
conf no
reload_sluice
[ "$(child "cat >> ")" = "$c2" ] || fail "keep-alive(yes) of the running configuration was not honoured"
# now the running configuration says no: a new process
reload_sluice
c3=$(child "cat >> ")
[ -n "$c3" ] && [ "$c3" != "$c2" ] || fail "keep-alive(no): the reload kept the program ($c3)"
kill -0 "$c2" 2>/dev/null && fail "keep-alive(no): the old program still runs"
send 1000
arrived

# stop: the programs end, with what they left in their process groups
d2=$(child "sleep 600 & cat")
[ -n "$d2" ] || fail "d2 did not start"
stop_sluice
kill -0 "$c3" 2>/dev/null && fail "the program outlived the daemon"
sleep 0.2
[ -z "$(ps -o pid= -g "$d2")" ] || fail "the process group of d2 outlived the daemon: $(ps -o pid=,args= -g "$d2")"

"$loggen" --check "$work/out.log" >"$work/report" || { cat "$work/report"; fail "loss"; }
grep -q "received=$sent missing=0 duplicated=0 reordered=0: OK\$" "$work/report" \
  || { cat "$work/report"; fail "report"; }
echo "program: $sent lines through program(), restarted once, kept across a reload"
