#!/bin/sh
# $(slog), slogkey and slogverify (modules/slog), Sluice alone: a master
# and a host key; the daemon encrypts a file source's lines into a file();
# slogverify with k0 (a copy taken before the start) gives them back as
# "%020x: line" and exits 0; a changed, a removed and a reordered line
# each make it exit 1.  A restart goes on from the key and MAC files, and
# the iterative mode (-i -p -r) checks the new part from the saved key;
# across a reload the records go on with the next key.
# Hostile input: a truncated key file, a FIFO, garbage lines, a counter
# that asks for 2^64 key derivations and a 70 MiB line give a clear error
# and a non-zero exit in bounded time and memory, as does an OpenSSL
# without AES-256-CMAC (the daemon refuses $(slog) then); the daemon refuses a
# missing key file and logs in clear with a corrupted one (syslog-ng's
# behaviour).  syslog-ng 3.38 on the same files: compare-slog.sh.
# Usage: slog.sh SLUICE SLOGKEY SLOGVERIFY
. "$(dirname "$0")/lib.sh"
sluice=$(realpath "$1") slogkey=$(realpath "$2") slogverify=$(realpath "$3")
cd "$work"

"$slogkey" -m master.key || fail "slogkey -m"
"$slogkey" -d master.key foo bar derived.key || fail "slogkey -d"
[ "$(wc -c <derived.key)" -eq 56 ] || fail "host key is not 56 bytes"
[ "$("$slogkey" -c derived.key)" = "counter=0" ] || fail "new host key's counter"
cp derived.key decryption.key

. "$(dirname "$0")/slog-lib.sh"

lines in1.txt 0 11
conf one in1.txt out.log
start_sluice "$sluice" one.conf
wait_lines out.log 12
stop_sluice
[ "$("$slogkey" -c derived.key)" = "counter=12" ] || fail "counter after 12: $("$slogkey" -c derived.key)"
grep -q 'example-message' out.log && fail "clear text in the archive"
head -1 out.log | grep -Eq '^AAAAAAAAAAA=:[A-Za-z0-9+/]+=*$' || fail "record format: $(head -1 out.log)"
"$slogverify" -k decryption.key -m cmac out.log dec.txt 2>verify.err || fail "verify: $(cat verify.err)"
expect want.txt 0 11
cmp want.txt dec.txt || { diff want.txt dec.txt; fail "decrypted archive differs"; }

# a restart goes on from the files; -i checks the new part from the saved key
cp derived.key prev.key
cp cmac prev.cmac
lines in2.txt 12 16
conf two in2.txt out2.log
start_sluice "$sluice" two.conf
wait_lines out2.log 5
stop_sluice
"$slogverify" -i -p prev.key -r prev.cmac -m cmac out2.log dec2.txt 2>verify.err || fail "iterative: $(cat verify.err)"
expect want2.txt 12 16
cmp want2.txt dec2.txt || { diff want2.txt dec2.txt; fail "iterative output differs"; }
# a reload: the new configuration's $(slog) goes on from the old one's key
lines in4.txt 17 19
conf four in4.txt out4.log
start_sluice "$sluice" four.conf -R "$work/four.persist"
wait_lines out4.log 3
reload_sluice
lines more.txt 20 22
cat more.txt >>in4.txt
wait_lines out4.log 6
stop_sluice
[ "$("$slogkey" -c derived.key)" = "counter=23" ] || fail "counter after the reload: $("$slogkey" -c derived.key)"
cat out.log out2.log out4.log >all.log
"$slogverify" -k decryption.key -m cmac all.log dec.txt 2>verify.err || fail "whole archive: $(cat verify.err)"
expect want.txt 0 22
cmp want.txt dec.txt || fail "whole archive decrypted differs"
# two destinations (two writer threads) on one key file: every record
# number once, and merged in counter order the records form one archive
cp derived.key two-dest.key
cp derived.key two-dest0.key
cp cmac two-dest.cmac
cp cmac two-dest0.cmac
lines in5.txt 0 49
cat >five.conf <<EOF2
@version: 3.38
source s { file("$work/in5.txt" flags(no-parse)); };
destination a { file("$work/a.log" template("\$(slog -k $work/two-dest.key -m $work/two-dest.cmac \$MSG)\n")); };
destination b { file("$work/b.log" template("\$(slog --key-file=$work/two-dest.key --mac-file $work/two-dest.cmac \$MSG)\n")); };
log { source(s); destination(a); destination(b); };
EOF2
start_sluice "$sluice" five.conf
wait_lines a.log 50
wait_lines b.log 50
stop_sluice
python3 - a.log b.log merged.log <<'EOF2' || fail "two destinations: $(cat merged.log)"
import base64, struct, sys
recs = {}
for f in sys.argv[1:3]:
    for line in open(f):
        n = struct.unpack("<Q", base64.b64decode(line[:12]))[0]
        if n in recs:
            open(sys.argv[3], "w").write("record %d twice\n" % n)
            sys.exit(1)
        recs[n] = line
open(sys.argv[3], "w").write("".join(recs[n] for n in sorted(recs)))
EOF2
"$slogverify" -i -p two-dest0.key -r two-dest0.cmac -m two-dest.cmac merged.log x.txt 2>verify.err \
  || fail "two destinations: $(cat verify.err)"
[ "$(wc -l <x.txt)" -eq 100 ] || fail "two destinations: $(wc -l <x.txt) records"
[ -z "$(sed 's/^[0-9a-f]*: //' x.txt | sort | uniq -c | awk '$1 != 2')" ] || fail "two destinations: not each message twice"
[ "$("$slogkey" -c two-dest.key)" = "counter=123" ] || fail "two destinations: $("$slogkey" -c two-dest.key)"

# the output a pipe with a slow reader: slogverify blocks on the full pipe
# (O_NONBLOCK is for the open only), every record comes through
lines in6.txt 0 4999
cp derived.key many.key
cp derived.key many0.key
cp cmac many.cmac
cp cmac many0.cmac
conf six in6.txt many.log
sed -i "s|$work/derived.key|$work/many.key|; s|$work/cmac|$work/many.cmac|" six.conf
start_sluice "$sluice" six.conf
wait_lines many.log 5000
stop_sluice
{
  st=0
  "$slogverify" -i -p many0.key -r many0.cmac -m many.cmac many.log /dev/stdout 2>verify.err || st=$?
  echo $st >many.st
} | (sleep 1; cat) >many.txt
[ "$(cat many.st)" -eq 0 ] || fail "slow pipe: exit $(cat many.st): $(cat verify.err)"
[ "$(wc -l <many.txt)" -eq 5000 ] || fail "slow pipe: $(wc -l <many.txt) of 5000 records"

# buffer sizes: syslog-ng's range (more than 10)
"$slogverify" -k decryption.key -m cmac all.log dec.txt 11 2>/dev/null || fail "buffer size 11 refused"
"$slogverify" -k decryption.key -m cmac all.log dec.txt 10 2>/dev/null && fail "buffer size 10 taken"

# crashed NAME ERRFILE STATUS: fail on a signal or a sanitizer's report
crashed() {
  [ "$3" -lt 128 ] || fail "$1: killed by a signal ($3): $(tail -5 "$2")"
  ! grep -q 'Sanitizer\|runtime error' "$2" || fail "$1: $(grep -m3 'Sanitizer\|runtime error' "$2")"
}

# tampered archives: each must fail, saying why
tampered() {
  _t=$1
  st=0
  timeout 30 "$slogverify" -k decryption.key -m cmac "$_t.log" "$_t.txt" >"$_t.err" 2>&1 || st=$?
  [ $st -ne 124 ] || fail "$_t: still running after 30 s"
  [ $st -ne 0 ] || fail "$_t: verified: $(cat "$_t.err")"
  crashed "$_t" "$_t.err" $st
  grep -q "$2" "$_t.err" || fail "$_t: no '$2': $(cat "$_t.err")"
}
awk 'NR == 5 { c = substr($0, 30, 1); $0 = substr($0, 1, 29) (c == "A" ? "B" : "A") substr($0, 31) } { print }' \
  all.log >changed.log
tampered changed "Decryption not successful; entry='4'"
sed 7d all.log >removed.log
tampered removed "Unable to recover; entry='6'"
awk 'NR == 4 { h = $0; next } NR == 5 { print; print h; next } { print }' all.log >reordered.log
tampered reordered "Aggregated MAC mismatch"
sed '$d' all.log >cut.log
tampered cut "Aggregated MAC mismatch"
sed 3p all.log >doubled.log
tampered doubled "Duplicate entry detected; entry='2'"
printf 'AAAAAAAAAAA=:bm90IGJhc2U2NCEh\n' >>cut.log
tampered cut "Decryption not successful"

# hostile files
quick() {
  _name=$1
  shift
  st=0
  timeout 20 "$@" >quick.out 2>&1 || st=$?
  [ $st -ne 124 ] || fail "$_name: still running after 20 s"
  [ $st -ne 0 ] || fail "$_name: accepted: $(cat quick.out)"
  crashed "$_name" quick.out $st
}
head -c 20 decryption.key >short.key
quick "short key" "$slogverify" -k short.key -m cmac all.log x.txt
grep -q "short.key is 20 bytes, not 56" quick.out || fail "short key: $(cat quick.out)"
quick "slogkey -c short key" "$slogkey" -c short.key
grep -q "is 20 bytes" quick.out || fail "slogkey short key: $(cat quick.out)"
head -c 10 cmac >short.cmac
quick "short MAC" "$slogverify" -k decryption.key -m short.cmac all.log x.txt
grep -q "short.cmac is 10 bytes, not 32" quick.out || fail "short MAC: $(cat quick.out)"
cp decryption.key bad.key
printf 'X' | dd of=bad.key bs=1 seek=50 conv=notrunc 2>/dev/null
quick "corrupted key" "$slogverify" -k bad.key -m cmac all.log x.txt
grep -q "corrupted" quick.out || fail "corrupted key: $(cat quick.out)"
quick "not k0" "$slogverify" -k derived.key -m cmac all.log x.txt
grep -q "initial key k0 is needed" quick.out || fail "not k0: $(cat quick.out)"
mkfifo fifo
quick "FIFO key" "$slogverify" -k fifo -m cmac all.log x.txt
grep -q "not a regular file" quick.out || fail "FIFO key: $(cat quick.out)"
quick "FIFO input" "$slogverify" -k decryption.key -m cmac fifo x.txt
quick "FIFO output" "$slogverify" -k decryption.key -m cmac all.log fifo
head -c 100000 /dev/urandom >garbage.log
printf '\n\n:\n============:====\n' >>garbage.log
quick "garbage" "$slogverify" -k decryption.key -m cmac garbage.log x.txt
: >empty.log
quick "empty archive" "$slogverify" -k decryption.key -m cmac empty.log x.txt
grep -q "Nothing to verify" quick.out || fail "empty archive: $(cat quick.out)"
head -c -1 all.log >unterminated.log
quick "unterminated" "$slogverify" -k decryption.key -m cmac unterminated.log x.txt
grep -q "Last line has no newline; left out" quick.out || fail "unterminated: $(cat quick.out)"
[ "$(wc -l <x.txt)" -eq 22 ] || fail "unterminated: $(wc -l <x.txt) records, not 22"
# a counter of 2^64 - 1: the key derivation budget ends it
printf '//////////8=:%s\n' "$(head -1 all.log | cut -c14-)" >far.log
quick "far counter" "$slogverify" --max-skip 100000 -k decryption.key -m cmac far.log x.txt
grep -q "not deriving so many keys" quick.out || fail "far counter: $(cat quick.out)"
# a 70 MiB line: refused, memory bounded
{ head -1 all.log; head -c 73400320 /dev/zero | tr '\0' A; echo; tail -1 all.log; } >long.log
st=0
/usr/bin/time -f '%M' -o rss.txt timeout 60 "$slogverify" -k decryption.key -m cmac long.log x.txt \
  >quick.out 2>&1 || st=$?
[ $st -ne 0 ] && [ $st -ne 124 ] || fail "long line: exit $st"
crashed "long line" quick.out $st
grep -q "Line longer than the limit; not read; limit=.67108864." quick.out || fail "long line: $(cat quick.out)"
# the 64 MiB cap bounds it (a growing buffer of up to 128 MiB; more under ASan)
[ "$(tail -1 rss.txt)" -lt 320000 ] || fail "long line: peak RSS $(tail -1 rss.txt) kB"

# no AES-256-CMAC (OpenSSL without its default provider): the daemon
# refuses $(slog) and slogverify fails, nothing runs on a zeroed key
cp "$SLUICE_SRCDIR/tests/unit/modules/slog/nocmac.cnf" nocmac.cnf
st=0
OPENSSL_CONF=$work/nocmac.cnf "$sluice" -s -f one.conf >quick.out 2>&1 || st=$?
[ $st -ne 0 ] || fail "no CMAC: configuration accepted"
grep -q "AES-256-CMAC is not available" quick.out || fail "no CMAC: $(cat quick.out)"
quick "no CMAC" env OPENSSL_CONF="$work/nocmac.cnf" "$slogverify" -k decryption.key -m cmac all.log x.txt
grep -q "CMAC failed" quick.out || fail "no CMAC: $(cat quick.out)"

# the daemon: a missing key file is a configuration error, a corrupted one
# means clear text with a warning
sed "s|$work/derived.key|$work/none.key|" one.conf >missing.conf
st=0
"$sluice" -s -f missing.conf >quick.out 2>&1 || st=$?
[ $st -ne 0 ] || fail "missing key file accepted"
grep -q "Invalid path or non existing regular file" quick.out || fail "missing key: $(cat quick.out)"
cp short.key derived.key
lines in3.txt 0 1
conf three in3.txt clear.log
start_sluice "$sluice" three.conf
wait_lines clear.log 2
stop_sluice
grep -q "Reverting to clear text logging" "$work/sluice.log" || fail "no warning about the key"
printf 'example-message: 0\nexample-message: 1\n' | cmp - clear.log || fail "corrupted key: not clear text"
echo "slog: keys, records, restart, iterative and tamper checks, hostile files refused"
