#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sluice-pdbtool against syslog-ng 3.38's pdbtool on the same files:
# match (-M one message, -f a file of syslog lines) prints the same values (compared sorted: the two set them in
# another order) and the same exit status with and without a match; test
# passes a file whose examples hold and fails (non-zero, naming the value)
# one whose example is wrong; dictionary lists the same names; merge makes
# one file from a directory that loads and matches as its parts did.
# Usage: pdbtool.sh SLUICE-PDBTOOL
. "$(dirname "$0")/../lib.sh"
tool=$1
need_syslog_ng
data=$(cd "$(dirname "$0")/data" && pwd)
# pdbtool loads its syslog parser before it reads --module-path: the
# prefix it takes from the environment is what finds it (match -f needs it)
pdbtool() {
  SYSLOGNG_PREFIX=$sng/usr LD_LIBRARY_PATH=$sng/usr/lib/syslog-ng "$sng/usr/bin/pdbtool" "$@" \
    --module-path="$sng/usr/lib/syslog-ng/3.38" 2>/dev/null
}

cat >"$work/ok.xml" <<'XML'
<patterndb version='4'><ruleset name='sshd' id='s'><pattern>sshd</pattern><rules>
<rule id='acc' class='system' provider='me'>
 <patterns><pattern>Accepted @ESTRING:method: @for @ESTRING:user: @from @IPvANY:ip@</pattern></patterns>
 <tags><tag>login</tag></tags><values><value name='who'>$user@$ip</value></values>
 <examples><example><test_message program='sshd'>Accepted password for bob from 10.0.0.1</test_message>
  <test_values><test_value name='user'>bob</test_value><test_value name='ip'>10.0.0.1</test_value>
  <test_value name='who'>bob@10.0.0.1</test_value></test_values></example></examples></rule>
<rule id='fail' class='violation'>
 <patterns><pattern>Failed @ESTRING:method: @for @ANYSTRING:user@</pattern></patterns>
 <examples><example><test_message program='sshd'>Failed password for eve</test_message>
  <test_values><test_value name='user'>eve</test_value></test_values></example></examples></rule>
</rules></ruleset></patterndb>
XML
sed 's/>eve</>mallory</' "$work/ok.xml" >"$work/bad.xml"

sorted() { grep -v '^$' | grep -v '^TAGS=' | sort; }
for m in "Accepted password for bob from 10.0.0.1" "Failed publickey for eve" "nothing like it"; do
  st1=0; pdbtool match -p "$work/ok.xml" -P sshd -M "$m" | sorted >"$work/want" || st1=$?
  st2=0; "$tool" match -p "$work/ok.xml" -P sshd -M "$m" >"$work/got.raw" || st2=$?
  sorted <"$work/got.raw" >"$work/got"
  diff "$work/want" "$work/got" || fail "match '$m' differs from pdbtool's"
done
"$tool" match -p "$work/ok.xml" -P sshd -M "nothing like it" >/dev/null &&
  fail "match without a match exits 0"
"$tool" match -p "$work/ok.xml" -P sshd -M "Failed x for y" >/dev/null ||
  fail "match with a match exits non-zero"

# match -f: every line a syslog message, with and without <PRI>, one block each
cat >"$work/lines.log" <<'EOF'
Dec 10 06:55:46 LabSZ sshd[24200]: Accepted password for bob from 10.0.0.1
<38>Dec 10 06:55:47 LabSZ sshd[24201]: Failed password for eve
Dec 10 06:55:48 LabSZ cron[1]: nothing like it
EOF
pdbtool match -p "$work/ok.xml" -f "$work/lines.log" | grep -v '^LEGACY_MSGHDR=' | sorted >"$work/want"
"$tool" match -p "$work/ok.xml" -f "$work/lines.log" >"$work/got.raw" || fail "match -f failed"
sorted <"$work/got.raw" >"$work/got"
diff "$work/want" "$work/got" || fail "match -f differs from pdbtool's"
[ "$(grep -c '^$' "$work/got.raw")" = 3 ] || fail "match -f did not print three blocks"
grep -q "^who=bob@10.0.0.1$" "$work/got" || fail "match -f did not classify the first line"
grep -q "^PID=24201$" "$work/got" || fail "match -f did not parse the syslog header"

"$tool" test "$work/ok.xml" >"$work/test.out" 2>&1 ||
  fail "test fails on good examples: $(cat "$work/test.out")"
grep -q "2 examples, all passed" "$work/test.out" || fail "test did not run both examples"
st=0; "$tool" test "$work/bad.xml" >"$work/test.out" 2>&1 || st=$?
[ $st -ne 0 ] || fail "test passes a wrong example"
grep -q "Wrong match name='user', value='eve', expected='mallory'" "$work/test.out" ||
  fail "no mismatch named"
st=0; pdbtool test "$work/bad.xml" >/dev/null || st=$?
[ $st -ne 0 ] || fail "syslog-ng's pdbtool passes the wrong example (the test is wrong)"
"$tool" test -r acc "$work/bad.xml" >/dev/null 2>&1 || fail "test -r acc ran the other rule's example"

# an example with several test messages tests the last one (3.38 does so;
# syslog-ng-patterndb's sshd.xml has one)
cat >"$work/multi.xml" <<'XML'
<patterndb version='4'><ruleset name='p' id='s'><pattern>p</pattern><rules>
<rule id='r' class='system' provider='me'><patterns><pattern>user @STRING:user@ by @ANYSTRING:by@</pattern></patterns>
 <examples><example><test_message program='p'>user first by x</test_message>
 <test_message program='p'>user last by y</test_message>
 <test_values><test_value name='user'>last</test_value></test_values></example></examples></rule>
</rules></ruleset></patterndb>
XML
pdbtool test "$work/multi.xml" >/dev/null || fail "syslog-ng's pdbtool does not test the last message (the test is wrong)"
"$tool" test "$work/multi.xml" >"$work/test.out" 2>&1 ||
  fail "test did not take the last test_message: $(cat "$work/test.out")"

pdbtool dictionary -p "$work/ok.xml" | sort >"$work/want"
"$tool" dictionary -p "$work/ok.xml" | sort >"$work/got"
diff "$work/want" "$work/got" || fail "dictionary differs from pdbtool's"

mkdir "$work/dir"
cp "$work/ok.xml" "$work/dir/a.pdb"
cp "$data/patterndb.xml" "$work/dir/b.pdb"
echo "not a pattern file" >"$work/dir/ignored.txt"
"$tool" merge -D "$work/dir" -p "$work/merged.xml" || fail "merge failed"
"$tool" match -p "$work/merged.xml" -P sshd -M "Failed password for eve" | grep -q "rule_id=fail" ||
  fail "the merged file lost a rule"
[ "$("$tool" test "$work/merged.xml" 2>&1 | grep -c "^Testing")" -ge 2 ] ||
  fail "the merged file lost examples"
echo "junk" >"$work/dir/c.pdb"
"$tool" merge -D "$work/dir" -p "$work/merged2.xml" 2>/dev/null && fail "merge took a file that does not load"
echo "pdbtool: match, test, dictionary and merge as syslog-ng 3.38's pdbtool"
