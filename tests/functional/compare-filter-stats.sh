#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# stats-level(1): each filter statement's "matched" and "not_matched" rows,
# Sluice against Debian's syslog-ng 3.38 on the same configuration and
# messages: named filters (one of them used in two paths, counted once
# under its name), filters after filters (they see only what the first let
# through), inline filters ("#anon-filterN"); a reload carries the counts
# over by name; and at stats-level(0) there are none.
# Usage: compare-filter-stats.sh SLUICE SLUICE_CTL   (needs SLUICE_SYSLOG_NG)
. "$(dirname "$0")/lib.sh"
need_syslog_ng
sluice=$1 ctl=$2
set -- $(free_ports tcp tcp)
p_sng=$1 p_slc=$2

conf() {
  cat >"$work/$1.conf" <<EOF2
@version: 3.38
options { stats-freq(0); stats-level($3); };
source s { tcp(ip(127.0.0.1) port($2)); };
filter f_a { message("a"); };
filter f_p { program("p"); };
destination d { file("$work/$1.out"); };
log { source(s); filter(f_a); filter(f_p); destination(d); };
log { source(s); filter(f_p); destination(d); };
log { source(s); filter { message("inline"); }; filter { level(err..emerg); }; destination(d); };
EOF2
}
conf sng "$p_sng" 1
conf slc "$p_slc" 1
cat >"$work/input" <<'EOF2'
<13>Nov 22 10:00:00 h p: a1
<13>Nov 22 10:00:00 h q: a2
<13>Nov 22 10:00:00 h p: zz
<11>Nov 22 10:00:00 h p: inline err
<13>Nov 22 10:00:00 h r: inline notice
EOF2
send() {
  python3 -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(open(sys.argv[2], "rb").read()); s.close()' "$1" "$work/input"
}
sng_start sng
start_sluice "$sluice" "$work/slc.conf" -c "$work/ctl"
send "$p_sng"
send "$p_slc"
# f_a: 5 seen, 2 matched; f_p after f_a: 2 seen, 1 matched; f_p alone: 5
# seen, 3 matched (7 and 4 in all); the inline ones: 5 seen and 2
# matched, 2 and 1: 1 + 3 + 1 lines written
wait_lines "$work/sng.out" 5
wait_lines "$work/slc.out" 5
rows() { grep '^filter;' | sort; }
LD_LIBRARY_PATH=$sng/usr/lib/syslog-ng "$sng/usr/sbin/syslog-ng-ctl" stats -c "$work/sng.d/ctl" | rows >"$work/sng.rows"
"$ctl" stats -c "$work/ctl" | rows >"$work/slc.rows"
[ -s "$work/sng.rows" ] || fail "syslog-ng printed no filter rows (the test is wrong)"
diff "$work/sng.rows" "$work/slc.rows" || fail "Sluice's filter rows differ from syslog-ng's"
grep -q '^filter;f_p;;a;matched;4$' "$work/slc.rows" || fail "f_p is not counted once over its two paths"
grep -q '^filter;#anon-filter1;;a;not_matched;1$' "$work/slc.rows" || fail "the second inline filter"

# a reload carries the counts over by name (f_a's path is gone: its row too)
sed -i 's/^log { source(s); filter(f_a); filter(f_p); destination(d); };$//' "$work/slc.conf"
reload_sluice
"$ctl" stats -c "$work/ctl" | rows >"$work/slc.rows2"
grep -q '^filter;f_p;;a;matched;4$' "$work/slc.rows2" || fail "f_p after a reload: $(cat "$work/slc.rows2")"
grep -q '^filter;f_a;' "$work/slc.rows2" && fail "f_a's rows after a reload without it"

# stats-level(0): no filter rows
conf slc "$p_slc" 0
reload_sluice
[ -z "$("$ctl" stats -c "$work/ctl" | rows)" ] || fail "filter rows at stats-level(0)"
stop_sluice
echo "compare-filter-stats: the filter rows of syslog-ng 3.38 from stats-level(1), none at 0"
