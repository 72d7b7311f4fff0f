#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A hundred reloads leak nothing: with TCP, UDP and unix sources open and
# a connection kept alive across them, the daemon's descriptors after 100
# reloads are those it had after 10, its resident memory has not grown by
# more than 4 MiB (plain build only: AddressSanitizer keeps freed memory in
# quarantine), and it exits cleanly (under the sanitizer build, with leak
# detection on, a leak fails the exit).
# Usage: reload-loop.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2
set -- $(free_ports tcp udp)
tcp_port=$1 udp_port=$2

write_conf() {
  cat >"$work/sluice.conf" <<EOF
@version: 3.38
source s {
  network(ip(127.0.0.1) port($tcp_port) log-iw-size($1));
  network(ip(127.0.0.1) port($udp_port) transport(udp));
  unix-stream("$work/stream.sock");
  unix-dgram("$work/dgram.sock");
};
destination d { file("$work/out.log"); };
destination d$1 { file("$work/out-$1.log"); };
log { source(s); destination(d); destination(d$1); flags(flow-control); };
EOF
}

reload_to() {
  write_conf "$1"
  reload_sluice
}

# the descriptors once the new configuration's files are open: a file is
# opened by its first message (loggen sends 30 a second), as with syslog-ng
fds() {
  sleep 0.5
  ls "/proc/$pid/fd" | wc -l
}

rss_kib() {
  awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"
}

write_conf 1000
start_sluice "$sluice" "$work/sluice.conf"
# one connection that lives through every reload, sending slowly
"$loggen" -S -Q -I 60 -r 30 -n 300 127.0.0.1 "$tcp_port" >/dev/null 2>"$work/loggen.err" &
lg=$!

i=1
while [ $i -le 100 ]; do
  reload_to $((1000 + i % 2))
  if [ $i -eq 10 ]; then
    fds10=$(fds)
    rss10=$(rss_kib)
  fi
  i=$((i + 1))
done
fds100=$(fds)
rss100=$(rss_kib)
echo "fds after 10 reloads: $fds10, after 100: $fds100; RSS $rss10 KiB -> $rss100 KiB"
# fewer is no leak: the tenth reload's count may still hold the files an old
# configuration was closing
[ "$fds100" -le "$fds10" ] || fail "descriptors leak: $fds10 after 10 reloads, $fds100 after 100"
if [ -z "${ASAN_OPTIONS:-}" ] && [ $((rss100 - rss10)) -gt 4096 ]; then
  fail "memory grew by $((rss100 - rss10)) KiB over 90 reloads"
fi

wait $lg || fail "loggen: $(cat "$work/loggen.err")"
wait_lines "$work/out.log" 300
stop_sluice
[ "$(wc -l <"$work/out.log")" -eq 300 ] || fail "$(wc -l <"$work/out.log") lines instead of 300"
[ "$(grep -c "Syslog connection accepted" "$work/sluice.log")" -eq 1 ] || fail "the connection did not live through"
echo "reload-loop: 100 reloads, no leak"
