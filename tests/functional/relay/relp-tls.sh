#!/bin/sh
# relp() over TLS between two Sluice (relp() destination with tls() ->
# relp() source with tls()), with certificates made here (relp-certs.sh):
#
#  1. loggen -> relay -> server -> file(): every line once, in order; both
#     sides say the connection is TLS.
#  2. The same with the server stopped (serverclose) and started again
#     while loggen sends: the relay connects again over TLS and resends
#     what was not answered; nothing missing.
#  3. Refusals, each with its log line and nothing written:
#     a client whose certificate chains to nothing (the server refuses
#     it: "Certificate validation failed; subject='CN=rogue'"), a server
#     whose certificate chains to nothing (the relay refuses it), a
#     server whose certificate names another host ("Certificate subject
#     does not match configured hostname"), and a plain RELP client on
#     the TLS port.
#  4. A relp(tls()) source without a key is a configuration error.
#
# Usage: relp-tls.sh SLUICE LOGGEN
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/relp-certs.sh"
sluice=$1 loggen=$2
srv_pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; [ -n "$srv_pid" ] && kill -9 "$srv_pid" 2>/dev/null; rm -rf "$work"' EXIT

c=$work/certs
make_certs "$c"

# server_conf CERT [KEY]: the server's configuration, TLS with CERT
server_conf() {
  cat >"$work/server.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { relp(ip(127.0.0.1) port($srv_port)
  tls(key-file("$c/$1.key") cert-file("$c/$1.pem") ca-file("$c/ca.pem"))); };
destination d { file("$work/out.log"); };
log { source(s); destination(d); flags(flow-control); };
EOC
}

# relay_conf TLS: the relay's configuration; TLS is its relp() tls() block
relay_conf() {
  cat >"$work/relay.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { network(ip(127.0.0.1) port($in_port) log-iw-size(1000)); };
destination d { relp("127.0.0.1" port($srv_port) time-reopen(1) window-size(500) $1); };
log { source(s); destination(d); flags(flow-control); };
EOC
}

client_tls() {
  echo "tls(key-file(\"$c/$1.key\") cert-file(\"$c/$1.pem\") ca-file(\"$c/ca.pem\"))"
}

start_server() {
  rm -f "$work/server.log"
  "$sluice" -F -v -f "$work/server.conf" -p "$work/server.pid" >"$work/server.log" 2>&1 &
  srv_pid=$!
  i=0
  until grep -q "starting up" "$work/server.log" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 100 ] && kill -0 "$srv_pid" 2>/dev/null || fail "server did not start: $(tail "$work/server.log")"
    sleep 0.1
  done
}

stop_server() {
  kill -TERM "$srv_pid"
  st=0
  wait "$srv_pid" || st=$?
  srv_pid=
  [ $st -eq 0 ] || fail "server exited with $st: $(tail "$work/server.log")"
}

# wait_log FILE PATTERN: until FILE has a line with PATTERN (20 s)
wait_log() {
  i=0
  until grep -q "$2" "$1" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 200 ] || fail "no '$2' in $1: $(tail "$1")"
    sleep 0.1
  done
}

# check N [DUPS_OK]: the server's file has all N of loggen's lines, none
# missing or reordered (duplicates only when DUPS_OK)
check() {
  wait_lines "$work/out.log" "$1"
  if [ "${2:-}" = dups-ok ]; then
    "$loggen" --check "$work/out.log" --allow-duplicates --allow-reordering >"$work/report" 2>&1 \
      || fail "loss: $(cat "$work/report")"
    [ "$(sort -u "$work/out.log" | wc -l)" -eq "$1" ] || fail "$(sort -u "$work/out.log" | wc -l) lines, want $1"
  else
    "$loggen" --check "$work/out.log" >"$work/report" 2>&1 || fail "loss: $(cat "$work/report")"
    [ "$(wc -l <"$work/out.log")" -eq "$1" ] || fail "$(wc -l <"$work/out.log") lines, want $1"
  fi
  echo "$(tail -1 "$work/report")"
}

set -- $(free_ports tcp tcp)
in_port=$1 srv_port=$2

# ---- 1. relay -> server over TLS -------------------------------------------------
server_conf server
relay_conf "$(client_tls client)"
start_server
start_sluice "$sluice" "$work/relay.conf"
"$loggen" -S -Q -r 50000 -n 10000 --active-connections=2 127.0.0.1 "$in_port" 2>/dev/null || fail "loggen"
check 20000
grep -q "RELP connection established.*tls='yes'" "$work/sluice.log" || fail "relay: not TLS: $(grep RELP "$work/sluice.log")"
grep -q "RELP connection accepted.*tls='yes'" "$work/server.log" || fail "server: not TLS: $(grep RELP "$work/server.log")"
echo "1. relay -> server over TLS: ok"

# ---- 2. the server stopped and started again mid-run ----------------------------
stop_server
rm -f "$work/out.log"
start_server
sleep 1.1 # a new runid for the checker
"$loggen" -S -Q -r 5000 -n 10000 --active-connections=2 127.0.0.1 "$in_port" 2>/dev/null &
lg=$!
sleep 1.5
stop_server
sleep 1
start_server
wait $lg || fail "loggen"
check 20000 dups-ok
stop_server
stop_sluice
grep -q "RELP connection broken" "$work/sluice.log" || fail "the restart was not seen: $(grep RELP "$work/sluice.log")"
echo "2. server restarted under TLS traffic: ok"

# ---- 3. refusals ------------------------------------------------------------------
# refused NAME SERVER_CERT RELAY_TLS WHERE PATTERN: nothing written, and
# WHERE's log (server or sluice, the relay's) says PATTERN
refused() {
  rm -f "$work/out.log"
  server_conf "$2"
  relay_conf "$3"
  start_server
  start_sluice "$sluice" "$work/relay.conf"
  "$loggen" -S -Q -r 1000 -n 10 127.0.0.1 "$in_port" 2>/dev/null || fail "$1: loggen"
  wait_log "$work/$4.log" "$5"
  sleep 1 # a second try of the relay's, refused too
  # the relay would try to deliver until its stop deadline
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
  stop_server
  [ ! -s "$work/out.log" ] || fail "$1: the server wrote $(wc -l <"$work/out.log") lines"
  echo "3. $1 refused: $(grep -m1 "$5" "$work/$4.log")"
}
refused "untrusted client" server "$(client_tls rogue)" server "Certificate validation failed; subject='CN=rogue'"
grep -q "SSL error while reading stream" "$work/server.log" || fail "untrusted client: no SSL error line"
refused "untrusted server" rogue "$(client_tls client)" sluice "Certificate validation failed; subject='CN=rogue'"
grep -q "RELP TLS handshake failed" "$work/sluice.log" || fail "untrusted server: no handshake line"
refused "server of another name" wrong "$(client_tls client)" sluice \
  "Certificate subject does not match configured hostname; hostname='127.0.0.1', certificate='wronghost'"
refused "plain client" server "" server "SSL error while reading stream"

# ---- 4. a TLS source without a key ------------------------------------------------
cat >"$work/bad.conf" <<EOC
@version: 3.38
source s { relp(port($srv_port) tls(ca-file("$c/ca.pem"))); };
destination d { file("$work/out.log"); };
log { source(s); destination(d); };
EOC
if "$sluice" -s -f "$work/bad.conf" >"$work/bad.out" 2>&1; then fail "a TLS source without a key was taken"; fi
grep -q "needs tls(key-file() cert-file())" "$work/bad.out" || fail "bad config: $(cat "$work/bad.out")"
echo "4. $(cat "$work/bad.out")"
echo "relp-tls: ok"
