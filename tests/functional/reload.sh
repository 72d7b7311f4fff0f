#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Reload loses nothing: loggen sends sequence-numbered lines over four TCP
# connections and two unix-stream ones while the daemon is reloaded ten
# times, alternating a changed and an unchanged configuration, one of them
# broken (refused, the running one kept).  The listening sockets, the live
# connections and the queued messages are carried across: the loss checker
# must find every line exactly once and in order, and no sender may see an
# error (a reset or a refused connection).
# Usage: reload.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2
set -- $(free_ports tcp)
port=$1

# a: the plain configuration; b: changed (another destination, other
# source options, a filter); broken: a syntax error
write_conf() {
  case $1 in
  a)
    cat >"$work/sluice.conf" <<EOF
@version: 3.38
options { keep-hostname(yes); };
source s {
  network(ip(127.0.0.1) port($port) log-iw-size(2000));
  unix-stream("$work/in.sock" log-iw-size(2000));
};
destination d { file("$work/out.log"); };
log { source(s); destination(d); flags(flow-control); };
EOF
    ;;
  b)
    cat >"$work/sluice.conf" <<EOF
@version: 3.38
options { keep-hostname(yes); log-fifo-size(5000); };
source s {
  network(ip(127.0.0.1) port($port) log-iw-size(3000) log-fetch-limit(20) so-rcvbuf(1048576));
  unix-stream("$work/in.sock" log-iw-size(3000) max-connections(5));
};
destination d { file("$work/out.log"); };
destination d_even { file("$work/even.log" template("\$MSG\n")); };
filter f_even { message("thread: 0000"); };
log { source(s); destination(d); flags(flow-control); };
log { source(s); filter(f_even); destination(d_even); };
EOF
    ;;
  broken)
    printf '@version: 3.38\nsource s { network(port(%s) };\n' "$port" >"$work/sluice.conf"
    ;;
  esac
}

reloads() {
  grep -c "$1" "$work/sluice.log" 2>/dev/null || true
}

write_conf a
start_sluice "$sluice" "$work/sluice.conf"
[ -S "$work/in.sock" ] || fail "no unix socket"

# 4 x 12000 over TCP and 2 x 12000 over the unix socket at 2000 lines/s
# each: six seconds of traffic, 72000 lines
"$loggen" -S -Q -r 2000 -n 12000 --active-connections=4 127.0.0.1 "$port" >"$work/tcp.out" 2>"$work/tcp.err" &
tcp_pid=$!
# a second apart: each run has its own runid for the checker
sleep 1.1
"$loggen" -x -Q -r 2000 -n 12000 --active-connections=2 "$work/in.sock" >"$work/unix.out" 2>"$work/unix.err" &
unix_pid=$!
sleep 0.5

done_ok=0
for i in 1 2 3 4 5 6 7 8 9 10; do
  case $i in
  5) kind=broken ;;
  *) if [ $((i % 2)) -eq 0 ]; then kind=b; else kind=a; fi ;;
  esac
  write_conf $kind
  before_ok=$(reloads "Configuration reload finished")
  before_bad=$(reloads "Error reloading configuration")
  kill -HUP "$pid"
  n=0
  while :; do
    if [ $kind = broken ]; then
      [ "$(reloads "Error reloading configuration")" -gt "$before_bad" ] && break
    else
      [ "$(reloads "Configuration reload finished")" -gt "$before_ok" ] && break
    fi
    n=$((n + 1))
    [ $n -lt 100 ] || fail "reload $i ($kind) did not finish"
    sleep 0.1
  done
  [ $kind = broken ] || done_ok=$((done_ok + 1))
  kill -0 "$pid" 2>/dev/null || fail "sluice died at reload $i"
  sleep 0.4
done
[ $done_ok -eq 9 ] || fail "$done_ok reloads instead of 9"

wait $tcp_pid || fail "loggen tcp exited with $?: $(cat "$work/tcp.err")"
wait $unix_pid || fail "loggen unix exited with $?: $(cat "$work/unix.err")"
if grep -i "error" "$work/tcp.err" "$work/unix.err"; then
  fail "a sender saw an error"
fi

want=72000
wait_lines "$work/out.log" $want
stop_sluice
# connections outlived the reloads: none was accepted anew
[ "$(grep -c "Syslog connection accepted" "$work/sluice.log")" -eq 6 ] \
  || fail "connections were accepted again: $(grep -c "Syslog connection accepted" "$work/sluice.log")"
grep -q "Syslog connection kept across reload" "$work/sluice.log" || fail "no connection was carried"

"$loggen" --check "$work/out.log" >"$work/report" || { cat "$work/report"; fail "loss"; }
grep -q "^check: threads=6 received=$want missing=0 duplicated=0 reordered=0: OK\$" "$work/report" \
  || { cat "$work/report"; fail "report"; }
# the changed configuration ran: its second destination got lines
[ -s "$work/even.log" ] || fail "configuration b never ran"
echo "reload: $want lines exactly once across 10 reloads"
