#!/bin/sh
# pipe() source: a FIFO made by the daemon (mode 0600, create-dirs(yes)),
# one made beforehand with mode 0644 (the daemon's perm() wins, as in
# syslog-ng), fed by writers one after another (each opens, writes a
# batch, closes: a writer closing must not end the source), a line split
# over two writers, a reload while writers come and go (the FIFO is
# carried over), a stop that sends a last line without its end as it is,
# and a regular file at the path refused unless optional(yes).  loggen's
# checker counts every line: none missing, none twice.
# Usage: pipe-source.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2

mkfifo -m 0644 "$work/old.fifo"
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { pipe("$work/dir/new.fifo" create-dirs(yes)); pipe("$work/old.fifo"); };
destination d { file("$work/out.log" template("\$MSG [\$TRANSPORT] \$FILE_NAME\n")); };
log { source(s); destination(d); };
EOF2

# write FIFO N: one writer opens FIFO, writes N lines in loggen's format
# (no hostname: pipe() expects none), closes.  Each FIFO is its own
# loggen "thread" (0 for new.fifo, 1 for old.fifo), numbered on from its
# last line: the two are read apart and may interleave.
seq0=0 seq1=0 seq=0
write() {
  case $1 in *new.fifo) t=0 from=$seq0 ;; *) t=1 from=$seq1 ;; esac
  awk -v from=$from -v n="$2" -v t=$t 'BEGIN {
    for (i = from; i < from + n; i++)
      printf "<13>Nov 22 10:00:00 app[1]: seq: %010d, thread: %04d, runid: 1764000000, stamp: x PADD\n", i, t
  }' >"$1"
  if [ $t = 0 ]; then seq0=$((seq0 + $2)); else seq1=$((seq1 + $2)); fi
  seq=$((seq + $2))
}

start_sluice "$sluice" "$work/sluice.conf"
[ -p "$work/dir/new.fifo" ] || fail "the FIFO was not made"
[ "$(stat -c %a "$work/dir/new.fifo")" = 600 ] || fail "new FIFO mode $(stat -c %a "$work/dir/new.fifo")"
[ "$(stat -c %a "$work/old.fifo")" = 600 ] || fail "old FIFO mode $(stat -c %a "$work/old.fifo")"

# twenty writers in turn on each FIFO
i=0
while [ $i -lt 20 ]; do
  write "$work/dir/new.fifo" 100
  write "$work/old.fifo" 50
  i=$((i + 1))
done
arrived "writers in turn"
grep -q " \[local+pipe\] $work/dir/new.fifo\$" "$work/out.log" || fail "TRANSPORT or FILE_NAME: $(head -1 "$work/out.log")"

# a line one writer leaves without its end is finished by the next
line=$(printf '<13>Nov 22 10:00:00 app[1]: seq: %010d, thread: 0001, runid: 1764000000, stamp: x PADD' $seq1)
printf '%s' "$(echo "$line" | cut -c1-40)" >"$work/old.fifo"
sleep 0.3
printf '%s\n' "$(echo "$line" | cut -c41-)" >"$work/old.fifo"
seq1=$((seq1 + 1)) seq=$((seq + 1))
arrived "a line over two writers"

# a reload while writers come and go: nothing lost, nothing twice
i=0
while [ $i -lt 20 ]; do
  write "$work/dir/new.fifo" 100
  [ $i -eq 10 ] && kill -HUP "$pid"
  i=$((i + 1))
done
wait_log "Configuration reload finished"
wait_log "Named pipe kept open across the reload"
arrived "reload"

# a stop: the part of a line read so far goes out as it is
printf '<13>Nov 22 10:00:00 app[1]: seq: %010d, thread: 0001, runid: 1764000000, stamp: x no end' $seq1 \
  >"$work/old.fifo"
seq1=$((seq1 + 1)) seq=$((seq + 1))
sleep 0.5
stop_sluice
[ "$(wc -l <"$work/out.log")" -eq $seq ] || fail "stop: out.log has $(wc -l <"$work/out.log") lines, want $seq"
tail -1 "$work/out.log" | grep -q "stamp: x no end \[local+pipe\]" || fail "the last line: $(tail -1 "$work/out.log")"

"$loggen" --check "$work/out.log" >"$work/report" || { cat "$work/report"; fail "loss"; }
grep -q "received=$seq missing=0 duplicated=0 reordered=0: OK\$" "$work/report" \
  || { cat "$work/report"; fail "report"; }

# something that is not a FIFO: refused, unless optional(yes)
: >"$work/plain"
cat >"$work/bad.conf" <<EOF2
@version: 3.38
source s { pipe("$work/plain"); };
destination d { file("$work/bad.log"); };
log { source(s); destination(d); };
EOF2
if "$sluice" -F -f "$work/bad.conf" -p "$work/pid2" >"$work/bad.out" 2>&1; then
  fail "a regular file was taken as a FIFO"
fi
grep -q "underlying file is not a FIFO" "$work/bad.out" || fail "no error: $(cat "$work/bad.out")"
sed -i 's|pipe("\([^"]*\)")|pipe("\1" optional(yes))|' "$work/bad.conf"
start_sluice "$sluice" "$work/bad.conf"
wait_log "Optional pipe() source could not be opened"
stop_sluice

echo "pipe-source: $seq lines through pipe(): writers in turn, a split line, a reload, a stop"
