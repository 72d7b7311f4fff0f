#!/bin/sh
# syslog-ng-ctl's verbs in sluice-ctl: verbose|debug|trace [--set=on|off]
# (the switches change what reaches stderr and internal()), stats --reset
# and query get|list [--sum] --reset (the counters read again from 0, the
# rest keep counting, levels stay, a reload keeps the resets), query --sum
# without stamps, list-files (the configuration and its include, the TLS
# key and certificates, the pattern database), config --verify, and the
# commands Sluice does not have, refused by name.  Also through a link
# named syslog-ng-ctl.
# Usage: control-verbs.sh SLUICE SLUICE_CTL LOGGEN TLS_DIR
. "$(dirname "$0")/lib.sh"
sluice=$1 ctl=$2 loggen=$3 tls=$4
set -- $(free_ports tcp tcp)
port=$1 tls_port=$2
sock=$work/ctl

cat >"$work/pdb.xml" <<'EOF'
<patterndb version='4'><ruleset><pattern>p</pattern><rules><rule id='a' class='c'><patterns>
<pattern>x @NUMBER:n@</pattern></patterns></rule></rules></ruleset></patterndb>
EOF
cat >"$work/inc.conf" <<EOF
destination d_int { file("$work/internal.log"); };
EOF
cat >"$work/sluice.conf" <<EOF
@version: 3.38
@include "$work/inc.conf"
options { stats-freq(0); stats-level(1); };
source s_net { network(ip(127.0.0.1) port($port)); };
source s_tls { network(ip(127.0.0.1) port($tls_port) transport(tls)
  tls(key-file("$tls/server.key") cert-file("$tls/server.pem") ca-file("$tls/ca.pem")
      peer-verify(optional-untrusted)));
};
source s_int { internal(); };
parser p_db { db-parser(file("$work/pdb.xml")); };
destination d_file { file("$work/out.log"); };
log { source(s_net); parser(p_db); destination(d_file); };
log { source(s_int); destination(d_int); };
EOF

c() { "$ctl" -c "$sock" "$@"; }
# value NAME: the counter NAME from query get
value() { c query get "$1" | awk -v n="$1=" 'index($0, n) == 1 { print substr($0, length(n) + 1) }'; }
# wait_value NAME N: until the counter NAME reads N (a write is counted
# just after the line is in the file), or fail after 5 s
wait_value() {
  _wv=0
  until [ "$(value "$1")" = "$2" ]; do
    _wv=$((_wv + 1))
    [ $_wv -lt 50 ] || fail "$1 is $(value "$1"), want $2"
    sleep 0.1
  done
}
send() { "$loggen" -S -Q -r 1000000 -n "$1" 127.0.0.1 "$port" 2>/dev/null || fail "loggen"; }

start_sluice "$sluice" "$work/sluice.conf" -c "$sock"

# ---- the switches: -v set verbose; each is reported on its own ----
[ "$(c verbose)" = "VERBOSE=1" ] || fail "verbose: $(c verbose)"
[ "$(c debug)" = "DEBUG=0" ] || fail "debug: $(c debug)"
[ "$(c trace)" = "TRACE=0" ] || fail "trace: $(c trace)"
[ "$(c debug --set=on)" = "DEBUG=1" ] || fail "debug --set=on"
[ "$(c debug)" = "DEBUG=1" ] || fail "debug after on"
[ "$(c verbose)" = "VERBOSE=1" ] || fail "debug changed verbose"
[ "$(c trace -s 1)" = "TRACE=1" ] || fail "trace -s 1"
[ "$(c trace --set OFF)" = "TRACE=0" ] || fail "trace --set OFF"
[ "$(c debug --set=0)" = "DEBUG=0" ] || fail "debug --set=0"
wait_log "Verbosity changed; type='DEBUG', on='1'"
wait_log "Verbosity changed; type='TRACE', on='0'"
# verbose off: its own line is INFO, which no longer goes to stderr, but
# internal() has it
[ "$(c verbose --set=off)" = "VERBOSE=0" ] || fail "verbose --set=off"
i=0
until grep -q "Verbosity changed; type='VERBOSE', on='0'" "$work/internal.log" 2>/dev/null; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "internal() did not get the verbose off line"
  sleep 0.1
done
! grep -q "type='VERBOSE', on='0'" "$work/sluice.log" || fail "an INFO line on stderr with verbose off"
grep -q "Verbosity changed; type='DEBUG', on='1'" "$work/internal.log" || fail "internal() lacks debug's line"
[ "$(c verbose --set=on)" = "VERBOSE=1" ] || fail "verbose back on"
wait_log "Verbosity changed; type='VERBOSE', on='1'"
st=0; c debug --set=maybe 2>/dev/null || st=$?
[ $st -eq 2 ] || fail "--set=maybe exited $st"
[ "$(c debug)" = "DEBUG=0" ] || fail "a refused --set changed debug"

# ---- stats --reset ----
send 300
wait_lines "$work/out.log" 300
wait_value "dst.file.d_file#0.$work/out.log.written" 300
[ "$(value source.s_net.processed)" = 300 ] || fail "before the reset: $(c query get 'source.*')"
stamp=$(value "src.network.s_net#0.tcp,127.0.0.1.stamp")
[ "$stamp" -gt 0 ] || fail "no stamp before the reset"
# the sum leaves stamps out, as syslog-ng's does
sum=$(c query get --sum 'src.network.s_net#0.*')
[ "$sum" = 300 ] || fail "sum with a stamp: $sum"
reply=$(c stats --reset)
[ "$reply" = "The statistics of Sluice have been reset to 0." ] || fail "stats --reset: $reply"
c stats >"$work/stats.csv"
out=$work/out.log
for row in "source;s_net;;a;processed;0" "center;;received;a;processed;0" "center;;queued;a;processed;0" \
  "destination;d_file;;a;processed;0" "dst.file;d_file#0;$out;a;written;0" \
  "dst.file;d_file#0;$out;a;processed;0" \
  "src.network;s_net#0;tcp,127.0.0.1;a;processed;0" "src.network;s_net#0;tcp,127.0.0.1;a;stamp;0"; do
  grep -qx "$row" "$work/stats.csv" || { cat "$work/stats.csv"; fail "after the reset: no row $row"; }
done
send 50
wait_lines "$work/out.log" 350
[ "$(value source.s_net.processed)" = 50 ] || fail "50 after the reset: $(c query get 'source.*')"
wait_value "dst.file.d_file#0.$out.written" 50
[ "$(value "src.network.s_net#0.tcp,127.0.0.1.stamp")" -ge "$stamp" ] || fail "the stamp did not move on"

# ---- query --reset: only what matches ----
reply=$(c query get --reset 'source.s_net.*' | tr '\n' '|')
[ "$reply" = "source.s_net.processed=50||The selected counters of Sluice have been reset to 0.|" ] \
  || fail "query get --reset: $reply"
[ "$(value source.s_net.processed)" = 0 ] || fail "the queried counter was not reset"
# (center also counts internal()'s connection lines)
[ "$(value center.received.processed)" -ge 50 ] || fail "a counter that did not match was reset"
sum=$(c query get --sum 'center.*')
reply=$(c query get --sum --reset 'center.*' | tr '\n' '|')
[ "$reply" = "$sum||The selected counters of Sluice have been reset to 0.|" ] || fail "get --sum --reset: $reply"
[ "$(c query get --sum 'center.*')" = 0 ] || fail "center after its reset"
reply=$(c query list --reset "dst.file.d_file#0.*" | tr '\n' '|')
case $reply in
  *"dst.file.d_file#0.$out.written|"*"|The selected counters of Sluice have been reset to 0.|") ;;
  *) fail "query list --reset: $reply" ;;
esac
[ "$(value "dst.file.d_file#0.$out.written")" = 0 ] || fail "list --reset did not reset written"
# nothing matched: one empty line, and no reset line
[ "$(c query get --reset 'nothing.*' | od -An -c | tr -d ' ')" = '\n' ] || fail "query of nothing"
[ "$(c query get --sum 'nothing.*' | od -An -c | tr -d ' ')" = '\n' ] || fail "sum of nothing"

# the resets survive a reload: counts go on from the reset, not from start
send 20
wait_lines "$work/out.log" 370
c reload >/dev/null || fail "reload"
[ "$(value source.s_net.processed)" = 20 ] || fail "after the reload: $(c query get 'source.*')"
n=$(value center.received.processed)
[ "$n" -lt 100 ] || fail "center after the reload: $n"

# ---- list-files ----
c list-files >"$work/files" || fail "list-files"
cat >"$work/files.want" <<EOF
config: $work/sluice.conf
include: $work/inc.conf
path_secret: $tls/server.key
path_check: $tls/server.pem
path_check: $tls/ca.pem
path_no_check: $work/pdb.xml
EOF
diff "$work/files.want" "$work/files" || fail "list-files"

# ---- config --verify ----
reply=$(c config --verify)
[ "$reply" = "Configuration file matches active configuration" ] || fail "verify: $reply"
c config >"$work/config.out" || fail "config"
cmp -s "$work/config.out" "$work/sluice.conf" || fail "config text"
echo "# changed" >>"$work/sluice.conf"
reply=$(c config --verify)
[ "$reply" = "Configuration file does not match active configuration" ] || fail "verify after a change: $reply"

# ---- what Sluice does not have: refused by name, without the daemon ----
# stats --remove-orphans: Sluice keeps no orphaned counters (a reload
# carries them over by name), so there is nothing to remove: syslog-ng's answer
reply=$(c stats --remove-orphans) || fail "stats --remove-orphans"
[ "$reply" = "Orphaned statistics have been removed." ] || fail "stats --remove-orphans: $reply"
st=0; c stats --remove-orphans --format csv 2>/dev/null || st=$?
[ $st -eq 2 ] || fail "stats --remove-orphans --format exited $st"
for cmd in show-license-info export-config-graph; do
  st=0
  c $cmd 2>"$work/err" || st=$?
  [ $st -eq 2 ] && grep -q "is a syslog-ng-ctl command that Sluice does not support yet" "$work/err" \
    || fail "$cmd: $st $(cat "$work/err")"
done
st=0; c stats --reset --format csv 2>/dev/null || st=$?
[ $st -eq 2 ] || fail "stats --reset --format exited $st"

# ---- the same client under syslog-ng-ctl's name ----
ln -s "$(readlink -f "$ctl")" "$work/syslog-ng-ctl"
[ "$("$work/syslog-ng-ctl" verbose -c "$sock")" = "VERBOSE=1" ] || fail "syslog-ng-ctl verbose"

stop_sluice
echo "control-verbs: switches, resets, list-files and config --verify answer as syslog-ng-ctl's"
