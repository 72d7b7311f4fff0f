#!/bin/sh
# TLS connections survive a reload with their session: loggen --tls sends
# sequence-numbered lines over four TLS connections while the daemon is
# reloaded six times (a changed and an unchanged configuration in turn).
# The loss checker must find every line exactly once and in order, no
# sender may see an error, and no connection may be accepted anew (each
# was carried across with its TLS session, sluice/handover.h).
# Certificates are made here with the openssl command.
# Usage: tls-reload.sh SLUICE LOGGEN
. "$(dirname "$0")/../lib.sh"
sluice=$1 loggen=$2
set -- $(free_ports tcp)
port=$1

certs=$work/certs
mkdir "$certs"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$certs/$1.key" 2>/dev/null; }
key ca
openssl req -x509 -new -key "$certs/ca.key" -subj "/CN=Sluice Test CA" -days 2 -out "$certs/ca.pem" 2>/dev/null \
  || fail "cannot make the CA"
for name in server client; do
  key $name
  openssl req -new -key "$certs/$name.key" -subj "/CN=$name" -out "$certs/$name.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1\n' >"$certs/$name.ext"
  openssl x509 -req -in "$certs/$name.csr" -CA "$certs/ca.pem" -CAkey "$certs/ca.key" -CAcreateserial -days 2 \
    -extfile "$certs/$name.ext" -out "$certs/$name.pem" 2>/dev/null || fail "cannot make $name.pem"
done
tls="key-file(\"$certs/server.key\") cert-file(\"$certs/server.pem\") ca-file(\"$certs/ca.pem\")"

# a: plain; b: changed (other reader options, another verify mode, a
# second destination)
write_conf() {
  if [ "$1" = a ]; then
    cat >"$work/sluice.conf" <<EOF
@version: 3.38
source s { network(ip(127.0.0.1) port($port) transport(tls) tls($tls) log-iw-size(2000)); };
destination d { file("$work/out.log"); };
log { source(s); destination(d); flags(flow-control); };
EOF
  else
    cat >"$work/sluice.conf" <<EOF
@version: 3.38
source s { network(ip(127.0.0.1) port($port) transport(tls) tls($tls peer-verify(required-untrusted))
                   log-iw-size(3000) log-fetch-limit(20)); };
destination d { file("$work/out.log"); };
destination d_copy { file("$work/copy.log"); };
log { source(s); destination(d); flags(flow-control); };
log { source(s); destination(d_copy); };
EOF
  fi
}

write_conf a
start_sluice "$sluice" "$work/sluice.conf"
"$loggen" -i -S -U --tls-cert "$certs/client.pem" --tls-key "$certs/client.key" --tls-ca "$certs/ca.pem" -Q -r 2000 \
  -n 8000 --active-connections=4 127.0.0.1 "$port" >"$work/loggen.out" 2>"$work/loggen.err" &
lg_pid=$!
sleep 0.5
for i in 1 2 3 4 5 6; do
  if [ $((i % 2)) -eq 0 ]; then write_conf a; else write_conf b; fi
  reload_sluice
  sleep 0.4
done
wait $lg_pid || fail "loggen exited with $?: $(cat "$work/loggen.err")"
if grep -i "error" "$work/loggen.err"; then
  fail "a sender saw an error"
fi
want=32000
wait_lines "$work/out.log" $want
stop_sluice
[ "$(grep -c "Syslog connection accepted" "$work/sluice.log")" -eq 4 ] \
  || fail "connections were accepted again: $(grep -c "Syslog connection accepted" "$work/sluice.log")"
grep -q "Syslog connection kept across reload" "$work/sluice.log" || fail "no connection was carried"
"$loggen" --check "$work/out.log" >"$work/report" || { cat "$work/report"; fail "loss"; }
grep -q "^check: threads=4 received=$want missing=0 duplicated=0 reordered=0: OK\$" "$work/report" \
  || { cat "$work/report"; fail "report"; }
[ -s "$work/copy.log" ] || fail "configuration b never ran"
echo "tls-reload: $want lines over TLS exactly once across 6 reloads, no connection accepted anew"
