#!/bin/sh
# kafka-c() into a real Apache Kafka 4 broker (tests/kafka/kafka-broker.sh,
# skipped without Java, Maven or the jars): loggen's messages over TCP
# arrive in topics named by a template, with the key() and message()
# templates and the default message() ("$ISODATE $HOST $MSGHDR$MSG"),
# messages larger than message.max.bytes dropped and counted, logged once,
# read back with Kafka's own console consumer; the written counter counts
# them once the broker acknowledged them; batches are lz4 unless config()
# says otherwise.  With the broker stopped, the writer hands librdkafka
# two batches, and the rest stays queued.  Then the configurations that are
# refused: unknown options, a property librdkafka refuses, workers(2),
# missing bootstrap-servers(), kafka-java(), and properties that conflict
# (refused when the producer is made at start).
# Usage: kafka.sh SLUICE LOGGEN CTL BROKER
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2 ctl=$3 broker=$4
# the broker goes too, whatever happens
trap '"$broker" kill "$work/kafka" >/dev/null 2>&1; [ -n "$pid" ] && kill "$pid" 2>/dev/null
  rm -rf "$work"' EXIT

# conf DEST [PORT]: a configuration with destination DEST
conf() {
  printf '@version: 3.38\nsource s { tcp(ip(127.0.0.1) port(%s)); };\n' "${2:-1}"
  printf 'destination d { %s };\nlog { source(s); destination(d); };\n' "$1"
}

# wait_stats PATTERN...: until the stats (in $work/stats.csv) have a line
# matching each PATTERN, a minute at most
wait_stats() {
  i=0
  while :; do
    if "$ctl" -c "$work/ctl" stats >"$work/stats.csv" 2>/dev/null; then
      _all=1
      for _p in "$@"; do grep -q "$_p" "$work/stats.csv" || _all=; done
      [ -n "$_all" ] && return 0
    fi
    i=$((i + 1))
    [ $i -lt 600 ] || { cat "$work/stats.csv"; fail "no stats line like: $*"; }
    sleep 0.1
  done
}

# ---- refusals (no broker needed) ----
refused() {
  _what=$1 _want=$2
  conf "$_what" >"$work/bad.conf"
  st=0
  "$sluice" --syntax-only -f "$work/bad.conf" >"$work/bad.out" 2>&1 || st=$?
  [ $st -ne 0 ] || fail "accepted: $_what"
  grep -q "$_want" "$work/bad.out" || { cat "$work/bad.out"; fail "no '$_want' for: $_what"; }
}
ok='bootstrap-servers("127.0.0.1:1") topic("t")'
refused "kafka-c($ok fallback-topic(\"x\"));" "unknown option 'fallback-topic'"
refused "kafka($ok retries(3));" "unknown option 'retries'"
refused "kafka-c($ok config(\"no.such.property\" => \"1\"));" 'librdkafka refuses config("no.such.property"'
refused "kafka-c($ok config(acks => \"sometimes\"));" 'librdkafka refuses config("acks" => "sometimes")'
refused "kafka-c($ok config(\"bootstrap.servers\" => \"x:1\"));" "is set with bootstrap-servers()"
refused "kafka-c($ok workers(2));" "takes only 1"
refused "kafka-c(topic(\"t\"));" "needs bootstrap-servers"
refused "kafka-c(bootstrap-servers(\"127.0.0.1:1\"));" "needs topic"
refused "kafka-c($ok message(\"\$(nosuchfunc x)\"));" "bad template in message()"
refused "kafka-java($ok);" "kafka-java"
# accepted, both spellings of config() pairs
conf "kafka($ok config(linger.ms => 1 \"client.id\" => \"x\") key(\"\$HOST\") sync-send(yes) workers(1)
  poll-timeout(100) flush-timeout-on-shutdown(1) disk-buffer(disk-buf-size(1M) dir(\"$work\")));" \
  >"$work/good.conf"
"$sluice" --syntax-only -f "$work/good.conf" || fail "a good kafka() refused"
# a conflict librdkafka finds only when the producer is made: the start fails
conf "kafka-c($ok config(\"enable.idempotence\" => \"true\" \"acks\" => \"1\"));" "$(free_ports tcp)" \
  >"$work/conflict.conf"
st=0
timeout 20 "$sluice" -F -f "$work/conflict.conf" -p "$work/c.pid" >"$work/conflict.out" 2>&1 || st=$?
[ $st -ne 0 ] && [ $st -ne 124 ] || fail "a conflicting config() started (exit $st)"
grep -q "cannot create the Kafka producer" "$work/conflict.out" ||
  { cat "$work/conflict.out"; fail "conflict: no reason"; }

# the producer's settings, Sluice's defaults merged with config(), as the
# debug log says them at start: linger.ms 100 (5 with sync-send(yes)), lz4,
# acks=all with idempotence; config() wins
cat >"$work/defaults.conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($(free_ports tcp))); };
destination d_plain { kafka-c($ok); };
destination d_sync { kafka-c($ok sync-send(yes)); };
destination d_own { kafka-c($ok config("linger.ms" => "7" "compression.type" => "none" "acks" => "1")); };
log { source(s); destination(d_plain); destination(d_sync); destination(d_own); };
EOF2
start_sluice "$sluice" "$work/defaults.conf" -d
# settings NAME LINE: the debug line of destination NAME is LINE
settings() {
  grep -q "Kafka producer settings; driver='$1', $2$" "$work/sluice.log" ||
    { grep "Kafka producer settings" "$work/sluice.log"; fail "$1's producer settings are not: $2"; }
}
settings d_plain "linger.ms='100', compression.type='lz4', acks='-1', enable.idempotence='true'"
settings d_sync "linger.ms='5', compression.type='lz4', acks='-1', enable.idempotence='true'"
settings d_own "linger.ms='7', compression.type='none', acks='1', enable.idempotence='false'"
stop_sluice

# ---- the broker ----
set -- $(free_ports tcp tcp tcp)
kport=$1 cport=$2 port=$3
st=0
"$broker" start "$work/kafka" "$kport" "$cport" || st=$?
[ $st -eq 77 ] && { echo "kafka: skipped: no Kafka broker (Java, Maven or the jars)"; exit 77; }
[ $st -eq 0 ] || fail "the Kafka broker did not start"

n=2000
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
options { stats-freq(0); };
source s { tcp(ip(127.0.0.1) port($port)); };
destination d_tmpl { kafka-c(bootstrap-servers("127.0.0.1:$kport") topic("rt-\$PROGRAM")
  key("\$PROGRAM/\$PID") message("\$MSG") flush-timeout-on-shutdown(5000)
  config("compression.type" => "none")); };
destination d_default { kafka(bootstrap-servers("127.0.0.1:$kport") topic("rt-default")
  flush-timeout-on-shutdown(5000)); };
destination d_big { kafka-c(bootstrap-servers("127.0.0.1:$kport") topic("rt-big")
  message("\$MSG \$MSG \$MSG \$MSG \$MSG") config("message.max.bytes" => "1000")); };
log { source(s); destination(d_tmpl); destination(d_default); destination(d_big); flags(flow-control); };
EOF2
start_sluice "$sluice" "$work/sluice.conf" -c "$work/ctl"
"$loggen" -Q -r 20000 -n $n 127.0.0.1 "$port" 2>/dev/null || fail "loggen"

# every message counted written once the broker acknowledged it
wait_stats "^dst.kafka-c;d_tmpl#0;kafka,rt-\$PROGRAM;a;written;$n$" \
  "^dst.kafka;d_default#0;kafka,rt-default;a;written;$n$"
grep -q "^dst.kafka-c;d_tmpl#0;kafka,rt-\$PROGRAM;a;dropped;0$" "$work/stats.csv" || fail "drops counted"
# larger than message.max.bytes: each dropped and counted, the reason logged once
wait_stats "^dst.kafka-c;d_big#0;kafka,rt-big;a;dropped;$n$"
grep -q "^dst.kafka-c;d_big#0;kafka,rt-big;a;written;0$" "$work/stats.csv" || fail "big messages written"
grep -q "^dst.kafka-c;d_big#0;kafka,rt-big;a;processed;$n$" "$work/stats.csv" || fail "drops counted twice"
[ "$(grep -c "Kafka refused a message for good" "$work/sluice.log")" -eq 1 ] ||
  fail "the refusal was not logged exactly once"
stop_sluice

"$broker" consume "$work/kafka" rt-prg00000 $n >"$work/tmpl.out"
"$broker" consume "$work/kafka" rt-default $n >"$work/default.out"
[ "$(wc -l <"$work/tmpl.out")" -eq $n ] || fail "rt-prg00000 has $(wc -l <"$work/tmpl.out") records, want $n"
[ "$(wc -l <"$work/default.out")" -eq $n ] ||
  fail "rt-default has $(wc -l <"$work/default.out") records, want $n"
# key() is "$PROGRAM/$PID", message() "$MSG"
bad=$(grep -cv '^prg00000/[0-9][0-9]*	seq: [0-9]\{10\}, thread: 0000, runid: [0-9]*, stamp: [^ ]* PADD' \
  "$work/tmpl.out" || true)
[ "$bad" -eq 0 ] || { head -3 "$work/tmpl.out"; fail "$bad records of rt-prg00000 are not key<TAB>\$MSG"; }
# no key(): a null key; the default message is "$ISODATE $HOST $MSGHDR$MSG"
isodate='[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9:]\{8\}[+-][0-9][0-9]:[0-9][0-9]'
bad=$(grep -cv "^null	$isodate [^ ]* prg00000\[[0-9]*\]: seq: " "$work/default.out" || true)
[ "$bad" -eq 0 ] ||
  { head -3 "$work/default.out"; fail "$bad records of rt-default are not the default message"; }
# lz4 unless config() says otherwise
[ "$("$broker" codecs "$work/kafka" rt-default)" = lz4 ] ||
  fail "rt-default's batches: $("$broker" codecs "$work/kafka" rt-default | tr '\n' ' '), want lz4"
[ "$("$broker" codecs "$work/kafka" rt-prg00000)" = none ] ||
  fail "rt-prg00000's batches: $("$broker" codecs "$work/kafka" rt-prg00000 | tr '\n' ' '), want none"
cut -f2 "$work/tmpl.out" | sed 's/^/x /' >"$work/check.log"
"$loggen" --check "$work/check.log" >"$work/report" || { cat "$work/report"; fail "loss or duplicates"; }

# ---- what librdkafka holds: two batches a partition, the rest stays queued ----
# The broker is stopped (SIGSTOP) once the topic exists: the writer hands
# librdkafka two batches (batch.num.messages 100) and a step past them, not
# all it has, so the destination's queue keeps the rest; all of it arrives
# once the broker goes on.
cat >"$work/hold.conf" <<EOF2
@version: 3.38
options { stats-freq(0); };
source s { tcp(ip(127.0.0.1) port($port)); };
destination d_hold { kafka-c(bootstrap-servers("127.0.0.1:$kport") topic("rt-hold") message("\$MSG")
  log-fifo-size(20000) config("batch.num.messages" => "100") flush-timeout-on-shutdown(5000)); };
log { source(s); destination(d_hold); };
EOF2
hold_stat="^dst.kafka-c;d_hold#0;kafka,rt-hold;a"
start_sluice "$sluice" "$work/hold.conf" -c "$work/ctl"
"$loggen" -Q -r 1000 -n 1 127.0.0.1 "$port" 2>/dev/null || fail "loggen"
wait_stats "$hold_stat;written;1$"
kill -STOP "$(cat "$work/kafka/pid")"
hold=5000
"$loggen" -Q -r 50000 -n $hold 127.0.0.1 "$port" 2>/dev/null || fail "loggen"
wait_stats "$hold_stat;processed;$((hold + 1))$"
sleep 2 # the writer's turn to hand what it may
"$ctl" -c "$work/ctl" stats >"$work/stats.csv"
kill -CONT "$(cat "$work/kafka/pid")"
queued=$(sed -n "s/$hold_stat;queued;//p" "$work/stats.csv")
# 200 held by librdkafka and one step of 256 past the bound at most; the
# writer's batch in hand comes on top
[ "$queued" -ge 4000 ] || { cat "$work/stats.csv"; fail "librdkafka was handed $((hold - queued)) messages of $hold"; }
wait_stats "$hold_stat;written;$((hold + 1))$"
grep -q "$hold_stat;dropped;0$" "$work/stats.csv" || fail "d_hold dropped"
stop_sluice
"$broker" consume "$work/kafka" rt-hold $((hold + 1)) >"$work/hold.out"
cut -f2 "$work/hold.out" | sed 's/^/x /' >"$work/check.log"
"$loggen" --check "$work/check.log" >"$work/report" || { cat "$work/report"; fail "rt-hold: loss or duplicates"; }
echo "kafka: $n messages into two topics, templates as configured; refusals as expected; $queued of $hold queued while the broker stood still"
