#!/bin/sh
# loggen -> Sluice relay (relp() destination) -> Sluice server (relp()
# source) -> file(), checked by loggen's loss checker.
#
# The server first runs with a second destination that cannot connect
# (a closed port), so no message is ever written by EVERY destination and
# none is answered, although file() has them: the relay's window fills
# (window-size(500)) and it stops.  Then the server is killed (SIGKILL)
# and started again with file() alone: the relay must send them again
# (they come twice: duplicates are what RELP allows for messages in
# flight) and go on.  Later the server is stopped (SIGTERM: serverclose)
# and started again, then reloaded twice (SIGHUP: the listener is carried,
# the connections get serverclose and the relay comes back).  Nothing may
# be missing.
#
# The second run has the server's log path without flags(flow-control):
# a relp() source is flow control all the same (its answers wait for the
# write), so the same must hold.
#
# Usage: relp-relay.sh SLUICE SLUICE_CTL LOGGEN
. "$(dirname "$0")/../lib.sh"
sluice=$1 ctl=$2 loggen=$3
srv_pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$srv_pid" ] && kill -9 "$srv_pid" 2>/dev/null; rm -rf "$work"' EXIT

start_server() {
  : >"$work/server.log"
  "$sluice" -F -v -f "$work/server.conf" -p "$work/server.pid" -c "$work/server.ctl" >>"$work/server.log" 2>&1 &
  srv_pid=$!
  i=0
  while ! grep -q "starting up" "$work/server.log" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 100 ] && kill -0 "$srv_pid" 2>/dev/null || fail "server did not start: $(cat "$work/server.log")"
    sleep 0.1
  done
}

# check: sets received missing duplicated reordered from loggen --check
check() {
  "$loggen" --check "$work/out.log" >"$work/report" 2>&1 || true
  sed -n 's/^check: threads=[0-9]* received=\([0-9]*\) missing=\([0-9]*\) duplicated=\([0-9]*\) reordered=\([0-9]*\).*/\1 \2 \3 \4/p' \
    "$work/report" >"$work/counts"
  read -r received missing duplicated reordered <"$work/counts" || { received=0 missing=-1 duplicated=0 reordered=0; }
}

# run SERVER_FLAGS N
run() {
  srv_flags=$1 n=$2
  set -- $(free_ports tcp tcp tcp)
  in_port=$1 srv_port=$2 dead_port=$3
  rm -f "$work/out.log"
  cat >"$work/server-stuck.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { relp(ip(127.0.0.1) port($srv_port) log-iw-size(2000) max-connections(2)); };
destination d { file("$work/out.log"); };
destination d_dead { tcp("127.0.0.1" port($dead_port) time-reopen(60)); };
log { source(s); destination(d); destination(d_dead); $srv_flags };
EOC
  cat >"$work/server-ok.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { relp(ip(127.0.0.1) port($srv_port) log-iw-size(2000) max-connections(2)); };
destination d { file("$work/out.log"); };
log { source(s); destination(d); $srv_flags };
EOC
  cp "$work/server-stuck.conf" "$work/server.conf"
  cat >"$work/relay.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { network(ip(127.0.0.1) port($in_port) log-iw-size(1000)); };
destination d_relp { relp("127.0.0.1" port($srv_port) time-reopen(1) window-size(500)); };
log { source(s); destination(d_relp); flags(flow-control); };
EOC
  start_server
  start_sluice "$sluice" "$work/relay.conf" -c "$work/relay.ctl"
  # slow enough to still be sending when the reloads come
  "$loggen" -S -Q -r 4000 -n "$n" 127.0.0.1 "$in_port" 2>/dev/null &
  lg=$!
  # the relay's window fills with messages the server wrote to file() but
  # cannot answer
  i=0 last=-1
  while :; do
    before=$(wc -l <"$work/out.log" 2>/dev/null || echo 0)
    [ "$before" -ge 100 ] && [ "$before" -eq "$last" ] && break
    last=$before
    i=$((i + 1))
    [ $i -lt 40 ] || fail "the server got no messages: $before $(tail -n 5 "$work/server.log")"
    sleep 0.5
  done
  [ "$before" -lt "$n" ] || fail "the relay did not wait for answers ($before lines)"
  kill -9 "$srv_pid"
  wait "$srv_pid" 2>/dev/null || true
  cp "$work/server-ok.conf" "$work/server.conf"
  sleep 1
  start_server
  sleep 1.5
  kill -TERM "$srv_pid"
  wait "$srv_pid" || fail "server exited with $?: $(tail -n 30 "$work/server.log")"
  start_server
  # two reloads: the listener is carried, the connections get serverclose
  for r in 1 2; do
    sleep 0.7
    kill -HUP "$srv_pid"
  done
  wait $lg || fail "loggen"
  # the relay came back after the last reload
  i=0
  while [ "$(awk '/Accepting RELP connections/ { n = 0 } /RELP connection accepted/ { n++ } END { print n + 0 }' \
               "$work/server.log")" -lt 1 ]; do
    i=$((i + 1))
    [ $i -lt 100 ] || fail "the relay did not come back after the reloads: $(grep RELP "$work/server.log")"
    sleep 0.1
  done
  # until everything is there (the relay resends after time-reopen)
  i=0
  while check && [ "$missing" -ne 0 ]; do
    i=$((i + 1))
    [ $i -lt 120 ] || break
    sleep 0.5
  done
  resent=$(sed -n "s/.*RELP sending unanswered messages again.*count='\([0-9]*\)'.*/\1/p" "$work/sluice.log" | head -n 1)
  [ "${resent:-0}" -ge 100 ] || fail "the relay did not resend its window: $(grep RELP "$work/sluice.log" | tail -5)"
  stop_sluice
  kill -TERM "$srv_pid"
  wait "$srv_pid" || fail "server exited with $?: $(tail -n 30 "$work/server.log")"
  srv_pid=
  check
  echo "server flags '$srv_flags': sent=$n lines before the kill=$before received=$received missing=$missing" \
    "duplicated=$duplicated reordered=$reordered first resend=$resent"
  [ "$missing" -eq 0 ] || fail "lost across the server's restarts: $(cat "$work/report")"
  [ "$duplicated" -ge 100 ] || fail "the window sent again should show as duplicates ($duplicated)"
}

run "flags(flow-control);" 40000
run "" 40000
echo "relp-relay: ok"
