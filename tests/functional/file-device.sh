#!/bin/sh
# file() on a character device (a pseudo-terminal standing in for a serial
# console or /proc/kmsg): read as it comes, not followed as a growing
# file, with flags(kernel) making lines without PRI kern.notice and a local
# kernel line's PROGRAM "kernel"; Sluice and syslog-ng 3.38 must write the
# same.  And file() on a FIFO is refused as syslog-ng refuses it.
# Usage: file-device.sh SLUICE SRCDIR
. "$(dirname "$0")/lib.sh"
sluice=$1 srcdir=$2
sng=${SLUICE_SYSLOG_NG:-}
[ -n "$sng" ] && [ -x "$sng/usr/sbin/syslog-ng" ] || fail "SLUICE_SYSLOG_NG must name an unpacked syslog-ng-core"

printf '<6>usb 1-1: new high-speed USB device\nplain kernel line\n<14>Nov 22 10:00:00 app[3]: user line\n<4>[ 12.5] trap\n' \
  >"$work/input"
n=4
for who in sluice syslog-ng; do
  d=$work/$who
  mkdir -p "$d"
  python3 "$srcdir/tests/functional/pty-writer.py" "$work/input" "$d/go" "$d/done" >"$d/tty" 2>"$d/pty.err" &
  writer=$!
  i=0
  until [ -s "$d/tty" ]; do i=$((i + 1)); [ $i -lt 100 ] || fail "no pty"; sleep 0.05; done
  cat >"$d/conf" <<EOF2
@version: 3.38
source s { file("$(cat "$d/tty")" flags(kernel)); };
destination d { file("$d/out" template("\$FACILITY.\$LEVEL|\$PROGRAM|\$PID|\$MSG\n")); };
log { source(s); destination(d); };
EOF2
  if [ $who = sluice ]; then
    TZ=UTC "$sluice" -F -f "$d/conf" -R "$d/persist" -p "$d/pid" -c "$d/ctl" >"$d/stderr" 2>&1 &
  else
    TZ=UTC LD_LIBRARY_PATH="$sng/usr/lib/syslog-ng" "$sng/usr/sbin/syslog-ng" \
      --module-path="$sng/usr/lib/syslog-ng/3.38" -F -f "$d/conf" -R "$d/persist" -p "$d/pid" -c "$d/ctl" \
      >"$d/stderr" 2>&1 &
  fi
  p=$!
  sleep 1
  touch "$d/go"
  wait_lines "$d/out" $n
  kill -TERM $p
  wait $p || { cat "$d/stderr"; fail "$who did not stop cleanly"; }
  touch "$d/done"
  # before the work directory goes with its done file (else the writer
  # waits its 60 s holding the test's output open)
  wait $writer || fail "pty-writer: $(cat "$d/pty.err")"
done
cmp -s "$work/syslog-ng/out" "$work/sluice/out" || { diff -u "$work/syslog-ng/out" "$work/sluice/out"; fail "differs"; }
[ "$(wc -l <"$work/sluice/out")" -eq $n ] || fail "$(wc -l <"$work/sluice/out") lines, want $n"
grep -q "^kern.notice|kernel||plain kernel line" "$work/sluice/out" || fail "flags(kernel): $(cat "$work/sluice/out")"

# a FIFO: refused at start, in syslog-ng's words
mkfifo "$work/fifo"
cat >"$work/fifo.conf" <<EOF2
@version: 3.38
source s { file("$work/fifo"); };
destination d { file("$work/fifo.out"); };
log { source(s); destination(d); };
EOF2
"$sluice" -F -f "$work/fifo.conf" -p "$work/fifo.pid" -c "$work/fifo.ctl" >"$work/fifo.err" 2>&1 \
  && fail "file() on a FIFO started"
grep -q "underlying file is a FIFO, it should be used by pipe()" "$work/fifo.err" || fail "$(cat "$work/fifo.err")"
echo "file-device: a character device read as it comes, as syslog-ng 3.38 reads it; a FIFO refused"
