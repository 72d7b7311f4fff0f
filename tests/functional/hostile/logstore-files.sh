#!/bin/sh
# logstore() and sluice-logcat against hostile files: a certificate, key
# or CA that is a FIFO or /dev/zero is refused at once instead of hanging
# or reading forever; sluice-logcat refuses a FIFO, a device and a
# directory; files whose header or chunk lengths lie (a key block, a chunk
# of 4 GiB, a plain length past the format's limit, a chunk longer than
# the file) are refused or read as torn without allocating what they
# claim (peak memory bounded); a store path that is a FIFO is logged and
# the daemon goes on delivering to its other destinations.
# Usage: logstore-files.sh SLUICE LOGCAT
. "$(dirname "$0")/../lib.sh"
sluice=$1 logcat=$2
mkfifo "$work/fifo"
set -- $(free_ports tcp)
port=$1

# quick NAME CMD...: CMD must end within 10 s with a non-zero status
quick() {
  _name=$1
  shift
  st=0
  timeout 10 "$@" >"$work/quick.out" 2>&1 || st=$?
  [ $st -ne 124 ] || fail "$_name: still running after 10 s"
  [ $st -ne 0 ] || fail "$_name: accepted: $(cat "$work/quick.out")"
}
for bad in /dev/zero "$work/fifo" "$work"; do
  cat >"$work/bad.conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port)); };
destination d { logstore("$work/x.lgs" encrypt-certificate("$bad")); };
log { source(s); destination(d); };
EOF2
  quick "certificate $bad" "$sluice" -s -f "$work/bad.conf"
  grep -q "encrypt-certificate('$bad') is not a readable PEM X.509 certificate" "$work/quick.out" ||
    fail "certificate $bad: $(cat "$work/quick.out")"
  quick "logcat $bad" "$logcat" "$bad"
  grep -q "not a regular file" "$work/quick.out" || fail "logcat $bad: $(cat "$work/quick.out")"
  quick "logcat --key $bad" "$logcat" --key "$bad" "$work/none.lgs"
  quick "logcat --tsa-ca $bad" "$logcat" --tsa-ca "$bad" "$work/none.lgs"
done

# files that lie about their lengths
python3 - "$work" <<'EOF2'
import hashlib, os, struct, sys
w = sys.argv[1]
def header(k=0, wrap=0, cipher=0):
    fixed = b"SLUICELS" + struct.pack("<HBBBBH", 1, 1, cipher, 1, wrap, k) + bytes(16)
    body = fixed + bytes(k)
    return body + hashlib.sha256(body).digest()
def chunk(prev, seq, stored_claim, plain_claim, payload):
    h = b"LSCK" + bytes([1, 0, 0, 0]) + struct.pack("<QIIII", seq, 1, plain_claim, stored_claim, 0)
    h += prev + bytes(16)
    body = h + payload + bytes(16)
    return body + hashlib.sha256(body).digest()
h = header()
prev = h[-32:]
files = {
    "keyblock": header(k=65535, wrap=1, cipher=1)[:200],
    "huge-chunk": h + chunk(prev, 0, 0xFFFFFFFF, 10, b"x" * 10)[:200],
    "huge-plain": h + chunk(prev, 0, 10, 0xFFFFFFF0, b"x" * 10),
    "past-end": h + chunk(prev, 0, 60 << 20, 10, b"x" * 10)[:300],
}
for name, data in files.items():
    open(os.path.join(w, name + ".lgs"), "wb").write(data)
EOF2
for case in keyblock:"algorithms this reader does not know" huge-chunk:"not one this reader knows" \
    huge-plain:"not one this reader knows" past-end:"torn tail"; do
  name=${case%%:*} want=${case#*:}
  # the status, and the peak RSS in kB of what ran, from python's getrusage
  st=$(python3 -c '
import resource, subprocess, sys
with open(sys.argv[1], "wb") as out:
    st = subprocess.run(sys.argv[3:], stdout=out, stderr=subprocess.STDOUT, timeout=10).returncode
open(sys.argv[2], "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(st)' "$work/$name.out" "$work/rss" "$logcat" --verify "$work/$name.lgs") || fail "$name: no status"
  [ "$st" -ne 0 ] || fail "$name: accepted: $(cat "$work/$name.out")"
  grep -q "$want" "$work/$name.out" || fail "$name: wanted '$want', got: $(cat "$work/$name.out")"
  rss=$(tail -1 "$work/rss")
  [ "$rss" -lt 50000 ] || fail "$name: peak RSS $rss kB"
  echo "hostile $name: $(cat "$work/$name.out") (peak $rss kB)"
done

# a store path that is a FIFO: logged, and the other destination goes on
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port)); };
destination fifo { logstore("$work/fifo"); };
destination ok { logstore("$work/ok.lgs"); };
log { source(s); destination(fifo); destination(ok); };
EOF2
start_sluice "$sluice" "$work/sluice.conf"
python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"".join(b"<13>Nov 26 10:00:00 h app[1]: line %d\n" % i for i in range(100)))
s.close()' "$port"
wait_log "logstore() writes regular files only"
i=0
until [ "$("$logcat" "$work/ok.lgs" 2>/dev/null | wc -l)" -eq 100 ]; do
  i=$((i + 1))
  [ $i -lt 50 ] || fail "the other store did not get its lines"
  sleep 0.2
done
stop_sluice
echo "hostile logstore files: ok"
