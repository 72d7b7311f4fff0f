#!/bin/sh
# The control socket and sluice-ctl: the counters after loggen's load equal
# what it sent (per source, per destination statement and driver, center;
# at stats-level 3 also per source driver, host, sender, program,
# facility, severity and tag), in CSV, Prometheus and query forms, and
# they survive a reload; config, healthcheck, reopen, reload (a good and a
# bad file), bad requests, a second daemon on the same socket, and stop,
# which removes the socket file only if it is still the one bound.
# Usage: control.sh SLUICE SLUICE_CTL LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 ctl=$2 loggen=$3
set -- $(free_ports tcp tcp)
port=$1 export_port=$2
sock=$work/ctl

cat >"$work/sluice.conf" <<EOF
@version: 3.38
options { stats-freq(0); stats-level(3); };
source s_net { network(ip(127.0.0.1) port($port)); };
block destination d_out(path()) { file("\`path\`"); };
destination d_file { d_out(path("$work/out.log")); };
log { source(s_net); destination(d_file); };
EOF

c() { "$ctl" -c "$sock" "$@"; }

# --stats-exporter: only loopback addresses
st=0
"$sluice" -F -f "$work/sluice.conf" --stats-exporter 0.0.0.0:$export_port >"$work/exp.log" 2>&1 || st=$?
[ $st -eq 1 ] && grep -q "on a loopback address only" "$work/exp.log" || fail "non-loopback exporter: $st $(cat "$work/exp.log")"

start_sluice "$sluice" "$work/sluice.conf" -c "$sock" --stats-exporter 127.0.0.1:$export_port
[ -S "$sock" ] || fail "no control socket"
[ "$(stat -c %a "$sock")" = 600 ] || fail "control socket mode $(stat -c %a "$sock")"

# 4 connections x 5000 messages, as fast as loggen goes
n=20000
"$loggen" -S -Q -r 1000000 -n 5000 --active-connections=4 127.0.0.1 "$port" 2>/dev/null || fail "loggen"
wait_lines "$work/out.log" $n
[ "$(wc -l <"$work/out.log")" -eq $n ] || fail "out.log has $(wc -l <"$work/out.log") lines, want $n"

c stats >"$work/stats.csv" || fail "stats"
head -1 "$work/stats.csv" | grep -qx 'SourceName;SourceId;SourceInstance;State;Type;Number' || fail "csv header"
out=$work/out.log
for row in "source;s_net;;a;processed;$n" "center;;received;a;processed;$n" "center;;queued;a;processed;$n" \
  "destination;d_file;;a;processed;$n" "dst.file;d_file#0;$out;a;processed;$n" "dst.file;d_file#0;$out;a;written;$n" \
  "dst.file;d_file#0;$out;a;dropped;0" "dst.file;d_file#0;$out;a;queued;0" \
  "dst.file;d_file#0;$out;a;memory_usage;0" "src.network;s_net#0;tcp,127.0.0.1;a;processed;$n" \
  "src.network;s_net;afsocket_sd.(stream,AF_INET(127.0.0.1:$port));a;connections;0" \
  "src.program;;prg00000;d;processed;$n" "src.facility;;4;a;processed;$n" "src.severity;;6;a;processed;$n" \
  "src.facility;;0;a;processed;0" "src.facility;;other;a;processed;0" "src.severity;;0;a;processed;0" \
  "tag;.source.s_net;;a;processed;$n"; do
  grep -qx "$row" "$work/stats.csv" || { cat "$work/stats.csv"; fail "no row $row"; }
done
# the peer's name, whatever the resolver calls 127.0.0.1
grep -qx "src.sender;;[^;]*;d;processed;$n" "$work/stats.csv" || { cat "$work/stats.csv"; fail "no sender row"; }
grep -qx "src.sender;s_net#0;[^;]*;d;processed;$n" "$work/stats.csv" || fail "no per-driver sender row"
grep -qx "src.host;;[^;]*;d;processed;$n" "$work/stats.csv" || fail "no host row"
grep -q "^src.network;s_net#0;tcp,127.0.0.1;a;stamp;[1-9][0-9]*$" "$work/stats.csv" || fail "no stamp row"

c stats --format prometheus >"$work/stats.prom" || fail "stats prometheus"
grep -qx "sluice_source_processed{id=\"s_net\"} $n" "$work/stats.prom" || { cat "$work/stats.prom"; fail "prom source"; }
grep -qx "sluice_dst_file_written{id=\"d_file#0\",instance=\"$out\"} $n" "$work/stats.prom" \
  || { cat "$work/stats.prom"; fail "prom written"; }
grep -qx "sluice_center_processed{id=\"received\"} $n" "$work/stats.prom" || fail "prom center"

# the scrape endpoint serves the same text
scrape() {
  python3 -c '
import sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen("http://127.0.0.1:%s%s" % (sys.argv[1], sys.argv[2]), timeout=30)
    print(r.status, r.headers["Content-Type"])
    sys.stdout.write(r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code)' "$export_port" "$1"
}
scrape /metrics >"$work/scrape" || fail "scrape"
head -1 "$work/scrape" | grep -qx '200 text/plain; version=0.0.4; charset=utf-8' || fail "scrape head: $(head -1 "$work/scrape")"
tail -n +2 "$work/scrape" | cmp -s - "$work/stats.prom" || { diff "$work/stats.prom" "$work/scrape"; fail "scrape differs"; }
[ "$(scrape /other)" = 404 ] || fail "scrape of another path"

[ "$(c query get 'source.*')" = "source.s_net.processed=$n" ] || fail "query get: $(c query get 'source.*')"
[ "$(c query get --sum 'center.*')" = $((2 * n)) ] || fail "query get --sum"
c query list | grep -qx "dst.file.d_file#0.$out.written" || fail "query list"
[ -z "$(c query list 'nothing.*')" ] || fail "query list of nothing"

c config >"$work/config.out" || fail "config"
cmp -s "$work/config.out" "$work/sluice.conf" || fail "config text differs"
# the block's expansion after the reference's place, as syslog-ng writes it
c config --preprocessed >"$work/pre.out" || fail "config --preprocessed"
grep -q "^#Start Block block destination d_out() at $work/sluice.conf:4\$" "$work/pre.out" \
  && grep -qF " file(\"$work/out.log\"); " "$work/pre.out" || fail "config --preprocessed: $(cat "$work/pre.out")"
c healthcheck | grep -q '^state=running uptime=[0-9]*$' || fail "healthcheck: $(c healthcheck)"
c reopen | grep -q 'Re-open' || fail "reopen"
grep -q "Reopening destination files" "$work/sluice.log" || fail "reopen not logged"

# usage errors exit 2 without talking to the daemon; FAIL replies exit 1
st=0; c bogus 2>/dev/null || st=$?
[ $st -eq 2 ] || fail "unknown command exited $st"
st=0; c stats --format xml 2>/dev/null || st=$?
[ $st -eq 2 ] || fail "bad format exited $st"
reply=$(python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"BOGUS\nQUERY FROB\n")
data = b""
while data.count(b"\n.\n") < 2:
    chunk = s.recv(4096)
    if not chunk:
        break
    data += chunk
print(data.decode().replace("\n", "|"))' "$sock")
[ "$reply" = "FAIL Unknown command 'BOGUS'|.|FAIL Invalid arguments received; expected \
QUERY LIST|GET|GET_SUM|LIST_RESET|GET_RESET|GET_SUM_RESET [PATTERN]|.|" ] \
  || fail "raw reply: $reply"
st=0; "$ctl" -c "$work/nothing" healthcheck 2>/dev/null || st=$?
[ $st -eq 3 ] || fail "no daemon exited $st"

# a second daemon must not take the live socket over
st=0
"$sluice" -F -f "$work/sluice.conf" -c "$sock" >"$work/second.log" 2>&1 || st=$?
[ $st -ne 0 ] || fail "a second daemon started on the same control socket"
grep -q "another process serves the control socket" "$work/second.log" || { cat "$work/second.log"; fail "second daemon's message"; }
c healthcheck >/dev/null || fail "the first daemon lost its socket"

# a good reload, then a bad one that keeps the running configuration
c reload | grep -qx 'Config reload successful' || fail "reload"
"$loggen" -S -Q -r 1000000 -n 100 127.0.0.1 "$port" 2>/dev/null || fail "loggen after reload"
wait_lines "$work/out.log" $((n + 100))
# the counters went on from where they were
c stats >"$work/stats2.csv" || fail "stats after reload"
for row in "source;s_net;;a;processed;$((n + 100))" "center;;received;a;processed;$((n + 100))" \
  "src.network;s_net#0;tcp,127.0.0.1;a;processed;$((n + 100))" "src.program;;prg00000;d;processed;$((n + 100))"; do
  grep -qx "$row" "$work/stats2.csv" || { cat "$work/stats2.csv"; fail "after reload: no row $row"; }
done
i=0
until grep -qx "dst.file;d_file#0;$out;a;written;$((n + 100))" "$work/stats2.csv"; do
  i=$((i + 1))
  [ $i -lt 50 ] || { cat "$work/stats2.csv"; fail "after reload: written"; }
  sleep 0.1
  c stats >"$work/stats2.csv"
done
echo 'this is not a configuration' >>"$work/sluice.conf"
st=0; c reload 2>"$work/reload.err" || st=$?
[ $st -eq 1 ] || fail "bad reload exited $st"
grep -q "running one is kept" "$work/reload.err" || fail "bad reload message: $(cat "$work/reload.err")"
c healthcheck | grep -q '^state=running' || fail "not running after a bad reload"

c stop | grep -qx 'Shutdown initiated' || fail "stop"
st=0
wait "$pid" || st=$?
pid=
[ $st -eq 0 ] || fail "sluice exited with $st after stop"
[ ! -e "$sock" ] || fail "control socket left behind"
[ ! -e "$work/pid" ] || fail "pid file left behind"
# the stop removes the socket file only if it is still the one bound: a
# file someone put in its place stays
sed -i '$d' "$work/sluice.conf"
start_sluice "$sluice" "$work/sluice.conf" -c "$sock"
mv "$sock" "$work/ctl.moved"
echo "someone else's" >"$sock"
stop_sluice
[ "$(cat "$sock" 2>/dev/null)" = "someone else's" ] || fail "the stop removed a file that is not its socket"
[ -S "$work/ctl.moved" ] || fail "the moved socket is gone"
echo "control: counters match $n messages; every command answered"
