#!/bin/sh
# A UDP so-reuseport() group balanced by ebpf(reuseport(sockets(2))), written
# as syslog-ng's configurations write it (two udp() sources with
# persist-name(), each into its own file): one loggen sender's datagrams
# reach both sources, before and after a reload (SIGHUP), and none is lost.
# Skipped (77) where this process may not load an eBPF program.
# Usage: udp-group.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2
set -- $(free_ports udp)
port=$1

cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s_one { udp(ip(127.0.0.1) port($port) so-reuseport(yes) persist-name("udp1") ebpf(reuseport(sockets(2)))); };
source s_two { udp(ip(127.0.0.1) port($port) so-reuseport(yes) persist-name("udp2")); };
destination d_one { file("$work/out/one.log" create-dirs(yes)); };
destination d_two { file("$work/out/two.log" create-dirs(yes)); };
log { source(s_one); destination(d_one); };
log { source(s_two); destination(d_two); };
EOF2

if ! "$sluice" -F -f "$work/sluice.conf" --syntax-only >"$work/syntax" 2>&1; then
  cat "$work/syntax"
  fail "configuration refused"
fi
start_sluice_or_skip "Error loading the ebpf(reuseport()) program.*Operation not permitted" \
  "$sluice" "$work/sluice.conf" -R "$work/persist"

lines() { cat "$work/out/$1.log" 2>/dev/null | wc -l; }

# one sender, evenly spaced (UDP has no flow control: a burst could
# overflow a socket buffer); each source gets some
send_and_check() {
  before_one=$(lines one) before_two=$(lines two)
  "$loggen" -D -Q --steady -r 2000 -n 400 127.0.0.1 "$port" 2>/dev/null || fail "loggen"
  want=$((before_one + before_two + 400))
  i=0
  while [ $(($(lines one) + $(lines two))) -lt $want ]; do
    i=$((i + 1))
    [ $i -lt 300 ] || fail "$1: $(($(lines one) + $(lines two))) of $want lines"
    sleep 0.1
  done
  one=$(($(lines one) - before_one)) two=$(($(lines two) - before_two))
  # a binomial(400, 1/2) under 100 has a chance below 1e-23
  [ "$one" -ge 100 ] && [ "$two" -ge 100 ] || fail "$1: one source got $one lines, the other $two"
  echo "udp-group: $1: $one and $two lines"
}

send_and_check "first run"
reload_sluice
sleep 1.1 # a new runid for the loss checker
send_and_check "after a reload"
stop_sluice

"$loggen" --check "$work/out" --allow-reordering >"$work/report" || { cat "$work/report"; fail "loss"; }
grep -q "^check: threads=2 received=800 missing=0 duplicated=0 " "$work/report" || { cat "$work/report"; fail "report"; }
echo "udp-group: 800 datagrams, none lost, spread over both sockets before and after a reload"
