#!/bin/sh
# RELP against rsyslog (Debian's rsyslogd with imrelp/omrelp on librelp,
# unpacked by scripts/fetch-rsyslog.sh into $SLUICE_RSYSLOG), checked by
# loggen's loss checker:
#
#  1. loggen -> rsyslog (imtcp -> omrelp) -> Sluice relp() -> file()
#  2. loggen -> Sluice (network() -> relp() destination) -> rsyslog
#     (imrelp -> omfile)
#  3. as 2, with rsyslog stopped (SIGTERM) and started again in the
#     middle: Sluice resends what rsyslog had not answered.  imrelp answers
#     once a message is in rsyslog's queue, which rsyslog writes out when
#     it stops, so nothing may be missing (duplicates may appear).
#
# omrelp gets windowSize="1024": librelp corks its socket for a whole
# transaction of rsyslog's, and with its default window of 128 frames
# (less than one loopback segment) the frames that fill the window wait
# out the kernel's 200 ms cork timer, whoever the server is (rsyslog's own
# imrelp too), so the default would only make this test slow.
#
# Usage: relp-rsyslog.sh SLUICE LOGGEN    (rsyslog: see rsyslog-lib.sh)
. "$(dirname "$0")/../lib.sh"
sluice=$1 loggen=$2
. "$(dirname "$0")/rsyslog-lib.sh"

# check FILE N [DUPS_OK]: wait until FILE has all N of loggen's lines, then
# require none missing, reordered or (unless DUPS_OK) duplicated
check() {
  i=0
  while :; do
    "$loggen" --check "$1" >"$work/report" 2>&1 || true
    sed -n 's/^check: threads=[0-9]* received=\([0-9]*\) missing=\([0-9]*\) duplicated=\([0-9]*\) reordered=\([0-9]*\).*/\1 \2 \3 \4/p' \
      "$work/report" >"$work/counts"
    read -r received missing duplicated reordered <"$work/counts" || { received=0 missing=$2 duplicated=0 reordered=0; }
    [ "$received" -ge "$2" ] && [ "$missing" -eq 0 ] && break
    i=$((i + 1))
    [ $i -lt 120 ] || break
    sleep 0.5
  done
  echo "$3: sent=$2 received=$received missing=$missing duplicated=$duplicated reordered=$reordered"
  [ "$missing" -eq 0 ] || fail "$3: missing $missing: $(cat "$work/report")"
  [ "${4:-}" = dups-ok ] || [ "$duplicated" -eq 0 ] || fail "$3: duplicated $duplicated"
}

n=20000
mkdir -p "$work/rs"

# 1. rsyslog omrelp -> Sluice relp()
set -- $(free_ports tcp tcp)
rs_in=$1 relp_port=$2
cat >"$work/sluice.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { relp(ip(127.0.0.1) port($relp_port)); };
destination d { file("$work/out1.log"); };
log { source(s); destination(d); };
EOC
cat >"$work/omrelp.conf" <<EOC
global(workDirectory="$work/rs")
module(load="imtcp")
module(load="omrelp")
input(type="imtcp" port="$rs_in" address="127.0.0.1")
action(type="omrelp" target="127.0.0.1" port="$relp_port" windowSize="1024")
EOC
start_sluice "$sluice" "$work/sluice.conf"
start_rsyslog "$work/omrelp.conf"
"$loggen" -S -Q -r 50000 -n $n 127.0.0.1 "$rs_in" 2>/dev/null || fail "loggen"
check "$work/out1.log" $n "rsyslog omrelp -> sluice relp()"
stop_rsyslog
stop_sluice
grep -q "RELP connection accepted" "$work/sluice.log" || fail "no RELP connection"
grep -q "Refusing RELP peer\|Closing RELP connection" "$work/sluice.log" && fail "sluice refused omrelp: $(grep RELP "$work/sluice.log")"

# 2. and 3. Sluice relp() destination -> rsyslog imrelp
for mode in plain restart; do
  set -- $(free_ports tcp tcp)
  in_port=$1 relp_port=$2
  rm -f "$work/out2.log"
  cat >"$work/imrelp.conf" <<EOC
global(workDirectory="$work/rs")
module(load="imrelp")
input(type="imrelp" port="$relp_port" address="127.0.0.1")
action(type="omfile" file="$work/out2.log" template="RSYSLOG_FileFormat")
EOC
  cat >"$work/sluice.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { network(ip(127.0.0.1) port($in_port) log-iw-size(1000)); };
destination d { relp("127.0.0.1" port($relp_port) time-reopen(1) window-size(500)); };
log { source(s); destination(d); flags(flow-control); };
EOC
  start_rsyslog "$work/imrelp.conf"
  start_sluice "$sluice" "$work/sluice.conf"
  if [ $mode = plain ]; then
    "$loggen" -S -Q -r 50000 -n $n 127.0.0.1 "$in_port" 2>/dev/null || fail "loggen"
    check "$work/out2.log" $n "sluice relp() -> rsyslog imrelp"
  else
    "$loggen" -S -Q -r 5000 -n $n 127.0.0.1 "$in_port" 2>/dev/null &
    lg=$!
    sleep 1.5
    stop_rsyslog
    sleep 1
    start_rsyslog "$work/imrelp.conf"
    wait $lg || fail "loggen"
    check "$work/out2.log" $n "sluice relp() -> rsyslog imrelp, restarted" dups-ok
    grep -q "RELP connection broken" "$work/sluice.log" || fail "the restart was not seen: $(grep RELP "$work/sluice.log")"
  fi
  stop_sluice
  stop_rsyslog
done
grep -i "relp" "$work/rsyslog.log" | grep -iv "Broken pipe\|connection reset" && fail "rsyslog complained: $(cat "$work/rsyslog.log")"
echo "relp-rsyslog: ok"
