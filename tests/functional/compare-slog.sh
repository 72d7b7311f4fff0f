#!/bin/sh
# $(slog), slogkey and slogverify against syslog-ng 3.38's secure-logging
# module and tools (Debian's syslog-ng-mod-slog), byte for byte:
#  - syslog-ng's slogkey derives from Sluice's master key the same host
#    key Sluice's does, and both read the counters of each other's keys;
#  - records that Sluice's daemon writes with $(slog) over file() verify
#    and decrypt with Sluice's and with syslog-ng's slogverify, to the same
#    bytes ("%020x: message"), normal and iterative (-i -p -r) modes;
#  - records that syslog-ng 3.38's daemon writes verify with Sluice's;
#  - changed, removed and reordered lines fail in both verifiers, and
#    their outputs are the same.
# Usage: compare-slog.sh SLUICE SLOGKEY SLOGVERIFY (needs SLUICE_SYSLOG_NG_SLOG,
# or SLUICE_SYSLOG_NG, naming an unpack with syslog-ng-mod-slog and
# syslog-ng-core: scripts/fetch-syslog-ng.sh DIR)
. "$(dirname "$0")/lib.sh"
sluice=$(realpath "$1") slogkey=$(realpath "$2") slogverify=$(realpath "$3")
sng=${SLUICE_SYSLOG_NG_SLOG:-${SLUICE_SYSLOG_NG:-}}
if [ -z "$sng" ] || [ ! -x "$sng/usr/bin/slogverify" ] || [ ! -x "$sng/usr/sbin/syslog-ng" ] \
    || [ ! -f "$sng/usr/lib/syslog-ng/3.38/libsecure-logging.so" ]; then
  echo "SLUICE_SYSLOG_NG_SLOG (or SLUICE_SYSLOG_NG) must name an unpack of syslog-ng-core and" \
    "syslog-ng-mod-slog (scripts/fetch-syslog-ng.sh DIR)" >&2
  exit 1
fi
cd "$work"
# sng_tool NAME ARGS...: syslog-ng's slogkey or slogverify
sng_tool() {
  _tool=$1
  shift
  LD_LIBRARY_PATH=$sng/usr/lib/syslog-ng "$sng/usr/bin/$_tool" "$@"
}

# keys: Sluice's master key, host keys derived by both tools
"$slogkey" -m master.key || fail "slogkey -m"
"$slogkey" -d master.key foo bar derived.key || fail "slogkey -d"
sng_tool slogkey -d master.key foo bar sng-derived.key >/dev/null 2>&1 || fail "syslog-ng's slogkey -d"
cmp derived.key sng-derived.key || fail "the host keys differ"
[ "$(sng_tool slogkey -c derived.key 2>/dev/null)" = "counter=0" ] || fail "syslog-ng's slogkey -c"
cp derived.key decryption.key
cp sng-derived.key sng-decryption.key

. "$(dirname "$0")/slog-lib.sh"
# both_verify WANT ARGS...: Sluice's and syslog-ng's slogverify with ARGS
# and the output files slc.txt and sng.txt: both exit 0 and give WANT
both_verify() {
  _want=$1
  shift
  "$slogverify" "$@" slc.txt 2>slc.err || fail "Sluice's slogverify $*: $(cat slc.err)"
  sng_tool slogverify "$@" sng.txt >sng.err 2>&1 || fail "syslog-ng's slogverify $*: $(cat sng.err)"
  cmp "$_want" slc.txt || { diff "$_want" slc.txt; fail "Sluice's slogverify $*: output differs"; }
  cmp "$_want" sng.txt || { diff "$_want" sng.txt; fail "syslog-ng's slogverify $*: output differs"; }
}

# Sluice writes, both verify (18 records: the counters go past 0x10)
lines in1.txt 0 17
conf one in1.txt out.log derived.key cmac
start_sluice "$sluice" one.conf
wait_lines out.log 18
stop_sluice
[ "$(sng_tool slogkey -c derived.key 2>/dev/null)" = "counter=18" ] || fail "syslog-ng reads the counter: $(sng_tool slogkey -c derived.key)"
expect want.txt 0 17
both_verify want.txt -k decryption.key -m cmac out.log

# a second run, checked from the saved key in iterative mode
cp derived.key prev.key
cp cmac prev.cmac
lines in2.txt 18 22
conf two in2.txt out2.log derived.key cmac
start_sluice "$sluice" two.conf
wait_lines out2.log 5
stop_sluice
expect want2.txt 18 22
both_verify want2.txt -i -p prev.key -r prev.cmac -m cmac out2.log
cat out.log out2.log >all.log
expect want.txt 0 22
both_verify want.txt -k decryption.key -m cmac all.log

# syslog-ng 3.38 writes, Sluice verifies (and so does syslog-ng)
lines sng-in.txt 0 11
conf sng sng-in.txt sng-out.log sng-derived.key sng-cmac
sng_start sng
wait_lines sng-out.log 12
sleep 0.5
[ "$("$slogkey" -c sng-derived.key)" = "counter=12" ] || fail "Sluice reads syslog-ng's counter"
expect want.txt 0 11
both_verify want.txt -k sng-decryption.key -m sng-cmac sng-out.log

# tampering fails in both, with the same output
tampered() {
  st=0
  "$slogverify" -k decryption.key -m cmac "$1.log" slc.txt >slc.err 2>&1 || st=$?
  [ $st -ne 0 ] || fail "$1: Sluice's slogverify accepted it"
  st=0
  sng_tool slogverify -k decryption.key -m cmac "$1.log" sng.txt >sng.err 2>&1 || st=$?
  [ $st -ne 0 ] || fail "$1: syslog-ng's slogverify accepted it"
  cmp slc.txt sng.txt || { diff slc.txt sng.txt; fail "$1: the outputs differ"; }
}
awk 'NR == 5 { c = substr($0, 30, 1); $0 = substr($0, 1, 29) (c == "A" ? "B" : "A") substr($0, 31) } { print }' \
  all.log >changed.log
tampered changed
sed 7d all.log >removed.log
tampered removed
awk 'NR == 4 { h = $0; next } NR == 5 { print; print h; next } { print }' all.log >reordered.log
tampered reordered
sed '$d' all.log >cut.log
tampered cut
echo "compare-slog: keys, archives and verdicts the same as syslog-ng 3.38's secure logging"
