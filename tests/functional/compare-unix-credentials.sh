#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pass-unix-credentials(), Sluice against Debian's syslog-ng 3.38: one
# process sends to a unix-dgram() and a unix-stream() source of each
# daemon, and both set the same .unix.pid, .unix.uid, .unix.gid,
# .unix.cmdline and .unix.exe (and .audit.* where the kernel keeps them);
# with pass-unix-credentials(no) on the source nothing is set, and
# so-passcred(no) does not override options { pass-unix-credentials(yes) }
# (syslog-ng's order).  And system(): 3.38 writes it on Linux without
# systemd as a channel whose rewrite makes the sender's pid PID; syslog-ng
# runs that text, Sluice its system() on a socket SLUICE_DEV_LOG names, and
# each message (RFC 3164 with a pid, without, with a host, RFC 5424) comes
# out with the same PROGRAM, PID, MSGHDR and MSG.
# Usage: compare-unix-credentials.sh SLUICE   (needs SLUICE_SYSLOG_NG)
. "$(dirname "$0")/lib.sh"
need_syslog_ng
sluice=$1

for who in sng slc; do
  cat >"$work/$who.conf" <<EOF2
@version: 3.38
options { pass-unix-credentials(yes); };
source s_dg { unix-dgram("$work/$who.dg"); };
source s_st { unix-stream("$work/$who.st"); };
source s_no { unix-dgram("$work/$who.no" pass-unix-credentials(no)); };
source s_so { unix-dgram("$work/$who.so" so-passcred(no)); };
destination d { file("$work/$who.out" template("\$SOURCE \$MSG \$(format-json --key .unix.* --key .audit.*)\n")); };
log { source(s_dg); source(s_st); source(s_no); source(s_so); destination(d); };
destination d_sys { file("$work/$who.sys.out" template("\$PROGRAM|\$PID|\$MSGHDR|\$MSG|\${.unix.pid}\n")); };
log { source(s_sys); destination(d_sys); };
EOF2
done
# syslog-ng 3.38's system() on Linux without systemd (modules/system-source)
cat >>"$work/sng.conf" <<EOF2
source s_sys { channel {
  source { unix-dgram("$work/sng.sys" so-rcvbuf(8192) flags(syslog-protocol)); };
  rewrite { set("\${.unix.pid}" value("PID") condition("\${.unix.pid}" ne "")); };
}; };
EOF2
echo 'source s_sys { system(exclude-kmsg(yes)); };' >>"$work/slc.conf"
SLUICE_DEV_LOG=$work/slc.sys
export SLUICE_DEV_LOG
sng_start sng
start_sluice "$sluice" "$work/slc.conf"
python3 - "$work" <<'EOF2' || fail "sender"
import socket, sys, time
work = sys.argv[1]
for who in ("sng", "slc"):
    for path, kind in (("dg", socket.SOCK_DGRAM), ("no", socket.SOCK_DGRAM), ("so", socket.SOCK_DGRAM),
                       ("st", socket.SOCK_STREAM)):
        s = socket.socket(socket.AF_UNIX, kind)
        s.connect("%s/%s.%s" % (work, who, path))
        line = b"<13>Nov 22 10:00:00 prog: via-" + path.encode() + (b"\n" if kind == socket.SOCK_STREAM else b"")
        s.send(line)
        s.close()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    for line in (b"<13>Nov 22 10:00:00 pidtest[4242]: pid-check", b"<13>Nov 22 10:00:00 nopid: nopid-check",
                 b"<13>1 2026-11-22T10:00:00Z h app 77 ID1 - five424", b"<13>Nov 22 10:00:00 host app[5]: a host"):
        s.sendto(line, "%s/%s.sys" % (work, who))
# the daemons read /proc/PID/cmdline and exe when a message comes: stay
# alive until both have written everything (a sender gone by then has its
# ids only, in syslog-ng and Sluice alike)
def lines(name):
    try:
        with open("%s/%s" % (work, name)) as f:
            return sum(1 for _ in f)
    except OSError:
        return 0
deadline = time.time() + 30
while time.time() < deadline and min(lines(n) for n in ("sng.out", "slc.out", "sng.sys.out", "slc.sys.out")) < 4:
    time.sleep(0.05)
EOF2
wait_lines "$work/sng.out" 4
wait_lines "$work/slc.out" 4
sort "$work/sng.out" >"$work/sng.sorted"
sort "$work/slc.out" >"$work/slc.sorted"
diff "$work/sng.sorted" "$work/slc.sorted" || fail "Sluice's credentials differ from syslog-ng's"
wait_lines "$work/sng.sys.out" 4
wait_lines "$work/slc.sys.out" 4
diff "$work/sng.sys.out" "$work/slc.sys.out" || fail "system(): Sluice's PID differs from syslog-ng's"
grep -q '^pidtest|[0-9]*|pidtest\[[0-9]*\]: |pid-check|[0-9]*$' "$work/slc.sys.out" && ! grep -q 4242 "$work/slc.sys.out" \
  || fail "system(): the sender's pid is not PID: $(cat "$work/slc.sys.out")"
grep -q '^s_dg via-dg {"_unix":{.*"pid":"[0-9]' "$work/slc.out" || fail "no .unix.pid on unix-dgram: $(cat "$work/slc.out")"
grep -q '^s_st via-st {"_unix":{.*"cmdline":"[^"]*python3' "$work/slc.out" || fail "no .unix.cmdline on unix-stream"
grep -q '^s_no via-no {}$' "$work/slc.out" || fail "pass-unix-credentials(no) set credentials"
grep -q '^s_so via-so {"_unix"' "$work/slc.out" || fail "so-passcred(no) overrode the global option"
stop_sluice
echo "compare-unix-credentials: the senders' credentials as syslog-ng 3.38 sets them, and system()'s PID"
