#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The network sources end to end: build/sluice with network(), syslog(),
# udp and unix sources on 127.0.0.1 / a temp dir writing file()s, fed by
# util-linux logger(1) (TCP, UDP, unix, --rfc5424, --octet-count) and by
# plain sockets with broken input (half lines, binary garbage, a huge octet
# count, connections dropped mid-frame).  Every output file is compared
# whole; the internal log must name each framing error.
#
# usage: network.sh SLUICE
set -eu

sluice=$1
command -v logger >/dev/null || { echo "logger(1) is missing: install bsdutils (scripts/install-deps.sh)"; exit 1; }
command -v python3 >/dev/null || { echo "python3 is missing"; exit 1; }

dir=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
[ -n "${KEEP:-}" ] && trap - EXIT

# Free ports on 127.0.0.1 (TCP and UDP each)
ports=$(python3 "$(dirname "$0")/free-ports.py" tcp udp tcp udp)
set -- $ports
tcp_port=$1 udp_port=$2 syslog_port=$3 syslog_udp_port=$4

cat >"$dir/sluice.conf" <<EOF
@version: 3.38
options { use-dns(no); };
template t { template("\${SOURCE} \${TRANSPORT} \${HOST} \${PROGRAM} \${PRI} \${MSG}\n"); };
source s_tcp { network(ip(127.0.0.1) port($tcp_port)); };
source s_udp { network(ip(127.0.0.1) port($udp_port) transport(udp));
               syslog(ip(127.0.0.1) port($syslog_udp_port) transport(udp)); };
source s_syslog { syslog(ip(127.0.0.1) port($syslog_port)); };
source s_unix { unix-dgram("$dir/log"); unix-stream("$dir/log-stream" max-connections(4)); };
destination d_tcp { file("$dir/tcp.out" template(t)); };
destination d_udp { file("$dir/udp.out" template(t)); };
destination d_syslog { file("$dir/syslog.out" template(t)); };
destination d_unix { file("$dir/unix.out" template(t)); };
log { source(s_tcp); destination(d_tcp); };
log { source(s_udp); destination(d_udp); };
log { source(s_syslog); destination(d_syslog); };
log { source(s_unix); destination(d_unix); };
EOF

"$sluice" -F -f "$dir/sluice.conf" -p "$dir/pid" 2>"$dir/stderr" &
pid=$!

# Sends raw bytes (python escapes) to a TCP port, then closes.
send_tcp() {
  python3 -c '
import socket, sys, ast
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(ast.literal_eval(sys.argv[2]))
s.close()' "$1" "$2"
}

# Waits (10 s at most) until file $1 has $2 lines.
wait_lines() {
  i=0
  while [ "$(cat "$1" 2>/dev/null | wc -l)" -lt "$2" ]; do
    i=$((i + 1))
    if [ $i -gt 100 ]; then
      echo "timed out waiting for $2 lines in $1:"; cat "$1" 2>/dev/null || true
      echo "--- sluice stderr:"; cat "$dir/stderr"
      exit 1
    fi
    sleep 0.1
  done
}

# Waits until the last source listens.
i=0
until [ -S "$dir/log-stream" ] && python3 -c '
import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1]))).close()' "$syslog_port" 2>/dev/null; do
  i=$((i + 1))
  [ $i -gt 100 ] && { echo "sluice did not start:"; cat "$dir/stderr"; exit 1; }
  sleep 0.1
done

# ---- logger(1) ------------------------------------------------------------
# (each step waits for its line: connections are read by different workers,
# so only a wait orders them in the output)
logger --tcp -n 127.0.0.1 -P "$tcp_port" -t app -p local0.info --rfc3164 "logger over tcp"
wait_lines "$dir/tcp.out" 1
logger --udp -n 127.0.0.1 -P "$udp_port" -t app -p mail.err --rfc3164 "logger over udp"
wait_lines "$dir/udp.out" 1
logger --udp -n 127.0.0.1 -P "$syslog_udp_port" -t app --rfc5424 "rfc5424 over udp"
logger --tcp -n 127.0.0.1 -P "$syslog_port" -t app --rfc5424 --octet-count --msgid ID7 "rfc5424 octet-counted"
wait_lines "$dir/syslog.out" 1
logger -u "$dir/log" -t app -p user.warning "logger to unix-dgram"
logger -u "$dir/log-stream" --tcp -t app "logger to unix-stream"

# ---- broken input over plain sockets --------------------------------------
send_tcp "$tcp_port" "b'<13>Nov 22 10:00:00 h p: whole\\n<13>Nov 22 10:00:00 h p: half a li'"
wait_lines "$dir/tcp.out" 3
send_tcp "$tcp_port" "b'\\x01\\xfe\\xff garbage \\x00<13>Nov 22 10:00:00 h p: after garbage\\n'"
# octet counting: a length of 11 digits, a frame cut by a close, a frame
# split across writes that must still arrive
send_tcp "$syslog_port" "b'99999999999 <13>1 - h app - - - huge'"
send_tcp "$syslog_port" "b'40 <13>1 - h app - - - dropped mid-fra'"
python3 -c '
import socket, sys, time
m = b"<13>1 2026-11-22T10:00:00Z h app - - - split frame"
f = str(len(m)).encode() + b" " + m
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(f[:1]); time.sleep(0.05); s.sendall(f[1:9]); time.sleep(0.05); s.sendall(f[9:])
s.close()' "$syslog_port"

wait_lines "$dir/tcp.out" 5
wait_lines "$dir/udp.out" 2
wait_lines "$dir/syslog.out" 2
wait_lines "$dir/unix.out" 2

# ---- reload: every socket is closed and bound again ------------------------
kill -HUP "$pid"
i=0
until grep -q "Configuration reload finished" "$dir/stderr"; do
  i=$((i + 1))
  [ $i -gt 100 ] && { echo "no reload:"; cat "$dir/stderr"; exit 1; }
  sleep 0.1
done
logger --tcp -n 127.0.0.1 -P "$tcp_port" -t app --rfc3164 "after reload"
wait_lines "$dir/tcp.out" 6
logger -u "$dir/log" -t app "unix after reload"
wait_lines "$dir/unix.out" 3

kill -TERM "$pid"
wait "$pid" || { echo "sluice exited with $?"; cat "$dir/stderr"; exit 1; }
pid=

host=$(hostname | cut -d. -f1)
fail=0
check() {
  if ! printf '%b' "$2" | cmp -s - "$dir/$1"; then
    echo "FAIL: $1 differs; expected:"; printf '%b' "$2"; echo "got:"; cat "$dir/$1"
    fail=1
  fi
}
# unix sources: order between the two sockets is not fixed, so sort
sort "$dir/unix.out" >"$dir/unix.sorted"
check tcp.out "s_tcp rfc3164+tcp 127.0.0.1 app 134 logger over tcp
s_tcp rfc3164+tcp 127.0.0.1 p 13 whole
s_tcp rfc3164+tcp 127.0.0.1 p 13 half a li
s_tcp rfc3164+tcp 127.0.0.1 \001\0376\0377 13 garbage 
s_tcp rfc3164+tcp 127.0.0.1 p 13 after garbage
s_tcp rfc3164+tcp 127.0.0.1 app 13 after reload
"
check udp.out "s_udp rfc3164+udp 127.0.0.1 app 19 logger over udp
s_udp rfc5426 127.0.0.1 app 13 rfc5424 over udp
"
check syslog.out "s_syslog rfc6587 127.0.0.1 app 13 rfc5424 octet-counted
s_syslog rfc6587 127.0.0.1 app 13 split frame
"
check unix.sorted "s_unix local+unix-dgram $host app 12 logger to unix-dgram
s_unix local+unix-dgram $host app 13 unix after reload
s_unix local+unix-stream $host app 13 logger to unix-stream
"
grep -q "Error binding" "$dir/stderr" && { echo "FAIL: a socket could not be bound again:"; cat "$dir/stderr"; fail=1; }
for e in "Error framing incoming data, closing connection" "Syslog connection accepted" "Syslog connection closed"; do
  grep -q "$e" "$dir/stderr" || { echo "FAIL: no '$e' in the internal log"; fail=1; }
done
[ "$(grep -c 'Error framing incoming data' "$dir/stderr")" -eq 2 ] || {
  echo "FAIL: want 2 framing errors:"; cat "$dir/stderr"; fail=1; }
exit $fail
