#!/bin/sh
# A reliable disk buffer across SIGKILL:
#   loggen -> Sluice relay (flags(flow-control), tcp() destination with
#   disk-buffer(reliable(yes))) -> Sluice server -> file()
# 1. the server is down: every message ends up in the relay's buffer file,
#    a reload hands the open buffer over (same object: its counters go on),
#    sluice-dqtool info counts the messages, and the relay is killed with
#    SIGKILL;
# 2. the relay starts again and finds its file by name (queued = sent), the
#    server comes up, and the relay is killed again as soon as the server
#    has written its first lines, in the middle of sending the buffer;
# 3. the relay starts a third time and sends what is left.
# loggen --check must find nothing missing.  Duplicates are allowed
# (--allow-duplicates), and only for that reason: what the relay had sent
# and not yet acked in its file when it was killed in step 2 is sent again
# (the file's head moves when the writer has written a batch, so at most a
# batch and what the kernel held), never lost.
#
# Usage: diskbuf-kill.sh SLUICE SLUICE_CTL LOGGEN SLUICE_DQTOOL
. "$(dirname "$0")/../lib.sh"
sluice=$1 ctl=$2 loggen=$3 dqtool=$4
srv_pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$work"' EXIT

n=20000
set -- $(free_ports tcp tcp)
in_port=$1 srv_port=$2
cat >"$work/server.conf" <<EOC
@version: 3.38
options { stats-freq(0); };
source s { network(ip(127.0.0.1) port($srv_port) keep-hostname(yes) log-iw-size(1000)); };
destination d { file("$work/out.log"); };
log { source(s); destination(d); };
EOC
cat >"$work/relay.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { network(ip(127.0.0.1) port($in_port) log-iw-size(1000)); };
destination d_relay { tcp("127.0.0.1" port($srv_port) time-reopen(1)
  disk-buffer(reliable(yes) disk-buf-size(64M) qout-size(500) dir("$work/buf"))); };
log { source(s); destination(d_relay); flags(flow-control); };
EOC

relay='dst.tcp;d_relay#0' # its counters: dest_stat (../lib.sh)

kill_relay() {
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
}

start_relay() {
  start_sluice "$sluice" "$work/relay.conf" -c "$work/relay.ctl"
}

start_server() {
  "$sluice" -F -v -f "$work/server.conf" -p "$work/server.pid" -c "$work/server.ctl" >"$work/server.log" 2>&1 &
  srv_pid=$!
  i=0
  while ! grep -q "starting up" "$work/server.log" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 100 ] && kill -0 "$srv_pid" 2>/dev/null || fail "server did not start: $(cat "$work/server.log")"
    sleep 0.1
  done
}

# 1. the destination is down
start_relay
"$loggen" -S -Q -r 20000 -n "$n" 127.0.0.1 "$in_port" 2>/dev/null || fail "loggen"
wait_dest_stat "$work/relay.ctl" "$relay" processed "$n" # in the file: the writer's batch in hand is not "queued"
# a reload hands the same open buffer to the new configuration
kill -HUP "$pid"
i=0
while ! grep -q "Configuration reload finished\|in use by another\|Error starting the new" "$work/sluice.log"; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "no reload: $(tail -5 "$work/sluice.log")"
  sleep 0.1
done
grep -q "in use by another\|Disk buffer loaded\|Error starting the new" "$work/sluice.log" && fail "the reload opened the buffer again"
wait_dest_stat "$work/relay.ctl" "$relay" processed "$n"
kill_relay
file=$(ls "$work"/buf/*.rqf) || fail "no buffer file in $work/buf"
"$dqtool" info "$file" >"$work/info" || fail "dqtool info: $(cat "$work/info")"
grep -q "^messages: $n (front cache 0, ring $n, overflow 0)" "$work/info" || fail "dqtool info: $(cat "$work/info")"
"$dqtool" cat "$file" | head -1 | grep -q "seq: 0000000000" || fail "dqtool cat: $("$dqtool" cat "$file" | head -1)"

# 2. found again by name; killed while sending it
start_relay
grep -q "Disk buffer loaded.*queued='$n'" "$work/sluice.log" ||
  fail "the restarted relay did not find its $n messages: $(grep 'Disk buffer' "$work/sluice.log")"
start_server
i=0
while [ ! -s "$work/out.log" ]; do
  i=$((i + 1))
  [ $i -lt 300 ] || fail "the server got nothing"
  sleep 0.01
done
kill_relay
first=$(wc -l <"$work/out.log")

# 3. what is left
start_relay
left=$(sed -n "s/.*Disk buffer loaded.*queued='\([0-9]*\)'.*/\1/p" "$work/sluice.log")
wait_dest_stat "$work/relay.ctl" "$relay" queued 0
kill -TERM "$pid"
wait "$pid" || fail "relay exit"
pid=
"$dqtool" info "$file" | grep -q "^messages: 0 " || fail "the buffer is not empty: $("$dqtool" info "$file")"
sleep 0.5
kill -TERM "$srv_pid"
wait "$srv_pid" || fail "server exit"
srv_pid=
"$loggen" --check "$work/out.log" --expect "$n" --allow-duplicates --allow-reordering >"$work/report" ||
  fail "loss: $(cat "$work/report")"
echo "sent=$n written before the second kill=$first queued after it=$left; $(tail -1 "$work/report")"
grep -q "missing=0 " "$work/report" || fail "$(cat "$work/report")"
echo "diskbuf-kill: ok"
