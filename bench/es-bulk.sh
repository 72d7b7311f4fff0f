#!/bin/sh
# loggen -> Sluice -> elasticsearch-http() into a one-node OpenSearch 2.19.6
# (tests/opensearch/opensearch-node.sh), beside the node's own bulk limit:
# a python client posting bulk bodies of the same documents (the action
# line and fields Sluice writes) from WORKERS threads.  Not a test; prints
# docs/s for both and Sluice's CPU per message.
# With SLUICE_SYSLOG_NG naming an unpacked Debian syslog-ng 3.38 that has
# its http module (apt-get download syslog-ng-mod-http, dpkg -x into DIR),
# syslog-ng's own elasticsearch-http() (its SCL block, included from DIR)
# runs next with the same configuration into its own index, timed the same
# way (SLUICE_BENCH_ORDER="syslog-ng sluice" runs it first).  Each
# daemon's line: docs/s from loggen's start until _count has them all, CPU
# us per message (user + system, all threads, over that time), and the
# node's CPU per document meanwhile, then how busy the node's write
# threads were (sampled once a second); error lines of its log follow.
# Usage: bench/es-bulk.sh SLUICE LOGGEN [MESSAGES [WORKERS [BATCH]]]
set -eu
sluice=$1 loggen=$2 n=${3:-200000} workers=${4:-4} batch=${5:-500}
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/bench-lib.sh"
work=$(mktemp -d)
node= sl= pl=
cleanup() {
  [ -z "$pl" ] || kill $pl 2>/dev/null || true
  [ -z "$sl" ] || kill $sl 2>/dev/null || true
  if [ -n "$node" ]; then
    kill $node 2>/dev/null || true
    i=0
    while kill -0 $node 2>/dev/null && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.2; done
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
set -- $(python3 "$root/tests/functional/free-ports.py" tcp tcp tcp)
port=$1 es=$2 tport=$3
node=$(sh "$root/tests/opensearch/opensearch-node.sh" "$work/node" "$es" "$tport" 3600)
url=http://127.0.0.1:$es
count() {
  curl -s -XPOST "$url/$1/_refresh" >/dev/null
  c=$(curl -s "$url/$1/_count" | sed -n 's/.*"count":\([0-9]*\).*/\1/p')
  echo "${c:-0}"
}
hz=$(getconf CLK_TCK)
# the java process under timeout(1)
jvm=$(awk '{print $1}' "/proc/$node/task/$node/children" 2>/dev/null)
[ -n "$jvm" ] || jvm=$node

# the node's own limit
j0=$(ticks $jvm)
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
j1=$(ticks $jvm)
awk -v n="$n" -v j=$((j1 - j0)) -v hz="$hz" 'BEGIN { printf "  the node: %.1f CPU us/doc\n", j * 1e6 / hz / n }'
[ "$(count bench-direct)" = "$n" ] || echo "direct: count $(count bench-direct), want $n"

# conf INDEX: the configuration both daemons run (the include line that
# gives elasticsearch-http() comes before it)
conf() {
  cat <<EOF2
source s { tcp(ip(127.0.0.1) port($port) log-iw-size(20000)); };
destination d { elasticsearch-http(url("$url/_bulk") index("$1") type("")
  custom-id("id-\$(substr \${MSG} 5 10)") workers($workers) batch-lines($batch) log-fifo-size(100000)); };
log { source(s); destination(d); flags(flow-control); };
EOF2
}
# pool: the node's write thread pool (active threads, queued tasks) once a
# second into $work/pool until killed: a daemon that leaves the threads
# idle is not keeping the node busy
pool() {
  while :; do
    # (the answer has no newline at its end: sed would leave none)
    { curl -s -m 1 "$url/_nodes/stats/thread_pool?filter_path=nodes.*.thread_pool.write"; echo; } |
      sed -n 's/.*"threads":\([0-9]*\),"queue":\([0-9]*\),"active":\([0-9]*\).*/\1 \2 \3/p' >>"$work/pool"
    sleep 1
  done
}
# run NAME INDEX: loggen into the daemon $sl (started by the caller, its
# log in $work/NAME.log) until INDEX holds MESSAGES documents
run() {
  wait_listening "$port" "$1" "$work/$1.log"
  c0=$(ticks $sl) j0=$(ticks $jvm)
  : >"$work/pool"
  pool &
  pl=$!
  t0=$(date +%s.%N)
  "$loggen" -S -n "$n" -r 10000000 -I 3600 127.0.0.1 "$port" 2>/dev/null >/dev/null
  i=0
  while [ "$(count "$2")" -lt "$n" ]; do
    i=$((i + 1))
    [ $i -lt 3000 ] || { echo "$1: only $(count "$2") of $n after 10 min"; tail "$work/$1.log"; exit 1; }
    sleep 0.2
  done
  t1=$(date +%s.%N)
  c1=$(ticks $sl) j1=$(ticks $jvm)
  kill $pl
  wait $pl 2>/dev/null || true
  pl=
  awk -v name="$1" -v n="$n" -v t0="$t0" -v t1="$t1" -v c=$((c1 - c0)) -v j=$((j1 - j0)) -v hz="$hz" 'BEGIN {
    printf "%s: %d docs in %.2f s: %.0f docs/s, %.1f CPU us/msg (the node: %.1f CPU us/doc)\n",
      name, n, t1 - t0, n / (t1 - t0), c * 1e6 / hz / n, j * 1e6 / hz / n }'
  awk 'NF == 3 { k++; t = $1; q += $2; a += $3; if ($3 < $1) idle++ }
    END { if (k) printf "  the node'"'"'s write pool: %.2f of %d threads active, %.2f queued on average, not all active in %.0f %% of %d samples\n",
      a / k, t, q / k, 100 * idle / k, k }' "$work/pool"
  kill $sl
  wait $sl || true
  sl=
  grep -i 'error\|fail' "$work/$1.log" | head -3 | sed 's/^/  log: /'
}

sluice_run() {
  { echo '@version: 3.38'; echo '@include "scl.conf"'; conf bench-sluice; } >"$work/sluice.conf"
  "$sluice" -F -f "$work/sluice.conf" -p "$work/pid" -R "$work/persist" -c "$work/ctl" \
    >"$work/sluice.log" 2>&1 &
  sl=$!
  run sluice bench-sluice
}
sng=${SLUICE_SYSLOG_NG:-}
syslog_ng_run() {
  [ -e "$sng/usr/lib/syslog-ng/3.38/libhttp.so" ] ||
    { echo "syslog-ng: no $sng/usr/lib/syslog-ng/3.38/libhttp.so (syslog-ng-mod-http)"; exit 1; }
  { echo '@version: 3.38'; echo "@define include-path \"$sng/usr/share/syslog-ng/include\""
    echo '@include "scl/elasticsearch/elastic-http.conf"'; conf bench-syslog-ng; } >"$work/syslog-ng.conf"
  LD_LIBRARY_PATH=$sng/usr/lib/syslog-ng "$sng/usr/sbin/syslog-ng" -F --no-caps \
    --module-path="$sng/usr/lib/syslog-ng/3.38" -f "$work/syslog-ng.conf" -R "$work/sng.persist" \
    -p "$work/sng.pid" -c "$work/sng.ctl" >"$work/syslog-ng.log" 2>&1 &
  sl=$!
  run syslog-ng bench-syslog-ng
}
# the node gets faster as it warms up (JIT, segment merges): the order of
# the daemons can be turned round to see how much (SLUICE_BENCH_ORDER)
for d in ${SLUICE_BENCH_ORDER:-sluice syslog-ng}; do
  case $d in
  sluice) sluice_run ;;
  syslog-ng) [ -z "$sng" ] || syslog_ng_run ;;
  *) echo "SLUICE_BENCH_ORDER: $d is neither sluice nor syslog-ng"; exit 1 ;;
  esac
done
