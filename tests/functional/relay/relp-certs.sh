# Sourced by the RELP TLS tests (relp-tls.sh, relp-rsyslog-tls.sh,
# chain-proof.sh) after ../lib.sh: make_certs DIR makes, with the openssl
# command, in DIR (inside the test's mktemp directory):
#   ca.pem/ca.key        a CA ("Sluice Test CA")
#   server.pem/.key      signed, CN=localhost, SAN DNS:localhost,IP:127.0.0.1
#   client.pem/.key      signed, CN=client
#   wrong.pem/.key       signed, CN=wronghost, SAN DNS:wronghost
#   rogue.pem/.key       self-signed, CN=rogue (chains to nothing)
# EC P-256 keys: quick to make, and taken by OpenSSL and GnuTLS alike.

# _cert_key DIR NAME
_cert_key() {
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1/$2.key" 2>/dev/null \
    || fail "cannot make $2.key"
}

# _cert_signed DIR NAME SUBJECT [SAN]
_cert_signed() {
  _cert_key "$1" "$2"
  openssl req -new -key "$1/$2.key" -subj "$3" -out "$1/$2.csr" 2>/dev/null || fail "cannot make $2.csr"
  if [ -n "${4:-}" ]; then printf 'subjectAltName=%s\n' "$4" >"$1/$2.ext"; else : >"$1/$2.ext"; fi
  openssl x509 -req -in "$1/$2.csr" -CA "$1/ca.pem" -CAkey "$1/ca.key" -CAcreateserial -days 2 \
    -extfile "$1/$2.ext" -out "$1/$2.pem" 2>/dev/null || fail "cannot make $2.pem"
}

make_certs() {
  mkdir -p "$1"
  _cert_key "$1" ca
  openssl req -x509 -new -key "$1/ca.key" -subj "/CN=Sluice Test CA" -days 2 -out "$1/ca.pem" 2>/dev/null \
    || fail "cannot make the CA"
  _cert_signed "$1" server "/CN=localhost" "DNS:localhost,IP:127.0.0.1"
  _cert_signed "$1" client "/CN=client"
  _cert_signed "$1" wrong "/CN=wronghost" "DNS:wronghost"
  _cert_key "$1" rogue
  openssl req -x509 -new -key "$1/rogue.key" -subj "/CN=rogue" -days 2 -out "$1/rogue.pem" 2>/dev/null \
    || fail "cannot make rogue.pem"
}
