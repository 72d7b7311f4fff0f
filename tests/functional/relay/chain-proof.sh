#!/bin/sh
# The proof of issue 6: a chain
#   loggen -> Sluice relay (flags(flow-control), relp() destination with
#   disk-buffer(reliable(yes))) -> RELP over TLS -> Sluice server (relp()
#   source with tls()) -> file()
# where an acknowledgement on each leg means "written or in the reliable
# buffer file", loses nothing when
#   A. the server is killed with SIGKILL and restarted mid-run (loggen
#      sending, the relay's window and buffer full of unanswered messages);
#   B. the relay is killed with SIGKILL and restarted mid-run: while it
#      sends its buffer to the server (a window of unanswered messages on
#      the wire, the rest in the file);
#   C. the server is down for 30 seconds while loggen sends.
# loggen --check on the server's file must find nothing missing after each
# part.  Duplicates are allowed (--allow-duplicates, and so the order of
# what is sent twice: --allow-reordering), only for messages in
# flight at a kill: RELP sends again what was not answered.
# loggen itself speaks plain TCP to the relay, which has no acknowledgement
# to give it: so B kills the relay once loggen's lines are all read (in its
# buffer), never while a line may still sit in the relay's socket.
# The relay and the server check each other's certificates (the test CA,
# made here by relp-certs.sh); each connect after a kill is a new TLS
# handshake, and the test requires every one to have been TLS.
#
# Usage: chain-proof.sh SLUICE SLUICE_CTL LOGGEN
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/relp-certs.sh"
sluice=$1 ctl=$2 loggen=$3
srv_pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; [ -n "$srv_pid" ] && kill -9 "$srv_pid" 2>/dev/null; rm -rf "$work"' EXIT

c=$work/certs
make_certs "$c"
set -- $(free_ports tcp tcp)
in_port=$1 srv_port=$2
cat >"$work/server.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { relp(ip(127.0.0.1) port($srv_port) log-iw-size(2000)
  tls(key-file("$c/server.key") cert-file("$c/server.pem") ca-file("$c/ca.pem"))); };
destination d { file("$work/out.log"); };
log { source(s); destination(d); flags(flow-control); };
EOC
cat >"$work/relay.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { network(ip(127.0.0.1) port($in_port) log-iw-size(2000)); };
destination d_relay { relp("127.0.0.1" port($srv_port) time-reopen(1) window-size(500)
  tls(key-file("$c/client.key") cert-file("$c/client.pem") ca-file("$c/ca.pem"))
  disk-buffer(reliable(yes) disk-buf-size(64M) qout-size(500) dir("$work/buf"))); };
log { source(s); destination(d_relay); flags(flow-control); };
EOC

start_server() {
  "$sluice" -F -v -f "$work/server.conf" -p "$work/server.pid" -c "$work/server.ctl" >>"$work/server.log" 2>&1 &
  srv_pid=$!
  i=0
  until grep -q "starting up" "$work/server.log" 2>/dev/null && [ -S "$work/server.ctl" ]; do
    i=$((i + 1))
    [ $i -lt 100 ] && kill -0 "$srv_pid" 2>/dev/null || fail "server did not start: $(tail "$work/server.log")"
    sleep 0.1
  done
}

kill_server() {
  kill -9 "$srv_pid"
  wait "$srv_pid" 2>/dev/null || true
  srv_pid=
  rm -f "$work/server.ctl"
}

start_relay() {
  start_sluice "$sluice" "$work/relay.conf" -c "$work/relay.ctl"
}

kill_relay() {
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
}

# relay_stat NAME: the relay destination's counter (empty while it starts)
relay_stat() {
  "$ctl" -c "$work/relay.ctl" stats 2>/dev/null | sed -n "s/^dst\.relp;d_relay#0;[^;]*;a;$1;//p"
}

# wait_file_lines N: until the server's file has N distinct lines (90 s)
wait_file_lines() {
  i=0
  while [ "$(sort -u "$work/out.log" 2>/dev/null | wc -l)" -lt "$1" ]; do
    i=$((i + 1))
    [ $i -lt 900 ] || fail "the server wrote $(sort -u "$work/out.log" | wc -l) distinct lines, expected $1"
    sleep 0.1
  done
}

# check PART N: loggen --check finds N lines in all, nothing missing
check() {
  "$loggen" --check "$work/out.log" --allow-duplicates --allow-reordering >"$work/report" 2>&1 || { cat "$work/report"; fail "$1: loss"; }
  grep -q "missing=0 .*: OK" "$work/report" || { cat "$work/report"; fail "$1: report"; }
  [ "$(sort -u "$work/out.log" | wc -l)" -eq "$2" ] || fail "$1: $(sort -u "$work/out.log" | wc -l) lines, want $2"
  echo "$1: $(tail -1 "$work/report")"
}

start_server
start_relay

# ---- A: the server killed and restarted while loggen sends ----------------
"$loggen" -S -Q -I 60 -r 2000 -n 6000 --active-connections=2 127.0.0.1 "$in_port" 2>"$work/loggen-a.err" &
lg=$!
sleep 1.5
kill_server
sleep 1
start_server
wait $lg || fail "A: loggen: $(cat "$work/loggen-a.err")"
total=12000
wait_file_lines $total
check A $total

# ---- B: the relay killed while it sends its buffer ------------------------
kill_server
sleep 1.1 # a new runid for the checker
"$loggen" -S -Q -I 60 -r 5000 -n 10000 --active-connections=2 127.0.0.1 "$in_port" 2>"$work/loggen-b.err" \
  || fail "B: loggen: $(cat "$work/loggen-b.err")"
# every line read is in the buffer file once the relay has taken them all
i=0
until [ "$(relay_stat processed)" = $((total + 20000)) ]; do
  i=$((i + 1))
  [ $i -lt 300 ] || fail "B: the relay took $(relay_stat processed) in all, not $((total + 20000))"
  sleep 0.1
done
total=$((total + 20000))
start_server
# the server has written some of them: the relay is sending the rest
wait_file_lines $((total - 19000))
kill_relay
start_relay
wait_file_lines $total
check B $total

# ---- C: the server down for 30 seconds while loggen sends ----------------
kill_server
sleep 1.1
"$loggen" -S -Q -I 60 -r 200 -n 6000 --active-connections=2 127.0.0.1 "$in_port" 2>"$work/loggen-c.err" &
lg=$!
sleep 30
start_server
wait $lg || fail "C: loggen: $(cat "$work/loggen-c.err")"
total=$((total + 12000))
wait_file_lines $total
check C $total

# every connection of the relay's was TLS, and none was refused
grep -q "RELP connection established; .*tls='yes'" "$work/sluice.log" || fail "no TLS connection"
grep "RELP connection established; " "$work/sluice.log" | grep -v "tls='yes'" && fail "a connection without TLS"
grep -q "SSL error\|Certificate\|handshake failed" "$work/sluice.log" "$work/server.log" \
  && fail "TLS errors: $(grep "SSL error\|Certificate\|handshake failed" "$work/sluice.log" "$work/server.log")"
stop_sluice
kill "$srv_pid"
wait "$srv_pid" || fail "server exit"
srv_pid=
echo "chain-proof: $total lines over RELP/TLS through kills of server and relay and 30 s without server, none missing"
