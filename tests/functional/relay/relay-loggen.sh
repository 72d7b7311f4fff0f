#!/bin/sh
# loggen -> Sluice relay (tcp() destination) -> Sluice server -> file(),
# checked by loggen's loss checker, with the server stopped and started
# again in the middle of the run.
#
# With flags(flow-control) the relay's queue holds what the server cannot
# take (the relay's queued counter shows it while the server is down) and
# nothing is dropped.  What the relay had already put into the kernel when
# the server stopped is read too: the stopping server half-closes the
# connection and reads it to its end, the relay sees the end before its
# next batch and sends the rest on the next connection.  So nothing may be
# missing, duplicated (a line the relay half wrote is sent again whole on
# the new connection, and the server drops the unterminated fragment it
# got of it) or reordered, and the relay's counters must add up:
# written = sent, dropped = 0.
#
# Without flow control (second run), a relay queue that fills while the
# server is down drops, and the drops are counted: received + dropped = sent.
#
# Third run: the server stays up and the relay is reloaded three times
# under load; keep-alive(yes) (the default) carries its connection across
# (the server accepts one connection in all) and nothing is lost,
# duplicated or reordered.
#
# Usage: relay-loggen.sh SLUICE SLUICE_CTL LOGGEN
. "$(dirname "$0")/../lib.sh"
sluice=$1 ctl=$2 loggen=$3
srv_pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$work"' EXIT

start_server() {
  rm -f "$work/server.log"
  "$sluice" -F -v -f "$work/server.conf" -p "$work/server.pid" -c "$work/server.ctl" >"$work/server.log" 2>&1 &
  srv_pid=$!
  i=0
  while ! grep -q "starting up" "$work/server.log" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 100 ] && kill -0 "$srv_pid" 2>/dev/null || fail "server did not start: $(cat "$work/server.log")"
    sleep 0.1
  done
}

stop_server() {
  kill -TERM "$srv_pid"
  wait "$srv_pid" || fail "server exited with $?"
  srv_pid=
}

# stat NAME: the relay destination's counter NAME
stat() {
  "$ctl" -c "$work/relay.ctl" stats | sed -n "s/^dst\.tcp;d_relay#0;tcp,127.0.0.1:[0-9]*;a;$1;//p"
}

# run FLAGS FIFO N MODE: one relay run, MODE restart (the server) or reload
# (the relay); sets result to "missing dropped"
run() {
  flags=$1 fifo=$2 n=$3 mode=$4
  set -- $(free_ports tcp tcp)
  in_port=$1 srv_port=$2
  rm -f "$work/out.log"
  cat >"$work/server.conf" <<EOC
@version: 3.38
options { stats-freq(0); };
source s { network(ip(127.0.0.1) port($srv_port) keep-hostname(yes) log-iw-size(1000)); };
destination d { file("$work/out.log"); };
log { source(s); destination(d); };
EOC
  cat >"$work/relay.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { network(ip(127.0.0.1) port($in_port) log-iw-size(1000)); };
destination d_relay { tcp("127.0.0.1" port($srv_port) time-reopen(1) log-fifo-size($fifo)); };
log { source(s); destination(d_relay); $flags };
EOC
  start_server
  start_sluice "$sluice" "$work/relay.conf" -c "$work/relay.ctl"
  "$loggen" -S -Q -r 10000 -n "$n" 127.0.0.1 "$in_port" 2>/dev/null &
  lg=$!
  sleep 1.5
  if [ "$mode" = restart ]; then
    stop_server
    sleep 1.5
    queued=$(stat queued)
    [ "${queued:-0}" -gt 0 ] || fail "nothing queued in the relay while the server was down ($queued)"
    start_server
  else
    queued=-
    for r in 1 2 3; do
      kill -HUP "$pid"
      # one reload at a time: the next signal only after this one handed over
      i=0
      until [ "$(grep -c 'Destination connection kept across the reload' "$work/sluice.log")" -ge $r ]; do
        i=$((i + 1))
        [ $i -lt 200 ] || fail "reload $r did not keep the connection: $(tail -5 "$work/sluice.log")"
        sleep 0.05
      done
      sleep 0.3
    done
    [ "$(grep -c 'Destination connection kept across the reload' "$work/sluice.log")" -eq 3 ] \
      || fail "the connection was not kept: $(grep -i 'reload\|connection' "$work/sluice.log" | tail -5)"
    [ "$(grep -c 'Syslog connection accepted' "$work/server.log")" -eq 1 ] \
      || fail "the server saw more than one connection: $(grep 'connection' "$work/server.log")"
  fi
  wait $lg || fail "loggen"
  i=0
  while [ "$(stat written)" -lt "$n" ] && [ $((  $(stat written) + $(stat dropped) )) -lt "$n" ]; do
    i=$((i + 1))
    [ $i -lt 300 ] || fail "the relay did not write out its queue: written=$(stat written) dropped=$(stat dropped)"
    sleep 0.1
  done
  written=$(stat written) dropped=$(stat dropped)
  [ "$(stat queued)" -eq 0 ] || fail "queued left"
  stop_sluice
  [ "$mode" = reload ] && [ "$(grep -c 'Syslog connection accepted' "$work/server.log")" -ne 1 ] && fail "reconnected"
  stop_server
  "$loggen" --check "$work/out.log" >"$work/report" || true
  sed -n 's/^check: threads=[0-9]* received=\([0-9]*\) missing=\([0-9]*\) duplicated=\([0-9]*\) reordered=\([0-9]*\).*/\1 \2 \3 \4/p' \
    "$work/report" >"$work/counts"
  read -r received missing duplicated reordered <"$work/counts" || fail "no report: $(cat "$work/report")"
  echo "$flags fifo=$fifo: sent=$n relay written=$written dropped=$dropped queued-while-down=$queued;" \
    "server received=$received missing=$missing duplicated=$duplicated reordered=$reordered"
  [ "$duplicated" -eq 0 ] || fail "duplicates"
  [ "$reordered" -eq 0 ] || fail "reordered"
  [ $((written + dropped)) -eq "$n" ] || fail "relay counters: written $written + dropped $dropped != $n"
  result="$missing $dropped"
}

n=40000
run "flags(flow-control);" 100000 $n restart
set -- $result
[ "$2" -eq 0 ] || fail "flow control dropped $2"
[ "$1" -eq 0 ] || fail "$1 lines missing around the server's restart"

run "" 2000 $n restart
set -- $result
[ "$2" -gt 0 ] || fail "without flow control a 2000 queue should have dropped while the server was down"

run "flags(flow-control);" 100000 $n reload
set -- $result
[ "$1" -eq 0 ] && [ "$2" -eq 0 ] || fail "lost across reloads: missing $1, dropped $2"
echo "relay-loggen: ok"
