#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# grouping-by(), Sluice against syslog-ng 3.38 on the same configuration
# and input over loopback tcp(): where() keeps other programs out, trigger()
# closes a context at once, timeout() closes one while nothing arrives,
# having() suppresses an aggregate, ${name}@N, $(context-length) and
# $(context-values), $(context-lookup) and $(grep --max-count) in aggregate(),
# inject-mode(aggregate-only) keeps only
# the aggregates, inject-mode(internal) sends them to the internal() source,
# sort-key() puts a context's messages in its order before the aggregate
# (its key spelled otherwise: syslog-ng names a grouping-by's persistent
# state after its key and refuses two alike).  Compared sorted, tags sorted
# within a line (dbparser-correlation.sh says why).
# Usage: grouping-by.sh SLUICE
. "$(dirname "$0")/../lib.sh"
sluice=$1
need_syslog_ng
set -- $(free_ports tcp tcp)
p_sluice=$1 p_sng=$2

for who in sluice sng; do
  eval port=\$p_$who
  cat >"$work/$who.conf" <<CONF
@version: 3.38
options { keep-hostname(yes); };
source s { tcp(ip(127.0.0.1) port($port)); };
parser g {
  grouping-by(key("\$PID") scope(host) where(program("app"))
    having("\${MESSAGE}" ne "c1") trigger(message("END"))
    aggregate(value("MESSAGE" "AGG n=\$(context-length) v=\$(context-values \$MESSAGE) first=\${MESSAGE}@2 l=\$(context-lookup (message(\"a\")) \$MESSAGE \$PID) g=\$(grep --max-count 2 (\"\$MESSAGE\" ne \"c1\") \$MESSAGE)")
              tags("agg"))
    timeout(2));
};
parser g2 {
  grouping-by(key("\$HOST") scope(global) where(program("agg")) inject-mode(aggregate-only)
    aggregate(value("MESSAGE" "ONLY n=\$(context-length) last=\${MESSAGE}@1") inherit-mode(none))
    timeout(2));
};
parser g3 {
  grouping-by(key("\${HOST}") scope(global) where(program("agg")) inject-mode(internal)
    aggregate(value("MESSAGE" "INTERNAL n=\$(context-length)") inherit-mode(none) tags("int"))
    timeout(2));
};
parser g4 {
  grouping-by(key("\$PROGRAM") scope(global) where(program("srt")) inject-mode(aggregate-only)
    sort-key("\$MESSAGE")
    aggregate(value("MESSAGE" "SORTED \$(context-values \$MESSAGE) first=\${MESSAGE}@2") inherit-mode(none))
    timeout(2));
};
source si { internal(); };
template t { template("\$HOST \$PROGRAM[\$PID] pri=\$PRI \$MESSAGE tags=\$TAGS\n"); };
destination d { file("$work/$who.out" template(t)); };
destination d2 { file("$work/$who.out2" template(t)); };
destination d3 { file("$work/$who.out3" template("\$MESSAGE tags=\$TAGS\n")); };
destination d4 { file("$work/$who.out4" template("\$MESSAGE tags=\$TAGS\n")); };
log { source(s); parser(g); destination(d); };
log { source(s); parser(g2); destination(d2); };
log { source(s); parser(g3); };
log { source(s); parser(g4); destination(d4); };
log { source(si); filter { message("^INTERNAL "); }; destination(d3); };
CONF
done

cat >"$work/input" <<'EOF'
<38>Nov 22 10:00:00 h1 app[1]: a1
<38>Nov 22 10:00:00 h1 app[1]: a2
<38>Nov 22 10:00:00 h1 app[2]: b1
<38>Nov 22 10:00:00 h1 other[1]: o1
<38>Nov 22 10:00:00 h1 app[3]: c1
<38>Nov 22 10:00:00 h1 app[1]: END
<38>Nov 22 10:00:00 h9 agg[7]: x1
<38>Nov 22 10:00:00 h9 agg[8]: x2
<38>Nov 22 10:00:00 h9 srt[1]: m3
<38>Nov 22 10:00:00 h9 srt[1]: m1
<38>Nov 22 10:00:00 h9 srt[1]: m2
EOF

send() {
  python3 -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(open(sys.argv[2], "rb").read()); s.close()' "$1" "$work/input"
}

start_sluice "$sluice" "$work/sluice.conf"
sng_start sng
send "$p_sluice"
send "$p_sng"
# d: 11 lines and 2 aggregates (pid 1 by trigger, pid 2 by timeout; pid 3's
# is refused by having()); d2: the aggregate only (aggregate-only drops
# what where() refuses too)
wait_lines "$work/sluice.out" 13
wait_lines "$work/sng.out" 13
wait_lines "$work/sluice.out2" 1
wait_lines "$work/sng.out2" 1
wait_lines "$work/sluice.out3" 1
wait_lines "$work/sng.out3" 1
wait_lines "$work/sluice.out4" 1
wait_lines "$work/sng.out4" 1
sleep 2.5 # nothing more may come (pid 3)
stop_sluice
norm() {
  awk '{ i = index($0, " tags="); t = substr($0, i + 6); k = split(t, a, ",");
         for (x = 1; x <= k; x++)
           for (y = x + 1; y <= k; y++)
             if (a[y] < a[x]) { s = a[x]; a[x] = a[y]; a[y] = s }
         o = ""; for (x = 1; x <= k; x++) o = o (x > 1 ? "," : "") a[x];
         print substr($0, 1, i + 5) o }' "$1" | sort
}
for f in out out2 out3 out4; do
  norm "$work/sng.$f" >"$work/sng.$f.sorted"
  norm "$work/sluice.$f" >"$work/sluice.$f.sorted"
  if ! diff "$work/sng.$f.sorted" "$work/sluice.$f.sorted" >"$work/diff"; then
    cat "$work/diff"
    fail "Sluice's grouping-by() output ($f) differs from syslog-ng's"
  fi
done
[ "$(wc -l <"$work/sluice.out")" -eq 13 ] || fail "expected 13 lines in d, got $(wc -l <"$work/sluice.out")"
grep -q "AGG n=4 v=a1,a2,END,END first=a2 l=a1,1,a2,1 g=a1,a2" "$work/sluice.out" || fail "the trigger did not close pid 1: $(grep AGG "$work/sluice.out")"
grep -q "AGG n=2 v=b1,b1 first=" "$work/sluice.out" || fail "pid 2 did not time out"
grep -q "ONLY n=3 last=x2" "$work/sluice.out2" || fail "no aggregate-only aggregate"
[ "$(wc -l <"$work/sluice.out2")" -eq 1 ] || fail "aggregate-only let other messages through"
grep -q "^INTERNAL n=3 tags=.*int" "$work/sluice.out3" || fail "no aggregate in internal()"
grep -q '^SORTED m1,m2,m3,"" first=m2 ' "$work/sluice.out4" || fail "sort-key() did not order the context"
echo "grouping-by: where, having, trigger, timeout, aggregate-only, internal and sort-key as syslog-ng 3.38"
