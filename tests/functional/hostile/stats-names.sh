#!/bin/sh
# Host names from the network in the stats outputs (issue 22): senders
# call themselves "a;b", "x<LF>.<LF>", bytes that are not UTF-8, a quote, a
# backslash, "." and 255-byte names made of separators and line breaks.
# At stats-level 2 and 3, `sluice-ctl stats` must still parse as CSV with
# one row per counter (six fields each), `query get` must give one
# name=value line per counter, no control reply may hold a line that is
# exactly "." before its end, and GET /metrics must be UTF-8 in the
# Prometheus text format, one sample per counter.
# Usage: stats-names.sh SLUICE SLUICE_CTL
. "$(dirname "$0")/../lib.sh"
sluice=$1 ctl=$2
set -- $(free_ports udp tcp)
port=$1 export_port=$2
sock=$work/ctl

# send_hosts FIRST_ONLY: one datagram per host name ("good" only, or all)
send_hosts() {
  python3 - "$port" "$1" <<'EOF'
import socket, sys
port, first_only = int(sys.argv[1]), sys.argv[2] == "1"
if first_only:
    hosts = [b"good"]
else:
    hosts = [
        b"a;b",
        b"x\n.\n",
        b"bad\xff\xfe\xc3",
        b'q"uote',
        b"back\\slash",
        b".",
        (b";\n.\n\"" * 63 + b"end")[:255],
        b"L" * 255,
    ]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for h in hosts:
    s.sendto(b"<13>Nov 22 10:00:00 " + h + b" prog: m", ("127.0.0.1", port))
EOF
}
n_hostile=8

# raw REQUEST: the daemon's whole reply to REQUEST on the control socket,
# read until it has been quiet for a second (not until a "." line)
raw() {
  python3 - "$sock" "$1" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode() + b"\n")
s.settimeout(1.0)
data = b""
try:
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
except socket.timeout:
    pass
sys.stdout.buffer.write(data)
EOF
}

# check_reply FILE: its only "." line is the last one
check_reply() {
  [ "$(grep -cx '\.' "$1")" -eq 1 ] && [ "$(tail -n 1 "$1")" = . ] \
    || { cat -A "$1" | head -50; fail "$1: a '.' line before the end of the reply"; }
}

# wait_received N: until the daemon has counted N messages (the output file
# is no measure: host names with line breaks add lines to it)
wait_received() {
  _wr=0
  until [ "$("$ctl" -c "$sock" query get center.received.processed)" = "center.received.processed=$1" ]; do
    _wr=$((_wr + 1))
    [ $_wr -lt 300 ] || fail "the daemon did not receive $1 messages: $("$ctl" -c "$sock" query get center.received.processed)"
    sleep 0.1
  done
}

# rows: the counters now, as CSV rows (header excluded), checked with
# python's csv module: six fields each, the last a number
rows() {
  "$ctl" -c "$sock" stats >"$work/stats.csv" || fail "stats"
  python3 - "$work/stats.csv" <<'EOF' || fail "the stats CSV does not parse"
import csv, sys
with open(sys.argv[1], newline="", encoding="utf-8") as f:
    rows = list(csv.reader(f, delimiter=";", quotechar='"', escapechar="\\", doublequote=False))
assert rows[0] == ["SourceName", "SourceId", "SourceInstance", "State", "Type", "Number"], rows[0]
for r in rows[1:]:
    assert len(r) == 6 and r[3] in ("a", "d") and r[5].isdigit(), r
print(len(rows) - 1)
EOF
}

for level in 2 3; do
  cat >"$work/sluice.conf" <<EOF
@version: 3.38
options { stats-freq(0); stats-level($level); keep-hostname(yes); };
source s_net { udp(ip(127.0.0.1) port($port)); };
destination d_file { file("$work/out.log"); };
log { source(s_net); destination(d_file); };
EOF
  start_sluice "$sluice" "$work/sluice.conf" -c "$sock" --stats-exporter 127.0.0.1:$export_port
  send_hosts 1
  wait_received 1
  before=$(rows)
  send_hosts 0
  wait_received $((1 + n_hostile))

  # each host name adds its processed and stamp rows, level 3 also the
  # per-driver pair; the program, sender, facility and severity rows exist
  per_host=2
  [ $level -eq 3 ] && per_host=4
  after=$(rows)
  [ "$after" -eq $((before + per_host * n_hostile)) ] \
    || { cat -A "$work/stats.csv"; fail "level $level: $after rows, want $before + $per_host x $n_hostile"; }
  grep -qx 'src.host;;"a;b";d;processed;1' "$work/stats.csv" || fail "no quoted a;b row"
  grep -qF 'src.host;;x\n.\n;d;processed;1' "$work/stats.csv" || fail "no escaped x\\n.\\n row"
  grep -qF 'src.host;;bad\xff\xfe\xc3;d;processed;1' "$work/stats.csv" || fail "no escaped bad UTF-8 row"

  raw STATS >"$work/stats.raw"
  check_reply "$work/stats.raw"
  [ "$(wc -l <"$work/stats.raw")" -eq $((after + 2)) ] || fail "raw STATS has $(wc -l <"$work/stats.raw") lines"

  raw "QUERY GET *" >"$work/query.raw"
  check_reply "$work/query.raw"
  [ "$(grep -c '^.*=[0-9][0-9]*$' "$work/query.raw")" -eq "$after" ] \
    && [ "$(wc -l <"$work/query.raw")" -eq $((after + 1)) ] \
    || { cat -A "$work/query.raw" | head -60; fail "query get: not $after name=value lines"; }
  raw "QUERY LIST *" >"$work/list.raw"
  check_reply "$work/list.raw"
  [ "$(wc -l <"$work/list.raw")" -eq $((after + 1)) ] || fail "query list: $(wc -l <"$work/list.raw") lines"
  "$ctl" -c "$sock" query get 'src.host.*' >"$work/query.out" || fail "sluice-ctl query get"
  [ "$(wc -l <"$work/query.out")" -eq $((per_host * (n_hostile + 1))) ] \
    || { cat -A "$work/query.out"; fail "sluice-ctl query get src.host.*: $(wc -l <"$work/query.out") lines"; }

  python3 - "$export_port" "$after" <<'EOF' || fail "level $level: /metrics"
import re, sys, urllib.request
body = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=30).read()
text = body.decode("utf-8")  # strict: raises on bytes that are not UTF-8
lines = text.split("\n")
assert lines[-1] == "", "no final newline"
label = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
sample = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*\{(?:%s(?:,%s)*)?\} [0-9]+$' % (label, label))
for l in lines[:-1]:
    assert sample.match(l), "not a sample line: %r" % l
assert len(lines) - 1 == int(sys.argv[2]), "%d samples, want %s" % (len(lines) - 1, sys.argv[2])
assert 'instance="bad\\\\xff\\\\xfe\\\\xc3"' in text, "bad UTF-8 label not as syslog-ng writes it"
assert 'instance="x\\n.\\n"' in text, "newline label not escaped"
EOF
  echo "stats-names: level $level: $after rows in CSV, query and /metrics, $n_hostile hostile hosts"
  rss_below 65536
  stop_sluice
done
