#!/bin/sh
# loggen -> Sluice -> http() into a local sink (bench/http-sink.py: counts
# the lines of each request body and answers 200), by hand like es-bulk.sh
# and kafka.sh: the sink is not a file bench.py can count.  Each request
# is a batch of BATCH messages, one a line (body("${MSG}"), "\n" between
# them and after the last), WORKERS requests in flight, flow control from
# a tcp() source.  With SLUICE_SYSLOG_NG naming an unpacked Debian
# syslog-ng 3.38 that has its http module (apt-get download
# syslog-ng-mod-http, dpkg -x into DIR), syslog-ng's http() runs next with
# the same configuration into the same sink.  Each daemon's line: msg/s
# from loggen's start until the sink counted them all, its CPU us per
# message (user + system, all threads) and the sink's meanwhile.
# A batch goes as soon as the queue runs dry, full or not (both daemons'
# default); TIMEOUT (ms) sets batch-timeout() in both, to wait that long
# for a batch to fill.
# A benchmark, never a test: nothing asserts a speed.
# Usage: bench/http.sh SLUICE LOGGEN [MESSAGES [WORKERS [BATCH [TIMEOUT]]]]
set -eu
sluice=$1 loggen=$2 n=${3:-200000} workers=${4:-4} batch=${5:-500} timeout=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench-lib.sh"
work=$(mktemp -d)
sl= sink=
trap '[ -n "$sl" ] && kill $sl 2>/dev/null; [ -n "$sink" ] && kill $sink 2>/dev/null; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
set -- $(python3 "$here/../tests/functional/free-ports.py" tcp tcp)
port=$1 hport=$2
python3 "$here/http-sink.py" "$hport" 3600 &
sink=$!
hz=$(getconf CLK_TCK)
# lines: what the sink counted; requests: the requests it took
lines() { curl -s "http://127.0.0.1:$hport/count" | cut -d' ' -f1; }
requests() { curl -s "http://127.0.0.1:$hport/count" | cut -d' ' -f2; }
until [ "$(curl -s "http://127.0.0.1:$hport/count")" ]; do sleep 0.1; done

# the configuration both daemons run
cat >"$work/conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port) log-iw-size(20000)); };
destination d { http(url("http://127.0.0.1:$hport/") method("POST") headers("Content-Type: text/plain")
  body("\${MSG}") delimiter("\n") body-suffix("\n") workers($workers) batch-lines($batch)
  ${timeout:+batch-timeout($timeout)} log-fifo-size(100000)); };
log { source(s); destination(d); flags(flow-control); };
EOF2

# run NAME: loggen into the daemon $sl (started by the caller, its log in
# $work/NAME.log) until the sink counted MESSAGES more lines
run() {
  wait_listening "$port" "$1" "$work/$1.log"
  base=$(lines)
  want=$((base + n)) r0=$(requests)
  c0=$(ticks $sl) s0=$(ticks $sink)
  t0=$(date +%s.%N)
  "$loggen" -S -n "$n" -r 10000000 -I 3600 127.0.0.1 "$port" 2>/dev/null >/dev/null
  i=0
  while [ "$(lines)" -lt $want ]; do
    i=$((i + 1))
    [ $i -lt 30000 ] || { echo "$1: only $(($(lines) - base)) of $n after 10 min"; tail "$work/$1.log"; exit 1; }
    sleep 0.02
  done
  t1=$(date +%s.%N)
  c1=$(ticks $sl) s1=$(ticks $sink) r1=$(requests)
  awk -v name="$1" -v n="$n" -v t0="$t0" -v t1="$t1" -v c=$((c1 - c0)) -v s=$((s1 - s0)) -v hz="$hz" \
    -v r=$((r1 - r0)) 'BEGIN {
    printf "%s http(): %d msgs in %.2f s: %.0f msg/s, %.2f CPU us/msg (the sink: %.2f CPU us/msg, %d requests, %.0f msgs a request)\n",
      name, n, t1 - t0, n / (t1 - t0), c * 1e6 / hz / n, s * 1e6 / hz / n, r, n / r }'
  kill $sl
  wait $sl || true
  sl=
  grep -i 'error\|fail' "$work/$1.log" | head -3 | sed 's/^/  log: /'
  [ "$(lines)" -eq $want ] || echo "  the sink counted $(($(lines) - base)) lines, not $n"
}

echo "$n messages, workers($workers) batch-lines($batch)${timeout:+ batch-timeout($timeout)}"
"$sluice" -F -f "$work/conf" -p "$work/pid" -R "$work/persist" -c "$work/ctl" >"$work/sluice.log" 2>&1 &
sl=$!
run sluice

sng=${SLUICE_SYSLOG_NG:-}
if [ -n "$sng" ]; then
  [ -e "$sng/usr/lib/syslog-ng/3.38/libhttp.so" ] ||
    { echo "syslog-ng: no $sng/usr/lib/syslog-ng/3.38/libhttp.so (syslog-ng-mod-http)"; exit 1; }
  LD_LIBRARY_PATH=$sng/usr/lib/syslog-ng "$sng/usr/sbin/syslog-ng" -F --no-caps \
    --module-path="$sng/usr/lib/syslog-ng/3.38" -f "$work/conf" -R "$work/sng.persist" \
    -p "$work/sng.pid" -c "$work/sng.ctl" >"$work/syslog-ng.log" 2>&1 &
  sl=$!
  run syslog-ng
fi
