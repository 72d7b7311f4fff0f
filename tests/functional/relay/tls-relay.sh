#!/bin/sh
# TLS sources and destinations (transport(tls), tls()), against loggen and
# Debian's syslog-ng 3.38.  Certificates are made here with the openssl
# command (a CA; a server certificate for localhost and 127.0.0.1; a client
# certificate; a server certificate for "wronghost" only; a self-signed
# rogue one), in the test's mktemp directory.
#
#  1. loggen --tls with a client certificate -> Sluice TLS source -> file:
#     loggen --check finds every line once, in order.
#  2. A client with an untrusted (self-signed) certificate is refused, with
#     syslog-ng's log lines ("Certificate validation failed; subject='CN=rogue'
#     ..."), and nothing it sent is written.
#  3. Sluice TLS destination -> syslog-ng TLS source: what syslog-ng writes
#     equals Sluice's own local file of the same lines.
#  4. syslog-ng TLS destination (syslog(), RFC 5425) -> Sluice TLS source:
#     what Sluice writes equals syslog-ng's own local file.
#  5. A Sluice destination to 127.0.0.1 whose server presents a certificate
#     for "wronghost" refuses it ("Certificate subject does not match
#     configured hostname; hostname='127.0.0.1', certificate='wronghost'")
#     and sends it nothing.
#  6. trusted-dn() and trusted-keys() read as syslog-ng 3.38 reads them: the
#     same configuration run by both daemons accepts the client on a source
#     whose pattern gives the subject most significant part last
#     ("CN=client, O=Sluice Test") and whose key is openssl's SHA-1
#     fingerprint, and refuses it on a source with the other order.
#
# Usage: tls-relay.sh SLUICE LOGGEN   (SLUICE_SYSLOG_NG names the unpacked
# syslog-ng-core, as for compare-network.sh)
. "$(dirname "$0")/../lib.sh"
sluice=$1 loggen=$2
need_syslog_ng
pids=
trap 'for p in $pids $sng_pids; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT

# ---- certificates ------------------------------------------------------------
c=$work/certs
mkdir "$c"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$c/$1.key" 2>/dev/null; }
# signed NAME SUBJECT [SAN]: a certificate for NAME.key signed by the CA
signed() {
  key "$1"
  openssl req -new -key "$c/$1.key" -subj "$2" -out "$c/$1.csr" 2>/dev/null
  if [ -n "${3:-}" ]; then printf 'subjectAltName=%s\n' "$3" >"$c/$1.ext"; else : >"$c/$1.ext"; fi
  openssl x509 -req -in "$c/$1.csr" -CA "$c/ca.pem" -CAkey "$c/ca.key" -CAcreateserial -days 2 \
    -extfile "$c/$1.ext" -out "$c/$1.pem" 2>/dev/null || fail "cannot make $1.pem"
}
key ca
openssl req -x509 -new -key "$c/ca.key" -subj "/CN=Sluice Test CA" -days 2 -out "$c/ca.pem" 2>/dev/null \
  || fail "cannot make the CA"
signed server "/CN=localhost" "DNS:localhost,IP:127.0.0.1"
signed client "/O=Sluice Test/CN=client"
signed wrong "/CN=wronghost" "DNS:wronghost"
key rogue
openssl req -x509 -new -key "$c/rogue.key" -subj "/CN=rogue" -days 2 -out "$c/rogue.pem" 2>/dev/null

srv_tls="key-file(\"$c/server.key\") cert-file(\"$c/server.pem\") ca-file(\"$c/ca.pem\")"
cli_tls="key-file(\"$c/client.key\") cert-file(\"$c/client.pem\") ca-file(\"$c/ca.pem\")"
t='${PRI}|${HOST}|${PROGRAM}|${PID}|${MSG}\n'

# ---- daemons ---------------------------------------------------------------------
# sluice_start NAME: Sluice on $work/NAME.conf (log $work/NAME.log)
sluice_start() {
  "$sluice" -F -v -f "$work/$1.conf" -p "$work/$1.pid" -c "$work/$1.ctl" >"$work/$1.log" 2>&1 &
  pids="$pids $!"
  i=0
  while ! grep -q "starting up" "$work/$1.log" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 100 ] || fail "sluice $1 did not start: $(cat "$work/$1.log")"
    sleep 0.1
  done
}

# wait_log NAME TEXT: until $work/NAME.log has TEXT, or 20 s passed
wait_log() {
  i=0
  while ! grep -qF "$2" "$work/$1.log"; do
    i=$((i + 1))
    [ $i -lt 200 ] || fail "no '$2' in $1.log: $(cat "$work/$1.log")"
    sleep 0.1
  done
}

# send PORT FILE: FILE's bytes over plain TCP
send() {
  python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(open(sys.argv[2], "rb").read())
s.shutdown(socket.SHUT_WR)
s.recv(1)
s.close()' "$1" "$2"
}

set -- $(free_ports tcp tcp tcp tcp tcp tcp tcp)
p_loggen=$1 p_from_sng=$2 p_wrong=$3 p_relay_in=$4 p_sng_tls=$5 p_sng_plain=$6 p_relay2_in=$7

n=200
python3 -c '
import sys
for i in range(int(sys.argv[1])):
    print("<%d>Nov 22 10:%02d:%02d host%d prog%d[%d]: message %d over TLS, with some text" % (
        8 + i % 184, i // 60 % 60, i % 60, i % 7, i % 5, 1000 + i, i))' $n >"$work/input.txt"

# ---- the Sluice server ---------------------------------------------------------
cat >"$work/srv.conf" <<EOF
@version: 3.38
options { use-dns(no); keep-hostname(yes); };
source s_loggen { network(ip(127.0.0.1) port($p_loggen) transport(tls) tls($srv_tls)); };
source s_from_sng { syslog(ip(127.0.0.1) port($p_from_sng) transport(tls) tls($srv_tls)); };
source s_wrong { network(ip(127.0.0.1) port($p_wrong) transport(tls)
  tls(key-file("$c/wrong.key") cert-file("$c/wrong.pem") peer-verify(optional-untrusted))); };
destination d_loggen { file("$work/loggen.out"); };
destination d_from_sng { file("$work/from-sng.out" template("$t")); };
destination d_wrong { file("$work/wrong.out"); };
log { source(s_loggen); destination(d_loggen); };
log { source(s_from_sng); destination(d_from_sng); };
log { source(s_wrong); destination(d_wrong); };
EOF
sluice_start srv

# 1. loggen over TLS
"$loggen" -i -S -U --tls-cert "$c/client.pem" --tls-key "$c/client.key" --tls-ca "$c/ca.pem" \
  -n 20000 -r 100000 127.0.0.1 "$p_loggen" >"$work/loggen.txt" 2>&1 || fail "loggen: $(cat "$work/loggen.txt")"
wait_lines "$work/loggen.out" 20000
"$loggen" --check "$work/loggen.out" >"$work/check.txt" 2>&1 || fail "loss check: $(cat "$work/check.txt")"
grep -q "received=20000 missing=0 duplicated=0 reordered=0" "$work/check.txt" || fail "$(cat "$work/check.txt")"

# 2. an untrusted client
"$loggen" -i -S -U --tls-cert "$c/rogue.pem" --tls-key "$c/rogue.key" -n 10 127.0.0.1 "$p_loggen" \
  >"$work/rogue.txt" 2>&1 || true
wait_log srv "Certificate validation failed; subject='CN=rogue', issuer='CN=rogue', error='self-signed certificate', depth='0'"
wait_log srv "SSL error while reading stream; tls_error='error:0A000086:SSL routines::certificate verify failed'"
[ "$(wc -l <"$work/loggen.out")" -eq 20000 ] || fail "the untrusted client's lines were written"

# 3. Sluice TLS destination -> syslog-ng TLS source
cat >"$work/rcv.conf" <<EOF
@version: 3.38
options { use-dns(no); keep-hostname(yes); };
source s { network(ip(127.0.0.1) port($p_sng_tls) transport(tls) tls($srv_tls)); };
destination d { file("$work/rcv.out" template("$t")); };
log { source(s); destination(d); };
EOF
sng_start rcv
cat >"$work/relay.conf" <<EOF
@version: 3.38
options { use-dns(no); };
source s { tcp(ip(127.0.0.1) port($p_relay_in)); };
destination d_tls { network("127.0.0.1" port($p_sng_tls) transport(tls) tls($cli_tls)); };
destination d_local { file("$work/relay-local.out" template("$t")); };
log { source(s); destination(d_tls); destination(d_local); };
EOF
sluice_start relay
send "$p_relay_in" "$work/input.txt"
wait_lines "$work/rcv.out" $n
wait_lines "$work/relay-local.out" $n
cmp "$work/relay-local.out" "$work/rcv.out" || fail "syslog-ng read other lines: $(diff "$work/relay-local.out" "$work/rcv.out" | head)"

# 4. syslog-ng TLS destination -> Sluice TLS source
cat >"$work/snd.conf" <<EOF
@version: 3.38
options { use-dns(no); };
source s { tcp(ip(127.0.0.1) port($p_sng_plain)); };
destination d_tls { syslog("127.0.0.1" port($p_from_sng) transport(tls) tls($cli_tls)); };
destination d_local { file("$work/snd-local.out" template("$t")); };
log { source(s); destination(d_tls); destination(d_local); };
EOF
sng_start snd
send "$p_sng_plain" "$work/input.txt"
wait_lines "$work/from-sng.out" $n
wait_lines "$work/snd-local.out" $n
cmp "$work/snd-local.out" "$work/from-sng.out" || fail "Sluice read other lines: $(diff "$work/snd-local.out" "$work/from-sng.out" | head)"

# 5. the server's name does not match the destination's host
cat >"$work/relay2.conf" <<EOF
@version: 3.38
options { use-dns(no); };
source s { tcp(ip(127.0.0.1) port($p_relay2_in)); };
destination d_tls { network("127.0.0.1" port($p_wrong) transport(tls) tls(ca-file("$c/ca.pem"))); };
log { source(s); destination(d_tls); };
EOF
sluice_start relay2
send "$p_relay2_in" "$work/input.txt"
wait_log relay2 "Certificate subject does not match configured hostname; hostname='127.0.0.1', certificate='wronghost'"
wait_log relay2 "SSL error while writing stream; tls_error='error:0A000086:SSL routines::certificate verify failed'"
sleep 0.5
[ ! -s "$work/wrong.out" ] || fail "a destination sent to a server of another name: $(head -3 "$work/wrong.out")"
# 6. trusted-dn() and trusted-keys(), Sluice and syslog-ng on one file
fp=$(openssl x509 -in "$c/client.pem" -noout -fingerprint -sha1 | sed 's/.*=/SHA1:/')
for d in sluice sng; do
  set -- $(free_ports tcp tcp)
  cat >"$work/dn-$d.conf" <<EOF
@version: 3.38
options { use-dns(no); };
source s_ok { network(ip(127.0.0.1) port($1) transport(tls)
  tls($srv_tls trusted-dn("CN=client, O=Sluice Test") trusted-keys("SHA1:00:01", "$fp"))); };
source s_bad { network(ip(127.0.0.1) port($2) transport(tls) tls($srv_tls trusted-dn("O=Sluice Test, CN=client"))); };
destination d_ok { file("$work/dn-$d-ok.out"); };
destination d_bad { file("$work/dn-$d-bad.out"); };
log { source(s_ok); destination(d_ok); };
log { source(s_bad); destination(d_bad); };
EOF
  if [ $d = sluice ]; then sluice_start dn-$d; else sng_start dn-$d; fi
  for port in $1 $2; do
    "$loggen" -i -S -U --tls-cert "$c/client.pem" --tls-key "$c/client.key" -n 5 127.0.0.1 "$port" \
      >"$work/dn-$d-$port.txt" 2>&1 || true
  done
  wait_lines "$work/dn-$d-ok.out" 5
  wait_log dn-$d "Certificate valid, but DN constraints were not met, rejecting"
  [ "$(wc -l <"$work/dn-$d-ok.out")" -eq 5 ] || fail "$d: trusted-dn()/trusted-keys() refused the client"
  [ ! -s "$work/dn-$d-bad.out" ] || fail "$d: a client outside trusted-dn() was read"
done

echo "OK: loggen 20000 lines over TLS, untrusted client and wrong server name refused, $n lines each way with syslog-ng 3.38, trusted-dn()/trusted-keys() as syslog-ng reads them"
