#!/bin/sh
# Start a one-node OpenSearch 2.19.6 on 127.0.0.1 for a test: the server's
# jars as Maven Central ships them (org.opensearch:opensearch and its HTTP
# transport, org.opensearch.plugin:transport-netty4-client), fetched once
# with mvn into a cache (SLUICE_OPENSEARCH_CACHE, default
# ~/.cache/sluice-opensearch), run by SluiceOpenSearchNode.java (compiled
# here) with its files in HOME.  Prints the java process id once the node
# answers GET /_cluster/health with green or yellow; exits 77 with the
# reason on stderr when Java, javac, mvn or the artifacts cannot be had,
# 1 when the node does not come up within 150 s.  The node stops after
# LIFETIME seconds (timeout(1)) or when killed (SIGTERM; SIGKILL 10 s later).
# Usage: opensearch-node.sh HOME HTTP_PORT TRANSPORT_PORT LIFETIME
set -eu
home=$1 port=$2 tport=$3 lifetime=$4
here=$(cd "$(dirname "$0")" && pwd)
version=2.19.6
cache=${SLUICE_OPENSEARCH_CACHE:-${HOME:-/tmp}/.cache/sluice-opensearch}/$version

skip() {
  echo "opensearch-node: $*" >&2
  exit 77
}
for tool in java javac mvn curl timeout; do
  command -v $tool >/dev/null 2>&1 || skip "$tool is not installed (scripts/install-deps.sh)"
done
java -version 2>&1 | grep -q 'version "\(1[7-9]\|2[0-9]\)' ||
  skip "OpenSearch $version needs Java 17 or later"

mkdir -p "$cache"
if [ ! -f "$cache/lib/.complete" ]; then
  mkdir -p "$cache/pom"
  cat >"$cache/pom/pom.xml" <<EOF2
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>sluice.test</groupId><artifactId>opensearch-node</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.opensearch</groupId><artifactId>opensearch</artifactId>
      <version>$version</version></dependency>
    <dependency><groupId>org.opensearch.plugin</groupId><artifactId>transport-netty4-client</artifactId>
      <version>$version</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId>
      <version>2.25.4</version></dependency>
  </dependencies>
</project>
EOF2
  (cd "$cache/pom" && mvn -q -B dependency:copy-dependencies -DoutputDirectory="$cache/lib") \
    >"$cache/mvn.log" 2>&1 || skip "mvn could not fetch OpenSearch $version: $(tail -3 "$cache/mvn.log")"
  touch "$cache/lib/.complete"
fi
if [ ! -f "$cache/classes/SluiceOpenSearchNode.class" ] ||
    [ "$here/SluiceOpenSearchNode.java" -nt "$cache/classes/SluiceOpenSearchNode.class" ]; then
  mkdir -p "$cache/classes"
  javac -d "$cache/classes" -cp "$cache/lib/*" "$here/SluiceOpenSearchNode.java" >"$cache/javac.log" 2>&1 ||
    { cat "$cache/javac.log" >&2; exit 1; }
fi

mkdir -p "$home"
timeout -k 10 "$lifetime" java -Xms256m -Xmx512m -XX:+UseSerialGC -Djava.awt.headless=true \
  -Dlog4j2.disable.jmx=true -cp "$cache/classes:$cache/lib/*" SluiceOpenSearchNode "$home" "$port" "$tport" \
  >"$home/node.log" 2>&1 &
node=$!
i=0
until curl -sf "http://127.0.0.1:$port/_cluster/health?wait_for_status=yellow&timeout=1s" 2>/dev/null |
    grep -q '"status":"\(green\|yellow\)"'; do
  i=$((i + 1))
  if [ $i -ge 150 ] || ! kill -0 $node 2>/dev/null; then
    kill $node 2>/dev/null || true
    echo "opensearch-node: the node did not come up:" >&2
    tail -20 "$home/node.log" >&2
    exit 1
  fi
  sleep 1
done
echo $node
