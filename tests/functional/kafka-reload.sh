#!/bin/sh
# Reloads mid-stream lose nothing: loggen sends over TCP with flow control
# into kafka-c() while Sluice is reloaded three times, with
# flush-timeout-on-reload(0) so that what the broker has not acknowledged
# at each reload goes back to the queue and the next configuration's
# destination sends it.  The topic read back (tests/kafka/kafka-broker.sh;
# skipped without it) holds every sequence number; duplicates are allowed
# and reported.
# Usage: kafka-reload.sh SLUICE LOGGEN CTL BROKER
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2 ctl=$3 broker=$4
# the broker goes too, whatever happens
trap '"$broker" kill "$work/kafka" >/dev/null 2>&1; [ -n "$pid" ] && kill "$pid" 2>/dev/null
  rm -rf "$work"' EXIT

set -- $(free_ports tcp tcp tcp)
kport=$1 cport=$2 port=$3
st=0
"$broker" start "$work/kafka" "$kport" "$cport" || st=$?
[ $st -eq 77 ] && { echo "kafka-reload: skipped: no Kafka broker (Java, Maven or the jars)"; exit 77; }
[ $st -eq 0 ] || fail "the Kafka broker did not start"

n=20000
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
options { stats-freq(0); };
source s { tcp(ip(127.0.0.1) port($port) log-iw-size(2000) max-connections(1)); };
destination d_kafka { kafka-c(bootstrap-servers("127.0.0.1:$kport") topic("reload") message("\$MSG")
  flush-timeout-on-reload(0)); };
log { source(s); destination(d_kafka); flags(flow-control); };
EOF2
start_sluice "$sluice" "$work/sluice.conf" -c "$work/ctl"
written() {
  "$ctl" -c "$work/ctl" stats 2>/dev/null | sed -n 's/^dst.kafka-c;d_kafka#0;[^;]*;a;written;//p'
}

# 4,000 a second for 5 s, a reload each second from the first (-I 600:
# loggen would stop at 10 s, sent or not, and flow control may hold it)
"$loggen" -Q -r 4000 -I 600 -n $n 127.0.0.1 "$port" >"$work/loggen.out" 2>&1 &
lg=$!
sleep 1
for r in 1 2 3; do
  reload_sluice
  sleep 0.7
done
kill -0 $lg 2>/dev/null || fail "loggen ended before the last reload"
wait $lg || fail "loggen failed: $(cat "$work/loggen.out")"
i=0
until [ "${w:=0}" -ge $n ]; do
  i=$((i + 1))
  [ $i -lt 600 ] || fail "written is $w, want $n"
  sleep 0.1
  w=$(written)
done
handed=$(grep -c "unacknowledged messages; they stay queued.*reload='yes'" "$work/sluice.log" || true)
stop_sluice

"$broker" consume "$work/kafka" reload $n >"$work/topic.out"
cut -f2 "$work/topic.out" >"$work/check.log"
if ! "$loggen" --check "$work/check.log" >/dev/null 2>&1; then
  "$broker" consume "$work/kafka" reload >"$work/topic.out"
  cut -f2 "$work/topic.out" >"$work/check.log"
fi
"$loggen" --check "$work/check.log" --allow-duplicates >"$work/report" || { cat "$work/report"; fail "loss"; }
dups=$(sed -n 's/^check: .* duplicated=\([0-9]*\) .*/\1/p' "$work/report")
uniq=$(($(sed -n 's/^check: .* received=\([0-9]*\) .*/\1/p' "$work/report") - dups))
cat "$work/report"
[ "$uniq" -eq $n ] || fail "$uniq of $n sequence numbers in the topic"
echo "kafka-reload: 3 reloads mid-stream ($handed handed unacknowledged messages back):" \
  "all $n in the topic, $dups twice"
