#!/bin/sh
# loggen drives the daemon: four TCP connections into network(), RFC 5424
# octet-counted into syslog(), a unix-stream() and a UDP source, all into one
# file() that the loss checker reads: nothing may be missing, duplicated or
# reordered. The rate is moderate: this is about delivery, not speed.
# Usage: loggen-sluice.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2
set -- $(free_ports tcp tcp udp)
tcp_port=$1 syslog_port=$2 udp_port=$3

cat >"$work/sluice.conf" <<EOF
@version: 3.38
options { keep-hostname(yes); };
source s {
  network(ip(127.0.0.1) port($tcp_port));
  syslog(ip(127.0.0.1) port($syslog_port));
  network(ip(127.0.0.1) port($udp_port) transport(udp));
  unix-stream("$work/in.sock");
};
destination d { file("$work/out.log"); };
log { source(s); destination(d); };
EOF

start_sluice "$sluice" "$work/sluice.conf" -R "$work/persist"
# the unix listener comes up with the others
[ -S "$work/in.sock" ] || fail "no unix socket"

# Each run gets its own runid (a second apart), so the checker keeps them apart.
"$loggen" -S -Q -r 10000 -n 3000 --active-connections=4 127.0.0.1 "$tcp_port" 2>/dev/null || fail "loggen tcp"
sleep 1.1
"$loggen" -S -P -Q -r 10000 -n 2000 127.0.0.1 "$syslog_port" 2>/dev/null || fail "loggen -P"
sleep 1.1
"$loggen" -x -Q -r 10000 -n 2000 --active-connections=2 "$work/in.sock" 2>/dev/null || fail "loggen unix"
sleep 1.1
# UDP has no flow control: evenly spaced, so that a burst cannot overflow
# the socket buffer
"$loggen" -D -Q --steady -r 2000 -n 300 127.0.0.1 "$udp_port" 2>/dev/null || fail "loggen udp"

# 12000 + 2000 + 4000 + 300 lines, written before a timeout
want=18300
wait_lines "$work/out.log" $want
stop_sluice

"$loggen" --check "$work/out.log" >"$work/report" || { cat "$work/report"; fail "loss"; }
grep -q "^check: threads=8 received=$want missing=0 duplicated=0 reordered=0: OK\$" "$work/report" \
  || { cat "$work/report"; fail "report"; }
# The RFC 5424 run arrived whole: the BOM and the body survive the parse.
grep -q ' localhost prg00000\[1234\]: .*seq: 0000001999, thread: 0000' "$work/out.log" || fail "5424 line"
echo "loggen-sluice: all $want lines arrived"
