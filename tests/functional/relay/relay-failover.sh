#!/bin/sh
# failover() and failback() between real servers: loggen -> Sluice relay
# -> primary Sluice server (127.0.0.2) with a secondary (127.0.0.1, same
# port).  The primary is stopped mid-run: the relay fails over to the
# secondary; the primary comes back: after two successful probes the relay
# fails back to it.  The three files (primary, secondary, primary again),
# read in that order, must hold every line but those the stopped primary's
# kernel buffers took with them (see relay-loggen.sh), with no duplicate
# and no reordering.
# Usage: relay-failover.sh SLUICE LOGGEN
. "$(dirname "$0")/../lib.sh"
sluice=$1 loggen=$2
p1=
p2=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; for p in $p1 $p2; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT

set -- $(free_ports tcp tcp)
in_port=$1 port=$2

# server NAME ADDR OUT: start a Sluice server, its pid in $srv
server() {
  cat >"$work/$1.conf" <<EOC
@version: 3.38
options { stats-freq(0); };
source s { network(ip($2) port($port) keep-hostname(yes)); };
destination d { file("$3"); };
log { source(s); destination(d); };
EOC
  "$sluice" -F -v -f "$work/$1.conf" -p "$work/$1.pid" >"$work/$1.log" 2>&1 &
  srv=$!
  i=0
  until grep -q "starting up" "$work/$1.log" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 100 ] && kill -0 "$srv" 2>/dev/null || fail "server $1 did not start: $(cat "$work/$1.log")"
    sleep 0.1
  done
}

server primary 127.0.0.2 "$work/out1"
p1=$srv
server secondary 127.0.0.1 "$work/out2"
p2=$srv
cat >"$work/relay.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { network(ip(127.0.0.1) port($in_port)); };
destination d_relay { tcp("127.0.0.2" port($port) time-reopen(1)
  failover(servers("127.0.0.1") failback(tcp-probe-interval(1) successful-probes-required(2)))); };
log { source(s); destination(d_relay); flags(flow-control); };
EOC
start_sluice "$sluice" "$work/relay.conf"

n=40000
"$loggen" -S -Q -r 5000 -n $n 127.0.0.1 "$in_port" 2>/dev/null &
lg=$!
sleep 1.5
kill -TERM "$p1"
wait "$p1" || fail "primary exited with $?"
p1=
i=0
until grep -q "Failing over to the next destination server" "$work/sluice.log"; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "no failover"
  sleep 0.1
done
i=0
until [ -s "$work/out2" ]; do
  i=$((i + 1))
  [ $i -lt 200 ] || fail "nothing reached the secondary"
  sleep 0.05
done
server primary 127.0.0.2 "$work/out3"
p1=$srv
i=0
until grep -q "Primary server is available again, failing back" "$work/sluice.log"; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "no failback"
  sleep 0.1
done
wait $lg || fail "loggen"
total() { cat "$work/out1" "$work/out2" "$work/out3" 2>/dev/null | wc -l; }
i=0
while [ "$(total)" -lt $n ] && [ $i -lt 100 ]; do
  i=$((i + 1))
  sleep 0.1
done
stop_sluice
[ -s "$work/out3" ] || fail "nothing reached the primary after the failback"
cat "$work/out1" "$work/out2" "$work/out3" >"$work/all"
"$loggen" --check "$work/all" >"$work/report" || true
sed -n 's/^check: threads=[0-9]* received=\([0-9]*\) missing=\([0-9]*\) duplicated=\([0-9]*\) reordered=\([0-9]*\).*/\1 \2 \3 \4/p' \
  "$work/report" >"$work/counts"
read -r received missing duplicated reordered <"$work/counts" || fail "no report: $(cat "$work/report")"
echo "relay-failover: sent=$n primary=$(wc -l <"$work/out1") secondary=$(wc -l <"$work/out2")" \
  "primary-again=$(wc -l <"$work/out3") missing=$missing duplicated=$duplicated reordered=$reordered"
[ "$duplicated" -eq 0 ] || fail "duplicates"
[ "$reordered" -eq 0 ] || fail "reordered"
[ "$missing" -le 20000 ] || fail "more missing ($missing) than the kernel buffers can hold"
