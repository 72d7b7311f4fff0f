#!/bin/sh
# logstore() and sluice-logcat (docs/modules/logstore.md): loggen's
# messages into encrypted, plain, templated and per-host logstores (reaped when idle), a
# SIGUSR1 (each file closed and reopened with a new key), a stop, a
# start again and a reload under load; every message read back by sluice-logcat and counted by
# loggen's checker; every byte value round trip; --json, --template and a
# time range; a file that is not a logstore renamed aside, not appended to;
# a version 1 file appended to as version 1;
# --follow while the daemon writes; --verify passing the files as written and failing a chunk removed,
# swapped, cut or flipped and a changed header; the wrong key and a
# missing key refused by name; options that cannot work refused at start.
# Usage: logstore.sh SLUICE LOGCAT LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 logcat=$2 loggen=$3
tamper="$(dirname "$0")/logstore-tamper.py"

cert() {
  openssl req -x509 -newkey "$1" -nodes -keyout "$work/$2.key" -out "$work/$2.pem" -days 2 \
    -subj "/CN=$2" >/dev/null 2>&1 || fail "openssl could not make a $1 certificate"
}
cert rsa:2048 store
cert rsa:2048 other

set -- $(free_ports tcp tcp tcp)
port=$1 rawport=$2 hostport=$3
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port)); };
source raw { syslog(ip(127.0.0.1) port($rawport) transport("tcp") flags(no-parse)); };
source h { tcp(ip(127.0.0.1) port($hostport) keep-hostname(yes)); };
destination enc { logstore("$work/enc.lgs" encrypt-certificate("$work/store.pem") max-chunk-size(4096)); };
destination plain { logstore("$work/plain.lgs" compress(0)); };
destination tmpl { logstore("$work/tmpl.lgs" template("\$PROGRAM \$MSG\n") fsync(yes)
  encrypt-certificate("$work/store.pem") encrypt-algorithm("aes-256-gcm")); };
destination hosts { logstore("$work/hosts/\${HOST}.lgs" create-dirs(yes) perm(0640) time-reap(1)
  encrypt-certificate("$work/store.pem")); };
destination rawd { logstore("$work/raw.lgs" encrypt-certificate("$work/store.pem")); };
destination old { logstore("$work/old.lgs"); };
log { source(s); destination(enc); destination(plain); destination(tmpl); destination(old); flags(flow-control); };
log { source(raw); destination(rawd); };
log { source(h); destination(hosts); };
EOF2

# a file in the way that is not a logstore: kept aside, untouched
echo "not a logstore" >"$work/plain.lgs"
# a version 1 file (a header, unencrypted): appended to with version 1's
# records, which its readers know
printf 'SLUICELS\001\000\001\000\001\000\000\0000123456789abcdef' >"$work/old.lgs"
openssl dgst -sha256 -binary "$work/old.lgs" >>"$work/old.lgs"

start_sluice "$sluice" "$work/sluice.conf"
"$loggen" -S -r 20000 -I 1 127.0.0.1 "$port" >"$work/loggen1" 2>&1 || fail "loggen"
sent1=$(sed -n 's/.*count=\([0-9]*\).*/\1/p' "$work/loggen1" | tail -1)
python3 - "$rawport" "$hostport" <<'EOF2'
import socket, sys
raw = bytes(range(256))
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"%d " % len(raw) + raw)
s.close()
s = socket.create_connection(("127.0.0.1", int(sys.argv[2])))
for host in ("alpha", "beta", "alpha"):
    s.sendall(b"<13>Nov 26 10:00:00 %s app[1]: from %s\n" % (host.encode(), host.encode()))
s.close()
EOF2
count() { "$logcat" --key "$work/store.key" "$@" 2>/dev/null | wc -l; }
i=0
until [ "$(count "$work/enc.lgs")" -ge "$sent1" ] && [ "$(count "$work/raw.lgs")" -ge 1 ] &&
    [ "$(count "$work/hosts/alpha.lgs")" -ge 2 ]; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "the records did not arrive ($(count "$work/enc.lgs") of $sent1)"
  sleep 0.2
done
# time-reap(1): an idle per-host store is closed, with its closing record,
# while the daemon runs
i=0
until "$logcat" --verify --key "$work/store.key" "$work/hosts/beta.lgs" >"$work/reap.out" 2>&1; do
  i=$((i + 1))
  [ $i -lt 50 ] || fail "time-reap(1) did not close beta.lgs: $(cat "$work/reap.out")"
  sleep 0.2
done
grep -q "OK, .* 1 records, closed" "$work/reap.out" || fail "reaped: $(cat "$work/reap.out")"
# the records are readable while the files are open, before their close
"$logcat" --verify --key "$work/store.key" "$work/enc.lgs" >"$work/open.out" 2>&1 &&
  fail "--verify passed a file without its closing record"
grep -q "without its closing record" "$work/open.out" || fail "open file: $(cat "$work/open.out")"

kill -USR1 "$pid"
wait_log "reopen\|Reopen\|USR1" 2>/dev/null || true
"$loggen" -S -r 20000 -I 1 127.0.0.1 "$port" >"$work/loggen2" 2>&1 || fail "loggen"
sent2=$(sed -n 's/.*count=\([0-9]*\).*/\1/p' "$work/loggen2" | tail -1)
stop_sluice
start_sluice "$sluice" "$work/sluice.conf"
# --follow: what the running daemon appends comes out as it is written
# (bounded by timeout, so that a failure here leaves no follower behind)
timeout 60 "$logcat" --follow --key "$work/store.key" "$work/enc.lgs" >"$work/follow.txt" 2>&1 &
follower=$!
# and a reload in the middle of the run: the new writer goes on in the
# same files (a closing record, then an OPEN chunk), nothing lost or doubled
"$loggen" -S -r 5000 -I 2 127.0.0.1 "$port" >"$work/loggen3" 2>&1 &
sender=$!
sleep 1
reload_sluice
wait $sender || fail "loggen"
sent3=$(sed -n 's/.*count=\([0-9]*\).*/\1/p' "$work/loggen3" | tail -1)
total=$((sent1 + sent2 + sent3))
wait_lines "$work/follow.txt" "$total"
kill "$follower"
[ "$(wc -l <"$work/follow.txt")" -eq "$total" ] ||
  fail "--follow printed $(wc -l <"$work/follow.txt") of $total"
stop_sluice

# every message, once, in every store
[ "$(od -An -tu2 -j8 -N2 "$work/old.lgs" | tr -d ' ')" = 1 ] || fail "old.lgs is no longer version 1"
for f in enc plain old; do
  "$logcat" --key "$work/store.key" "$work/$f.lgs" >"$work/$f.txt" || fail "$f: logcat failed"
  "$loggen" --check "$work/$f.txt" >"$work/$f.check" 2>&1 || fail "$f: $(cat "$work/$f.check")"
  grep -q "received=$total missing=0 duplicated=0" "$work/$f.check" ||
    fail "$f: $(tail -1 "$work/$f.check"), $total sent"
  "$logcat" --verify --key "$work/store.key" "$work/$f.lgs" >"$work/$f.verify" 2>&1 ||
    fail "$f --verify: $(cat "$work/$f.verify")"
  grep -q "OK, .* $total records, closed$" "$work/$f.verify" || fail "$f: $(cat "$work/$f.verify")"
done
"$logcat" --verify "$work/enc.lgs" | grep -q "closed (chain only" || fail "--verify without the key"
# the lines are syslog-ng's file lines: the same as a file() destination writes
line1='^[A-Z][a-z][a-z] [ 0-9][0-9] [0-9:]* [^ ][^ ]* prg00000\[1234\]: seq: 0000000000, '
head -1 "$work/enc.txt" | grep -q "$line1" ||
  fail "not a file line: $(head -1 "$work/enc.txt")"
# compressed (in chunks of 4 KiB here, so less than it could): loggen lines shrink at least
# threefold; compress(0) keeps the whole serialized messages, more than their text
enc_size=$(stat -c %s "$work/enc.lgs") plain_size=$(stat -c %s "$work/plain.lgs")
text=$(stat -c %s "$work/enc.txt")
echo "logstore: $total messages, $text bytes as text, $enc_size compressed and encrypted," \
  "$plain_size compress(0)"
[ "$enc_size" -lt $((text / 3)) ] || fail "enc.lgs is $enc_size bytes for $text of text"
[ "$plain_size" -gt "$text" ] || fail "compress(0) wrote $plain_size bytes for $text of text"
# the file that was in the way
aside=$(ls "$work"/plain.lgs.damaged-* 2>/dev/null | head -1)
[ -n "$aside" ] && [ "$(cat "$aside")" = "not a logstore" ] || fail "the file in the way was not kept aside"
grep -q "renamed aside" "$work/sluice.log" || true

# template(), fsync(yes): the template's text
"$logcat" --key "$work/store.key" "$work/tmpl.lgs" >"$work/tmpl.txt"
[ "$(wc -l <"$work/tmpl.txt")" -eq "$total" ] || fail "tmpl: $(wc -l <"$work/tmpl.txt") of $total"
grep -q "^prg00000 seq: 0000000000, thread: 0000" "$work/tmpl.txt" || fail "tmpl: $(head -1 "$work/tmpl.txt")"

# macros in the path, create-dirs(), perm()
[ "$(count "$work/hosts/alpha.lgs")" -eq 2 ] && [ "$(count "$work/hosts/beta.lgs")" -eq 1 ] ||
  fail "per-host stores: $(ls "$work/hosts")"
[ "$(stat -c %a "$work/hosts/beta.lgs")" = 640 ] || fail "perm(0640): $(stat -c %a "$work/hosts/beta.lgs")"
"$logcat" --key "$work/store.key" --template '$HOST $MSG' "$work/hosts/alpha.lgs" >"$work/alpha.txt"
printf 'alpha from alpha\nalpha from alpha\n' | cmp -s - "$work/alpha.txt" ||
  fail "--template: $(cat "$work/alpha.txt")"

# every byte value, through the daemon and back
"$logcat" --key "$work/store.key" --template '$MSG' "$work/raw.lgs" >"$work/raw.out"
python3 -c '
import sys
got = open(sys.argv[1], "rb").read()
want = bytes(range(256)) + b"\n"
sys.exit(0 if got == want else "bytes differ: %r" % got)' "$work/raw.out" || fail "byte values"

# --json
"$logcat" --key "$work/store.key" --json "$work/hosts/beta.lgs" >"$work/beta.json"
python3 -c '
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["HOST"] == "beta" and o["MESSAGE"] == "from beta" and o["PROGRAM"] == "app", o
assert o["received"].endswith("Z") and o["chunk"] >= 0, o' "$work/beta.json" ||
  fail "--json: $(cat "$work/beta.json")"

# a time range
[ "$(count --since 2100-01-01T00:00:00Z "$work/enc.lgs")" -eq 0 ] || fail "--since the future"
[ "$(count --until 2000-01-01T00:00:00Z "$work/enc.lgs")" -eq 0 ] || fail "--until the past"
[ "$(count --since 0 --until 4102444800 "$work/enc.lgs")" -eq "$total" ] || fail "--since/--until all"

# damage: each found by --verify, with and without the key
nchunks=$(python3 "$tamper" "$work/enc.lgs" "$work") || fail "tamper"
for case in removed:"does not follow chunk 1" swapped:"does not follow chunk 1" cut:"cut at offset" \
    cutchunk:"without its closing record" flipped:"chunk 2 at offset [0-9]*: changed" \
    header:"header was changed"; do
  name=${case%%:*} want=${case#*:}
  for key in "--key=$work/store.key" ""; do
    st=0
    "$logcat" --verify $key "$work/$name" >"$work/$name.out" 2>&1 || st=$?
    [ $st -ne 0 ] || fail "--verify $key passed the $name file"
    grep -q "$want" "$work/$name.out" || fail "$name: wanted '$want', got: $(cat "$work/$name.out")"
  done
  echo "damage '$name' ($nchunks chunks): $(cat "$work/$name.out")"
done
# reading (not verifying) a torn file gives what is whole, and says so
"$logcat" --key "$work/store.key" "$work/cut" >"$work/cut.txt" 2>"$work/cut.err" || fail "reading a torn file"
grep -q "torn tail" "$work/cut.err" || fail "torn: $(cat "$work/cut.err")"
[ -s "$work/cut.txt" ] || fail "nothing read before the torn tail"

# keys
st=0
"$logcat" --key "$work/other.key" "$work/enc.lgs" >/dev/null 2>"$work/wrong.err" || st=$?
[ $st -ne 0 ] && grep -q "wrong key: .*fingerprint" "$work/wrong.err" ||
  fail "wrong key: $(cat "$work/wrong.err")"
fp=$(openssl x509 -in "$work/store.pem" -noout -fingerprint -sha256 | sed 's/.*=//')
grep -q "$fp" "$work/wrong.err" || fail "the wrong key's message does not name the certificate $fp"
st=0
"$logcat" "$work/enc.lgs" >/dev/null 2>"$work/nokey.err" || st=$?
[ $st -ne 0 ] && grep -q "give its private key with --key" "$work/nokey.err" ||
  fail "no key: $(cat "$work/nokey.err")"
echo "logstore: wrong key: $(cat "$work/wrong.err")"

# what cannot work is refused before start, naming it
openssl ecparam -name prime256v1 -out "$work/ecparam" 2>/dev/null
cert ec:"$work/ecparam" ec
refuse() {
  cat >"$work/bad.conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port)); };
destination d { logstore("$work/x.lgs" $1); };
log { source(s); destination(d); };
EOF2
  st=0
  "$sluice" -s -f "$work/bad.conf" >"$work/bad.out" 2>&1 || st=$?
  [ $st -ne 0 ] || fail "accepted: $1"
  grep -q "$2" "$work/bad.out" || fail "$1: wanted '$2', got: $(cat "$work/bad.out")"
}
refuse 'timestamp-url("https://127.0.0.1:1/tsa")' "over plain http:// only"
refuse 'timestamp-url("http://127.0.0.1:1/tsa") timestamp-policy("not an oid")' "is not an OID"
refuse 'timestamp-policy("1.2.3")' "timestamp-policy() needs timestamp-url()"
refuse 'timestamp-freq(10)' "timestamp-freq() needs timestamp-url()"
refuse "encrypt-certificate(\"$work/store.pem\") encrypt-algorithm(\"aes-128-cbc\")" "aes-256-gcm only"
refuse 'encrypt-algorithm("aes-256-gcm")' "needs encrypt-certificate"
refuse "encrypt-certificate(\"$work/nothing.pem\")" "not a readable PEM X.509 certificate"
refuse "encrypt-certificate(\"$work/ec.pem\")" "is not RSA"
refuse 'compress(10)' "compress"
echo "logstore: ok"
