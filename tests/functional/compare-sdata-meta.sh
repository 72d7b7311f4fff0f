#!/bin/sh
# The [meta sequenceId="N"] syslog-ng 3.38 adds to $SDATA, and the
# $SEQNUM it writes, for messages of local sources (here file() and
# unix-stream(); unix-dgram(), stdin() and internal() are local too),
# against syslog-ng 3.38 in file(), network() and syslog() destinations
# (each daemon receives the last two itself, unparsed): N counts the local
# messages each destination writes, from 1, whatever source they came
# from (here one source each, to keep the order fixed); it goes first
# into a "meta" element that has parameters, is left out when the message
# has a meta sequenceId, and is in $(format-json) too.  Messages from the
# network get neither.
# Usage: compare-sdata-meta.sh SLUICE   (SLUICE_SYSLOG_NG as for compare.sh)
. "$(dirname "$0")/lib.sh"
sluice=$1
need_syslog_ng

t='$SEQNUM|$SDATA|$MSG|$(format-json --scope sdata --key SEQNUM)\n'
conf() { # conf NAME PORT NET_PORT SYSLOG_PORT
  cat >"$work/$1.conf" <<EOC
@version: 3.38
options { stats-freq(0); };
source s_file { file("$work/$1.in" flags(syslog-protocol)); };
source s_stream { unix-stream("$work/$1.stream"); };
source s_tcp { network(ip(127.0.0.1) port($2)); };
template t { template("$t"); };
destination d_file { file("$work/$1.file.out" template(t)); };
destination d_some { file("$work/$1.some.out" template(t)); };
destination d_unix { file("$work/$1.unix.out" template(t)); };
destination d_tcp { file("$work/$1.tcp.out" template(t)); };
log { source(s_file); destination(d_file); };
log { source(s_file); filter { message("keep") }; destination(d_some); };
log { source(s_stream); destination(d_unix); };
log { source(s_tcp); destination(d_tcp); };
destination d_net { network("127.0.0.1" port($3) template(t) time-reopen(1)); };
destination d_syslog { syslog("127.0.0.1" port($4) transport(tcp) template(t) time-reopen(1)); };
log { source(s_file); filter { message("keep") }; destination(d_net); destination(d_syslog); };
source s_back { network(ip(127.0.0.1) port($3) flags(no-parse)); syslog(ip(127.0.0.1) port($4) flags(no-parse)); };
destination d_back { file("$work/$1.back.out" template("\$MSG\n")); };
log { source(s_back); destination(d_back); };
EOC
}

cat >"$work/in" <<'EOI'
<13>1 2020-01-02T03:04:05Z h app 1 ID [x@1 a="b"] m1
<13>1 2020-01-02T03:04:05Z h app 1 ID [x@1 a="b"][meta foo="1"] m2 keep
<13>1 2020-01-02T03:04:05Z h app 1 ID [meta sequenceId="77"] m3
<13>1 2020-01-02T03:04:05Z h app 1 ID - m4 keep
<13>1 2020-01-02T03:04:05Z h app 1 ID [meta] m5
<13>1 2020-01-02T03:04:05Z h app 1 ID [a@1 b="c"][meta x="y" z="w"][c@1 d="e"] m6 keep
EOI

set -- $(free_ports tcp tcp tcp tcp tcp tcp)
sng_port=$1 slc_port=$2
for n in sng slc; do cp "$work/in" "$work/$n.in"; done
conf sng "$sng_port" "$3" "$4"
conf slc "$slc_port" "$5" "$6"
sng_start sng
start_sluice "$sluice" "$work/slc.conf"

python3 - "$work" <<'EOP'
import socket, sys, time
work = sys.argv[1]
for name in ("sng", "slc"):
    for _ in range(50):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(f"{work}/{name}.stream")
            break
        except OSError:
            time.sleep(0.1)
    s.sendall(b"<13>Jan  2 03:04:05 h app: u1\n<13>Jan  2 03:04:05 h app: u2\n")
    s.close()
EOP
python3 - "$sng_port" "$slc_port" <<'EOP'
import socket, sys
for port in sys.argv[1:]:
    s = socket.create_connection(("127.0.0.1", int(port)))
    s.sendall(b'<13>1 2020-01-02T03:04:05Z h app 1 ID [x@1 a="b"] t1\n<13>1 2020-01-02T03:04:05Z h app 1 ID - t2\n')
    s.close()
EOP

n=0
for f in file:6 some:3 unix:2 tcp:2 back:6; do
  # the two destinations' lines arrive in either order
  [ "$f" != back:6 ] || for who in sng slc; do
    wait_lines "$work/$who.back.out" 6
    sort "$work/$who.back.out" >"$work/$who.back.sorted"
    mv "$work/$who.back.sorted" "$work/$who.back.out"
  done
  name=${f%:*} lines=${f#*:}
  wait_lines "$work/sng.$name.out" "$lines"
  wait_lines "$work/slc.$name.out" "$lines"
  cmp -s "$work/sng.$name.out" "$work/slc.$name.out" \
    || { diff "$work/sng.$name.out" "$work/slc.$name.out"; fail "$name differs (< syslog-ng, > sluice)"; }
  n=$((n + 1))
done
grep -q 'sequenceId="3"' "$work/slc.some.out" || fail "some.out does not count its own messages"
grep -q '^<13>1 .*\[meta sequenceId="2"\] 2|\[meta sequenceId="2"\]|m4' "$work/slc.back.out" \
  || fail "syslog()'s template does not have the number"
stop_sluice
echo "compare-sdata-meta: \$SDATA's meta sequenceId and \$SEQNUM as syslog-ng 3.38 writes them in $n files"
