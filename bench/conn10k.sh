#!/bin/sh
# 10,000 connections at once: loggen drives CONNS connections (10,000 by
# default) at RATE messages a second each (100: 1M a second in all, from
# its sender threads), SECS seconds, 400-byte messages, into Sluice's
# tcp() with max-connections(CONNS) and one file(), no flow control,
# log-fifo-size(FIFO) (10,000, syslog-ng's default).
# DEST "file" (the default) writes every message to the file; "none"
# sends them all to a filter that drops every one (read, framed, parsed,
# routed and filtered, nothing written), which measures the connections
# without the page cache: at 1M msg/s of 400 bytes the file takes
# 430 MB/s, and on a small VM the kernel's copy into the page cache is
# then the larger part of the daemon's CPU.
# Prints loggen's own line (how many it sent, how fast), the lines
# written (or the messages read, from sluice-ctl, beside the binary), the
# daemon's CPU per message and its peak resident memory.
# By hand like http.sh: loggen's count is the measure, not bench.py's.
# The file sits in a temporary directory beside the daemon's state.
# A benchmark, never a test: nothing asserts a speed.
# Usage: bench/conn10k.sh SLUICE LOGGEN [SECS [CONNS [RATE [FIFO [DEST]]]]]
set -eu
sluice=$1 loggen=$2 secs=${3:-15} conns=${4:-10000} rate=${5:-100} fifo=${6:-10000} dest=${7:-file}
ctl="$(dirname "$sluice")/tools/sluice-ctl/sluice-ctl"
case $dest in
file) route='destination(d);' ;;
none) route='filter(f_none); destination(d);' ;;
*) echo "conn10k.sh: DEST is file or none, not $dest" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench-lib.sh"
work=$(mktemp -d)
sl=
trap '[ -n "$sl" ] && kill $sl 2>/dev/null; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
port=$(python3 "$here/../tests/functional/free-ports.py" tcp)
cat >"$work/conf" <<EOF2
@version: 3.38
options { log-fifo-size($fifo); };
source s { tcp(ip(127.0.0.1) port($port) max-connections($conns)); };
destination d { file("$work/out.log"); };
filter f_none { facility(local7) and level(emerg); };
log { source(s); $route };
EOF2
"$sluice" -F -f "$work/conf" -R "$work/persist" -p "$work/pid" -c "$work/ctl" >"$work/sluice.log" 2>&1 &
sl=$!
wait_listening "$port" sluice "$work/sluice.log"
c0=$(ticks $sl)
"$loggen" -S --active-connections="$conns" -r "$rate" -I "$secs" -s 400 127.0.0.1 "$port" \
  >/dev/null 2>"$work/loggen.err" || { cat "$work/loggen.err"; exit 1; }
sent=$(sed -n 's/.*average rate.*count=\([0-9]*\),.*/\1/p' "$work/loggen.err" | tail -1)
# what loggen handed to its sockets reaches the daemon soon after it ends
done_count() {
  if [ "$dest" = file ]; then
    wc -l <"$work/out.log"
  else
    "$ctl" query get center.received.processed -c "$work/ctl" | sed -n 's/.*=//p'
  fi
}
i=0
while [ "$(done_count)" -lt "$sent" ] && [ $i -lt 600 ]; do
  i=$((i + 1))
  sleep 0.1
done
c1=$(ticks $sl)
lines=$(done_count)
what="lines written"
[ "$dest" = file ] || what="messages read (a filter dropped them all)"
grep 'average rate' "$work/loggen.err" | tail -1
awk -v t=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v n="$lines" -v sent="$sent" -v what="$what" \
  -v rss="$(awk '/VmHWM/ {print $2}' /proc/$sl/status)" \
  'BEGIN { printf "sluice: %d of %d %s, %.2f CPU us/msg, peak RSS %d MiB\n", n, sent, what, t / hz * 1e6 / n, rss / 1024 }'
