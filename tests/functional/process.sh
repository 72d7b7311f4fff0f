#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# How the daemon starts: --process-mode safe-background (the default
# without -F) returns once the daemon runs, with status 0, or with the
# start's error and status 1 when a source cannot bind; background returns
# at once; an unknown mode is refused.  --chroot (as root): the
# configuration and every path are inside the new root, and a reload reads
# the file there again.
# Usage: process.sh SLUICE
. "$(dirname "$0")/lib.sh"
sluice=$1
set -- $(free_ports tcp)
port=$1

cat >"$work/ok.conf" <<EOF
@version: 3.38
source s { unix-dgram("$work/in.sock"); };
destination d { file("$work/out.log"); };
log { source(s); destination(d); };
EOF

# ---- safe-background: back once running --------------------------------
st=0
"$sluice" -f "$work/ok.conf" -p "$work/bg.pid" -c "$work/ctl" >"$work/bg.out" 2>&1 || st=$?
[ $st -eq 0 ] || fail "safe-background start exited $st: $(cat "$work/bg.out")"
# when the parent returns, the daemon has started: no waiting here
[ -s "$work/bg.pid" ] || fail "no pid file when the start returned"
[ -S "$work/in.sock" ] || fail "no socket when the start returned"
bgpid=$(cat "$work/bg.pid")
kill -0 "$bgpid" || fail "the daemon is not running"
logger -u "$work/in.sock" -t app "in the background"
wait_lines "$work/out.log" 1
grep -q "in the background" "$work/out.log" || fail "nothing written by the background daemon"
kill -TERM "$bgpid"
i=0
while kill -0 "$bgpid" 2>/dev/null; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "the background daemon did not stop"
  sleep 0.1
done

# ---- safe-background: a start that fails says so, with status 1 ---------
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1)
open(sys.argv[2], "w").close(); time.sleep(30)' "$port" "$work/held" &
holder=$!
i=0
until [ -e "$work/held" ]; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "the port holder did not start"
  sleep 0.1
done
cat >"$work/busy.conf" <<EOF
@version: 3.38
source s { network(ip(127.0.0.1) port($port)); };
destination d { file("$work/busy.log"); };
log { source(s); destination(d); };
EOF
st=0
"$sluice" -f "$work/busy.conf" -p "$work/busy.pid" -c "$work/ctl2" >"$work/busy.out" 2>&1 || st=$?
kill "$holder" 2>/dev/null || true
[ $st -eq 1 ] || fail "a start that cannot bind exited $st: $(cat "$work/busy.out")"
grep -q "Error binding socket" "$work/busy.out" || fail "no bind error on the terminal: $(cat "$work/busy.out")"

# ---- background and an unknown mode -------------------------------------
st=0
"$sluice" --process-mode=sideways -f "$work/ok.conf" >"$work/bad.out" 2>&1 || st=$?
[ $st -eq 2 ] || fail "an unknown mode exited $st"
grep -q "unknown --process-mode 'sideways'" "$work/bad.out" || fail "message: $(cat "$work/bad.out")"
rm -f "$work/bg.pid"
"$sluice" --process-mode=background -f "$work/ok.conf" -p "$work/bg.pid" -c "$work/ctl3" >/dev/null 2>&1 \
  || fail "background start failed"
i=0
until [ -s "$work/bg.pid" ]; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "the background daemon wrote no pid file"
  sleep 0.1
done
kill -TERM "$(cat "$work/bg.pid")"

# ---- --chroot ------------------------------------------------------------
if [ "$(id -u)" -ne 0 ]; then
  st=0
  "$sluice" -F -C "$work" -f /ok.conf >"$work/err" 2>&1 || st=$?
  [ $st -eq 1 ] && grep -q "needs the daemon to start as root" "$work/err" || fail "--chroot without root: $st"
  echo "process: not root, --chroot only checked for its refusal"
  exit 0
fi
root=$work/root
mkdir -p "$root/etc" "$root/var/log"
# owner(), group() and -u take names: the new root needs the user database,
# as it does for syslog-ng
grep '^root:' /etc/passwd >"$root/etc/passwd"
grep '^root:' /etc/group >"$root/etc/group"
write_root_conf() {
  cat >"$root/etc/sluice.conf" <<EOF
@version: 3.38
source s { unix-dgram("/in.sock"); };
destination d { file("/var/log/messages" template("\$PROGRAM \$MSG\n")); };
$1
log { source(s); destination(d); $2 };
EOF
}
write_root_conf "" ""
# every path inside the new root, the pid file too (LeakSanitizer needs
# /proc, which the new root does not have)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  "$sluice" -F -v -C "$root" -f /etc/sluice.conf -p /sluice.pid -c /ctl >"$work/sluice.log" 2>&1 &
pid=$!
wait_log "starting up"
[ "$(cat "$root/sluice.pid")" = "$pid" ] || fail "the pid file is not inside the new root"
[ -S "$root/in.sock" ] || fail "the socket is not inside the new root"
logger -u "$root/in.sock" -t app "chrooted"
wait_lines "$root/var/log/messages" 1
write_root_conf 'destination d2 { file("/var/log/second"); };' "destination(d2);"
reload_sluice
logger -u "$root/in.sock" -t app "after reload"
wait_lines "$root/var/log/second" 1
stop_sluice
[ "$(cat "$root/var/log/messages")" = "app chrooted
app after reload" ] || fail "messages: $(cat "$root/var/log/messages")"
echo "process: safe-background, background and --chroot work"
