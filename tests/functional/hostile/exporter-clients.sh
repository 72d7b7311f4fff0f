#!/bin/sh
# Silent and slow scrapers against --stats-exporter:
#  - a client that connects and sends nothing, and one that dribbles its
#    request a byte at a time, are both closed after the timeout (5 s),
#    without an answer;
#  - 100 silent connections held open, and more connecting all along, do
#    not keep a good client from GET /metrics: each of its scrapes is
#    answered 200 within 2 s, and the daemon holds no more than the cap's
#    worth of exporter descriptors meanwhile.
# Prints the daemon's peak RSS (and fails above 100 MB: a connection that
# was never closed, or a request buffer that grew, would show here).
# Usage: exporter-clients.sh SLUICE
. "$(dirname "$0")/../lib.sh"
sluice=$1
set -- $(free_ports tcp tcp)
port=$1 export_port=$2

cat >"$work/sluice.conf" <<EOF
@version: 3.38
options { stats-freq(0); };
source s_net { network(ip(127.0.0.1) port($port)); };
destination d_file { file("$work/out.log"); };
log { source(s_net); destination(d_file); };
EOF
start_sluice "$sluice" "$work/sluice.conf" --stats-exporter 127.0.0.1:$export_port

python3 - "$export_port" "$pid" <<'PY' || fail "exporter clients"
import os, socket, sys, threading, time
port, pid = int(sys.argv[1]), int(sys.argv[2])

def conn(timeout=5):
    return socket.create_connection(("127.0.0.1", port), timeout=timeout)

def closed_after(s, limit):
    """Seconds until the server closes s without answering (None: not by limit)."""
    start = time.time()
    s.settimeout(0.2)
    while time.time() - start < limit:
        try:
            b = s.recv(4096)
        except socket.timeout:
            continue
        except ConnectionResetError:
            return time.time() - start
        assert not b, "answered: %r" % b[:80]
        return time.time() - start
    return None

def scrape():
    s = conn(timeout=2)
    s.settimeout(2)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
    s.close()
    return data

# 1. silent and slow, one of each
silent = conn()
slow = conn()
stop_dribble = threading.Event()
def dribble():
    for ch in b"GET /metrics HTTP/1.1\r\nHost: x\r\n":
        if stop_dribble.wait(0.5):
            return
        try:
            slow.send(bytes([ch]))
        except OSError:
            return
t = threading.Thread(target=dribble)
t.start()
dt_silent = closed_after(silent, 12)
dt_slow = closed_after(slow, 3)
stop_dribble.set()
t.join()
assert dt_silent is not None, "a silent client was not closed in 12 s"
assert dt_silent >= 3, "closed too early: %.1f s" % dt_silent
assert dt_slow is not None, "a slow client was not closed"
print("silent client closed after %.1f s, slow client with it" % dt_silent)

# 2. a crowd of silent clients, and more all along
crowd = []
for i in range(100):
    try:
        crowd.append(conn(timeout=0.5))
    except OSError:
        pass
stop = threading.Event()
hammered = [0]
def hammer():
    while not stop.is_set():
        try:
            c = conn(timeout=0.2)
            crowd.append(c)
            hammered[0] += 1
        except OSError:
            pass
        time.sleep(0.005)
h = threading.Thread(target=hammer)
h.start()
worst = 0.0
max_fds = 0
try:
    for i in range(10):
        t0 = time.time()
        data = scrape()
        dt = time.time() - t0
        worst = max(worst, dt)
        assert data.startswith(b"HTTP/1.1 200 OK"), "scrape %d: %r" % (i, data[:80])
        assert b"sluice_" in data, "scrape %d has no counters" % i
        assert dt < 2, "scrape %d took %.1f s" % (i, dt)
        max_fds = max(max_fds, len(os.listdir("/proc/%d/fd" % pid)))
        time.sleep(0.1)
finally:
    stop.set()
    h.join()
print("10 scrapes beside %d silent connections (%d made meanwhile): slowest %.2f s, daemon fds at most %d"
      % (len(crowd), hammered[0], worst, max_fds))
# the cap (16) plus what the daemon holds anyway (listeners, loops, files)
assert max_fds < 60, "the daemon had %d descriptors open" % max_fds
for c in crowd:
    c.close()
PY
kill -0 "$pid" || fail "the daemon is gone"
rss_below 100000
stop_sluice
echo "exporter-clients: silent and slow scrapers closed, good scrapes served beside them"
