#!/bin/sh
# The order of $SDATA's elements and parameters after rewrites and parsers
# changed structured data, against syslog-ng 3.38: a new parameter of an
# SD-ID the message has, a new SD-ID, a parameter overwritten, unset, unset
# and set again, several new ones in a row, SD-IDs with dots, an SD-ID that
# is a prefix of another, rename(), subst(), groupset(), groupunset(),
# kv-parser() into .SDATA., and in a
# template function's argument.  Both daemons run at once, each on its own
# port, and get the same RFC 5424 messages over TCP (local messages, to
# which 3.38 adds [meta sequenceId], are compare-sdata-meta.sh's).
# Usage: compare-sdata.sh SLUICE   (SLUICE_SYSLOG_NG as for compare.sh)
. "$(dirname "$0")/lib.sh"
sluice=$1
need_syslog_ng

# the rewrites, one log path and file each: NAME|REWRITE RULES
cat >"$work/cases" <<'EOC'
param|set("v" value(".SDATA.a@1.new"));
sdid|set("v" value(".SDATA.c@1.p"));
overwrite|set("v" value(".SDATA.b@1.z")); set("v2" value(".SDATA.a@1.x"));
unset|unset(value(".SDATA.a@1.x"));
unset-set|unset(value(".SDATA.a@1.x")); set("back" value(".SDATA.a@1.x"));
two-sdids|set("1" value(".SDATA.c@1.p")); set("2" value(".SDATA.d@1.p"));
mixed|set("1" value(".SDATA.c@1.p")); set("2" value(".SDATA.c@1.q")); set("3" value(".SDATA.b@1.n"));
meta|set("e" value(".SDATA.meta.extra"));
prefix|set("v" value(".SDATA.a.y"));
unset-new|unset(value(".SDATA.b@1.z")); set("n" value(".SDATA.b@1.n"));
dots|set("1" value(".SDATA.x.y.z")); set("2" value(".SDATA.x.y.w")); set("3" value(".SDATA.x.q"));
unset-all|unset(value(".SDATA.a@1.x")); unset(value(".SDATA.a@1.x2")); set("n" value(".SDATA.a@1.n"));
groupunset|groupunset(values(".SDATA.a@1.*")); set("n" value(".SDATA.a@1.n")); set("m" value(".SDATA.e@1.m"));
rename|rename(".SDATA.a@1.x" ".SDATA.c@1.y"); rename(".SDATA.b@1.z" ".SDATA.a@1.zz");
subst|subst("y" "Y" value(".SDATA.a@1.x")); groupset("G" values(".SDATA.b@1.*"));
EOC

conf() { # conf NAME PORT: $work/NAME.conf, writing $work/NAME.*.out
  {
    cat <<EOC
@version: 3.38
options { stats-freq(0); };
source s { syslog(ip(127.0.0.1) port($2) transport(tcp)); };
template t { template("\$MSG|\$SDATA\n"); };
parser p_kv { kv-parser(prefix(".SDATA.kv@1.")); };
destination d_plain { file("$work/$1.plain.out" template(t)); };
log { source(s); destination(d_plain); };
destination d_kv { file("$work/$1.kv.out" template(t)); };
log { source(s); parser(p_kv); destination(d_kv); };
destination d_echo { file("$work/$1.echo.out" template("\$(echo \$SDATA) \$MSG\n")); };
log { source(s); rewrite { set("v" value(".SDATA.a@1.new")); set("w" value(".SDATA.f@1.w")); };
      destination(d_echo); };
EOC
    while IFS='|' read -r name rules; do
      echo "destination d_$name { file(\"$work/$1.$name.out\" template(t)); };"
      echo "log { source(s); rewrite { $rules }; destination(d_$name); };"
    done <"$work/cases"
  } >"$work/$1.conf"
}

set -- $(free_ports tcp tcp)
sng_port=$1 slc_port=$2
conf sng "$sng_port"
conf slc "$slc_port"
sng_start sng
start_sluice "$sluice" "$work/slc.conf"

# one connection each: its messages are read, and written, in order
python3 - "$sng_port" "$slc_port" <<'EOP'
import socket, sys
msgs = [
    b'<165>1 2026-11-22T10:00:00Z h1 app 42 ID7 [a@1 x="y"][b@1 z="w"] m1 k=1',
    b'<165>1 2026-11-22T10:00:00Z h1 app 42 ID7 [ab x="1"][z w="2"] m2 k=2 j=3',
    b'<165>1 2026-11-22T10:00:00Z h1 app 42 ID7 - m3',
    b'<165>1 2026-11-22T10:00:00Z h1 app 42 ID7 [a@1 x="y" x2="y2"][b@1 z="w"][c@1 q="r"] m4',
    b'<165>1 2026-11-22T10:00:00Z h1 app 42 ID7 [kv@1 k="0"][x.y a="b"] m5 k=5 l=6',
]
data = b"".join(str(len(m)).encode() + b" " + m for m in msgs)
for port in sys.argv[1:]:
    s = socket.create_connection(("127.0.0.1", int(port)))
    s.sendall(data)
    s.close()
EOP
files="plain kv echo $(cut -d'|' -f1 "$work/cases")"
for f in $files; do
  wait_lines "$work/sng.$f.out" 5
  wait_lines "$work/slc.$f.out" 5
done
n=0
for f in $files; do
  cmp -s "$work/sng.$f.out" "$work/slc.$f.out" \
    || { diff "$work/sng.$f.out" "$work/slc.$f.out"; fail "$f differs (< syslog-ng, > sluice)"; }
  n=$((n + 1))
done
grep -qx 'm1 k=1|\[c@1 p="v"\]\[a@1 x="y"\]\[b@1 z="w"\]' "$work/slc.sdid.out" || fail "a new SD-ID is not first"
stop_sluice
echo "compare-sdata: \$SDATA as syslog-ng 3.38 writes it in $n files of 5 messages"
