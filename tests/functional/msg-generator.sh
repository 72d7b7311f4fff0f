#!/bin/sh
# example-msg-generator(): num() messages and no more, the first at once and
# the next freq() seconds apart (1 s by default); the default message and
# PRI; template() and values() (in the order written, a named template {});
# the source options it takes (host-override(), tags(), use-syslogng-pid())
# and those it does not (a reader's: default-facility()); its stats rows;
# flow control makes every one of num() (none skipped); a reload starts it
# anew; and the values it refuses.
# Usage: msg-generator.sh SLUICE SLUICE_CTL
. "$(dirname "$0")/lib.sh"
sluice=$1 ctl=$2
sock=$work/ctl

cat >"$work/sluice.conf" <<EOF
@version: 3.38
options { stats-freq(0); stats-level(1); frac-digits(3); };
template t_named { template("named \${v1}"); };
source s_count { example-msg-generator(num(4) freq(0.3)); };
source s_tmpl { example-msg-generator(num(2) freq(0) template("\${v1}+\${v2}|\$(uppercase \${v2})")
  values("v1" => "one" v2 => "\${v1}-two")); };
source s_named { example-msg-generator(num(1) template(t_named) values("v1" => "x")
  host-override("gen-host") tags("t1") use-syslogng-pid(yes)); };
source s_default { example-msg-generator(num(2)); };
source s_flow { example-msg-generator(num(200) freq(0) log-iw-size(10)); };
destination d_count { file("$work/count.log" template("\$S_UNIXTIME \$R_UNIXTIME \$MSG\n")); };
destination d_tmpl { file("$work/tmpl.log" template("\$MSG\n")); };
destination d_named { file("$work/named.log" template("\$HOST|\$MSG|\$TAGS|\$SOURCE|\$PID\n")); };
destination d_default { file("$work/default.log"
  template("\$S_UNIXTIME|\$HOST|\$PROGRAM|\$FACILITY|\$PRIORITY|\$MSG\n")); };
destination d_flow { file("$work/flow.log" template("\$MSG\n") throttle(100)); };
log { source(s_count); destination(d_count); };
log { source(s_tmpl); destination(d_tmpl); };
log { source(s_named); destination(d_named); };
log { source(s_default); destination(d_default); };
log { source(s_flow); destination(d_flow); flags(flow-control); };
EOF

start=$(date +%s)
start_sluice "$sluice" "$work/sluice.conf" -c "$sock"
# flow control: a writer slowed to 100 a second holds the generator back
# at its window of 10: it makes at most 10 more than were written (without
# flow control all 200 are made at once)
wait_lines "$work/flow.log" 1
"$ctl" -c "$sock" query get '*s_flow*processed' >"$work/flow.q"
"$ctl" -c "$sock" query get "dst.file.d_flow#0.$work/flow.log.written" >>"$work/flow.q"
made=$(sed -n 's/^src.none.s_flow#0.processed=//p' "$work/flow.q")
written=$(sed -n 's/^dst.file.*written=//p' "$work/flow.q")
[ "$made" -lt 200 ] && [ $((made - written)) -le 10 ] || fail "not held back: $(cat "$work/flow.q")"
wait_lines "$work/count.log" 4
wait_lines "$work/default.log" 2
wait_lines "$work/flow.log" 200
sleep 1.5 # none comes after num()
[ "$(wc -l <"$work/count.log")" -eq 4 ] || fail "num(4) made $(wc -l <"$work/count.log")"
[ "$(wc -l <"$work/tmpl.log")" -eq 2 ] || fail "num(2) made $(wc -l <"$work/tmpl.log")"
[ "$(wc -l <"$work/named.log")" -eq 1 ] || fail "num(1) made $(wc -l <"$work/named.log")"
[ "$(wc -l <"$work/default.log")" -eq 2 ] || fail "num(2) with freq 1 made $(wc -l <"$work/default.log")"
[ "$(wc -l <"$work/flow.log")" -eq 200 ] || fail "flow control: $(wc -l <"$work/flow.log") of 200"

# freq(0.3): three gaps of at least 0.3 s, the first message at once
awk -v start="$start" '
  NR == 1 { first = $2; if ($2 - start > 5) { print "the first came late: " $2 - start; exit 1 } }
  NR > 1 && $2 - last < 0.29 { print "gap " $2 - last " before message " NR; exit 1 }
  { last = $2 }
  END { if (last - first < 0.87 || last - first > 10) { print "span " last - first; exit 1 } }
' "$work/count.log" || fail "freq(0.3): $(cat "$work/count.log")"
# the default: one a second
awk -F'|' 'NR == 1 { a = $1 } NR == 2 { if ($1 - a < 0.99) { print $1 - a; exit 1 } }' "$work/default.log" \
  || fail "default freq: $(cat "$work/default.log")"
# the default message, PRI user.notice, this host, no program
host=$(awk -F'|' 'NR == 1 { print $2 }' "$work/default.log")
[ -n "$host" ] || fail "no HOST"
cut -d'|' -f2- "$work/default.log" | sort -u >"$work/default.rest"
[ "$(cat "$work/default.rest")" = "$host||user|notice|-- Generated message. --" ] \
  || fail "default message: $(cat "$work/default.rest")"
grep -q " -- Generated message. --$" "$work/count.log" || fail "count.log: $(cat "$work/count.log")"
# template() and values(): a value sees the ones before it
[ "$(sort -u "$work/tmpl.log")" = "one+one-two|ONE-TWO" ] || fail "template: $(cat "$work/tmpl.log")"
# a named template {}, host-override(), tags(), use-syslogng-pid(); SOURCE is set after the
# template, as in syslog-ng, so only the file's template sees it
[ "$(cat "$work/named.log")" = "gen-host|named x|t1,.source.s_named|s_named|$pid" ]\
  || fail "named: $(cat "$work/named.log")"

# the stats rows, named as syslog-ng names them
"$ctl" -c "$sock" stats >"$work/stats.csv" || fail "stats"
for row in "src.none;s_count#0;;a;processed;4" "source;s_count;;a;processed;4" \
  "src.none;s_flow#0;;a;processed;200"; do
  grep -qx "$row" "$work/stats.csv" || { cat "$work/stats.csv"; fail "no row $row"; }
done
grep -q "^src.none;s_count#0;;a;stamp;[1-9][0-9]*$" "$work/stats.csv" || fail "no stamp row"
# a reload makes each generator anew, num() counting from 0, as in syslog-ng
reload_sluice
wait_lines "$work/count.log" 8
sleep 1.5
[ "$(wc -l <"$work/count.log")" -eq 8 ] || fail "after the reload: $(wc -l <"$work/count.log") lines, want 8"
stop_sluice

# what it refuses, with its place
bad() {
  printf '@version: 3.38\nsource s { example-msg-generator(%s); };\nlog { source(s); };\n' "$1" \
    >"$work/bad.conf"
  st=0
  "$sluice" --syntax-only -f "$work/bad.conf" >"$work/bad.out" 2>&1 || st=$?
  [ $st -ne 0 ] && grep -q "$2" "$work/bad.out" || fail "$1: $st $(cat "$work/bad.out")"
}
bad 'freq(-1)' "freq() takes a number of seconds"
bad 'freq(soon)' "freq() takes a number of seconds"
bad 'num(-2)' "num(-2) is out of range"
bad 'values("a")' "option 'values' takes \"name\" => \"value\" pairs"
bad 'values("a" => "$(nosuchfunc)")' "bad template"
bad 'frequency(1)' "unknown option 'frequency'"
# a LogSource's options only, as syslog-ng's grammar has them: not a reader's
bad 'default-facility(local3)' "unknown option 'default-facility'"
bad 'flags(no-parse)' "unknown option 'flags'"
bad '"arg"' "takes no positional arguments"
echo "msg-generator: num, freq, template, values, stats and flow control as syslog-ng's"
