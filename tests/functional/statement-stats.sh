#!/bin/sh
# What a parser statement drops and a filter statement lets through and
# not, as syslog-ng 3.38 counts them from stats-level 1: one
# "parser;NAME;;a;discarded" row a parser statement (its parsers share
# it, an inline one is "#anon-parser0"), "filter;NAME;;a;matched" and
# "not_matched" a filter statement; none for a rewrite; carried over a
# reload by name; none at stats-level 0.
# Usage: statement-stats.sh SLUICE SLUICE_CTL
. "$(dirname "$0")/lib.sh"
sluice=$1 ctl=$2
sock=$work/ctl

cat >"$work/sluice.conf" <<EOF
@version: 3.38
options { stats-freq(0); stats-level(1); };
source s_foo { example-msg-generator(num(3) freq(0) template("foo a=1")); };
source s_bar { example-msg-generator(num(2) freq(0) template("bar")); };
parser p_re { regexp-parser(patterns("^foo")); };
parser p_two { kv-parser(); regexp-parser(patterns("a=1")); };
rewrite r_set { set("x" value("y")); };
filter f_foo { message("foo"); };
destination d_out { file("$work/out.log" template("\$MSG\n")); };
log { source(s_foo); source(s_bar); parser(p_re); rewrite(r_set); destination(d_out); };
log { source(s_foo); source(s_bar); parser(p_two); destination(d_out); };
log { source(s_bar); parser { regexp-parser(patterns("^bar")); }; destination(d_out); };
log { source(s_foo); source(s_bar); filter(f_foo); filter { message("a=1"); }; destination(d_out); };
EOF
start_sluice "$sluice" "$work/sluice.conf" -c "$sock"
# foo passes p_re, p_two and both filters (3 + 3 + 3), bar the inline parser (2)
wait_lines "$work/out.log" 11
"$ctl" -c "$sock" query get '*parser.*' >"$work/q"
grep -qx 'parser.p_re.discarded=2' "$work/q" || fail "p_re: $(cat "$work/q")"
grep -qx 'parser.p_two.discarded=2' "$work/q" || fail "p_two: $(cat "$work/q")"
grep -qx 'parser.#anon-parser0.discarded=0' "$work/q" || fail "inline: $(cat "$work/q")"
"$ctl" -c "$sock" query get '*filter.*' >"$work/q"
grep -qx 'filter.f_foo.matched=3' "$work/q" || fail "f_foo: $(cat "$work/q")"
grep -qx 'filter.f_foo.not_matched=2' "$work/q" || fail "f_foo: $(cat "$work/q")"
grep -qx 'filter.#anon-filter0.matched=3' "$work/q" || fail "inline filter: $(cat "$work/q")"
grep -qx 'filter.#anon-filter0.not_matched=0' "$work/q" || fail "inline filter: $(cat "$work/q")"
"$ctl" -c "$sock" stats >"$work/stats"
grep -qx 'parser;p_re;;a;discarded;2' "$work/stats" || fail "stats: $(cat "$work/stats")"
grep -q 'r_set' "$work/stats" && fail "a rewrite has no row: $(cat "$work/stats")"
# a reload carries the counts over by name (the generators, started again,
# add theirs: p_re 2 + 2, f_foo 3 + 3)
reload_sluice
wait_lines "$work/out.log" 22
"$ctl" -c "$sock" query get '*.*' >"$work/q"
grep -qx 'parser.p_re.discarded=4' "$work/q" || fail "p_re after a reload: $(cat "$work/q")"
grep -qx 'filter.f_foo.matched=6' "$work/q" || fail "f_foo after a reload: $(cat "$work/q")"
stop_sluice

sed -i 's/stats-level(1)/stats-level(0)/' "$work/sluice.conf"
rm -f "$work/out.log"
start_sluice "$sluice" "$work/sluice.conf" -c "$sock"
wait_lines "$work/out.log" 11
"$ctl" -c "$sock" stats >"$work/stats"
grep -q '^parser;\|^filter;' "$work/stats" && fail "stats-level(0): $(cat "$work/stats")"
stop_sluice
echo "statement-stats: parser and filter statements' rows, as syslog-ng's"
