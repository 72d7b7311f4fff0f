#!/bin/sh
# Sluice into Apache Kafka beside Kafka's own producer, by hand (bench.py
# counts lines in files; a topic is not a file): a one-node broker
# (tests/kafka/kafka-broker.sh), loggen -> tcp() -> kafka-c() with flow
# control, timed from loggen's start until the destination's written
# counter (the broker's acknowledgements) reaches MESSAGES; then
# org.apache.kafka.tools.ProducerPerformance with as many records of the
# same size, with the same producer settings (acks=all, idempotence,
# linger.ms 100, lz4: Sluice's defaults).  Each producer gets a broker of its
# own, started afresh: a broker that already took millions of records
# takes the next ones slower (up to 3.7 times, 2026-11-27), which favours
# whoever runs first.  Prints msg/s for each and its CPU time per message.
# With SLUICE_SYSLOG_NG naming an unpacked syslog-ng 3.38 that has its
# kafka-c() (apt-get download syslog-ng-mod-rdkafka, dpkg -x into DIR),
# syslog-ng runs the same way on a broker of its own, with the same producer
# settings, timed by its own written counter (syslog-ng-ctl stats).
# A benchmark, never a test: nothing asserts a speed.
#
# Usage: bench/kafka.sh SLUICE LOGGEN [MESSAGES] [SIZE] [CONNECTIONS]
# KAFKA_PROPS="name=value ..." adds producer properties for all three
# (compression.type=lz4, say).
set -eu
sluice=$1 loggen=$2 n=${3:-500000} size=${4:-400} conns=${5:-4}
props=${KAFKA_PROPS:-}
# the same properties as config() pairs
pairs=$(for p in $props; do printf ' "%s" => "%s"' "${p%%=*}" "${p#*=}"; done)
here=$(cd "$(dirname "$0")" && pwd)
broker=$here/../tests/kafka/kafka-broker.sh
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; "$broker" kill "$work/kafka" >/dev/null 2>&1
  rm -rf "$work"' EXIT

set -- $(python3 "$here/../tests/functional/free-ports.py" tcp tcp tcp)
kport=$1 cport=$2 port=$3
# fresh_broker: the broker, started on empty logs
fresh_broker() {
  "$broker" kill "$work/kafka" >/dev/null 2>&1 || true
  rm -rf "$work/kafka"
  "$broker" start "$work/kafka" "$kport" "$cport"
}

# conf TOPIC: the configuration both daemons run, into TOPIC; the producer
# settings said out loud (Sluice's defaults, not librdkafka's: its linger.ms
# is 5, its compression none)
conf() {
  cat <<EOF2
@version: 3.38
options { stats-freq(0); };
source s { tcp(ip(127.0.0.1) port($port) log-iw-size($((conns * 10000))) max-connections($conns)); };
destination d_kafka { kafka-c(bootstrap-servers("127.0.0.1:$kport") topic("$1") message("\$MSG")
  config("linger.ms" => "100" "compression.type" => "lz4" "acks" => "all"
  "enable.idempotence" => "true"$pairs)); };
log { source(s); destination(d_kafka); flags(flow-control); };
EOF2
}
now_ms() { date +%s%3N; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
# written: the destination's written counter (the broker's acks)
written() {
  $ctl stats -c "$work/ctl" 2>/dev/null | sed -n 's/^dst[.]kafka[^;]*;d_kafka#0;[^;]*;a;written;//p' | head -1
}
# run NAME TOPIC: one daemon ($pid, started by the caller) on $port
run() {
  # a first message makes the topic; its record's size is the one
  # ProducerPerformance sends
  "$loggen" -Q -n 1 -s "$size" 127.0.0.1 "$port" >/dev/null 2>&1
  until [ "$(written)" = 1 ]; do sleep 0.1; done
  record=$("$broker" consume "$work/kafka" "$2" 1 | cut -f2 | head -1 | wc -c)
  record=$((record - 1))
  c0=$(cpu_ticks)
  t0=$(now_ms)
  # loggen's -n is per connection, and without -r and -I it sends 1,000
  # messages a second per connection for 10 s at most
  "$loggen" -Q -r 1000000 -I 3600 -n $((n / conns)) -s "$size" --active-connections="$conns" \
    127.0.0.1 "$port" >/dev/null 2>&1
  want=$((n / conns * conns + 1))
  until [ "$(written)" -ge $want ]; do sleep 0.05; done
  t1=$(now_ms)
  # syslog-ng 3.38 counts a message written once librdkafka took it, not
  # once the broker has it: the time that counts is when the topic holds
  # them all (asked of the broker, a JVM start: ~1-2 s, for both daemons)
  # the time that counts lies between the start of the query that saw
  # them all and its answer: the query itself takes a while (q)
  while :; do
    tq=$(now_ms)
    [ "$("$broker" offset "$work/kafka" "$2")" -ge $want ] && break
    sleep 0.2
  done
  t2=$(now_ms)
  c1=$(cpu_ticks)
  sent=$((want - 1))
  echo "$1 kafka-c(): $sent messages of $size bytes ($record-byte records), $conns connections, flow control"
  awk -v n=$sent -v ms=$((t1 - t0)) -v ms2=$((t2 - t0)) -v q=$((t2 - tq)) -v c=$((c1 - c0)) \
    -v hz="$(getconf CLK_TCK)" 'BEGIN {
    printf "  written counter at %.1f s, all in the topic at %.1f s (its query took %.1f s): %.0f msg/s, %.2f us CPU/msg\n",
      ms / 1000, ms2 / 1000, q / 1000, n * 1000 / ms2, c * 1e6 / hz / n }'
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
}

fresh_broker
conf bench >"$work/sluice.conf"
"$sluice" -F -f "$work/sluice.conf" -p "$work/pid" -c "$work/ctl" >"$work/sluice.log" 2>&1 &
pid=$!
until grep -q "starting up" "$work/sluice.log" 2>/dev/null; do sleep 0.1; done
ctl=$(dirname "$sluice")/tools/sluice-ctl/sluice-ctl
run sluice bench

sng=${SLUICE_SYSLOG_NG:-}
if [ -n "$sng" ] && [ -e "$sng/usr/lib/syslog-ng/3.38/libkafka.so" ]; then
  fresh_broker
  conf bench-sng >"$work/sng.conf"
  LD_LIBRARY_PATH=$sng/usr/lib/syslog-ng "$sng/usr/sbin/syslog-ng" -F --no-caps \
    --module-path="$sng/usr/lib/syslog-ng/3.38" -f "$work/sng.conf" -R "$work/sng.persist" \
    -p "$work/sng.pid" -c "$work/ctl" >"$work/sng.log" 2>&1 &
  pid=$!
  until [ -S "$work/ctl" ]; do sleep 0.1; done
  ctl="env LD_LIBRARY_PATH=$sng/usr/lib/syslog-ng $sng/usr/sbin/syslog-ng-ctl"
  run syslog-ng bench-sng
fi

# Kafka's own producer, the same record size and settings
fresh_broker
cp=$("$broker" classpath)
/usr/bin/time -f "%U %S" -o "$work/perf.time" java -Xmx512m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$cp" org.apache.kafka.tools.ProducerPerformance --topic bench-java --num-records "$sent" \
  --record-size "$record" --throughput -1 \
  --producer-props bootstrap.servers=127.0.0.1:$kport acks=all enable.idempotence=true linger.ms=100 compression.type=lz4 $props \
  >"$work/perf.out" 2>&1 || { cat "$work/perf.out"; exit 1; }
echo "ProducerPerformance: $(tail -1 "$work/perf.out")"
awk -v n=$sent '{ printf "  %.2f us CPU/msg (the JVM, start-up included)\n", ($1 + $2) * 1e6 / n }' \
  "$work/perf.time"
