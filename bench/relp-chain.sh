#!/bin/sh
# Two Sluice daemons in a chain, by hand (bench.py runs one daemon and a
# sink, not two daemons): loggen -> relay -> server -> file(), the relay
# forwarding with tcp() (flags(flow-control)) or with relp(), the same
# messages over the same loopback.  Prints msg/s end to end (loggen's start
# to the last line in the server's file) and the two daemons' CPU time per
# message for each, and RELP's share of TCP's rate.
# A benchmark, never a test: nothing asserts a speed.
#
# Usage: bench/relp-chain.sh SLUICE LOGGEN [MESSAGES] [CONNECTIONS] [SIZE] [WINDOW]
set -eu
sluice=$1 loggen=$2 n=${3:-1000000} conns=${4:-4} size=${5:-400} window=${6:-1000}
work=$(mktemp -d)
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

ports() {
  python3 -c 'import socket
s=[socket.socket() for _ in range(3)]
[x.bind(("127.0.0.1",0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))'
}

now_ms() { date +%s%3N; }

start() { # NAME CONF
  "$sluice" -F -f "$2" -p "$work/$1.pid" -c "$work/$1.ctl" >"$work/$1.log" 2>&1 &
  pids="$pids $!"
  i=0
  until grep -q "starting up" "$work/$1.log" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 100 ] || { cat "$work/$1.log"; exit 1; }; sleep 0.1
  done
}

run() { # KIND: tcp or relp
  set -- "$1" $(ports)
  kind=$1 in_port=$2 mid_port=$3
  rm -f "$work/out.log"
  if [ "$kind" = relp ]; then
    src="relp(ip(127.0.0.1) port($mid_port) log-iw-size($((window * 10))))"
    dst="relp(\"127.0.0.1\" port($mid_port) window-size($window))"
  else
    src="network(ip(127.0.0.1) port($mid_port) log-iw-size($((window * 10))))"
    dst="tcp(\"127.0.0.1\" port($mid_port))"
  fi
  cat >"$work/server.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { $src; };
destination d { file("$work/out.log"); };
log { source(s); destination(d); };
EOC
  cat >"$work/relay.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { network(ip(127.0.0.1) port($in_port) log-iw-size(10000) max-connections(100)); };
destination d { $dst; };
log { source(s); destination(d); flags(flow-control); };
EOC
  start server "$work/server.conf"
  start relay "$work/relay.conf"
  t0=$(now_ms)
  "$loggen" -i -S -Q -r 100000000 -I 600 -s "$size" -n $((n / conns)) --active-connections "$conns" 127.0.0.1 "$in_port" \
    >/dev/null 2>&1
  want=$(( (n / conns) * conns ))
  i=0
  while [ "$(wc -l <"$work/out.log" 2>/dev/null || echo 0)" -lt "$want" ]; do
    i=$((i + 1)); [ $i -lt 6000 ] || { echo "$kind: only $(wc -l <"$work/out.log") of $want"; break; }
    sleep 0.01
  done
  t1=$(now_ms)
  # CPU of both daemons (user + system, clock ticks), steadier than wall
  # time on a shared machine
  ticks=0
  for p in $pids; do
    [ -r "/proc/$p/stat" ] || { echo "$kind: a daemon died:"; tail -n 20 "$work"/*.log; exit 1; }
    ticks=$((ticks + $(awk '{ print $14 + $15 }' "/proc/$p/stat")))
  done
  cpu_ns=$((ticks * 1000000000 / $(getconf CLK_TCK) / want))
  for p in $pids; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  pids=
  rate=$((want * 1000 / (t1 - t0)))
  echo "$kind: $want messages in $((t1 - t0)) ms: $rate msg/s, both daemons $cpu_ns ns CPU/msg"
  eval "rate_$kind=$rate"
}

run tcp
run relp
echo "relp/tcp: $(awk "BEGIN { printf \"%.2f\", $rate_relp / $rate_tcp }")"
