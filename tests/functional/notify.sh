#!/bin/sh
# systemd's notify protocol without systemd: the test listens on a unix
# datagram socket named by NOTIFY_SOCKET and checks what the daemon sends:
# READY=1 once started, RELOADING=1 then READY=1 around a reload (SIGHUP and
# sluice-ctl reload), WATCHDOG=1 while running with WATCHDOG_USEC, and
# STOPPING=1 on SIGTERM.  A WATCHDOG_PID of another process turns the
# watchdog off, and the abstract namespace ("@name") works.
# contrib/systemd/sluice.service is checked by systemd-analyze verify when
# the machine has it (PID 1 need not be systemd).
# Usage: notify.sh SLUICE SLUICE_CTL UNIT
. "$(dirname "$0")/lib.sh"
sluice=$1 ctl=$2 unit=$3
listener=

cat >"$work/sluice.conf" <<EOF
@version: 3.38
options { stats-freq(0); };
source s { unix-stream("$work/in.sock"); };
destination d { file("$work/out.log"); };
log { source(s); destination(d); };
EOF

# listen ADDRESS FILE: write each datagram to FILE as one line, its
# newlines shown as '|'; runs until killed (at most 120 s)
listen() {
  python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
addr = sys.argv[1]
s.bind("\0" + addr[1:] if addr.startswith("@") else addr)
open(sys.argv[2] + ".ready", "w").close()
s.settimeout(1)
end = time.time() + 120
with open(sys.argv[2], "a") as out:
    while time.time() < end:
        try:
            d = s.recv(4096)
        except socket.timeout:
            continue
        out.write(d.decode().replace("\n", "|") + "\n")
        out.flush()' "$1" "$2" &
  listener=$!
  i=0
  until [ -e "$2.ready" ]; do
    i=$((i + 1))
    [ $i -lt 100 ] || fail "the listener did not start"
    sleep 0.1
  done
}
stop_listener() {
  kill "$listener" 2>/dev/null || true
  wait "$listener" 2>/dev/null || true
  listener=
}
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$listener" ] && kill "$listener" 2>/dev/null; rm -rf "$work"' EXIT

# wait_msg FILE PATTERN [COUNT]: until COUNT lines of FILE match PATTERN (30 s)
wait_msg() {
  i=0
  while [ "$(grep -c -- "$2" "$1" 2>/dev/null || true)" -lt "${3:-1}" ]; do
    i=$((i + 1))
    [ $i -lt 300 ] || { cat "$1"; fail "no '$2' (x${3:-1}) from the daemon"; }
    sleep 0.1
  done
}

msgs=$work/notify.txt
listen "$work/notify.sock" "$msgs"
export NOTIFY_SOCKET="$work/notify.sock" WATCHDOG_USEC=400000
start_sluice "$sluice" "$work/sluice.conf" -c "$work/ctl"
unset NOTIFY_SOCKET WATCHDOG_USEC
wait_msg "$msgs" '^READY=1|STATUS=Running$'
# WATCHDOG=1 every 0.2 s: a few arrive while it runs
wait_msg "$msgs" '^WATCHDOG=1$' 3

kill -HUP "$pid"
wait_msg "$msgs" '^READY=1|STATUS=Running$' 2
"$ctl" -c "$work/ctl" reload >/dev/null || fail "sluice-ctl reload"
wait_msg "$msgs" '^READY=1|STATUS=Running$' 3
# each reload: RELOADING=1, then READY=1, in that order
grep -v '^WATCHDOG=1$' "$msgs" >"$work/states"
printf '%s\n' 'READY=1|STATUS=Running' 'RELOADING=1|STATUS=Reloading configuration' 'READY=1|STATUS=Running' \
  'RELOADING=1|STATUS=Reloading configuration' 'READY=1|STATUS=Running' >"$work/want"
cmp -s "$work/states" "$work/want" || { diff "$work/want" "$work/states"; fail "state sequence"; }

# a refused file: RELOADING=1 then READY=1 with a status that says so
cp "$work/sluice.conf" "$work/good.conf"
echo 'not a configuration' >>"$work/sluice.conf"
kill -HUP "$pid"
wait_msg "$msgs" '^READY=1|STATUS=Running; the new configuration was refused$'
cp "$work/good.conf" "$work/sluice.conf"

stop_sluice
wait_msg "$msgs" '^STOPPING=1|STATUS=Shutting down$'
stop_listener
[ "$(tail -1 "$msgs")" = 'STOPPING=1|STATUS=Shutting down' ] || fail "something after STOPPING=1: $(tail -1 "$msgs")"

# WATCHDOG_PID of another process: no watchdog; abstract socket address
msgs=$work/notify2.txt
listen "@sluice-notify-test-$$" "$msgs"
# start_sluice waits for "starting up" in the log: not the last run's
rm -f "$work/sluice.log"
export NOTIFY_SOCKET="@sluice-notify-test-$$" WATCHDOG_USEC=100000 WATCHDOG_PID=1
start_sluice "$sluice" "$work/sluice.conf"
unset NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID
wait_msg "$msgs" '^READY=1|STATUS=Running$'
sleep 0.5
stop_sluice
wait_msg "$msgs" '^STOPPING=1'
stop_listener
! grep -q WATCHDOG "$msgs" || fail "watchdog sent for another pid"

# without NOTIFY_SOCKET nothing is sent and nothing fails
rm -f "$work/sluice.log"
start_sluice "$sluice" "$work/sluice.conf"
stop_sluice
# the unit, with the paths of this build
if command -v systemd-analyze >/dev/null 2>&1; then
  abs=$(cd "$(dirname "$sluice")" && pwd)/$(basename "$sluice")
  sed "s|/usr/sbin/sluice|$abs|g" "$unit" >"$work/sluice.service"
  systemd-analyze verify "$work/sluice.service" >"$work/verify" 2>&1 || { cat "$work/verify"; fail "unit file"; }
  [ ! -s "$work/verify" ] || { cat "$work/verify"; fail "unit file warnings"; }
else
  echo "notify: no systemd-analyze here, the unit file is not checked"
fi
echo "notify: READY, RELOADING, WATCHDOG and STOPPING as expected"
