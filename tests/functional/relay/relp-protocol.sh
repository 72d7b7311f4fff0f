#!/bin/sh
# The relp() source speaking RELP with a scripted client (python3):
#  - bytes that are not RELP, a command before open, and an open without
#    commands=syslog get "serverclose" and the connection is closed;
#  - a session: open is answered 200 with the offers, syslog frames split
#    at odd places across writes are each answered 200 (in any order) and
#    written, an unknown command is answered 500, close is answered 200 and
#    the server closes the connection;
#  - a frame longer than log-msg-size() gets serverclose.
#
# Usage: relp-protocol.sh SLUICE
. "$(dirname "$0")/../lib.sh"
sluice=$1
set -- $(free_ports tcp)
port=$1
cat >"$work/sluice.conf" <<EOC
@version: 3.38
options { stats-freq(0); keep-hostname(yes); };
source s { relp(ip(127.0.0.1) port($port) log-msg-size(200000)); };
destination d { file("$work/out.log" template("\$PROGRAM \$MSG\n")); };
log { source(s); destination(d); };
EOC
start_sluice "$sluice" "$work/sluice.conf"

python3 - "$port" <<'PY' || fail "protocol check"
import socket, sys, time
port = int(sys.argv[1])

def conn():
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    return s

def read_all(s):
    """Everything until the server closes."""
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            return data
        data += b

def frames(data):
    out = []
    while data:
        txnr, cmd, rest = data.split(b" ", 2)
        if rest.startswith(b"0\n"):
            out.append((int(txnr), cmd, b""))
            data = rest[2:]
            continue
        n, rest = rest.split(b" ", 1)
        n = int(n)
        out.append((int(txnr), cmd, rest[:n]))
        assert rest[n:n + 1] == b"\n", rest[:n + 1]
        data = rest[n + 1:]
    return out

def frame(txnr, cmd, data=b""):
    return b"%d %s %d%s\n" % (txnr, cmd, len(data), b" " + data if data else b"")

def refused(payload, what):
    s = conn()
    s.sendall(payload)
    got = frames(read_all(s))
    assert got and got[-1][1] == b"serverclose" and got[-1][0] == 0, (what, got)
    print("refused:", what, got)

refused(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "http")
refused(frame(1, b"syslog", b"<13>before open"), "syslog before open")
refused(frame(1, b"open", b"relp_version=0\nrelp_software=t\ncommands=other"), "no commands=syslog")
refused(frame(1, b"open", b"relp_version=0\ncommands=syslog") + b"2 syslog 300000 ", "frame too long")

s = conn()
offers = b"relp_version=0\nrelp_software=test,1\ncommands=syslog"
s.sendall(frame(1, b"open", offers))
buf = b""
while not buf.endswith(b"\n") or len(frames(buf)) < 1:
    buf += s.recv(4096)
(t, cmd, data), = frames(buf)
assert t == 1 and cmd == b"rsp" and data.startswith(b"200 OK\n") and b"commands=syslog" in data, data
print("open:", data)

body = b"".join(frame(i, b"syslog", b"<13>Nov 23 10:00:00 host prog%d: message %d" % (i, i)) for i in range(2, 12))
body += frame(12, b"frobnicate", b"x")
pos = 0  # split anywhere, also inside headers
for cut in (7, 33, 34, 100, len(body)):
    s.sendall(body[pos:cut])
    pos = cut
    time.sleep(0.05)
want = set(range(2, 13))
got = {}
buf = b""
deadline = time.time() + 10
while set(got) != want and time.time() < deadline:
    buf += s.recv(4096)
    if buf.endswith(b"\n"):
        try:
            for t, cmd, data in frames(buf):
                got[t] = (cmd, data)
            buf = b""
        except Exception:
            pass
assert set(got) == want, got
for t in range(2, 12):
    assert got[t] == (b"rsp", b"200 OK"), (t, got[t])
assert got[12][0] == b"rsp" and got[12][1].startswith(b"500"), got[12]
s.sendall(frame(13, b"close"))
rest = frames(read_all(s))
assert rest == [(13, b"rsp", b"200 OK")], rest
print("session: 10 messages answered, unknown command 500, close answered")
PY

wait_lines "$work/out.log" 10
[ "$(wc -l <"$work/out.log")" -eq 10 ] || fail "expected 10 lines: $(cat "$work/out.log")"
for i in 2 3 4 5 6 7 8 9 10 11; do
  grep -qx "prog$i message $i" "$work/out.log" || fail "line $i: $(cat "$work/out.log")"
done
grep -q "Refusing RELP peer, sending serverclose" "$work/sluice.log" || fail "refusals not logged"
stop_sluice
echo "relp-protocol: ok"
