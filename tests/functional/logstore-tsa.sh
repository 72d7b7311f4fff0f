#!/bin/sh
# logstore()'s RFC 3161 time stamps against a local time-stamping
# authority (tsa-server.py answering with `openssl ts -reply`, its CA and
# signing certificate made here): with timestamp-freq(1) a store under
# load gets a stamp a second, each on the hash of the chunk before it,
# under timestamp-policy(); sluice-logcat --verify checks them, and with
# --tsa-ca their signatures, refusing another CA; an authority that does
# not answer is logged and costs no message.
# Usage: logstore-tsa.sh SLUICE LOGCAT LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 logcat=$2 loggen=$3
here=$(dirname "$0")

ossl() { openssl "$@" >/dev/null 2>&1 || fail "openssl $1 failed"; }
ossl req -x509 -newkey rsa:2048 -nodes -keyout "$work/ca.key" -out "$work/ca.pem" -days 2 -subj /CN=tsa-ca \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign
ossl req -newkey rsa:2048 -nodes -keyout "$work/tsa.key" -out "$work/tsa.csr" -subj /CN=tsa
printf 'extendedKeyUsage=critical,timeStamping\n' >"$work/ext"
ossl x509 -req -in "$work/tsa.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
  -out "$work/tsa.pem" -days 2 -extfile "$work/ext"
ossl req -x509 -newkey rsa:2048 -nodes -keyout "$work/store.key" -out "$work/store.pem" -days 2 \
  -subj /CN=store
echo 01 >"$work/serial"
cat >"$work/tsa.cnf" <<EOF2
[ tsa ]
default_tsa = tsa1
[ tsa1 ]
dir = $work
serial = \$dir/serial
crypto_device = builtin
signer_cert = \$dir/tsa.pem
certs = \$dir/ca.pem
signer_key = \$dir/tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
other_policies = 1.2.3.4.5
digests = sha256
accuracy = secs:1
ordering = yes
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
EOF2

set -- $(free_ports tcp tcp tcp)
port=$1 tsaport=$2 deadport=$3
# (it ends by itself after 60 s, and at the end of this test)
python3 "$here/tsa-server.py" "$tsaport" "$work/tsa.cnf" "$work/tsa.count" 60 >/dev/null 2>"$work/tsa.err" &
tsa=$!
i=0
until python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])))' "$tsaport" \
    2>/dev/null; do
  i=$((i + 1))
  [ $i -lt 50 ] || fail "the time-stamping authority did not start: $(cat "$work/tsa.err")"
  sleep 0.1
done

cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port)); };
destination d { logstore("$work/out.lgs" encrypt-certificate("$work/store.pem")
  timestamp-url("http://127.0.0.1:$tsaport/tsa") timestamp-freq(1) timestamp-policy("1.2.3.4.5")); };
destination dead { logstore("$work/dead.lgs" timestamp-url("http://127.0.0.1:$deadport/")
  timestamp-freq(1)); };
log { source(s); destination(d); destination(dead); flags(flow-control); };
EOF2
start_sluice "$sluice" "$work/sluice.conf"
"$loggen" -S -r 2000 -I 4 127.0.0.1 "$port" >"$work/loggen" 2>&1 || fail "loggen"
sent=$(sed -n 's/.*count=\([0-9]*\).*/\1/p' "$work/loggen" | tail -1)
sleep 1.5
stop_sluice

"$logcat" --verify --key "$work/store.key" --tsa-ca "$work/ca.pem" "$work/out.lgs" >"$work/verify" 2>&1 ||
  fail "--verify --tsa-ca: $(cat "$work/verify")"
stamps=$(sed -n 's/.*; \([0-9]*\) time stamps, .*signed under --tsa-ca$/\1/p' "$work/verify")
[ -n "$stamps" ] && [ "$stamps" -ge 3 ] || fail "time stamps: $(cat "$work/verify")"
grep -q " $sent records, closed" "$work/verify" || fail "records: $(cat "$work/verify"), $sent sent"
[ "$(cat "$work/tsa.count")" -ge "$stamps" ] || fail "more stamps than the authority gave"
# each token under the policy asked for: openssl reads it back from the file
python3 - "$work/out.lgs" "$work/token" <<'EOF2' || fail "no TIMESTAMP chunk found"
import struct, sys
d = open(sys.argv[1], "rb").read()
off = 32 + struct.unpack_from("<H", d, 14)[0] + 32
while off < len(d):
    s = struct.unpack_from("<I", d, off + 24)[0]
    if d[off + 4] == 4:
        open(sys.argv[2], "wb").write(d[off + 80:off + 80 + s])
        sys.exit(0)
    off += 80 + s + 48
sys.exit(1)
EOF2
openssl ts -reply -in "$work/token" -token_in -text 2>/dev/null | grep -q "Policy OID: 1.2.3.4.5" ||
  fail "the token's policy: $(openssl ts -reply -in "$work/token" -token_in -text 2>&1 | grep -i policy)"
# another CA: refused
st=0
"$logcat" --verify --key "$work/store.key" --tsa-ca "$work/store.pem" "$work/out.lgs" >"$work/other" 2>&1 ||
  st=$?
[ $st -ne 0 ] && grep -q "signature does not verify against --tsa-ca" "$work/other" ||
  fail "another CA: $(cat "$work/other")"
# the authority that never answered: logged, every message stored anyway
grep -q "Error getting a time stamp for a logstore chunk" "$work/sluice.log" ||
  fail "the dead authority was not logged"
"$logcat" --verify "$work/dead.lgs" >"$work/dead" 2>&1 || fail "dead.lgs: $(cat "$work/dead")"
grep -q " $sent records, closed$" "$work/dead" || fail "dead.lgs: $(cat "$work/dead"), $sent sent"
kill "$tsa" 2>/dev/null || true
echo "logstore-tsa: $sent messages, $(cat "$work/verify")"
