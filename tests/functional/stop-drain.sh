#!/bin/sh
# A stopping daemon reads what its TCP clients had already sent: it
# half-closes each connection, a client that reads (as a relay does) sees
# the end and closes its side, and the daemon reads on to that end before
# it closes.  Here the daemon is stopped (SIGSTOP) while a client writes
# 50000 lines into the kernel's buffers, then asked to stop (SIGTERM) and
# continued: every line must be in the file.  Closing at once would reset
# the connection and the kernel would throw the unread lines away.
# Usage: stop-drain.sh SLUICE
. "$(dirname "$0")/lib.sh"
sluice=$1
set -- $(free_ports tcp)
port=$1

cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { network(ip(127.0.0.1) port($port)); };
destination d { file("$work/out.log"); };
log { source(s); destination(d); };
EOF2
start_sluice "$sluice" "$work/sluice.conf" -R "$work/persist"

python3 - "$port" "$work" "$pid" <<'PY' || fail "client"
import os, signal, socket, sys, time
port, work, pid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"<13>Nov 22 10:00:00 host app: first\n")
deadline = time.time() + 10
while not (os.path.exists(work + "/out.log") and os.path.getsize(work + "/out.log") > 0):
    if time.time() > deadline:
        sys.exit("the first line did not arrive")
    time.sleep(0.01)
os.kill(pid, signal.SIGSTOP)
body = b"".join(b"<13>Nov 22 10:00:00 host app: line %05d %s\n" % (i, b"x" * 60) for i in range(50000))
s.setblocking(False)
sent = 0
while sent < len(body):  # what the kernel's buffers take while the daemon sleeps
    try:
        sent += s.send(body[sent:])
    except BlockingIOError:
        break
os.kill(pid, signal.SIGTERM)
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
st=0
wait "$pid" || st=$?
pid=
[ $st -eq 0 ] || fail "sluice exited with $st"
got=$(wc -l <"$work/out.log")
[ "$got" -eq 50001 ] || fail "$got lines of 50001 in the file"
grep -q "line 49999 " "$work/out.log" || fail "the last line is missing"
echo "stop-drain: all 50001 lines read before the stop"
