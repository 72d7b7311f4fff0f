#!/bin/sh
# The proof issue 21 asks for: loggen sends over TCP with flow control into
# kafka-c(), and the Kafka broker (tests/kafka/kafka-broker.sh; skipped
# without it) is SIGKILLed mid-run and started again on its log dir.
# Messages the broker had not acknowledged stay unacknowledged in Sluice
# (their window slots held, loggen held back by TCP) and are delivered
# after the restart: the whole topic read back holds every sequence
# number.  Duplicates (a message the broker wrote whose acknowledgement
# the kill lost) are allowed and reported.
# Then with a reliable disk buffer: the broker down, messages queued, and
# Sluice itself SIGKILLed before any could be delivered; after both start
# again the buffer's messages all reach the topic.  A destination that
# acked a message when librdkafka took it (not when the broker did) would
# have lost them from the buffer here.
# Usage: kafka-kill.sh SLUICE LOGGEN CTL BROKER
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2 ctl=$3 broker=$4
# the broker goes too, whatever happens
trap '"$broker" kill "$work/kafka" >/dev/null 2>&1; [ -n "$pid" ] && kill "$pid" 2>/dev/null
  rm -rf "$work"' EXIT

set -- $(free_ports tcp tcp tcp)
kport=$1 cport=$2 port=$3
st=0
"$broker" start "$work/kafka" "$kport" "$cport" || st=$?
[ $st -eq 77 ] && { echo "kafka-kill: skipped: no Kafka broker (Java, Maven or the jars)"; exit 77; }
[ $st -eq 0 ] || fail "the Kafka broker did not start"

n=30000
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
options { stats-freq(0); };
source s { tcp(ip(127.0.0.1) port($port) log-iw-size(2000) max-connections(1)); };
destination d_kafka { kafka-c(bootstrap-servers("127.0.0.1:$kport") topic("kill") message("\$MSG")
  config("reconnect.backoff.max.ms" => "1000")); };
log { source(s); destination(d_kafka); flags(flow-control); };
EOF2
start_sluice "$sluice" "$work/sluice.conf" -c "$work/ctl"

# counter NAME: the destination's stats row NAME
counter() {
  "$ctl" -c "$work/ctl" stats 2>/dev/null | sed -n "s/^dst.kafka-c;d_kafka#0;[^;]*;a;$1;//p"
}
written() {
  counter written
}
# read_topic TOPIC WANT: every sequence number of the topic's records,
# $dups of them twice
read_topic() {
  # the first WANT records are all when none came twice; else all of them
  "$broker" consume "$work/kafka" "$1" "$2" >"$work/topic.out"
  cut -f2 "$work/topic.out" >"$work/check.log"
  if ! "$loggen" --check "$work/check.log" >/dev/null 2>&1; then
    "$broker" consume "$work/kafka" "$1" >"$work/topic.out"
    cut -f2 "$work/topic.out" >"$work/check.log"
  fi
  "$loggen" --check "$work/check.log" --allow-duplicates >"$work/report" ||
    { cat "$work/report"; fail "$1: loss"; }
  dups=$(sed -n 's/^check: .* duplicated=\([0-9]*\) .*/\1/p' "$work/report")
  uniq=$(($(sed -n 's/^check: .* received=\([0-9]*\) .*/\1/p' "$work/report") - dups))
  cat "$work/report"
  [ "$uniq" -eq "$2" ] || fail "$uniq of $2 sequence numbers in $1"
}

# 3,000 a second for 10 s; the kill once the broker has taken some (not
# at a fixed time: under a sanitizer on a busy machine the first
# acknowledgements can take seconds, and flow control holds loggen back
# meanwhile), the restart 2 s later.  What makes the kill mid-run is that
# the broker had not acknowledged them all: loggen may have sent its last
# (a late first acknowledgement, then the window's rest in a burst), and
# what it sent waits unacknowledged in Sluice all the same.  -I 600:
# loggen stops after -I seconds (10 by default) whether or not it has sent
# -n, and flow control holds it back for as long as the broker is away.
"$loggen" -Q -r 3000 -I 600 -n $n 127.0.0.1 "$port" >"$work/loggen.out" 2>&1 &
lg=$!
sleep 1
i=0
until [ "$(written)" -gt 0 ] 2>/dev/null; do
  i=$((i + 1))
  [ $i -lt 600 ] || fail "nothing written in 60 s"
  sleep 0.1
done
before=$(written)
"$broker" kill "$work/kafka"
[ "${before:-0}" -gt 0 ] && [ "$before" -lt $n ] || fail "the kill was not mid-run: $before written"
echo "broker killed with $before of $n written"
sleep 2
"$broker" restart "$work/kafka" || fail "the broker did not start again"
wait $lg || fail "loggen failed: $(cat "$work/loggen.out")"

i=0
until [ "$(written)" = $n ]; do
  i=$((i + 1))
  [ $i -lt 600 ] || fail "written is $(written), want $n"
  sleep 0.1
done
grep -q "Kafka brokers unreachable" "$work/sluice.log" || fail "the outage was not seen"
stop_sluice

read_topic kill $n
echo "kafka-kill: broker SIGKILLed with $before of $n written and restarted: all $n in the topic, $dups twice"

# ---- a reliable disk buffer, the broker down, Sluice SIGKILLed ----
m=5000
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
options { stats-freq(0); };
source s { tcp(ip(127.0.0.1) port($port)); };
destination d_kafka { kafka-c(bootstrap-servers("127.0.0.1:$kport") topic("kill2") message("\$MSG")
  config("reconnect.backoff.max.ms" => "1000")
  disk-buffer(reliable(yes) disk-buf-size(10M) dir("$work/dq"))); };
log { source(s); destination(d_kafka); };
EOF2
"$broker" kill "$work/kafka"
start_sluice "$sluice" "$work/sluice.conf" -c "$work/ctl"
"$loggen" -Q -r 20000 -n $m 127.0.0.1 "$port" 2>/dev/null || fail "loggen (disk buffer)"
i=0
until [ "$(counter processed)" = $m ]; do
  i=$((i + 1))
  [ $i -lt 300 ] || fail "the disk buffer took $(counter processed) of $m"
  sleep 0.1
done
sleep 1
[ "$(written)" = 0 ] || fail "$(written) counted written with the broker down"
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
pid=
"$broker" restart "$work/kafka" || fail "the broker did not start again"
start_sluice "$sluice" "$work/sluice.conf" -c "$work/ctl"
i=0
until [ "$(written)" = $m ]; do
  i=$((i + 1))
  [ $i -lt 600 ] || fail "after the restarts written is $(written), want $m"
  sleep 0.1
done
stop_sluice
read_topic kill2 $m
echo "kafka-kill: $m messages in a reliable disk buffer, Sluice SIGKILLed with the broker down:" \
  "all in the topic"
