#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# db-parser() correlation, Sluice against syslog-ng 3.38 on the same rules
# (data/correlation.xml) and input over loopback tcp():
#  - login/logout pairs closed by their context: a match action with
#    inherit-mode(context), last-message (with a condition that keeps root
#    out) and none, ${name}@N, $(context-length);
#  - a context that nobody closes: its timeout action fires while nothing
#    arrives, with $(context-values);
#  - a rate limit (rate='2/60': two of five pings answered);
#  - <create-context>: a job's match opens a second context holding the
#    action's message; both time out through the rule's timeout action.
# Lines are compared sorted: Sluice's correlation thread sends its messages
# after the one that triggered them, syslog-ng before.  Tags are sorted
# within a line (the two daemons number tags in another order).
# Usage: dbparser-correlation.sh SLUICE
. "$(dirname "$0")/../lib.sh"
sluice=$1
need_syslog_ng
data=$(cd "$(dirname "$0")/data" && pwd)
set -- $(free_ports tcp tcp)
p_sluice=$1 p_sng=$2

for who in sluice sng; do
  eval port=\$p_$who
  cat >"$work/$who.conf" <<EOF2
@version: 3.38
options { keep-hostname(yes); };
source s { tcp(ip(127.0.0.1) port($port)); };
parser p { db-parser(file("$data/correlation.xml")); };
destination d {
  file("$work/$who.out" template("\$HOST \$PROGRAM[\$PID] pri=\$PRI \$MESSAGE tags=\$TAGS\n"));
};
log { source(s); parser(p); destination(d); };
EOF2
done

cat >"$work/input" <<'EOF2'
<38>Nov 22 10:00:00 h1 sshd[10]: login alice from 10.0.0.1
<38>Nov 22 10:00:00 h1 sshd[11]: login bob from 10.0.0.2
<38>Nov 22 10:00:01 h1 sshd[10]: logout alice
<38>Nov 22 10:00:01 h1 sshd[12]: logout root
<38>Nov 22 10:00:01 h2 sshd[13]: ping a
<38>Nov 22 10:00:01 h2 sshd[13]: ping b
<38>Nov 22 10:00:01 h2 sshd[13]: ping c
<38>Nov 22 10:00:01 h2 sshd[13]: ping d
<38>Nov 22 10:00:01 h2 sshd[13]: ping e
<38>Nov 22 10:00:01 h3 sshd[14]: open j1
EOF2

send() {
  python3 -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(open(sys.argv[2], "rb").read()); s.close()' "$1" "$work/input"
}

start_sluice "$sluice" "$work/sluice.conf"
sng_start sng
send "$p_sluice"
send "$p_sng"
# 10 lines in, 5 from the logouts, 2 pongs, then bob's timeout (2 s) and
# the two contexts of job j1 (1 s) with nothing arriving
n=20
wait_lines "$work/sluice.out" "$n"
wait_lines "$work/sng.out" "$n"
sleep 1
stop_sluice
norm() {
  awk '{ i = index($0, " tags="); t = substr($0, i + 6); k = split(t, a, ",");
         for (x = 1; x <= k; x++)
           for (y = x + 1; y <= k; y++)
             if (a[y] < a[x]) { s = a[x]; a[x] = a[y]; a[y] = s }
         o = ""; for (x = 1; x <= k; x++) o = o (x > 1 ? "," : "") a[x];
         print substr($0, 1, i + 5) o }' "$1" | sort
}
norm "$work/sng.out" >"$work/sng.sorted"
norm "$work/sluice.out" >"$work/sluice.sorted"
if ! diff "$work/sng.sorted" "$work/sluice.sorted" >"$work/diff"; then
  cat "$work/diff"
  fail "Sluice's correlation output differs from syslog-ng's"
fi
[ "$(wc -l <"$work/sluice.out")" -eq "$n" ] || fail "expected $n lines, got $(wc -l <"$work/sluice.out")"
grep -q "TIMEOUT user=bob n=2" "$work/sluice.out" || fail "bob's context did not time out"
pongs=$(grep -c PONG "$work/sluice.out" || true)
[ "$pongs" -eq 2 ] || fail "rate='2/60' let $pongs through"
grep -q "CLOSED alice from 10.0.0.1 a0=logout alice n=3" "$work/sluice.out" ||
  fail "alice's session not closed"
grep -q "EXPIRED n=2 last=CHILD of j1" "$work/sluice.out" || fail "the context <create-context> made did not expire"
echo "dbparser-correlation: $n lines as syslog-ng 3.38 makes them (contexts, timeouts, rate limits, create-context)"
