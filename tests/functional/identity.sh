#!/bin/sh
# Run through links named syslog-ng and syslog-ng-ctl, Sluice stands in for
# syslog-ng: its start, reload and stop lines word for word (what scripts
# and test frameworks wait for), PROGRAM "syslog-ng" on internal()
# messages, and syslog-ng-ctl driving it; run as sluice it stays Sluice.
# Usage: identity.sh SLUICE SLUICE-CTL
. "$(dirname "$0")/lib.sh"
sluice=$1 ctl=$2
ln -s "$(realpath "$sluice")" "$work/syslog-ng"
ln -s "$(realpath "$ctl")" "$work/syslog-ng-ctl"
cat >"$work/conf" <<EOF2
@version: 3.38
source s { internal(); };
destination d { file("$work/internal.log" template("\$PROGRAM \$MSG\n")); };
log { source(s); destination(d); };
EOF2
start_sluice "$work/syslog-ng" "$work/conf" -R "$work/persist" -c "$work/ctl"
grep -q "syslog-ng starting up; version=" "$work/sluice.log" || fail "start line: $(cat "$work/sluice.log")"
"$work/syslog-ng-ctl" reload -c "$work/ctl" >"$work/ctl.out" 2>&1 || fail "syslog-ng-ctl reload: $(cat "$work/ctl.out")"
wait_log "Configuration reload finished"
grep -q "New configuration initialized" "$work/sluice.log" || fail "reload lines: $(cat "$work/sluice.log")"
wait_lines "$work/internal.log" 2
stop_sluice
grep -q "syslog-ng shutting down; version=" "$work/sluice.log" || fail "stop line: $(cat "$work/sluice.log")"
grep -q "^syslog-ng syslog-ng starting up" "$work/internal.log" || fail "internal(): $(cat "$work/internal.log")"
grep -q "^sluice " "$work/internal.log" && fail "internal() says sluice: $(cat "$work/internal.log")"

# the same binary as sluice
rm -f "$work/internal.log"
start_sluice "$sluice" "$work/conf" -R "$work/persist" -c "$work/ctl"
stop_sluice
grep -q "Sluice starting up" "$work/sluice.log" || fail "as sluice: $(cat "$work/sluice.log")"
grep -q "^sluice Sluice starting up" "$work/internal.log" || fail "as sluice, internal(): $(cat "$work/internal.log")"
echo "identity: syslog-ng's lines and PROGRAM through the links, Sluice's otherwise"
