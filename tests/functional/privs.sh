#!/bin/sh
# -u/-g: started as root, the daemon binds, then runs as nobody:nogroup;
# the main thread keeps only CAP_NET_BIND_SERVICE (a reload binds a port
# below 1024 again), the other threads keep nothing, and files are written
# as nobody once it runs (the files of its start are opened before);
# program() runs its command as nobody too.  The
# control socket (-c) is nobody's, nobody's sluice-ctl can use it, and it
# is removed at stop (where the directory lets nobody remove it; else a
# warning says so and the next start replaces it).  Without root, -u is
# refused with a clear message.
# Usage: privs.sh SLUICE SLUICE_CTL
. "$(dirname "$0")/lib.sh"
sluice=$1 ctl=$2

cat >"$work/min.conf" <<EOF
@version: 3.38
source s { unix-stream("$work/in.sock"); };
destination d { file("$work/out.log"); };
log { source(s); destination(d); };
EOF

if [ "$(id -u)" -ne 0 ]; then
  st=0
  "$sluice" -F -f "$work/min.conf" -u nobody >"$work/err" 2>&1 || st=$?
  [ $st -eq 1 ] || fail "-u without root exited $st"
  grep -q "need the daemon to start as root" "$work/err" || fail "message: $(cat "$work/err")"
  echo "privs: not root, only the refusal is checked"
  exit 0
fi

user=nobody group=nogroup
id "$user" >/dev/null 2>&1 || fail "no user $user"
uid=$(id -u "$user") gid=$(getent group "$group" | cut -d: -f3)
[ -n "$gid" ] || fail "no group $group"

st=0
"$sluice" -F -f "$work/min.conf" -u no-such-user-here >"$work/err" 2>&1 || st=$?
[ $st -eq 1 ] && grep -q "no such user; user='no-such-user-here'" "$work/err" || fail "unknown user: $st $(cat "$work/err")"
st=0
"$sluice" -F -f "$work/min.conf" -g no-such-group-here >"$work/err" 2>&1 || st=$?
[ $st -eq 1 ] && grep -q "no such group" "$work/err" || fail "unknown group: $st $(cat "$work/err")"

# two free TCP ports below 1024
set -- $(python3 -c '
import socket
found = []
for p in range(900, 1020):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        s.close()
    found.append(p)
    if len(found) == 2:
        break
print(" ".join(map(str, found)))')
[ $# -eq 2 ] || fail "no free ports below 1024"
port1=$1 port2=$2

chmod 755 "$work"
mkdir "$work/out"
chown "$uid:$gid" "$work/out"
conf() {
  cat >"$work/sluice.conf" <<EOF
@version: 3.38
options { stats-freq(0); };
source s { network(ip(127.0.0.1) port($1)); };
destination d { file("$work/out/messages" owner(-1) group(-1)); file("$work/out/\${PROGRAM}.log" owner(-1) group(-1)); };
destination p { program("id -u > $work/out/prog-id.tmp; id -g >> $work/out/prog-id.tmp; grep CapPrm /proc/self/status >> $work/out/prog-id.tmp; mv $work/out/prog-id.tmp $work/out/prog-id; cat > /dev/null"); };
log { source(s); destination(d); destination(p); };
EOF
}
send() {
  python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(sys.argv[2].encode() + b"\n")
s.close()' "$1" "$2"
}

conf "$port1"
# the control socket's directory is nobody's, so that nobody can remove it
mkdir "$work/run"
chown "$uid:$gid" "$work/run"
sock=$work/run/ctl
start_sluice "$sluice" "$work/sluice.conf" -u "$user" -g "$group" -c "$sock"
grep -q "^Uid:	$uid	$uid	$uid	$uid\$" "/proc/$pid/status" || fail "uid: $(grep Uid "/proc/$pid/status")"
grep -q "^Gid:	$gid	$gid	$gid	$gid\$" "/proc/$pid/status" || fail "gid: $(grep Gid "/proc/$pid/status")"
grep -q "^Groups:	$gid *\$" "/proc/$pid/status" || fail "groups: $(grep Groups "/proc/$pid/status")"
# CAP_NET_BIND_SERVICE is bit 10
grep -q '^CapEff:	0000000000000400$' "/proc/$pid/status" || fail "main thread caps: $(grep Cap "/proc/$pid/status")"
for t in /proc/$pid/task/*; do
  [ "${t##*/}" = "$pid" ] && continue
  grep -q '^CapPrm:	0000000000000000$' "$t/status" || fail "thread ${t##*/} keeps capabilities"
done

# program() runs as the user, as syslog-ng's does, although it started
# before the daemon dropped its privileges, and with no capability
i=0
while [ ! -f "$work/out/prog-id" ]; do
  i=$((i + 1)); [ $i -lt 100 ] || fail "program() did not run"; sleep 0.1
done
[ "$(sed -n 1,2p "$work/out/prog-id" | tr '\n' ' ')" = "$uid $gid " ] || fail "program ids: $(cat "$work/out/prog-id")"
grep -q "CapPrm:	0000000000000000" "$work/out/prog-id" || fail "program caps: $(cat "$work/out/prog-id")"
send "$port1" "<13>Oct 11 22:14:15 host prog: before reload"
wait_lines "$work/out/messages" 1
# a file opened after the drop (its name comes from the message) is nobody's
wait_lines "$work/out/prog.log" 1
[ "$(stat -c %u "$work/out/prog.log")" = "$uid" ] || fail "file owner $(stat -c %u "$work/out/prog.log")"

# the reload binds another port below 1024 as nobody
conf "$port2"
kill -HUP "$pid"
wait_log "Configuration reload finished"
send "$port2" "<13>Oct 11 22:14:16 host prog: after reload"
grep -q "Accepting connections; addr='AF_INET(127.0.0.1:$port2)'" "$work/sluice.log" || fail "port $port2 not bound"
# (out/messages was created by root at the first start, with perm 0600:
# nobody cannot open it again, as with syslog-ng; prog.log is nobody's)
wait_lines "$work/out/prog.log" 2
grep -q "after reload" "$work/out/prog.log" || fail "nothing after the reload"

# the control socket is nobody's (mode 0600) and nobody's sluice-ctl uses it
[ "$(stat -c %u:%g:%a "$sock")" = "$uid:$gid:600" ] || fail "control socket $(stat -c %u:%g:%a "$sock")"
cp "$ctl" "$work/sluice-ctl"
chmod 755 "$work/sluice-ctl"
as_user() { setpriv --reuid="$uid" --regid="$gid" --clear-groups "$@"; }
as_user "$work/sluice-ctl" -c "$sock" healthcheck | grep -q '^state=running' \
  || fail "nobody cannot use the control socket: $(as_user "$work/sluice-ctl" -c "$sock" healthcheck 2>&1)"
stop_sluice
[ ! -e "$sock" ] || fail "the control socket is left after stop"

# in a directory nobody cannot write to, the socket stays: the daemon says
# so, and the next start (nobody answers on it) replaces it
sock2=$work/ctl2
start_sluice "$sluice" "$work/min.conf" -u "$user" -g "$group" -c "$sock2"
[ "$(stat -c %u:%g "$sock2")" = "$uid:$gid" ] || fail "control socket 2 $(stat -c %u:%g "$sock2")"
stop_sluice
grep -q "Cannot remove the control socket; the next start replaces it" "$work/sluice.log" \
  || fail "no warning about the socket left behind"
start_sluice "$sluice" "$work/min.conf" -c "$sock2"
"$ctl" -c "$sock2" healthcheck | grep -q '^state=running' || fail "the next start did not replace the socket"
stop_sluice
[ ! -e "$sock2" ] || fail "the control socket is left after a stop as root"
echo "privs: ran as $user:$group with CAP_NET_BIND_SERVICE on the main thread only"
