#!/bin/sh
# use-uniqid(yes): $RCPTID counts up per message, $UNIQID is
# HOSTID@RCPTID in syslog-ng's hex form, $HOSTID stays the same across
# restarts (kept in the persist file), and receipt ids never repeat: not
# after a clean stop, not after a SIGKILL.  use-rcptid() is the old name
# (a warning); with use-uniqid(no) RCPTID and UNIQID are empty.
# Usage: uniqid.sh SLUICE
. "$(dirname "$0")/lib.sh"
sluice=$1
set -- $(free_ports tcp)
port=$1
out=$work/out.log

conf() {
  cat >"$work/sluice.conf" <<EOF2
@version: 3.38
options { $1 stats-freq(0); };
source s { network(ip(127.0.0.1) port($port) transport(tcp)); };
destination d { file("$out" template("\$RCPTID \$UNIQID \$HOSTID \$MSG\n")); };
log { source(s); destination(d); };
EOF2
}

# send N TAG: N lines with TAG over one connection, then wait for them
send() {
  want=$(($(cat "$out" 2>/dev/null | wc -l) + $1))
  python3 - "$port" "$1" "$2" <<'EOF2'
import socket, sys
port, n, tag = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"".join(b"<13>Jan  1 00:00:00 h p: %s %d\n" % (tag.encode(), i) for i in range(n)))
s.close()
EOF2
  wait_lines "$out" "$want"
  [ "$(wc -l <"$out")" -ge "$want" ] || fail "$2: $(wc -l <"$out") of $want lines"
}

# check TAG: every TAG line has UNIQID = HOSTID@RCPTID (8 and 16 hex digits)
check() {
  python3 - "$out" "$1" <<'EOF2' || fail "$1: bad ids"
import sys
bad = 0
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 4 or f[3] != sys.argv[2]:
        continue
    want = "%s@%016x" % (f[2], int(f[0]))
    if len(f[2]) != 8 or f[1] != want:
        print("UNIQID %s is not %s" % (f[1], want))
        bad = 1
sys.exit(bad)
EOF2
}

conf "use-uniqid(yes);"
start_sluice "$sluice" "$work/sluice.conf" -R "$work/persist"
send 50 first
stop_sluice
check first
hostid=$(awk '$4 == "first" { print $3; exit }' "$out")

# a clean stop: the next run's ids go on, the host id stays
conf "use-rcptid(yes);"
start_sluice "$sluice" "$work/sluice.conf" -R "$work/persist"
grep -q "obsoleted keyword.*use_rcptid.*use_uniqid" "$work/sluice.log" || fail "no warning for use-rcptid()"
send 50 second
# a SIGKILL: ids go on past everything handed out, never repeat
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
pid=
conf "use-uniqid(yes);"
start_sluice "$sluice" "$work/sluice.conf" -R "$work/persist"
send 50 third
stop_sluice
check second
check third
[ "$(awk '{ print $3 }' "$out" | sort -u)" = "$hostid" ] || fail "the host id changed: $(awk '{ print $3 }' "$out" | sort -u | tr '\n' ' ')"
[ "$(awk '{ print $1 }' "$out" | sort -u | wc -l)" -eq 150 ] || fail "receipt ids repeat"
# each run's ids are above the last run's
awk '{ if ($4 != last) { if (min[$4] == "" ) order[++n] = $4; last = $4 }
       if (min[$4] == "" || $1 < min[$4]) min[$4] = $1; if ($1 > max[$4]) max[$4] = $1 }
     END { for (i = 2; i <= n; i++) if (min[order[i]] <= max[order[i-1]]) { print order[i] " starts at " min[order[i]]; exit 1 } }' \
  "$out" || fail "ids went back"

# use-uniqid(no): RCPTID and UNIQID empty, HOSTID still there
: >"$out"
conf ""
start_sluice "$sluice" "$work/sluice.conf" -R "$work/persist"
send 3 off
stop_sluice
[ "$(head -1 "$out")" = "  $hostid off 0" ] || fail "use-uniqid(no): $(head -1 "$out")"
echo "uniqid: 150 ids unique and rising over a stop and a SIGKILL, host id $hostid kept"
