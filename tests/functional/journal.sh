#!/bin/sh
# systemd-journal() reads journal files that systemd-journal-remote writes
# from the journal export format into a directory of the test's
# (directory(), a Sluice extension: syslog-ng 3.38 reads only the host's
# journal).  Checked: the field mapping (MESSAGE, PRIORITY,
# SYSLOG_FACILITY, SYSLOG_IDENTIFIER/_COMM, _PID, _HOSTNAME, the entry's
# time in time-zone(), every field under prefix(), max-field-size(),
# default-facility()/default-level(), keep-hostname(), tags()); the first
# start with read-old-records(yes) (syslog-ng's default: from the start of
# the journal) and (no) (only what comes after); a reload and a restart go
# on after the last entry read, each entry exactly once; system() on a
# systemd host is systemd-journal(); bad options are refused.
# Usage: journal.sh SLUICE
. "$(dirname "$0")/lib.sh"
sluice=$1

remote=
for r in /lib/systemd/systemd-journal-remote /usr/lib/systemd/systemd-journal-remote; do
  [ -x "$r" ] && remote=$r && break
done
[ -n "$remote" ] || { echo "systemd-journal-remote not installed: skipped"; exit 77; }

mkdir -p "$work/j"
n=0
# jadd FIELD=VALUE...: one entry, its time 1700000000.000100 + n seconds
jadd() {
  n=$((n + 1))
  {
    printf '__REALTIME_TIMESTAMP=%d000100\n__MONOTONIC_TIMESTAMP=%d\n' $((1700000000 + n)) $((1000 + n))
    printf '_BOOT_ID=0123456789abcdef0123456789abcdef\n'
    for f in "$@"; do printf '%s\n' "$f"; done
    printf '\n'
  } | "$remote" -o "$work/j/remote.journal" - 2>"$work/remote.err" || { cat "$work/remote.err"; fail "journal-remote"; }
}

cat >"$work/j.conf" <<EOF
@version: 3.38
source s_all { systemd-journal(directory("$work/j") cursor-file("$work/cursor.all") time-zone("+02:00") tags("jtag")); };
source s_new { systemd-journal(directory("$work/j") cursor-file("$work/state/new/cursor") read-old-records(no)
  prefix("J.") max-field-size(5) keep-hostname(yes) default-facility(mail) default-level(err)); };
destination d_all { file("$work/all.log" template("\${ISODATE} \$(if (\"\${HOST}\" eq \"\${HOST_FROM}\") \"local\" \"\${HOST}\") \${PROGRAM}[\${PID}] \${FACILITY}.\${LEVEL} \${MSG} | \${.journald.FOO} \${.journald._HOSTNAME} \${.journald.SYSLOG_IDENTIFIER} \${TAGS} \${SOURCE}\n")); };
destination d_new { file("$work/new.log" template("\$(if (\"\${HOST}\" eq \"\${HOST_FROM}\") \"local\" \"\${HOST}\") \${PROGRAM} \${FACILITY}.\${LEVEL} \${MSG} | \${J.FOO} \${J.MESSAGE} [\${.journald.MESSAGE}]\n")); };
log { source(s_all); destination(d_all); };
log { source(s_new); destination(d_new); };
EOF

# bad options are refused before start
bad() {
  printf '@version: 3.38\nsource s { systemd-journal(%s); };\nlog { source(s); };\n' "$1" >"$work/bad.conf"
  if "$sluice" -s -f "$work/bad.conf" >"$work/bad.out" 2>&1; then fail "accepted: $1"; fi
  grep -q "$2" "$work/bad.out" || { cat "$work/bad.out"; fail "no '$2' for $1"; }
}
bad 'match-boot(yes)' "unknown option"
bad 'directory("/tmp") namespace("x")' "cannot be used together"
bad 'time-zone("Nowhere/Else")' "time zone"
bad 'default-level(loud)' "default-level"

# two sources keeping their positions in one file cannot start
cat >"$work/two.conf" <<EOF
@version: 3.38
source s { systemd-journal(directory("$work/j") cursor-file("$work/cursor.two")); };
source t { systemd-journal(directory("$work/j") cursor-file("$work/cursor.two") prefix("x.")); };
log { source(s); source(t); };
EOF
if timeout 20 "$sluice" -F -f "$work/two.conf" -p "$work/two.pid" >"$work/two.out" 2>&1; then fail "two sources on one cursor file started"; fi
grep -q "another systemd-journal() source keeps its position in $work/cursor.two" "$work/two.out" \
  || { cat "$work/two.out"; fail "no error for the shared cursor file"; }

# before the first start: the journal has one entry
jadd MESSAGE=old PRIORITY=6 SYSLOG_IDENTIFIER=early
start_sluice "$sluice" "$work/j.conf"
wait_lines "$work/all.log" 1
jadd "MESSAGE=full entry" PRIORITY=4 SYSLOG_FACILITY=3 SYSLOG_IDENTIFIER=myapp _PID=1234 _HOSTNAME=hostx \
  FOO=barbaz _COMM=commx
jadd "MESSAGE=comm only" _COMM=worker
wait_lines "$work/all.log" 3
wait_lines "$work/new.log" 2

# a reload goes on after the last entry read
reload_sluice
jadd "MESSAGE=after reload" SYSLOG_IDENTIFIER=r
wait_lines "$work/all.log" 4
wait_lines "$work/new.log" 3
stop_sluice

# written while stopped: read by the next start, after the saved cursor
jadd "MESSAGE=while stopped" SYSLOG_IDENTIFIER=s PRIORITY=x
[ -s "$work/cursor.all" ] && [ -s "$work/state/new/cursor" ] || fail "no cursor files"
start_sluice "$sluice" "$work/j.conf"
jadd "MESSAGE=after restart" SYSLOG_IDENTIFIER=t _HOSTNAME=
wait_lines "$work/all.log" 6
wait_lines "$work/new.log" 5
stop_sluice

cat >"$work/all.want" <<'EOF'
2023-11-15T00:13:21+02:00 local early[] local0.info old |   early jtag,.source.s_all s_all
2023-11-15T00:13:22+02:00 local myapp[1234] daemon.warning full entry | barbaz hostx myapp jtag,.source.s_all s_all
2023-11-15T00:13:23+02:00 local worker[] local0.notice comm only |    jtag,.source.s_all s_all
2023-11-15T00:13:24+02:00 local r[] local0.notice after reload |   r jtag,.source.s_all s_all
2023-11-15T00:13:25+02:00 local s[] local0.emerg while stopped |   s jtag,.source.s_all s_all
2023-11-15T00:13:26+02:00 local t[] local0.notice after restart |   t jtag,.source.s_all s_all
EOF
cat >"$work/new.want" <<'EOF'
hostx myapp daemon.warning full  | barba full  []
local worke mail.err comm  |  comm  []
local r mail.err after |  after []
local s mail.emerg while |  while []
local t mail.err after |  after []
EOF
diff "$work/all.want" "$work/all.log" || fail "all.log differs"
diff "$work/new.want" "$work/new.log" || { cat "$work/new.log"; fail "new.log differs"; }

# system() on a systemd host is systemd-journal() with its defaults: from
# the start of the journal the first time
mkdir -p "$work/run-systemd"
cat >"$work/sys.conf" <<EOF
@version: 3.38
source s_src { system(); };
destination d { file("$work/sys.log" template("\${PROGRAM} \${FACILITY}.\${LEVEL} \${MSG} \${.journald._PID}\n")); };
log { source(s_src); destination(d); };
EOF
SLUICE_RUN_SYSTEMD=$work/run-systemd SLUICE_JOURNAL_DIRECTORY=$work/j SLUICE_JOURNAL_CURSOR_FILE=$work/cursor.sys
export SLUICE_RUN_SYSTEMD SLUICE_JOURNAL_DIRECTORY SLUICE_JOURNAL_CURSOR_FILE
start_sluice "$sluice" "$work/sys.conf"
wait_lines "$work/sys.log" 6
stop_sluice
[ "$(wc -l <"$work/sys.log")" -eq 6 ] || fail "system(): $(wc -l <"$work/sys.log") lines"
grep -qx "myapp daemon.warning full entry 1234" "$work/sys.log" || { cat "$work/sys.log"; fail "system() mapping"; }
echo "journal: ok"
