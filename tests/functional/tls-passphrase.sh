#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TLS key-files protected by a passphrase, given at run time as syslog-ng's
# `syslog-ng-ctl credentials add` gives them: the daemon starts with a
# TLS source and a TLS destination whose keys are both encrypted, makes no
# session (and prompts for nothing) until `sluice-ctl credentials add`
# gives each key's passphrase, lists the keys in `credentials status`
# (PENDING, INVALID_PASSWORD after a wrong one, SUCCESS), and then:
# loggen's TLS messages arrive, and what the destination held while it
# waited arrives too, nothing lost; a reload keeps the passphrases.
# Usage: tls-passphrase.sh SLUICE SLUICE_CTL LOGGEN TLS_DIR
. "$(dirname "$0")/lib.sh"
sluice=$1 ctl=$2 loggen=$3 tls=$4
set -- $(free_ports tcp tcp)
plain=$1 tls_port=$2
sock=$work/ctl
skey=$work/server-protected.key ckey=$work/client-protected.key
openssl pkey -in "$tls/server.key" -aes256 -passout pass:asdfg -out "$skey" || fail "openssl pkey"
openssl pkey -in "$tls/client.key" -aes256 -passout pass:' two words ' -out "$ckey" || fail "openssl pkey"

cat >"$work/sluice.conf" <<EOF
@version: 3.38
source s_tls { network(ip(127.0.0.1) port($tls_port) transport(tls)
  tls(key-file("$skey") cert-file("$tls/server.pem") peer-verify(optional-untrusted))); };
source s_plain { network(ip(127.0.0.1) port($plain)); };
destination d_fwd { network("127.0.0.1" port($tls_port) transport(tls) time-reopen(1)
  tls(key-file("$ckey") cert-file("$tls/client.pem") ca-file("$tls/ca.pem") peer-verify(optional-untrusted))); };
destination d_file { file("$work/out.log" template("\$MSG\n")); };
log { source(s_tls); destination(d_file); };
log { source(s_plain); destination(d_fwd); };
EOF

c() { "$ctl" -c "$sock" "$@"; }
# state KEY: its state in credentials status
state() { c credentials status | awk -F '\t' -v k="$1" '$1 == k { print $2 }'; }
# wait_state KEY STATE (5 s)
wait_state() {
  _ws=0
  until [ "$(state "$1")" = "$2" ]; do
    _ws=$((_ws + 1))
    [ $_ws -lt 50 ] || fail "$1 is '$(state "$1")', want $2: $(c credentials status)"
    sleep 0.1
  done
}
tls_send() {
  "$loggen" -U -n "$1" -r 1000000 127.0.0.1 "$tls_port" >/dev/null 2>&1
}

start_sluice "$sluice" "$work/sluice.conf" -c "$sock"
grep -q "TLS key-file is protected by a passphrase.*$skey" "$work/sluice.log" || fail "no word of the server key"
grep -q "TLS key-file is protected by a passphrase.*$ckey" "$work/sluice.log" || fail "no word of the client key"
c credentials status | head -1 | grep -qx "Credential storage status follows" || fail "status: $(c credentials status)"
wait_state "$skey" PENDING
wait_state "$ckey" PENDING

# no session yet: loggen's connection is closed, and what the plain source
# takes waits in d_fwd
tls_send 10 && fail "a TLS session without the key's passphrase"
"$loggen" -S -n 100 -r 1000000 127.0.0.1 "$plain" >/dev/null 2>&1 || fail "loggen to the plain source"
sleep 1.5
[ ! -s "$work/out.log" ] || fail "messages arrived before any passphrase: $(wc -l <"$work/out.log")"
grep -q "No TLS session: the key-file waits for its passphrase" "$work/sluice.log" || fail "the refusal is not logged"

# a wrong passphrase: said, and still no session
[ "$(c credentials add --id="$skey" --secret=wr0ngsecret)" = "Credentials stored successfully" ] || fail "add"
tls_send 10 && fail "a TLS session with a wrong passphrase"
wait_state "$skey" INVALID_PASSWORD
grep -q "The passphrase given for the TLS key-file does not open it" "$work/sluice.log" || fail "wrong one not logged"

# the right ones: the server's as arguments, the client's (with blanks
# inside and at both ends, which are the secret's) on standard input, as
# syslog-ng-ctl reads it
c credentials add "$skey" asdfg >/dev/null || fail "add"
printf ' two words \n' | c credentials add --id "$ckey" >/dev/null || fail "add from stdin"
tls_send 100 || fail "loggen over TLS after the passphrase"
wait_state "$skey" SUCCESS
wait_lines "$work/out.log" 200
wait_state "$ckey" SUCCESS
[ "$(wc -l <"$work/out.log")" -eq 200 ] || fail "$(wc -l <"$work/out.log") lines, want 100 direct and 100 held"
grep -q "TLS key-file opened with the passphrase given" "$work/sluice.log" || fail "the opening is not logged"

# no secret is written anywhere: not in the log, not in the status
! grep -q "asdfg\|two words\|wr0ngsecret" "$work/sluice.log" || fail "a secret is in the daemon's log"
! c credentials status | grep -q "asdfg\|two words" || fail "a secret is in credentials status"

# a reload builds new contexts: the passphrases are kept
reload_sluice
tls_send 50 || fail "loggen over TLS after a reload"
"$loggen" -S -n 50 -r 1000000 127.0.0.1 "$plain" >/dev/null 2>&1 || fail "loggen to the plain source"
wait_lines "$work/out.log" 300

# usage errors of the command
c credentials add >/dev/null 2>&1 && fail "credentials add without a key"
c credentials frobnicate >/dev/null 2>&1 && fail "an unknown credentials command"
stop_sluice
echo "tls-passphrase: encrypted key-files wait for sluice-ctl credentials add; 300 of 300 arrived"
