#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A reload whose configuration is valid but cannot start (it would listen on
# an address another process holds) goes back to the running configuration:
# the daemon keeps running, the connection of a sender keeps going, and the
# next good reload works.  The loss checker finds every line exactly once.
# Usage: reload-revert.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2
set -- $(free_ports tcp tcp)
port=$1 taken=$2

conf() {
  cat >"$work/sluice.conf" <<EOF
@version: 3.38
source s { network(ip(127.0.0.1) port($port)); $1 };
destination d { file("$work/out.log"); };
log { source(s); destination(d); flags(flow-control); };
EOF
}


conf ""
start_sluice "$sluice" "$work/sluice.conf"
"$loggen" -S -Q -r 200 -n 1000 127.0.0.1 "$port" >/dev/null 2>"$work/loggen.err" &
lg=$!
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1)
open(sys.argv[2], "w").close(); time.sleep(20)' "$taken" "$work/held" &
holder=$!
i=0
until [ -e "$work/held" ]; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "the port holder did not start"
  sleep 0.1
done

conf "network(ip(127.0.0.1) port($taken));"
reload_sluice "reverted to the running one"
kill -0 "$pid" 2>/dev/null || fail "the daemon stopped after a reload that could not start"
kill "$holder" 2>/dev/null || true
sleep 0.5
conf "network(ip(127.0.0.1) port($taken) log-iw-size(500));"
reload_sluice "Configuration reload finished"
logger --tcp -n 127.0.0.1 -P "$taken" -t app "on the new port"

wait $lg || fail "loggen: $(cat "$work/loggen.err")"
grep -i error "$work/loggen.err" && fail "the sender saw an error"
wait_lines "$work/out.log" 1001
stop_sluice
grep -q "app.*on the new port" "$work/out.log" || fail "the good reload after the revert did not run"
grep -v "on the new port" "$work/out.log" >"$work/loggen.log"
"$loggen" --check "$work/loggen.log" >"$work/report" || { cat "$work/report"; fail "loss"; }
grep -q "received=1000 missing=0 duplicated=0 reordered=0: OK" "$work/report" || { cat "$work/report"; fail "report"; }
[ "$(grep -c "Syslog connection accepted" "$work/sluice.log")" -eq 2 ] || fail "the sender was reconnected"
echo "reload-revert: a reload that cannot start leaves the running configuration"
