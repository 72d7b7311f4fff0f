#!/bin/sh
# Descriptor exhaustion: the daemon runs under `ulimit -n 64` with a
# network() and a relp() source whose max-connections() add up to far
# more, the stats exporter and the control socket.  Peers open as many
# connections to each as the kernel takes and then keep connecting for
# a few seconds.  The daemon must
#  - warn at start that max-connections() exceed the limit;
#  - stay alive (ivykis aborted it when a late timerfd_create got EMFILE);
#  - keep descriptors for its own work: the file destination opens its
#    file when the first message comes, with the peers at the limit (it
#    failed and waited time-reopen(), 60 s, and RELP's answers with it);
#  - not spin (its listeners are level-triggered: CPU time stays low) nor
#    flood its log (relp() logged each failed accept4);
#  - lose no peer's line: a connection given a descriptor of the reserve
#    is parked unread until one below it is free (closed unread, the lines
#    its peer had sent and closed on were lost), and a reload at the limit
#    hands it to the new configuration with the others;
#  - serve a well-behaved client of each listener once the peers are gone,
#    within 3 s (the backlog of peers gone drains as descriptors come
#    back: 0.2 s here; resting a second per failed accept() took 5-15 s).
# A second start checks that the soft limit is raised to the hard one.
# Prints the daemon's peak RSS (fails above 100 MB).
# Usage: fd-exhaustion.sh SLUICE
. "$(dirname "$0")/../lib.sh"
sluice=$1
set -- $(free_ports tcp tcp tcp)
port=$1 relp_port=$2 export_port=$3
sock=$work/ctl

cat >"$work/sluice.conf" <<EOF
@version: 3.38
options { stats-freq(0); };
source s_net { network(ip(127.0.0.1) port($port) max-connections(300)); };
source s_relp { relp(ip(127.0.0.1) port($relp_port) max-connections(300)); };
destination d_file { file("$work/out.log" template("\$MSG\n")); };
log { source(s_net); source(s_relp); destination(d_file); };
EOF

# the daemon alone gets the low limit (soft and hard)
cat >"$work/low-fds" <<EOF
#!/bin/sh
ulimit -n \$FDS
exec "$sluice" "\$@"
EOF
chmod +x "$work/low-fds"
FDS=64
export FDS
start_sluice "$work/low-fds" "$work/sluice.conf" -c "$sock" --stats-exporter 127.0.0.1:$export_port
grep -q "^Max open files *64 *64 " "/proc/$pid/limits" || fail "limits: $(grep 'open files' "/proc/$pid/limits")"
wait_log "max-connections() add up to more than the file descriptor limit"

ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
cpu0=$(ticks)
lines0=$(wc -l <"$work/sluice.log")

python3 - "$port" "$relp_port" "$export_port" "$sock" "$work/sent" "$pid" "$work/sluice.log" <<'PY' || fail "attack"
import os, signal, socket, sys, time
port, relp, exp, sock = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
pid, log = int(sys.argv[6]), sys.argv[7]
targets = [(socket.AF_INET, ("127.0.0.1", port)), (socket.AF_INET, ("127.0.0.1", relp)),
           (socket.AF_INET, ("127.0.0.1", exp)), (socket.AF_UNIX, sock)]

def connect(family, addr, timeout):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(addr)
        return s
    except OSError:
        s.close()
        return None

held, held_net = [], []
for family, addr in targets:
    for i in range(200):
        s = connect(family, addr, 0.05)
        if s is None:
            break  # the backlog is full
        held.append(s)
        if addr == targets[0][1]:
            held_net.append(s)
# the daemon is at its limit now: the first message makes the file
# destination open its file, from the descriptors the listeners left
for i, s in enumerate(held_net):
    try:
        s.sendall(b"<13>Nov 26 10:00:00 host attack: held %d\n" % i)
    except OSError:
        pass
# a reload at the limit: the connections go to the new configuration,
# the one parked for the descriptor reserve too
def reloads():
    with open(log, errors="replace") as f:
        return f.read().count("Configuration reload finished")
before = reloads()
os.kill(pid, signal.SIGHUP)
end = time.time() + 30
while reloads() == before:
    assert time.time() < end, "no reload at the limit"
    time.sleep(0.1)
made = 0
end = time.time() + 6
while time.time() < end:
    for family, addr in targets:
        s = connect(family, addr, 0.02)
        if s:
            made += 1
            s.close()
print("attack: %d connections held, %d more made and closed in 6 s" % (len(held), made))
with open(sys.argv[5], "w") as f:
    f.write("%d\n" % len(held_net))
for s in held:
    s.close()
PY
kill -0 "$pid" 2>/dev/null || fail "the daemon died under the attack"
# the file was opened although peers held every descriptor they could get
wait_line "$work/out.log" "held 0"
grep -q "Error opening file" "$work/sluice.log" && fail "the file destination was left without a descriptor"
cpu=$(( $(ticks) - cpu0 ))
lines=$(( $(wc -l <"$work/sluice.log") - lines0 ))
pauses=$(grep -c "pausing accepts" "$work/sluice.log" || true)
echo "under attack: $((cpu * 1000 / hz)) ms of CPU, $lines log lines ($pauses accept pauses)"
[ "$pauses" -gt 0 ] || fail "the daemon never ran out of descriptors: no attack"
# a spinning listener takes a whole core: about 6 s here
[ "$cpu" -lt $((hz * 3 / 2)) ] || fail "the daemon used $((cpu * 1000 / hz)) ms of CPU under attack: it spins"
[ "$lines" -lt 5000 ] || fail "the daemon logged $lines lines under attack"

# the peers are gone: each listener serves a well-behaved client
python3 - "$port" "$relp_port" "$export_port" "$sock" <<'PY' || fail "good clients"
import socket, sys, time
port, relp, exp, sock = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

def retry(what, f):
    end = time.time() + 15
    while True:
        try:
            return f()
        except (OSError, AssertionError) as e:
            if time.time() > end:
                raise AssertionError("%s: %s" % (what, e))
            time.sleep(0.2)

def exchange(family, addr, data, until):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(addr)
    s.sendall(data)
    got = b""
    while until not in got:
        b = s.recv(65536)
        if not b:
            break
        got += b
    s.close()
    return got

def tcp():
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"<13>Nov 26 10:00:00 host good: after the attack tcp\n")
    s.close()

def relp_session():
    offers = b"relp_version=0\nrelp_software=test\ncommands=syslog"
    msg = b"<13>Nov 26 10:00:00 host good: after the attack relp"
    data = (b"1 open %d %s\n" % (len(offers), offers) + b"2 syslog %d %s\n" % (len(msg), msg)
            + b"3 close 0\n")
    got = exchange(socket.AF_INET, ("127.0.0.1", relp), data, b"3 rsp")
    assert b"2 rsp 6 200 OK" in got, got

def scrape():
    got = exchange(socket.AF_INET, ("127.0.0.1", exp), b"GET /metrics HTTP/1.1\r\n\r\n", b"\n# ")
    assert got.startswith(b"HTTP/1.1 200 OK"), got[:80]

def control():
    got = exchange(socket.AF_UNIX, sock, b"HEALTHCHECK\n", b"\n.\n")
    assert got.startswith(b"OK"), got

start = time.time()
retry("tcp", tcp)
retry("relp", relp_session)
retry("exporter", scrape)
retry("control socket", control)
took = time.time() - start
print("good clients served in %.2f s" % took)
assert took < 3, "the good clients waited %.2f s" % took
PY
# each line by itself: a RELP session the client gave up on (a timeout
# while the daemon was out of descriptors) is tried again, and its message,
# which the daemon may have taken meanwhile, can come twice
wait_line "$work/out.log" "after the attack tcp"
wait_line "$work/out.log" "after the attack relp"
grep -qx "after the attack tcp" "$work/out.log" || fail "the tcp line is missing: $(cat "$work/out.log")"
grep -qx "after the attack relp" "$work/out.log" || fail "the relp line is missing"
# every peer's line is there: the connections that came past the reserve
# were parked, not closed unread (a peer that wrote and closed cannot tell)
sent=$(cat "$work/sent")
i=0
until [ "$(grep -c '^held ' "$work/out.log")" -ge "$sent" ]; do
  i=$((i + 1))
  [ $i -lt 300 ] || break
  sleep 0.1
done
n=0
while [ $n -lt "$sent" ]; do
  grep -qx "held $n" "$work/out.log" || fail "the line of peer $n of $sent is missing"
  n=$((n + 1))
done
echo "all $sent peers' lines written"
rss_below 100000
stop_sluice

# a soft limit below the hard one is raised to it
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -gt 64 ]; then
  cat >"$work/low-fds" <<EOF
#!/bin/sh
ulimit -Sn 64
exec "$sluice" "\$@"
EOF
  start_sluice "$work/low-fds" "$work/sluice.conf"
  grep -q "^Max open files *$hard *$hard " "/proc/$pid/limits" \
    || fail "soft limit not raised: $(grep 'open files' "/proc/$pid/limits")"
  stop_sluice
fi
# --fd-limit N is a minimum: with CAP_SYS_RESOURCE the hard limit goes up
# to it, without the daemon says it cannot
cat >"$work/low-fds" <<EOF
#!/bin/sh
ulimit -n 64
exec "$sluice" "\$@"
EOF
start_sluice "$work/low-fds" "$work/sluice.conf" --fd-limit 700
if sh -c 'ulimit -n 64 && ulimit -n 700' 2>/dev/null; then
  grep -q "^Max open files *700 *700 " "/proc/$pid/limits" \
    || fail "--fd-limit 700: $(grep 'open files' "/proc/$pid/limits")"
  grep -q "add up to more than the file descriptor limit" "$work/sluice.log" && fail "warned with room for 600"
else
  grep -q "Error setting file number limit; limit='700'" "$work/sluice.log" || fail "no --fd-limit error"
fi
stop_sluice
echo "fd-exhaustion: alive, quiet and serving after the attack"
