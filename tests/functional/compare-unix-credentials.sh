#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pass-unix-credentials(), Sluice against Debian's syslog-ng 3.38: one
# process sends to a unix-dgram() and a unix-stream() source of each
# daemon, and both set the same .unix.pid, .unix.uid, .unix.gid,
# .unix.cmdline and .unix.exe (and .audit.* where the kernel keeps them);
# with pass-unix-credentials(no) on the source nothing is set, and
# so-passcred(no) does not override options { pass-unix-credentials(yes) }
# (syslog-ng's order).
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
EOF2
done
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
EOF2
wait_lines "$work/sng.out" 4
wait_lines "$work/slc.out" 4
sort "$work/sng.out" >"$work/sng.sorted"
sort "$work/slc.out" >"$work/slc.sorted"
diff "$work/sng.sorted" "$work/slc.sorted" || fail "Sluice's credentials differ from syslog-ng's"
grep -q '^s_dg via-dg {"_unix":{.*"pid":"[0-9]' "$work/slc.out" || fail "no .unix.pid on unix-dgram: $(cat "$work/slc.out")"
grep -q '^s_st via-st {"_unix":{.*"cmdline":"[^"]*python3' "$work/slc.out" || fail "no .unix.cmdline on unix-stream"
grep -q '^s_no via-no {}$' "$work/slc.out" || fail "pass-unix-credentials(no) set credentials"
grep -q '^s_so via-so {"_unix"' "$work/slc.out" || fail "so-passcred(no) overrode the global option"
stop_sluice
echo "compare-unix-credentials: the senders' credentials as syslog-ng 3.38 sets them"
