#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The SCL destinations over network() and http() (Sluice's scl/, against
# syslog-ng 3.38's SCL and its http module): graylog2() over TCP and UDP,
# loggly(), logmatic(), graphite(), collectd() (over unix-stream(), to a
# peer that answers each line as collectd does), slack() and discord()
# send the same RFC 5424 lines
# to capture-peers.py, once from each daemon; so do sumologic-http() and
# telegram(), whose https:// URLs name hosts of the internet, through
# proxy() (capture-peers.py plays the host behind CONNECT, with a
# certificate made here).  What the peers got must be byte for byte the
# same, but for GELF's timestamp (the time a message was received).
# sumologic-syslog() names a host of the internet over TLS, without a
# proxy: both daemons must take it.
#
# Usage: compare-scl-destinations.sh SLUICE
# SLUICE_SYSLOG_NG names the directory Debian's syslog-ng-core and
# syslog-ng-mod-http are unpacked in (scripts/fetch-syslog-ng.sh).
. "$(dirname "$0")/lib.sh"
sluice=$1
need_syslog_ng
here=$(cd "$(dirname "$0")" && pwd)

lines=4
# one of them with PID, MSGID and structured data, one without, one of
# severity debug, one with a character JSON and URLs escape
input() {
  printf '<13>1 2025-03-10T11:58:01Z web01 app 42 ID7 [ex@1 a="1" b="x y"] hello world\n'
  printf '<30>1 2025-03-10T11:58:02Z web02 cron - - - no pid here\n'
  printf '<191>1 2025-03-10T11:58:03Z db1 postgres 7 - - debug: a "quoted" \\ line\n'
  printf '<11>1 2025-03-10T11:58:04.250Z web01 app 42 - - a&b=c d%%e/f?\n'
}

conf() { # conf PORTS...: the configuration both daemons run
  _in=$1 _gt=$2 _gu=$3 _lo=$4 _lm=$5 _http=$6 _proxy=$7 _gr=$8 _cd=$9
  cat <<EOF
@version: 3.38
@include "scl.conf"
options { keep-hostname(yes); };
source s_in { network(ip(127.0.0.1) port($_in) transport(tcp) flags(syslog-protocol)); };
destination d_gelf { graylog2(host("127.0.0.1") port($_gt)); };
destination d_gelf_udp { graylog2(host("127.0.0.1") port($_gu) transport(udp)); };
destination d_loggly { loggly(token("TOK-1") tag("web") host("127.0.0.1") port($_lo)); };
destination d_logmatic { logmatic(token("LM-2") host("127.0.0.1") port($_lm) template("\${MSG} [\${HOST}]")); };
destination d_slack { slack(hook-url("http://127.0.0.1:$_http/slack") throttle(0)); };
destination d_discord { discord(url("http://127.0.0.1:$_http/discord") username("bot") throttle(0)); };
destination d_sumo_http { sumologic-http(collector("COLL") deployment("us2") proxy("http://127.0.0.1:$_proxy")
                                         tls(peer-verify(no))); };
destination d_telegram { telegram(bot-id("BOT") chat-id("CHAT") max-size(12) throttle(0)
                                  proxy("http://127.0.0.1:$_proxy") tls(peer-verify(no))); };
destination d_graphite { graphite(host("127.0.0.1") port($_gr) payload("level.\$PROGRAM=\$LEVEL_NUM")); };
destination d_collectd { collectd(socket("$_cd") plugin("syslog") plugin-instance("\$PROGRAM") type("gauge")
                                  interval("") values("\$LEVEL_NUM")); };
log { source(s_in); destination(d_gelf); destination(d_gelf_udp); destination(d_loggly);
      destination(d_logmatic); destination(d_slack); destination(d_discord);
      destination(d_sumo_http); destination(d_telegram); destination(d_graphite); destination(d_collectd); };
EOF
}

run() { # run WHO: one daemon through all of it; what its peers got in $work/WHO
  mkdir -p "$work/$1"
  set -- "$1" $(free_ports tcp tcp udp tcp tcp tcp tcp tcp) "$work/$1.collectd.sock"
  who=$1 p_in=$2
  CAPTURE_CERT=$work/peer.pem CAPTURE_KEY=$work/peer.key python3 "$here/capture-peers.py" "$work/$who" \
    "tcp:$3:gelf" "udp:$4:gelf-udp" "tcp:$5:loggly" "tcp:$6:logmatic" "http:$7:http" "proxy:$8:https" \
    "tcp:$9:graphite" "unix:${10}:collectd" &
  cap=$!
  wait_file "$work/$who/ready" "$who: capture-peers.py"
  if [ "$who" = syslog-ng ]; then
    sng_include_path >"$work/sng.conf"
    conf "$p_in" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" >>"$work/sng.conf"
    sng_start sng
  else
    conf "$p_in" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" >"$work/sluice.conf"
    start_sluice "$sluice" "$work/sluice.conf" -R "$work/persist" -c "$work/ctl"
  fi
  input | python3 -c 'import socket, sys; s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.sendall(sys.stdin.buffer.read()); s.close()' "$p_in"
  # messages: GELF ends each with a NUL, the others with a newline; each
  # HTTP request and datagram is one
  for peer in gelf gelf-udp loggly logmatic graphite collectd; do
    i=0
    while [ "$(cat "$work/$who/$peer.count" 2>/dev/null || echo 0)" -lt $lines ]; do
      i=$((i + 1))
      [ $i -lt 300 ] || fail "$who: $peer got $(cat "$work/$who/$peer.count" 2>/dev/null || echo 0) of $lines"
      sleep 0.1
    done
  done
  for peer in http https; do
    i=0
    while [ "$(cat "$work/$who/$peer.count" 2>/dev/null || echo 0)" -lt $((2 * lines)) ]; do
      i=$((i + 1))
      [ $i -lt 300 ] || fail "$who: $peer got $(cat "$work/$who/$peer.count" 2>/dev/null || echo 0) of $((2 * lines)) requests"
      sleep 0.1
    done
  done
  stop_daemons
  kill "$cap"
  wait "$cap" 2>/dev/null || true
  # the time of receipt
  sed -i 's/"timestamp":[0-9]*/"timestamp":T/g' "$work/$who/gelf" "$work/$who/gelf-udp"
  sed -i 's/ [0-9]*$/ T/' "$work/$who/graphite"
  rm -f "$work/$who/ready" "$work/$who"/*.count
}

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/peer.key" -out "$work/peer.pem" -days 2 \
  -subj "/CN=api.telegram.org" >/dev/null 2>&1 || fail "openssl req"
run syslog-ng
run sluice
# the requests of two destinations to one peer come in any order
sort_requests() {
  python3 -c 'import sys; print("".join(sorted(r + "--\n" for r in open(sys.argv[1]).read().split("--\n") if r)), end="")' "$1"
}
for who in syslog-ng sluice; do
  for peer in http https; do
    sort_requests "$work/$who/$peer" >"$work/$who/$peer.sorted" && rm "$work/$who/$peer"
  done
done
diff -r "$work/syslog-ng" "$work/sluice" >"$work/diff" || fail "what the peers got differs (syslog-ng <, sluice >):
$(head -40 "$work/diff")"
# GELF's fields, so that an empty capture on both sides cannot pass
grep -q '"short_message":"hello world"' "$work/sluice/gelf" || fail "no GELF message: $(head -c 300 "$work/sluice/gelf")"
[ "$(tr -cd '\000' <"$work/sluice/gelf" | wc -c)" -eq $lines ] || fail "GELF over TCP: not one NUL a message"

grep -qF "POST https://api.telegram.org/botBOT/sendMessage" "$work/sluice/https.sorted" &&
  grep -qF "POST https://collectors.us2.sumologic.com/receiver/v1/http/COLL" "$work/sluice/https.sorted" ||
  fail "telegram() or sumologic-http() did not reach its URL: $(head -5 "$work/sluice/https.sorted")"

# sumologic-syslog(): the syntax check of both
cat >"$work/fixed.conf" <<'EOF'
@version: 3.38
@include "scl.conf"
source s { internal(); };
destination d_sumo { sumologic-syslog(token("TOK@41123") tag("t1") deployment("us2") tls(peer-verify(optional-untrusted))); };
log { source(s); destination(d_sumo); };
EOF
{ sng_include_path; cat "$work/fixed.conf"; } >"$work/fixed-sng.conf"
LD_LIBRARY_PATH=$sng/usr/lib/syslog-ng "$sng/usr/sbin/syslog-ng" --syntax-only --module-path="$sng/usr/lib/syslog-ng/3.38" \
  -f "$work/fixed-sng.conf" >"$work/fixed-sng.out" 2>&1 || fail "syslog-ng refused sumologic-syslog(): $(cat "$work/fixed-sng.out")"
"$sluice" --syntax-only -f "$work/fixed.conf" >"$work/fixed.out" 2>&1 || fail "sluice refused sumologic-syslog(): $(cat "$work/fixed.out")"
echo "compare-scl-destinations: graylog2 (tcp, udp), loggly, logmatic, graphite, collectd, slack, discord, sumologic-http, telegram: $lines messages each, the same bytes as syslog-ng 3.38's"
