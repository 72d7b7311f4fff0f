#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile patterndb files for db-parser() (issue 18): /dev/zero, a FIFO
# without a writer, a file past the 64 MiB bound, a million nested
# elements, malformed XML, a parser that is never closed and an unknown
# parser type are each refused by --syntax-only within 10 s with an error
# naming the file; then the daemon runs on a large valid file (20000 rules
# sharing parser prefixes) and messages made to backtrack, classifies them,
# and its peak RSS stays bounded.
# Usage: dbparser-files.sh SLUICE
. "$(dirname "$0")/../lib.sh"
sluice=$1
# under AddressSanitizer: a small quarantine, or the loader's freed
# temporaries count as resident
ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}quarantine_size_mb=4"
export ASAN_OPTIONS
set -- $(free_ports tcp)
port=$1

conf() {
  cat >"$work/sluice.conf" <<EOF
@version: 3.38
source s { network(ip(127.0.0.1) port($port)); };
parser p { db-parser(file("$1")); };
destination d { file("$work/out.log" template("\${.classifier.rule_id}|\${.classifier.class}\n")); };
log { source(s); parser(p); destination(d); };
EOF
}

refused() {
  conf "$1"
  st=0
  timeout 10 "$sluice" --syntax-only -f "$work/sluice.conf" >"$work/syntax.out" 2>&1 || st=$?
  [ $st -ne 124 ] || fail "--syntax-only still running after 10 s on $1"
  [ $st -ne 0 ] || fail "--syntax-only accepted $1"
  grep -q "$2" "$work/syntax.out" || fail "$1: the error lacks '$2': $(head -c 400 "$work/syntax.out")"
}

mkfifo "$work/fifo.xml"
refused /dev/zero "/dev/zero: it is a character device"
refused "$work/fifo.xml" "fifo.xml: it is a FIFO"
head -c 70000000 /dev/zero | tr '\0' ' ' >"$work/huge.xml"
refused "$work/huge.xml" "huge.xml: it is larger than"
rm -f "$work/huge.xml"
python3 -c 'import sys; sys.stdout.write("<patterndb version=\"4\">" + "<ruleset>" * 1000000)' >"$work/deep.xml"
refused "$work/deep.xml" "deep.xml:1:.*unexpected <ruleset>"
printf "<patterndb version='4'>\n<ruleset><rules>\n<rule id='a'></ruleset>" >"$work/bad.xml"
refused "$work/bad.xml" "bad.xml.*line 3"
printf "<patterndb version='4'><ruleset><rules><rule id='open'><patterns>\n<pattern>x @ESTRING:y: </pattern>\n</patterns></rule></rules></ruleset></patterndb>" >"$work/open.xml"
refused "$work/open.xml" "open.xml:2:.*rule open: .*not closed"
printf "<patterndb version='4'><ruleset><rules><rule id='ln'><patterns><pattern>@LNUMBER:n@</pattern></patterns></rule></rules></ruleset></patterndb>" >"$work/ln.xml"
refused "$work/ln.xml" "unknown parser type 'LNUMBER'"

# 20000 rules: every one begins with the same run of optional sets, so a
# line of x's tries them all before it fails
python3 - "$work/big.xml" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("<patterndb version='4'><ruleset><rules>\n")
    for i in range(20000):
        f.write("<rule id='r%d' class='c'><patterns><pattern>@OPTIONALSET:a:x@@OPTIONALSET:b%d:x@"
                "@NUMBER:n@ word%d @ANYSTRING:rest@</pattern></patterns>"
                "<values><value name='v'>$n</value></values></rule>\n" % (i, i % 50, i))
    f.write("</rules></ruleset></patterndb>\n")
EOF
conf "$work/big.xml"
start_sluice "$sluice" "$work/sluice.conf"
python3 - "$port" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
lines = ["xx12 word19999 tail", "x" * 3000 + "never", "12 word7 a b c", "nothing at all"]
for i in range(50):
    for l in lines:
        s.sendall(("<13>Nov 22 10:00:00 h app: " + l + "\n").encode())
s.close()
EOF
wait_lines "$work/out.log" 200
rss_below 200000
stop_sluice
[ "$(grep -c '^r19999|c$' "$work/out.log")" -eq 50 ] || fail "r19999 not matched 50 times"
[ "$(grep -c '^r7|c$' "$work/out.log")" -eq 50 ] || fail "r7 not matched 50 times"
[ "$(grep -c '^|unknown$' "$work/out.log")" -eq 100 ] || fail "the unmatched lines are not unknown"
echo "dbparser-files: hostile patterndb files refused, a large one bounded"
