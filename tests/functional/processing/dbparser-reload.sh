#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# db-parser() reads its patterndb file when the configuration is built: a
# reload picks up a changed file, and a file that no longer loads fails the
# reload with its place (file:line:col) and keeps the running
# configuration, which still classifies with the old rules.
# Usage: dbparser-reload.sh SLUICE
. "$(dirname "$0")/../lib.sh"
sluice=$1
set -- $(free_ports tcp)
port=$1

pdb() {
  cat >"$work/pdb.xml" <<EOF
<patterndb version='4'><ruleset><rules>
<rule id='$1' class='c'><patterns><pattern>hello @STRING:who@</pattern></patterns></rule>
</rules></ruleset></patterndb>
EOF
}
cat >"$work/sluice.conf" <<EOF
@version: 3.38
source s { network(ip(127.0.0.1) port($port)); };
parser p { db-parser(file("$work/pdb.xml")); };
destination d { file("$work/out.log" template("\${.classifier.rule_id} \${who} \$MSG\n")); };
log { source(s); parser(p); destination(d); };
EOF

send() {
  python3 -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(("<13>Nov 22 10:00:00 h app: " + sys.argv[2] + "\n").encode()); s.close()' "$port" "$1"
}


pdb one
start_sluice "$sluice" "$work/sluice.conf"
send "hello a"
wait_lines "$work/out.log" 1

pdb two
reload_sluice "Configuration reload finished"
send "hello b"
wait_lines "$work/out.log" 2

printf "<patterndb version='4'>\n<ruleset><rules><rule id='x'><bogus/>\n" >"$work/pdb.xml"
reload_sluice "keeping the running one"
grep -q "pdb.xml:2:.*unexpected <bogus>" "$work/sluice.log" || fail "the error does not name the place"
kill -0 "$pid" 2>/dev/null || fail "the daemon stopped after a reload with a bad patterndb"
send "hello c"
wait_lines "$work/out.log" 3
stop_sluice

printf 'one a hello a\ntwo b hello b\ntwo c hello c\n' >"$work/want"
diff -u "$work/want" "$work/out.log" || fail "unexpected classification"
echo "dbparser-reload: a reload loads the file anew, a bad file keeps the running configuration"
