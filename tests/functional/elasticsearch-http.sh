#!/bin/sh
# elasticsearch-http() (scl/elasticsearch) into a real OpenSearch 2.19.6
# node (tests/opensearch/opensearch-node.sh; skipped, exit 77, when Java,
# Maven or the artifacts cannot be had):
#   1. loggen's messages all in the index, each under its custom-id();
#   2. the node stopped mid-run and started again on its data: with
#      flags(flow-control) every message gets in (custom-id() makes a
#      batch sent twice one document);
#   3. documents the index's mapping refuses are logged and dropped, item
#      by item of the bulk response, and the rest is not held up.
# Usage: elasticsearch-http.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2
here=$(cd "$(dirname "$0")" && pwd)
node=
# the node's files go only once it is gone (it writes until it stops)
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$node" ] && stop_node; rm -rf "$work"' EXIT

set -- $(free_ports tcp tcp tcp)
port=$1 es=$2 tport=$3
start_node() {
  st=0
  node=$(sh "$here/../opensearch/opensearch-node.sh" "$work/node" "$es" "$tport" 600 2>"$work/node.err") ||
    st=$?
  [ $st -ne 77 ] || { echo "elasticsearch-http: skipped: $(cat "$work/node.err")"; exit 77; }
  [ $st -eq 0 ] || fail "OpenSearch did not start: $(cat "$work/node.err")"
}
# stop_node: SIGTERM, and wait (20 s, then SIGKILL) until it is gone
stop_node() {
  kill $node 2>/dev/null || true
  _sn=0
  while kill -0 $node 2>/dev/null; do
    _sn=$((_sn + 1))
    [ $_sn -lt 100 ] || kill -9 $node 2>/dev/null || true
    sleep 0.2
  done
  node=
}
es() {
  curl -sf "$@"
}
# count INDEX: documents in INDEX, after a refresh
count() {
  es -XPOST "http://127.0.0.1:$es/$1/_refresh" >/dev/null 2>&1 || true
  es "http://127.0.0.1:$es/$1/_count" 2>/dev/null | sed -n 's/.*"count":\([0-9]*\).*/\1/p'
}
# wait_count INDEX N SECONDS
wait_count() {
  _wc=0
  while [ "$(count "$1")" != "$2" ] && [ $_wc -lt "$3" ]; do
    _wc=$((_wc + 1))
    sleep 1
  done
  got=$(count "$1")
  [ "$got" = "$2" ] || fail "$1 has ${got:-no} documents, want $2"
}

start_node
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
@include "scl.conf"
source s { tcp(ip(127.0.0.1) port($port) log-iw-size(2000)); };
destination d { elasticsearch-http(url("http://127.0.0.1:$es/_bulk") index("\${INDEX}")
  custom-id("id-\$(substr \${MSG} 5 10)") batch-lines(50) time-reopen(1)); };
log { source(s); rewrite { set("sluice-one" value("INDEX")); }; destination(d); flags(flow-control); };
EOF2

# 1. all of them, each under its id
n=2000
start_sluice "$sluice" "$work/sluice.conf"
"$loggen" -S -n $n -r 5000 127.0.0.1 "$port" 2>"$work/loggen.err" || fail "loggen: $(cat "$work/loggen.err")"
wait_count sluice-one $n 60
doc=$(es "http://127.0.0.1:$es/sluice-one/_doc/id-0000001234") || fail "no document id-0000001234"
echo "$doc" | grep -q '"MESSAGE":"seq: 0000001234, ' || fail "id-0000001234 holds another message: $doc"
echo "$doc" | grep -q '"@timestamp":"' || fail "no @timestamp: $doc"
es "http://127.0.0.1:$es/sluice-one/_search?q=PROGRAM:prg00000&size=0" | grep -q "\"value\":$n" ||
  fail "_search does not find all $n"
stop_sluice

# 2. the node goes away mid-run and comes back
n=3000
sed -i 's/sluice-one/sluice-two/' "$work/sluice.conf"
start_sluice "$sluice" "$work/sluice.conf"
"$loggen" -S -n $n -r 300 -I 60 127.0.0.1 "$port" 2>"$work/loggen.err" &
lg=$!
sleep 2
[ "$(count sluice-two)" -gt 0 ] || fail "nothing indexed before the stop"
stop_node
wait_log "HTTP destination failing"
sleep 2
start_node
wait "$lg" || fail "loggen: $(cat "$work/loggen.err")"
wait_count sluice-two $n 90
grep -q "HTTP destination delivering again" "$work/sluice.log" ||
  fail "no 'delivering again' after the restart"
stop_sluice

# 3. a mapping that refuses the documents: dropped item by item, logged
es -XPUT -H 'Content-Type: application/json' "http://127.0.0.1:$es/sluice-strict" \
  -d '{"mappings":{"properties":{"PROGRAM":{"type":"integer"}}}}' >/dev/null || fail "creating sluice-strict"
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
@include "scl.conf"
source s { tcp(ip(127.0.0.1) port($port)); };
destination strict { elasticsearch-http(url("http://127.0.0.1:$es/_bulk") index("sluice-strict")
  batch-lines(10) workers(1)); };
destination after { elasticsearch-http(url("http://127.0.0.1:$es/_bulk") index("sluice-after")
  batch-lines(10) workers(1)); };
log { source(s); destination(strict); flags(flow-control); };
log { source(s); destination(after); };
EOF2
start_sluice "$sluice" "$work/sluice.conf"
"$loggen" -S -n 100 -r 1000 127.0.0.1 "$port" 2>"$work/loggen.err" || fail "loggen: $(cat "$work/loggen.err")"
wait_count sluice-after 100 30
wait_log "Bulk API refused documents, they are dropped.*mapper_parsing_exception"
sleep 1
stop_sluice
[ "$(count sluice-strict)" = 0 ] || fail "sluice-strict took documents it should have refused"
echo "elasticsearch-http: ok"
