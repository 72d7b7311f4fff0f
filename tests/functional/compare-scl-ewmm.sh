#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The SCL's ewmm transport between the two daemons: a sender parses
# key=value pairs and tags each message, and relays it with the
# syslog-ng() destination; a receiver takes it with the ewmm() source and
# writes all its name-value pairs, tags and time.  Every pairing, Sluice
# or syslog-ng 3.38 on either end, must write the same lines: what one
# daemon sends, the other reads as its own.
#
# Usage: compare-scl-ewmm.sh SLUICE
# SLUICE_SYSLOG_NG names the directory Debian's syslog-ng-core is unpacked
# in (scripts/fetch-syslog-ng.sh).
. "$(dirname "$0")/lib.sh"
sluice=$1
need_syslog_ng

lines=4
input() {
  printf '<13>Mar 10 11:58:01 web01 app[42]: user=alice action=login\n'
  printf '<30>Mar 10 11:58:02 web02 cron: no pairs here\n'
  printf '<134>Mar 10 11:58:03 db1 pg[7]: q="a b" n=12 empty=\n'
  printf '<11>Mar 10 11:58:04 web01 app[42]: .dot=1 a.b.c=nested\n'
}

sender_conf() { # sender_conf IN_PORT RELAY_PORT
  cat <<EOF
@version: 3.38
@include "scl.conf"
options { keep-hostname(yes); };
source s_in { network(ip(127.0.0.1) port($1) transport(tcp)); };
destination d_relay { syslog-ng(server("127.0.0.1") port($2)); };
log { source(s_in); parser { kv-parser(prefix(".kv.")); }; rewrite { set-tag("relayed"); };
      destination(d_relay); };
EOF
}

receiver_conf() { # receiver_conf RELAY_PORT OUT
  cat <<EOF
@version: 3.38
@include "scl.conf"
options { keep-hostname(yes); };
source s_relay { ewmm(ip(127.0.0.1) port($1)); };
destination d_out { file("$2" template("\$(format-json --scope all-nv-pairs --leave-initial-dot --exclude HOST_FROM)|\${TAGS}|\${ISODATE}|\${PRI}\n")); };
log { source(s_relay); destination(d_out); };
EOF
}

start() { # start WHO NAME CONF-FUNCTION ARGS...: a daemon on $work/NAME.conf
  _who=$1 _name=$2 _fn=$3
  shift 3
  if [ "$_who" = syslog-ng ]; then
    sng_include_path >"$work/$_name.conf"
    $_fn "$@" >>"$work/$_name.conf"
    sng_start "$_name"
  else
    $_fn "$@" >"$work/$_name.conf"
    mkdir -p "$work/$_name.d"
    "$sluice" -F -f "$work/$_name.conf" -R "$work/$_name.d/persist" -c "$work/$_name.d/ctl" \
      -p "$work/$_name.d/pid" >"$work/$_name.log" 2>&1 &
    sng_pids="$sng_pids $!" # killed at exit as the syslog-ng daemons are
    i=0
    until grep -q "starting up" "$work/$_name.log" 2>/dev/null; do
      i=$((i + 1))
      [ $i -lt 100 ] || fail "sluice $_name did not start: $(cat "$work/$_name.log")"
      sleep 0.1
    done
  fi
}

for pair in syslog-ng:syslog-ng sluice:sluice sluice:syslog-ng syslog-ng:sluice; do
  from=${pair%:*} to=${pair#*:}
  set -- $(free_ports tcp tcp)
  out=$work/$from-to-$to.log
  start "$to" "recv-$from-$to" receiver_conf "$2" "$out"
  start "$from" "send-$from-$to" sender_conf "$1" "$2"
  input | python3 -c 'import socket, sys; s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.sendall(sys.stdin.buffer.read()); s.close()' "$1"
  wait_lines "$out" $lines
  [ "$(wc -l <"$out")" -eq $lines ] || fail "$from to $to: $(wc -l <"$out") of $lines lines: $(cat "$work/recv-$from-$to.log" "$work/send-$from-$to.log" | tail -5)"
  stop_daemons
  sort "$out" -o "$out"
done
for pair in sluice-to-sluice sluice-to-syslog-ng syslog-ng-to-sluice; do
  diff "$work/syslog-ng-to-syslog-ng.log" "$work/$pair.log" >"$work/diff" ||
    fail "$pair differs from syslog-ng to syslog-ng (<):
$(head -20 "$work/diff")"
done
grep -q '".kv":{"user":"alice","action":"login"}' "$work/sluice-to-sluice.log" &&
  grep -q ',relayed,' "$work/sluice-to-sluice.log" ||
  fail "the pairs or the tag did not cross: $(head -2 "$work/sluice-to-sluice.log")"
echo "compare-scl-ewmm: $lines messages relayed with their pairs and tags the same way in all four pairings of Sluice and syslog-ng 3.38"
