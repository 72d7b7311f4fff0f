#!/bin/sh
# file("/dev/kmsg" format("linux-kmsg")): the kernel's log read by Sluice
# and by syslog-ng 3.38 with the same configuration gives the same lines
# (PRI, MSGID = the record's sequence number, .linux.timestamp, the text);
# the record's time is its boot-relative stamp (keep-timestamp(yes));
# records already there at start are not read; after a reload nothing is
# read twice.  Records are written to /dev/kmsg, which takes root: without
# it the test is skipped, saying why.
# Usage: file-kmsg.sh SLUICE
. "$(dirname "$0")/lib.sh"
sluice=$1
if [ "$(id -u)" != 0 ] || [ ! -c /dev/kmsg ] || [ ! -w /dev/kmsg ] || [ ! -r /dev/kmsg ]; then
  echo "SKIP: writing records to /dev/kmsg takes root and the device" >&2
  exit 77
fi
need_syslog_ng
marker=sluice-kmsg-$$-$(date +%s)
record() { printf '<%s>%s %s\n' "$1" "$marker" "$2" >/dev/kmsg; }
record 14 before-start

conf() {
  cat <<EOF2
@version: 3.38
source s { file("/dev/kmsg" format("linux-kmsg")); };
filter f { message("$marker"); };
destination d { file("$1" template("\$FACILITY.\$LEVEL|\$PROGRAM|\$MSGID|\${.linux.timestamp}|\$MSG\n")); };
destination t { file("$1.time" template("\$UNIXTIME \$R_UNIXTIME\n")); };
log { source(s); filter(f); destination(d); destination(t); };
EOF2
}
conf "$work/out.log" >"$work/sluice.conf"
conf "$work/sng.d/out.log" >"$work/sng.conf"
start_sluice "$sluice" "$work/sluice.conf" -R "$work/persist"
sng_start sng
sleep 0.5
t0=$(date +%s)
record 11 first
record 3 second
wait_lines "$work/out.log" 2
wait_lines "$work/sng.d/out.log" 2
# a reload opens the device again, at the kernel's oldest record: what was
# read is skipped, the next record is read once
kill -HUP "$pid"
wait_log "Configuration reload"
sleep 0.5
record 13 after-reload
wait_lines "$work/out.log" 3
wait_lines "$work/sng.d/out.log" 3
sleep 0.5
stop_sluice

grep -q before-start "$work/out.log" && fail "a record from before the start was read"
[ "$(wc -l <"$work/out.log")" -eq 3 ] || fail "$(wc -l <"$work/out.log") lines, want 3: $(cat "$work/out.log")"
cmp -s "$work/sng.d/out.log" "$work/out.log" || { diff -u "$work/sng.d/out.log" "$work/out.log"; fail "differs"; }
grep -q "^user.err||[0-9][0-9]*|[0-9][0-9]*|$marker second\$" "$work/out.log" || fail "$(cat "$work/out.log")"
# the record's own time, not when it was read: within a few seconds of
# when it was written
while read -r stamp recvd; do
  [ "$stamp" -ge $((t0 - 3)) ] && [ "$stamp" -le $((t0 + 30)) ] || fail "record time $stamp, written at $t0"
done <"$work/out.log.time"
echo "file-kmsg: $(wc -l <"$work/out.log") records as syslog-ng reads them"
