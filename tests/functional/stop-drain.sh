#!/bin/sh
# A daemon that closes its TCP connections reads what their clients had
# already sent: it half-closes each connection, a client that reads (as a
# relay does) sees the end and closes its side, and the daemon reads on to
# that end before it closes.  Here the daemon is stopped (SIGSTOP) while a
# client writes 50,000 lines into the kernel's buffers, then sent a signal
# and continued: a reload of a keep-alive(no) source (SIGHUP), then the
# daemon's stop (SIGTERM).  Every line must be in the file each time.
# Closing at once would reset the connection and the kernel would throw
# the unread lines away.
# Usage: stop-drain.sh SLUICE
. "$(dirname "$0")/lib.sh"
sluice=$1
set -- $(free_ports tcp)
port=$1

cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { network(ip(127.0.0.1) port($port) keep-alive(no)); };
destination d { file("$work/out.log"); };
log { source(s); destination(d); };
EOF2
start_sluice "$sluice" "$work/sluice.conf" -R "$work/persist"

# client SIGNAL TAG: one connection, a first line read, then 50,000 lines
# written while the daemon is stopped, SIGNAL and SIGCONT, and the rest
# written; it reads until the daemon ends the stream and closes
client() {
  python3 - "$port" "$work" "$pid" "$1" "$2" <<'PY' || fail "client ($1)"
import os, signal, socket, sys, time
port, work, pid, sig, tag = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5].encode()
path = work + "/out.log"
before = os.path.getsize(path) if os.path.exists(path) else 0
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"<13>Nov 22 10:00:00 host app: %s first\n" % tag)
deadline = time.time() + 10
while not (os.path.exists(path) and os.path.getsize(path) > before):
    if time.time() > deadline:
        sys.exit("the first line did not arrive")
    time.sleep(0.01)
os.kill(pid, signal.SIGSTOP)
body = b"".join(b"<13>Nov 22 10:00:00 host app: %s line %05d %s\n" % (tag, i, b"x" * 60) for i in range(50000))
s.setblocking(False)
sent = 0
while sent < len(body):  # what the kernel's buffers take while the daemon sleeps
    try:
        sent += s.send(body[sent:])
    except BlockingIOError:
        break
os.kill(pid, getattr(signal, sig))
os.kill(pid, signal.SIGCONT)
s.setblocking(True)
s.settimeout(10)
try:
    s.sendall(body[sent:])
    # a relay: it sees the end of the stream and closes its side
    while s.recv(4096):
        pass
except ConnectionResetError:
    sys.exit("the daemon reset the connection: the lines it had not read were thrown away")
s.close()
PY
}

client SIGHUP reload
wait_log "Configuration reload finished"
wait_lines "$work/out.log" 50001
got=$(grep -c ": reload " "$work/out.log")
[ "$got" -eq 50001 ] || fail "reload: $got lines of 50001 in the file"

client SIGTERM stop
st=0
wait "$pid" || st=$?
pid=
[ $st -eq 0 ] || fail "sluice exited with $st"
got=$(grep -c ": stop " "$work/out.log")
[ "$got" -eq 50001 ] || fail "stop: $got lines of 50001 in the file"
grep -q "stop line 49999 " "$work/out.log" || fail "the last line is missing"
echo "stop-drain: all 50,001 lines read at a keep-alive(no) reload and at the stop"
