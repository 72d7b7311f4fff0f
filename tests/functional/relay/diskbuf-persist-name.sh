#!/bin/sh
# persist-name() on a destination names its queue: the disk buffer's file
# (sluice-NAME.rqf) and what a reload hands over, so a destination renamed
# with the same persist-name() keeps its buffer, as in syslog-ng.
#   1. the server is down: the relay's d_old (persist-name("central"))
#      buffers every message in sluice-central.rqf;
#   2. a reload renames it d_mid: the open buffer is handed over, not
#      opened again (its counters go on under the new name);
#   3. a restart renames it d_new: the file is found again by that name,
#      the server comes up and gets every message once.
# Usage: diskbuf-persist-name.sh SLUICE SLUICE_CTL LOGGEN
. "$(dirname "$0")/../lib.sh"
sluice=$1 ctl=$2 loggen=$3
srv_pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$work"' EXIT

n=5000
set -- $(free_ports tcp tcp)
in_port=$1 srv_port=$2
cat >"$work/server.conf" <<EOC
@version: 3.38
options { stats-freq(0); };
source s { network(ip(127.0.0.1) port($srv_port) keep-hostname(yes)); };
destination d { file("$work/out.log"); };
log { source(s); destination(d); };
EOC
relay_conf() { # relay_conf DESTINATION-NAME
  cat >"$work/relay.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { network(ip(127.0.0.1) port($in_port) log-iw-size(1000)); };
destination $1 { tcp("127.0.0.1" port($srv_port) time-reopen(1) persist-name("central")
  disk-buffer(reliable(yes) disk-buf-size(16M) dir("$work/buf"))); };
log { source(s); destination($1); flags(flow-control); };
EOC
}

# 1. the server is down: everything goes to the buffer named central
relay_conf d_old
start_sluice "$sluice" "$work/relay.conf" -c "$work/relay.ctl"
"$loggen" -S -Q -r 20000 -n "$n" 127.0.0.1 "$in_port" 2>/dev/null || fail "loggen"
wait_dest_stat "$work/relay.ctl" "dst.tcp;d_old#0" processed "$n"
[ -f "$work/buf/sluice-central.rqf" ] || fail "no sluice-central.rqf: $(ls "$work/buf")"

# 2. renamed by a reload: the same open buffer, its count goes on
relay_conf d_mid
reload_sluice
grep -q "in use by another\|Disk buffer loaded" "$work/sluice.log" && fail "the reload opened the buffer again"
wait_dest_stat "$work/relay.ctl" "dst.tcp;d_mid#0" processed "$n"
stop_sluice

# 3. renamed by a restart: found again by its persist-name()
relay_conf d_new
start_sluice "$sluice" "$work/relay.conf" -c "$work/relay.ctl"
grep -q "Disk buffer loaded.*queued='$n'" "$work/sluice.log" ||
  fail "d_new did not find the $n messages: $(grep 'Disk buffer' "$work/sluice.log")"
"$sluice" -F -v -f "$work/server.conf" -p "$work/server.pid" -c "$work/server.ctl" >"$work/server.log" 2>&1 &
srv_pid=$!
wait_lines "$work/out.log" "$n"
stop_sluice
sleep 0.3
kill -TERM "$srv_pid"
wait "$srv_pid" || fail "server exit"
srv_pid=
"$loggen" --check "$work/out.log" --expect "$n" >"$work/report" || fail "$(cat "$work/report")"
grep -q "missing=0 " "$work/report" || fail "$(cat "$work/report")"
echo "diskbuf-persist-name: $n messages buffered as central, through a reload and a restart under new names"
