#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A real single-node Apache Kafka 4 broker (KRaft: broker and controller in
# one JVM) on loopback, for the kafka tests.  The jars come from Maven
# Central through mvn, once, into $XDG_CACHE_HOME/sluice-kafka (or
# ~/.cache/sluice-kafka).
#
#   kafka-broker.sh classpath            print the classpath (resolving it once)
#   kafka-broker.sh start DIR PORT CPORT format DIR (once) and start a broker
#                                        listening on 127.0.0.1:PORT (its
#                                        controller on CPORT); waits until it
#                                        answers
#   kafka-broker.sh stop DIR             SIGTERM, wait for the end
#   kafka-broker.sh kill DIR             SIGKILL (the log dir stays)
#   kafka-broker.sh restart DIR          start again on the same ports and logs
#   kafka-broker.sh codecs DIR TOPIC     print the compression codecs of the
#                                        topic's batches on disk, one a line
#   kafka-broker.sh consume DIR TOPIC [N] print key<TAB>value of the topic's
#                                        records from the start, one a line,
#                                        until N came (or 60 s passed), or
#                                        without N until none came for 10 s
#
# Exit 77 (meson's skip) when Java, Maven or the artifacts cannot be had.
set -eu

KAFKA_VERSION=4.1.1
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/sluice-kafka/$KAFKA_VERSION

skip() { echo "SKIP: $*" >&2; exit 77; }

classpath() {
  # the kafka tests run side by side: one resolves, the others wait for it
  # (two mvn writing one lib/ at once fail)
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.lock"
  flock 9
  if [ ! -f "$CACHE/classpath" ]; then
    command -v java >/dev/null 2>&1 || skip "no java (install openjdk-17-jdk-headless)"
    command -v mvn >/dev/null 2>&1 || skip "no mvn (install maven)"
    mkdir -p "$CACHE"
    cat >"$CACHE/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>sluice.tests</groupId>
  <artifactId>kafka-broker</artifactId>
  <version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId>
      <version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId>
      <version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-simple</artifactId>
      <version>1.7.36</version></dependency>
  </dependencies>
</project>
POM
    if ! (cd "$CACHE" && mvn -q -B -f pom.xml dependency:copy-dependencies -DoutputDirectory="$CACHE/lib" \
          -DincludeScope=runtime >"$CACHE/mvn.log" 2>&1); then
      tail -5 "$CACHE/mvn.log" >&2
      skip "mvn could not resolve org.apache.kafka:kafka_2.13:$KAFKA_VERSION (see $CACHE/mvn.log)"
    fi
    ls "$CACHE"/lib/*.jar | tr '\n' ':' >"$CACHE/classpath.tmp"
    mv "$CACHE/classpath.tmp" "$CACHE/classpath"
  fi
  exec 9>&-
  cat "$CACHE/classpath"
}

# java with the broker's classpath, quiet logging, a small heap
run_java() {
  cp=$(classpath)
  exec_java=${JAVA:-java}
  "$exec_java" -Xms128m -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$cp" "$@"
}

# wait until something listens on 127.0.0.1:$1 and the broker answers
# metadata (the topic tool lists topics), up to 90 s
wait_ready() {
  dir=$1
  port=$(cat "$dir/port")
  i=0
  while [ $i -lt 180 ]; do
    if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
      tail -20 "$dir/broker.log" >&2
      echo "kafka-broker.sh: the broker exited" >&2
      return 1
    fi
    if python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null \
       && grep -q "Kafka Server started\|KafkaRaftServer.*started\|Transition from STARTING to STARTED" \
          "$dir/broker.log" 2>/dev/null; then
      return 0
    fi
    sleep 0.5
    i=$((i + 1))
  done
  echo "kafka-broker.sh: the broker did not answer within 90 s" >&2
  return 1
}

launch() {
  dir=$1
  cp=$(classpath)
  # the server logs at INFO (slf4j-simple, on stderr) into its own file,
  # so readiness shows there
  ${JAVA:-java} -Xms128m -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=info -cp "$cp" kafka.Kafka "$dir/server.properties" \
    >>"$dir/broker.log" 2>&1 &
  echo $! >"$dir/pid"
  wait_ready "$dir"
}

cmd=${1:-}
case "$cmd" in
  classpath) classpath; echo ;;
  start)
    dir=$2 port=$3 cport=$4
    classpath >/dev/null
    mkdir -p "$dir/logs"
    echo "$port" >"$dir/port"
    cat >"$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/logs
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
PROPS
    if [ ! -f "$dir/logs/meta.properties" ]; then
      id=$(run_java kafka.tools.StorageTool random-uuid | tail -1)
      run_java kafka.tools.StorageTool format --standalone -t "$id" -c "$dir/server.properties" \
        >"$dir/format.log" 2>&1 || { cat "$dir/format.log" >&2; exit 1; }
    fi
    launch "$dir"
    ;;
  restart) launch "$2" ;;
  stop|kill)
    dir=$2
    [ -f "$dir/pid" ] || exit 0
    pid=$(cat "$dir/pid")
    sig=TERM
    [ "$cmd" = kill ] && sig=KILL
    kill -$sig "$pid" 2>/dev/null || true
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$dir/pid"
    ;;
  consume)
    # assigned partition 0 (the topics have one), no consumer group: the
    # records come at once; N given: until N came, else until none came
    # for 10 s
    dir=$2 topic=$3 n=${4:-}
    run_java org.apache.kafka.tools.consumer.ConsoleConsumer \
      --bootstrap-server "127.0.0.1:$(cat "$dir/port")" \
      --topic "$topic" --partition 0 --offset earliest ${n:+--max-messages "$n"} \
      --timeout-ms "$([ -n "$n" ] && echo 60000 || echo 10000)" \
      --property print.key=true --property key.separator="	" 2>"$dir/consumer.err" || true
    ;;
  codecs)
    # the compression codecs of TOPIC's partition 0 batches, one a line
    dir=$2 topic=$3
    run_java kafka.tools.DumpLogSegments --files "$dir/logs/$topic-0/00000000000000000000.log" \
      2>"$dir/dump.err" | sed -n 's/.* compresscodec: \([a-z0-9]*\).*/\1/p' | sort -u
    ;;
  offset)
    # the end offset of TOPIC's partition 0: how many records it holds
    dir=$2 topic=$3
    run_java org.apache.kafka.tools.GetOffsetShell --bootstrap-server "127.0.0.1:$(cat "$dir/port")" \
      --topic "$topic" --time -1 2>"$dir/offset.err" | awk -F: '$2 == 0 { print $3 }'
    ;;
  *) echo "usage: $0 classpath|start|stop|kill|restart|consume|offset|codecs ..." >&2; exit 2 ;;
esac
