#!/bin/sh
# RELP over TLS against rsyslog (Debian's rsyslogd with imrelp/omrelp on
# librelp, which is built with both its TLS libraries), for each of
# librelp's tls.tlslib="openssl" and "gnutls":
#
#  1. loggen -> rsyslog (imtcp -> omrelp tls="on") -> Sluice relp(tls())
#     -> file(): every line once, in order.
#  2. loggen -> Sluice (network() -> relp() destination with tls()) ->
#     rsyslog (imrelp tls="on" -> omfile): every line once, in order.
#
# Both ways the peers check each other: rsyslog with tls.authMode="name"
# (Sluice's server certificate names localhost, its client certificate
# is CN=client), Sluice with tls()'s default peer-verify(required-trusted)
# against the test CA, and the server's name (127.0.0.1) on the client
# side.  Certificates are made here (relp-certs.sh).
#
# rsyslog: see rsyslog-lib.sh.
#
# Usage: relp-rsyslog-tls.sh SLUICE LOGGEN
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/relp-certs.sh"
sluice=$1 loggen=$2
. "$(dirname "$0")/rsyslog-lib.sh"

c=$work/certs
make_certs "$c"

# check FILE N WHAT: FILE gets all N of loggen's lines, once, in order
check() {
  wait_lines "$1" "$2" 2>/dev/null
  "$loggen" --check "$1" >"$work/report" 2>&1 || fail "$3: $(cat "$work/report") $(cat "$work/rsyslog.log")"
  [ "$(wc -l <"$1")" -eq "$2" ] || fail "$3: $(wc -l <"$1") lines, want $2"
  echo "$3: $(tail -1 "$work/report")"
}

n=10000
mkdir -p "$work/rs"
for lib in openssl gnutls; do
  : >"$work/rsyslog.log"
  # ---- 1. rsyslog omrelp -> Sluice relp(tls()) ------------------------------------
  set -- $(free_ports tcp tcp)
  rs_in=$1 relp_port=$2
  out=$work/out1-$lib.log
  cat >"$work/sluice.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { relp(ip(127.0.0.1) port($relp_port)
  tls(key-file("$c/server.key") cert-file("$c/server.pem") ca-file("$c/ca.pem"))); };
destination d { file("$out"); };
log { source(s); destination(d); };
EOC
  cat >"$work/omrelp.conf" <<EOC
global(workDirectory="$work/rs")
module(load="imtcp")
module(load="omrelp" tls.tlslib="$lib")
input(type="imtcp" port="$rs_in" address="127.0.0.1")
action(type="omrelp" target="127.0.0.1" port="$relp_port" windowSize="1024"
  tls="on" tls.caCert="$c/ca.pem" tls.myCert="$c/client.pem" tls.myPrivKey="$c/client.key"
  tls.authMode="name" tls.permittedPeer=["localhost"])
EOC
  start_sluice "$sluice" "$work/sluice.conf"
  start_rsyslog "$work/omrelp.conf"
  "$loggen" -S -Q -r 50000 -n $n --active-connections=2 127.0.0.1 "$rs_in" 2>/dev/null || fail "loggen"
  check "$out" $((2 * n)) "rsyslog omrelp ($lib) -> sluice relp(tls())"
  stop_rsyslog
  stop_sluice
  grep -q "RELP connection accepted.*tls='yes'" "$work/sluice.log" || fail "$lib: no TLS connection"
  grep -q "Refusing RELP peer\|Closing RELP connection\|SSL error" "$work/sluice.log" \
    && fail "$lib: sluice refused omrelp: $(grep "RELP\|SSL" "$work/sluice.log")"

  # ---- 2. Sluice relp(tls()) -> rsyslog imrelp ------------------------------------
  set -- $(free_ports tcp tcp)
  in_port=$1 relp_port=$2
  out=$work/out2-$lib.log
  cat >"$work/imrelp.conf" <<EOC
global(workDirectory="$work/rs")
module(load="imrelp" tls.tlslib="$lib")
input(type="imrelp" port="$relp_port" address="127.0.0.1"
  tls="on" tls.caCert="$c/ca.pem" tls.myCert="$c/server.pem" tls.myPrivKey="$c/server.key"
  tls.authMode="name" tls.permittedPeer=["client"])
action(type="omfile" file="$out" template="RSYSLOG_FileFormat")
EOC
  cat >"$work/sluice.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { network(ip(127.0.0.1) port($in_port) log-iw-size(1000)); };
destination d { relp("127.0.0.1" port($relp_port) time-reopen(1) window-size(500)
  tls(key-file("$c/client.key") cert-file("$c/client.pem") ca-file("$c/ca.pem"))); };
log { source(s); destination(d); flags(flow-control); };
EOC
  start_rsyslog "$work/imrelp.conf"
  start_sluice "$sluice" "$work/sluice.conf"
  "$loggen" -S -Q -r 50000 -n $n --active-connections=2 127.0.0.1 "$in_port" 2>/dev/null || fail "loggen"
  check "$out" $((2 * n)) "sluice relp(tls()) -> rsyslog imrelp ($lib)"
  stop_sluice
  stop_rsyslog
  grep -q "RELP connection established.*tls='yes'" "$work/sluice.log" || fail "$lib: not TLS: $(grep RELP "$work/sluice.log")"
  grep -q "RELP connection broken\|handshake failed\|RELP open failed" "$work/sluice.log" \
    && fail "$lib: $(grep "RELP" "$work/sluice.log")"
  grep -i "relp\|tls" "$work/rsyslog.log" | grep -iv "Broken pipe\|connection reset" \
    && fail "$lib: rsyslog complained: $(cat "$work/rsyslog.log")"
done
echo "relp-rsyslog-tls: ok"
