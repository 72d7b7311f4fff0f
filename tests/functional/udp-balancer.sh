#!/bin/sh
# udp-balancer(listeners(4)) on loopback, its per-listener counters read
# with sluice-ctl stats:
#  - balance(sender): eight senders, one after another; each sender's
#    datagrams all reach one listener (its counter alone grows by the
#    sender's count) and the file has them in order; the senders spread
#    over more than one listener; a sender from one address and port is on
#    the same listener before and after a reload;
#  - balance(random) and balance(round-robin), after a reload each: one
#    sender's datagrams spread over more than one listener;
#  - a reload (SIGHUP) while a sender sends 3000 datagrams at a modest
#    rate loses none of them;
#  - with the daemon stopped (SIGSTOP), 5000 datagrams overflow the
#    receive buffer of their listener: after SIGCONT each one is either
#    processed or in that listener's "dropped" row (the kernel's count).
# Skipped (77) where this process may not load an eBPF program.
# Usage: udp-balancer.sh SLUICE SLUICE_CTL
. "$(dirname "$0")/lib.sh"
sluice=$1 ctl=$2
send="python3 $(dirname "$0")/udp-send.py"
set -- $(free_ports udp udp)
port=$1 from=$2
out=$work/out.log

conf() {
  cat >"$work/sluice.conf" <<EOF2
@version: 3.38
options { stats-freq(0); };
source s { udp-balancer(ip(127.0.0.1) port($port) listeners(4) balance($1)); };
destination d { file("$out" template("\${MSG}\n")); };
log { source(s); destination(d); };
EOF2
}

conf sender
start_sluice_or_skip "Error loading the udp-balancer() program.*Operation not permitted" \
  "$sluice" "$work/sluice.conf" -c "$work/ctl"

lines() { cat "$out" 2>/dev/null | wc -l; }
# wait_total N: until the file has N lines (30 s at most)
wait_total() {
  _w=0
  while [ "$(lines)" -lt "$1" ]; do
    _w=$((_w + 1))
    [ $_w -lt 300 ] || fail "$(lines) of $1 lines"
    sleep 0.1
  done
}
# the four listeners' counters, "#0 #1 #2 #3" in order
counters() {
  "$ctl" -c "$work/ctl" stats | awk -F';' -v p="AF_INET(127.0.0.1:$port)#" '
    $1 == "src.udp-balancer" && index($3, p) == 1 && $5 == "processed" { n[substr($3, length(p) + 1)] = $6; k++ }
    END { if (k != 4) exit 1; print n[0], n[1], n[2], n[3] }' || fail "no four listener rows in the stats"
}

# one_listener TAG [FROM]: one sender (from port FROM when given) sends 50
# datagrams; they must all reach one listener, whose index is left in
# $listener, and be written in the order sent
total=0
one_listener() {
  before=$(counters)
  $send "$port" "$1" 50 2000 ${2:-} || fail "sender $1"
  total=$((total + 50))
  wait_total $total
  after=$(counters)
  # the one listener whose counter grew, and by exactly 50
  grew=$(echo "$before $after" | awk '{ g = ""; for (i = 1; i <= 4; i++) if ($(i + 4) != $i) g = g " " (i - 1) ":" ($(i + 4) - $i); print g }')
  case "$grew" in
    " "[0-3]":50") ;;
    *) fail "sender $1: counters before '$before', after '$after'" ;;
  esac
  seqs=$(grep "^$1 " "$out" | sed 's/.*seq=//' | tr '\n' ' ')
  [ "$seqs" = "$(seq 0 49 | tr '\n' ' ')" ] || fail "sender $1 out of order: $seqs"
  listener=${grew%:50}
}

# balance(sender)
used=
for k in 1 2 3 4 5 6 7 8; do
  one_listener "snd$k"
  used="$used$listener"
done
distinct=$(echo $used | tr ' ' '\n' | sort -u | wc -l)
# eight senders on one listener of four by chance: 4 * (1/4)^8, about 6e-5
[ "$distinct" -ge 2 ] || fail "balance(sender): all eight senders on listener $used"
echo "udp-balancer: sender: eight senders in order, each on one listener:$used"


# spread() MODE: after a reload into MODE, one sender's 400 datagrams reach
# more than one listener
spread() {
  conf "$1"
  reload_sluice
  $send "$port" "one-$1" 400 2000 || fail "sender"
  total=$((total + 400))
  wait_total $total
  c=$(counters)
  nonzero=$(echo "$c" | tr ' ' '\n' | grep -vc '^0$' || true)
  [ "$nonzero" -ge 2 ] || fail "balance($1): one sender's datagrams on one listener: $c"
  echo "udp-balancer: $1: one sender over the listeners: $c"
}
# balance(sender) after a reload: a sender from the same address and port
# stays on the same listener
one_listener fixed1 "$from"
fixed_before=$listener
reload_sluice
one_listener fixed2 "$from"
fixed_after=$listener
[ "$fixed_before" = "$fixed_after" ] || fail "a reload moved a sender from listener $fixed_before to $fixed_after"
echo "udp-balancer: sender: one sender on listener $fixed_before before and after a reload"

spread random
spread round-robin

# a reload in the middle of a sender's 3000 datagrams at 1000 a second
conf sender
$send "$port" "reload" 3000 1000 &
sender=$!
sleep 1
reload_sluice
wait "$sender" || fail "sender"
total=$((total + 3000))
wait_total $total
got=$(grep -c "^reload " "$out")
uniq=$(grep "^reload " "$out" | sort -u | wc -l)
[ "$got" -eq 3000 ] && [ "$uniq" -eq 3000 ] || fail "reload: $got datagrams ($uniq different) of 3000"
echo "udp-balancer: a reload under 1000 datagrams a second lost none of 3000"

# the sums of the listeners' processed and dropped rows: "P D"
sums() {
  "$ctl" -c "$work/ctl" stats | awk -F';' -v p="AF_INET(127.0.0.1:$port)#" '
    $1 == "src.udp-balancer" && index($3, p) == 1 { s[$5] += $6 }
    END { print s["processed"] + 0, s["dropped"] + 0 }'
}
set -- $(sums)
p0=$1 d0=$2
kill -STOP "$pid"
$send "$port" "flood" 5000 1000000000 || { kill -CONT "$pid"; fail "sender"; }
kill -CONT "$pid"
i=0
while :; do
  set -- $(sums)
  [ $(($1 - p0 + $2 - d0)) -lt 5000 ] || break
  i=$((i + 1))
  [ $i -lt 300 ] || fail "processed $(($1 - p0)) and dropped $(($2 - d0)) of 5000"
  sleep 0.1
done
[ $(($1 - p0 + $2 - d0)) -eq 5000 ] || fail "processed $(($1 - p0)) + dropped $(($2 - d0)) is not 5000"
[ $(($2 - d0)) -gt 0 ] || fail "5000 datagrams into a stopped daemon and no drop counted"
stop_sluice
echo "udp-balancer: 5000 datagrams into a stopped daemon: $(($1 - p0)) processed, $(($2 - d0)) dropped by the kernel"
