#!/bin/sh
# example-msg-generator() in Sluice and in Debian's syslog-ng 3.38 (with
# its examples module) on the same configuration: the files they write
# are the same bytes (dates left out), and so are the stats rows of the
# generators.  The values() here do not refer to each other (syslog-ng
# sets them in a hash table's order, Sluice in the order written).
# Usage: compare-msg-generator.sh SLUICE SLUICE_CTL   (needs SLUICE_SYSLOG_NG
# with syslog-ng-mod-examples: scripts/fetch-syslog-ng.sh)
. "$(dirname "$0")/lib.sh"
need_syslog_ng
sluice=$1 ctl=$2
[ -f "$sng/usr/lib/syslog-ng/3.38/libexamples.so" ] \
  || { echo "$sng lacks syslog-ng-mod-examples: run scripts/fetch-syslog-ng.sh $sng" >&2; exit 1; }

line='$HOST|$HOST_FROM|$PROGRAM|$PID|$FACILITY|$PRIORITY|$LEVEL_NUM|$MSG'
line=$line'|${v1}|${v2}|$SOURCE|$TAGS|$TRANSPORT|$SOURCEIP|$MSGHDR'
# conf NAME: the configuration both run, writing $work/NAME.*.out
conf() {
  cat >"$work/$1.conf" <<EOF2
@version: 3.38
options { stats-freq(0); stats-level(1); };
source s_gen { example-msg-generator(num(3) freq(0.1)
  template("gen \$(echo \${v1}) [\${v2}] host=\$HOST \$(length \${MESSAGE})")
  values("v1" => "one" v2 => "2\$(echo x)")); };
source s_default { example-msg-generator(num(2) freq(0)); };
source s_over { example-msg-generator(num(1) host-override("h-over") program-override("p-over")
  tags("t1", "t2") keep-hostname(yes) chain-hostnames(yes)); };
template t_line { template("$line\n"); };
destination d_gen { file("$work/$1.gen.out" template(t_line)); };
destination d_default { file("$work/$1.default.out" template(t_line)); };
destination d_over { file("$work/$1.over.out" template(t_line)); };
log { source(s_gen); destination(d_gen); };
log { source(s_default); destination(d_default); };
log { source(s_over); destination(d_over); };
EOF2
}
conf sng
conf slc
sng_start sng
start_sluice "$sluice" "$work/slc.conf" -c "$work/slc.ctl"
for w in sng slc; do
  wait_lines "$work/$w.gen.out" 3
  wait_lines "$work/$w.default.out" 2
  wait_lines "$work/$w.over.out" 1
done
sleep 0.5 # nothing after num()
for f in gen default over; do
  cmp "$work/sng.$f.out" "$work/slc.$f.out" \
    || { diff "$work/sng.$f.out" "$work/slc.$f.out"; fail "$f differs"; }
done
[ "$(wc -l <"$work/slc.gen.out")" -eq 3 ] || fail "not 3 generated"

# the generators' rows, stamps left out
rows() {
  grep -E '^(source;s_|src\.none;)' | grep -v ';stamp;' | sort
}
LD_LIBRARY_PATH=$sng/usr/lib/syslog-ng "$sng/usr/sbin/syslog-ng-ctl" stats -c "$work/sng.d/ctl" \
  | rows >"$work/sng.rows"
"$ctl" stats -c "$work/slc.ctl" | rows >"$work/slc.rows"
diff "$work/sng.rows" "$work/slc.rows" || fail "stats rows differ"
grep -qx 'src.none;s_gen#0;;a;processed;3' "$work/slc.rows" || fail "no generator row"
stop_sluice
echo "compare-msg-generator: the same messages and rows as syslog-ng 3.38's example-msg-generator()"
