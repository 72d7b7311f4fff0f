#!/bin/sh
# Datagrams read many a call (recvmmsg, src/io/logreader.c): with the
# daemon stopped (SIGSTOP), udp-burst.py sends a burst to each source, so
# that after SIGCONT every socket holds a backlog to read in batches:
# three senders (127.0.0.1, .2, .3) of 40 datagrams each, of varying sizes,
# one of each longer than log-msg-size(1024), to udp() and
# network(transport(udp)) (or, with "balancer", to
# udp-balancer(listeners(2) balance(sender))), and 40 datagrams to
# unix-dgram() (as root with uids 1000-1002 in their credentials; its
# socket holds 10, and the sender waits for the daemon to read them).  Each
# sender's datagrams are in the file in the order sent, with its SOURCEIP
# (or uid) and its bytes, the long one cut at 1024 bytes; the cut is
# logged.
# Usage: udp-batch.sh SLUICE [balancer]
. "$(dirname "$0")/lib.sh"
sluice=$1 mode=${2:-plain}
burst="python3 $(dirname "$0")/udp-burst.py"
set -- $(free_ports udp udp)
p1=$1 p2=$2

opts="log-msg-size(1024) so-rcvbuf(1048576)"
if [ "$mode" = balancer ]; then
  udp1="udp-balancer(ip(127.0.0.1) port($p1) listeners(2) balance(sender) $opts)"
  udp2="udp-balancer(ip(127.0.0.1) port($p2) listeners(2) balance(sender) $opts)"
else
  udp1="udp(ip(127.0.0.1) port($p1) $opts)"
  udp2="network(ip(127.0.0.1) port($p2) transport(udp) $opts)"
fi
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
options { stats-freq(0); };
source s_udp1 { $udp1; };
source s_udp2 { $udp2; };
source s_unix { unix-dgram("$work/log" $opts); };
destination d_udp1 { file("$work/udp1.out" template("\${SOURCEIP} \${MSG}\n")); };
destination d_udp2 { file("$work/udp2.out" template("\${SOURCEIP} \${MSG}\n")); };
destination d_unix { file("$work/unix.out" template("\${.unix.uid} \${MSG}\n")); };
log { source(s_udp1); destination(d_udp1); };
log { source(s_udp2); destination(d_udp2); };
log { source(s_unix); destination(d_unix); };
EOF2
start_sluice_or_skip "Error loading the udp-balancer() program.*Operation not permitted" \
  "$sluice" "$work/sluice.conf"

kill -STOP "$pid"
$burst udp "$p1" 1024 "$work/udp1.want" || { kill -CONT "$pid"; fail "sender to $p1"; }
$burst udp "$p2" 1024 "$work/udp2.want" || { kill -CONT "$pid"; fail "sender to $p2"; }
# a unix socket queues net.unix.max_dgram_qlen datagrams (10), then the
# sender waits for the daemon
$burst unix "$work/log" 1024 "$work/unix.want" &
unix_sender=$!
sleep 0.5
kill -CONT "$pid"
wait "$unix_sender" || fail "sender to unix-dgram"

for f in udp1 udp2 unix; do
  want=$(wc -l <"$work/$f.want")
  wait_lines "$work/$f.out" "$want"
  # each sender's lines in the order sent (senders interleave as read)
  for who in $(cut -d' ' -f1 "$work/$f.want" | sort -u); do
    grep "^$who " "$work/$f.want" >"$work/$f.want.$who"
    grep "^$who " "$work/$f.out" >"$work/$f.out.$who" || true
    cmp -s "$work/$f.want.$who" "$work/$f.out.$who" ||
      fail "$f: sender $who: $(diff "$work/$f.want.$who" "$work/$f.out.$who" | head -5)"
  done
  [ "$(wc -l <"$work/$f.out")" -eq "$want" ] || fail "$f: $(wc -l <"$work/$f.out") lines, want $want"
  echo "udp-batch: $mode: $f: $want datagrams in order per sender, $(cut -d' ' -f1 "$work/$f.want" | sort -u | wc -l) senders"
done
# once per listener (udp-balancer() has two a source)
for line in 3 4 5; do
  grep "Incoming message longer than log-msg-size(), truncated" "$work/sluice.log" |
    grep -q "sluice.conf:$line:" || fail "no truncation logged for the source on line $line"
done
stop_sluice
