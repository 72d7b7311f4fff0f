#!/bin/sh
# loggen -> Sluice -> elasticsearch-http() into a one-node OpenSearch 2.19.6
# (tests/opensearch/opensearch-node.sh), beside the node's own bulk limit:
# a python client posting bulk bodies of the same documents (the action
# line and fields Sluice writes) from WORKERS threads.  Not a test; prints
# docs/s for both and Sluice's CPU per message.
# Usage: bench/es-bulk.sh SLUICE LOGGEN [MESSAGES [WORKERS [BATCH]]]
set -eu
sluice=$1 loggen=$2 n=${3:-200000} workers=${4:-4} batch=${5:-500}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
node= sl=
trap '[ -n "$sl" ] && kill $sl 2>/dev/null; [ -n "$node" ] && kill $node 2>/dev/null; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
set -- $(python3 "$root/tests/functional/free-ports.py" tcp tcp tcp)
port=$1 es=$2 tport=$3
node=$(sh "$root/tests/opensearch/opensearch-node.sh" "$work/node" "$es" "$tport" 3600)
url=http://127.0.0.1:$es
count() {
  curl -s -XPOST "$url/$1/_refresh" >/dev/null
  curl -s "$url/$1/_count" | sed -n 's/.*"count":\([0-9]*\).*/\1/p'
}

# the node's own limit
python3 - "$url" "$n" "$workers" "$batch" <<'EOF2'
import json, sys, threading, time, urllib.request
url, n, workers, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def doc(i):
    return json.dumps({"PROGRAM": "prg00000", "PRIORITY": "info", "PID": "1234",
                       "MESSAGE": "seq: %010d, thread: 0000, runid: 1, stamp: 2026-11-26T23:00:00 " % i
                       + "PADD" * 32, "ISODATE": "2026-11-26T23:00:00+00:00", "HOST": "localhost",
                       "FACILITY": "auth", "@timestamp": "2026-11-26T23:00:00+00:00"})
bodies = []
for start in range(0, n, batch):
    lines = []
    for i in range(start, min(n, start + batch)):
        lines.append(json.dumps({"index": {"_index": "bench-direct", "_id": "id-%010d" % i}}))
        lines.append(doc(i))
    bodies.append(("\n".join(lines) + "\n").encode())
lock = threading.Lock()
def run():
    while True:
        with lock:
            if not bodies:
                return
            b = bodies.pop()
        req = urllib.request.Request(url + "/_bulk", data=b, headers={"Content-Type": "application/x-ndjson"})
        r = json.loads(urllib.request.urlopen(req).read())
        if r.get("errors"):
            raise SystemExit("bulk errors")
t = time.time()
ts = [threading.Thread(target=run) for _ in range(workers)]
for x in ts:
    x.start()
for x in ts:
    x.join()
dt = time.time() - t
print("direct: %d docs in %.2f s: %.0f docs/s (python, %d threads, %d docs a request)" % (n, dt, n / dt,
                                                                                     workers, batch))
EOF2
[ "$(count bench-direct)" = "$n" ] || echo "direct: count $(count bench-direct), want $n"

cat >"$work/sluice.conf" <<EOF2
@version: 3.38
@include "scl.conf"
source s { tcp(ip(127.0.0.1) port($port) log-iw-size(20000)); };
destination d { elasticsearch-http(url("$url/_bulk") index("bench-sluice")
  custom-id("id-\$(substr \${MSG} 5 10)") workers($workers) batch-lines($batch) log-fifo-size(100000)); };
log { source(s); destination(d); flags(flow-control); };
EOF2
"$sluice" -F -f "$work/sluice.conf" -p "$work/pid" -R "$work/persist" -c "$work/ctl" \
  >"$work/sluice.log" 2>&1 &
sl=$!
sleep 1
t0=$(date +%s.%N)
"$loggen" -S -n "$n" -r 10000000 -I 3600 127.0.0.1 "$port" 2>/dev/null >/dev/null
i=0
while [ "$(count bench-sluice)" -lt "$n" ]; do
  i=$((i + 1))
  [ $i -lt 3000 ] || { echo "sluice: only $(count bench-sluice) of $n after 10 min"; exit 1; }
  sleep 0.2
done
t1=$(date +%s.%N)
cpu=$(awk '{print $14 + $15}' /proc/$sl/stat)
hz=$(getconf CLK_TCK)
python3 -c "import sys; n, dt, cpu, hz = int(sys.argv[1]), float(sys.argv[3]) - float(sys.argv[2]), \
int(sys.argv[4]), int(sys.argv[5]); print('sluice: %d docs in %.2f s: %.0f docs/s, %.1f CPU us/msg' % \
(n, dt, n / dt, cpu / hz * 1e6 / n))" "$n" "$t0" "$t1" "$cpu" "$hz"
kill $sl
wait $sl || true
sl=
