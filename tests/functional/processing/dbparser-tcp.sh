#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# db-parser() on a loopback tcp() source, Sluice against syslog-ng 3.38:
# 3000 loggen-format lines (a rule that takes every field apart) and the
# hand-written lines of data/db-input.txt (data/patterndb.xml) are sent to
# each daemon; the JSON of every name-value pair they write must be the same.
# Usage: dbparser-tcp.sh SLUICE
. "$(dirname "$0")/../lib.sh"
sluice=$1
need_syslog_ng
data=$(cd "$(dirname "$0")/data" && pwd)
set -- $(free_ports tcp tcp)
p_sluice=$1 p_sng=$2

cat >"$work/loggen.xml" <<'EOF'
<patterndb version='4'>
  <ruleset name='loggen' id='lg'>
    <pattern>app</pattern>
    <rules>
      <rule provider='test' id='loggen-line' class='bench'>
        <patterns>
          <pattern>seq: @NUMBER:seq@, thread: @NUMBER:thread@, runid: @NUMBER:runid@, stamp: @ESTRING:stamp: @@ANYSTRING:pad@</pattern>
        </patterns>
        <tags><tag>loggen</tag></tags>
        <values><value name='key'>${runid}/${thread}/${seq}</value></values>
      </rule>
    </rules>
  </ruleset>
</patterndb>
EOF

for who in sluice sng; do
  eval port=\$p_$who
  cat >"$work/$who.conf" <<EOF
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port)); };
parser p_lg { db-parser(file("$work/loggen.xml")); };
parser p_db { db-parser(file("$data/patterndb.xml")); };
destination d { file("$work/$who.out" template("\$(format-json --scope all-nv-pairs --exclude DATE --exclude HOST_FROM --exclude SOURCE --exclude TRANSPORT --exclude SOURCEIP --exclude FILE_NAME)\n")); };
log { source(s); parser(p_lg); parser(p_db); destination(d); };
EOF
done

gen "$work/input" 3000
cat "$data/db-input.txt" >>"$work/input"
n=$(wc -l <"$work/input")

send() {
  python3 -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(open(sys.argv[2], "rb").read()); s.close()' "$1" "$work/input"
}

start_sluice "$sluice" "$work/sluice.conf"
sng_start sng
send "$p_sluice"
send "$p_sng"
wait_lines "$work/sluice.out" "$n"
wait_lines "$work/sng.out" "$n"
stop_sluice
if ! diff "$work/sng.out" "$work/sluice.out" >"$work/diff"; then
  head -20 "$work/diff"
  fail "Sluice's db-parser() output differs from syslog-ng's"
fi
[ "$(grep -c '"rule_id":"loggen-line"' "$work/sluice.out")" -eq 3000 ] || fail "not every loggen line matched"
echo "dbparser-tcp: $n lines over tcp() classified as syslog-ng 3.38 classifies them"
