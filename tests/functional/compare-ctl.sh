#!/bin/sh
# syslog-ng-ctl's verbs against Debian's syslog-ng 3.38 and against Sluice
# run as syslog-ng (a link of that name: syslog-ng's reply words), on the
# same configuration and the same messages: what each prints must be the
# same where syslog-ng's output is deterministic (verbose|debug|trace,
# stats --reset, query [--sum] [--reset], list-files, config --verify, the
# CSV rows both have).  syslog-ng sends a threaded command's end mark in a
# race with its reply, so a trailing empty line comes and goes: trailing
# empty lines are not compared.  Sluice is asked twice, by sluice-ctl and
# by syslog-ng's own syslog-ng-ctl, which must get the same answers.
# Usage: compare-ctl.sh SLUICE SLUICE_CTL LOGGEN TLS_DIR   (needs SLUICE_SYSLOG_NG)
. "$(dirname "$0")/lib.sh"
need_syslog_ng
sluice=$1 ctl=$2 loggen=$3 tls=$4
set -- $(free_ports tcp tcp tcp tcp)

cat >"$work/pdb.xml" <<'EOF'
<patterndb version='4'><ruleset><pattern>p</pattern><rules><rule id='a' class='c'><patterns>
<pattern>x @NUMBER:n@</pattern></patterns></rule></rules></ruleset></patterndb>
EOF
# conf NAME PORT TLS_PORT: the configuration both run, in $work/NAME.conf
conf() {
  cat >"$work/$1.conf" <<EOF
@version: 3.38
options { stats-freq(0); stats-level(1); };
source s_net { network(ip(127.0.0.1) port($2)); };
source s_tls { network(ip(127.0.0.1) port($3) transport(tls)
  tls(key-file("$tls/server.key") cert-file("$tls/server.pem") ca-file("$tls/ca.pem")
      peer-verify(optional-untrusted)));
};
parser p_db { db-parser(file("$work/pdb.xml")); };
destination d_file { file("$work/$1.out"); };
log { source(s_net); parser(p_db); destination(d_file); };
EOF
}
conf sng "$1" "$2"
conf slc "$3" "$4"
sng_port=$1 slc_port=$3

sng_start sng
mkdir -p "$work/bin" "$work/slc.d"
ln -s "$(readlink -f "$sluice")" "$work/bin/syslog-ng"
"$work/bin/syslog-ng" -F -f "$work/slc.conf" -R "$work/slc.d/persist" -p "$work/slc.d/pid" \
  -c "$work/slc.d/ctl" >"$work/sluice.log" 2>&1 &
pid=$!
i=0
until [ -S "$work/slc.d/ctl" ]; do
  i=$((i + 1))
  [ $i -lt 100 ] && kill -0 "$pid" 2>/dev/null || fail "sluice did not start"
  sleep 0.1
done

sng_ctl() { LD_LIBRARY_PATH=$sng/usr/lib/syslog-ng "$sng/usr/sbin/syslog-ng-ctl" "$@"; }
# ask N CMD...: CMD through the three clients, their outputs (trailing
# empty lines cut) in $work/N.sng, $work/N.slc and $work/N.slc2; fails
# when Sluice's differ from each other or from syslog-ng's
ask() {
  _n=$1
  shift
  sng_ctl "$@" -c "$work/sng.d/ctl" >"$work/$_n.raw-sng" 2>&1 || true
  "$ctl" "$@" -c "$work/slc.d/ctl" >"$work/$_n.raw-slc" 2>&1 || true
  for _w in sng slc; do
    sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$work/$_n.raw-$_w" >"$work/$_n.$_w"
  done
  diff "$work/$_n.sng" "$work/$_n.slc" >"$work/$_n.diff" || { cat "$work/$_n.diff"; fail "'$*' differs"; }
}
# ask_both N CMD...: ask, and syslog-ng-ctl against Sluice says the same
ask_both() {
  ask "$@"
  _n=$1
  shift
  sng_ctl "$@" -c "$work/slc.d/ctl" 2>&1 | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$work/$_n.slc2" || true
  diff "$work/$_n.slc" "$work/$_n.slc2" || fail "'$*': syslog-ng-ctl against Sluice differs from sluice-ctl"
}

# the switches: neither was started with -v, -d or --trace
ask_both v0 verbose
ask_both v1 verbose --set=on
ask_both v2 verbose
ask_both d0 debug
ask_both d1 debug --set=on
ask_both t1 trace -s 1
ask_both t0 trace --set=off
ask_both d2 debug --set=off
[ "$(cat "$work/v2.slc")" = "VERBOSE=1" ] || fail "verbose after --set=on: $(cat "$work/v2.slc")"

ask_both files list-files
[ "$(wc -l <"$work/files.slc")" -eq 4 ] || fail "list-files: $(cat "$work/files.slc")"
ask_both verify config --verify

# the same 200 messages to each
for p in $sng_port $slc_port; do
  "$loggen" -S -Q -r 1000000 -n 200 127.0.0.1 "$p" 2>/dev/null || fail "loggen to $p"
done
wait_lines "$work/sng.out" 200
wait_lines "$work/slc.out" 200
# the writers count what they wrote just after writing it
written() {
  if [ "$1" = sng ]; then
    sng_ctl query get "dst.file.d_file#0.$work/sng.out.written" -c "$work/sng.d/ctl"
  else
    "$ctl" query get "dst.file.d_file#0.$work/slc.out.written" -c "$work/slc.d/ctl"
  fi | sed -n 's/.*=//p'
}
for w in sng slc; do
  i=0
  until [ "$(written $w)" = 200 ]; do
    i=$((i + 1))
    [ $i -lt 50 ] || fail "$w did not count its 200 writes"
    sleep 0.1
  done
done
ask sum1 query get --sum 'center.*'
[ "$(cat "$work/sum1.slc")" = 400 ] || fail "center sum: $(cat "$work/sum1.slc")"
ask src1 query get 'source.*'
ask nothing query get --sum 'nothing.*'
ask qreset query get --reset 'source.*'
ask src2 query get 'source.*'
[ "$(cat "$work/src2.slc")" = "source.s_net.processed=0" ] || fail "after query --reset"
ask sreset stats --reset
ask_both sum2 query get --sum 'center.*'
[ "$(cat "$work/sum2.slc")" = 0 ] || fail "center after stats --reset: $(cat "$work/sum2.slc")"

# the CSV rows both have (syslog-ng has more: eps_*, msg_size_*, global;
# their order is a hash table's)
rows() {
  grep -E '^(source|center|destination|dst\.file|src\.network);' \
    | grep -E ';(processed|written|dropped|queued|stamp);' \
    | sed "s#$work/[a-z]*\.out#OUT#; s#;s_net\#0;tcp,127.0.0.1;#;s_net\#0;IP;#" | sort
}
sng_ctl stats -c "$work/sng.d/ctl" | rows >"$work/stats.sng"
"$ctl" stats -c "$work/slc.d/ctl" | rows >"$work/stats.slc"
diff "$work/stats.sng" "$work/stats.slc" || fail "stats rows after the reset differ"
grep -q "^src.network;s_net#0;IP;a;stamp;0$" "$work/stats.slc" || fail "no reset stamp row"

for p in $sng_port $slc_port; do
  "$loggen" -S -Q -r 1000000 -n 30 127.0.0.1 "$p" 2>/dev/null || fail "loggen to $p"
done
wait_lines "$work/sng.out" 230
wait_lines "$work/slc.out" 230
ask src3 query get 'source.*'
[ "$(cat "$work/src3.slc")" = "source.s_net.processed=30" ] || fail "not 30 after the reset"
ask list query list 'source.*'

stop_sluice
echo "compare-ctl: syslog-ng-ctl's verbs answer the same from syslog-ng 3.38 and from Sluice"
