#!/bin/sh
# A RELP client that sends and never reads its answers (issue 22): it opens
# a session and writes RELP_FLOOD_MB (default 64) MB of short syslog frames
# (2.1 million) without reading one "rsp".  The server must stop reading
# that connection while the answers it cannot send pile up (TCP then stops
# the client), so its peak RSS stays within RELP_FLOOD_GROWTH_KB (default
# 24000) of what it was at start: it grows by ~1 MB (~9 MB under ASan),
# and by ~40 MB when the answers pile up unbounded.  The client must see
# its writes stall.  Then the client reads: every frame gets its 200,
# close is answered, and every message is in the file exactly once.
#
# The client's receive buffer is set small before it connects: Linux would
# otherwise grow it up to tcp_rmem's maximum (32 MB here) and hold most of
# the answers in the kernel, where the daemon's RSS does not show them.
#
# Usage: relp-flood.sh SLUICE
. "$(dirname "$0")/../lib.sh"
sluice=$1
mb=${RELP_FLOOD_MB:-64}
growth=${RELP_FLOOD_GROWTH_KB:-24000}
set -- $(free_ports tcp)
port=$1
cat >"$work/sluice.conf" <<EOC
@version: 3.38
options { stats-freq(0); };
source s { relp(ip(127.0.0.1) port($port)); };
destination d { file("$work/out.log" template("\$MSG\n")); };
log { source(s); destination(d); };
EOC
# under AddressSanitizer: a small quarantine, or the messages freed would
# stay resident in it (~400 MB for 90 MB of frames) and hide what the
# daemon holds
ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}quarantine_size_mb=4"
export ASAN_OPTIONS
start_sluice "$sluice" "$work/sluice.conf"
start_rss=$(rss_kb)
echo "daemon memory at start: $start_rss"
limit=$(($(echo "$start_rss" | sed 's/.*peak \([0-9]*\).*/\1/') + growth))

python3 - "$port" "$mb" >"$work/client.txt" 2>&1 <<'PY' || { cat "$work/client.txt"; fail "RELP flood client"; }
import socket, sys, threading, time
port, mb = int(sys.argv[1]), int(sys.argv[2])

def frame(txnr, cmd, data=b""):
    return b"%d %s %d%s\n" % (txnr, cmd, len(data), b" " + data if data else b"")

s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
s.settimeout(30)
s.connect(("127.0.0.1", port))
s.sendall(frame(1, b"open", b"relp_version=0\nrelp_software=flood\ncommands=syslog"))
got = b""
while True:
    head = got.split(b" ", 3)
    if len(head) == 4 and len(head[3]) > int(head[2]):
        break
    b = s.recv(4096)
    assert b, "closed before the open was answered"
    got += b
assert got.startswith(b"1 rsp ") and b"200 OK" in got, got

# short frames (~30 bytes: each answer is nearly as long as its frame),
# txnr 2..n+1, built in chunks of ~1 MB
size = len(frame(2000000, b"syslog", b"<13>f 2000000"))
n = mb * 1024 * 1024 // size
chunks, txnr = [], 2
while txnr < n + 2:
    end = min(txnr + 32768, n + 2)
    chunks.append(b"".join(frame(t, b"syslog", b"<13>f %07d" % t) for t in range(txnr, end)))
    txnr = end

t0 = time.monotonic()
sent = [0]
def sender():
    for c in chunks:
        s.sendall(c)
        sent[0] += len(c)
t = threading.Thread(target=sender, daemon=True)
t.start()

# wait until the sender is done or has made no progress for 2 s
last, since = -1, time.monotonic()
while t.is_alive():
    time.sleep(0.2)
    if sent[0] != last:
        last, since = sent[0], time.monotonic()
    elif time.monotonic() - since > 2:
        break
stalled = t.is_alive()
print("frames: %d (%d MB); writes %s after %d MB (%.1f s)" % (n, n * size >> 20, "stalled" if stalled else "all taken",
                                                           sent[0] >> 20, time.monotonic() - t0))

# now read every answer (the sender goes on as the server reads again)
want = set(range(2, n + 2))
buf = b""
while want:
    b = s.recv(1 << 20)
    assert b, "the server closed with %d answers missing" % len(want)
    buf += b
    lines = buf.split(b"\n")
    buf = lines.pop()
    for line in lines:
        if not line:
            continue
        parts = line.split(b" ", 3)
        assert parts[1] == b"rsp" and parts[3].startswith(b"200"), line
        want.discard(int(parts[0]))
t.join(30)
assert not t.is_alive(), "the sender is still stuck"
s.sendall(frame(n + 2, b"close"))
while not buf.startswith(b"%d rsp" % (n + 2)):
    b = s.recv(4096)
    assert b, "no answer to close"
    buf += b
print("every frame answered 200, close answered (%.1f s)" % (time.monotonic() - t0))
PY
cat "$work/client.txt"
n=$(sed -n 's/^frames: \([0-9]*\).*/\1/p' "$work/client.txt")
wait_lines "$work/out.log" "$n"
[ "$(wc -l <"$work/out.log")" -eq "$n" ] || fail "$(wc -l <"$work/out.log") lines written, $n sent"
[ "$(sort -u "$work/out.log" | wc -l)" -eq "$n" ] || fail "duplicate or missing lines"
echo "$n messages written once each"
rss_below "$limit"
grep -q "writes stalled" "$work/client.txt" \
  || fail "the server read everything while the client read no answer: nothing held it back"
stop_sluice
