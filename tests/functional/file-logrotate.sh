#!/bin/sh
# file() source under Debian's real logrotate: the followed file is rotated
# every second for about ten seconds while three writers append to it
# without a pause, once with `create` (rename, then a new file under the
# name) and once with `copytruncate` (copy, then truncate in place).
# Each writer appends one batch at a time, opening the file by its name
# for every batch: after a `create` rotation its next batch
# goes to the new file, as a daemon's does after logrotate's postrotate
# HUP.  loggen's checker counts every line: none missing, none twice.
# Usage: file-logrotate.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2
logrotate=$(command -v logrotate || echo /usr/sbin/logrotate)
[ -x "$logrotate" ] || { echo "logrotate is not installed (scripts/install-deps.sh installs it)"; exit 1; }

seconds=${FILE_LOGROTATE_SECONDS:-10}
writers="1 2 3"
batch=20

# writer DIR RUNID T: batches of $batch lines in loggen's format (thread T,
# numbered from 0) appended to DIR/in.log until DIR/stop exists; then the
# number written goes to DIR/count.T.  Every line has the same length, and
# dd writes each with its own write(): with O_APPEND a line is never cut by
# another writer's.  dd opens the file without creating it (nocreat): a
# writer that came between logrotate's rename and its `create` would make
# the new file first, and logrotate would then move it aside as a .backup
# (and fail on the second time in an hour).  A batch that found no file is
# written again a moment later.  A writer stops too when DIR is gone (the
# test failed and cleaned up).
writer() {
  _s=0
  _len=$(printf '<13>Nov 22 10:00:00 host app[1]: seq: %010d, thread: %04d, runid: %d, stamp: x PADD\n' 0 "$3" "$2" | wc -c)
  while [ -d "$1" ] && [ ! -e "$1/stop" ]; do
    if awk -v from=$_s -v n=$batch -v t="$3" -v r="$2" 'BEGIN {
      for (i = from; i < from + n; i++)
        printf "<13>Nov 22 10:00:00 host app[1]: seq: %010d, thread: %04d, runid: %d, stamp: x PADD\n", i, t, r
    }' | dd of="$1/in.log" bs="$_len" iflag=fullblock oflag=append conv=notrunc,nocreat status=none 2>/dev/null; then
      _s=$((_s + batch))
    fi
    sleep 0.01
  done
  [ -d "$1" ] && echo $_s >"$1/count.$3"
}

# keys FILE...: "runid thread seq" of every loggen line in them, sorted
keys() {
  cat "$@" 2>/dev/null | sed -n 's/.*seq: \([0-9]*\), thread: \([0-9]*\), runid: \([0-9]*\),.*/\3 \2 \1/p' | sort
}

# rotate MODE RUNID: one run; sets $total (lines written) and $rotations
rotate() {
  mode=$1 runid=$2
  dir=$work/$mode
  mkdir -p "$dir"
  cat >"$dir/sluice.conf" <<EOF2
@version: 3.38
source s { file("$dir/in.log" follow-freq(1)); };
destination d { file("$dir/out.log" template("\$MSG\n")); };
log { source(s); destination(d); };
EOF2
  # rotate 1000: every rotated copy is kept, for the copytruncate count
  cat >"$dir/logrotate.conf" <<EOF2
$dir/in.log {
  rotate 1000
  $mode
  missingok
  nocompress
}
EOF2
  : >"$dir/in.log"
  start_sluice "$sluice" "$dir/sluice.conf" -R "$dir/sluice.persist"
  wpids=
  for t in $writers; do
    writer "$dir" "$runid" "$t" &
    wpids="$wpids $!"
  done
  rotations=0
  end=$(($(date +%s) + seconds))
  while [ "$(date +%s)" -lt "$end" ]; do
    sleep 1
    "$logrotate" -f -s "$dir/logrotate.state" "$dir/logrotate.conf" >>"$dir/logrotate.log" 2>&1 \
      || { cat "$dir/logrotate.log"; fail "$mode: logrotate failed"; }
    rotations=$((rotations + 1))
  done
  touch "$dir/stop"
  for w in $wpids; do wait "$w"; done
  total=0
  for t in $writers; do total=$((total + $(cat "$dir/count.$t"))); done
  [ "$(ls "$dir"/in.log.* | wc -l)" -eq $rotations ] || fail "$mode: $rotations rotations, $(ls "$dir"/in.log.* | wc -l) rotated files"
}

# create: every line written is in some file, and must arrive once
rotate create 1764000020
wait_lines "$work/create/out.log" $total
stop_sluice
"$loggen" --check "$work/create/out.log" >"$work/create/report" || { cat "$work/create/report"; fail "create: loss"; }
grep -q "received=$total missing=0 duplicated=0 reordered=0: OK\$" "$work/create/report" \
  || { cat "$work/create/report"; fail "create: report (want $total lines)"; }
echo "create: $total lines from 3 writers over $rotations rotations, each once"

# copytruncate: logrotate copies the file, then truncates it.  Two kinds
# of line are lost by that whoever reads, and both happen here:
#  - what a writer adds between the copy's last read and the truncation is
#    in neither file (logrotate's manual says so): 20 to 960 lines a run
#    in the runs made (Sluice had often read them before the truncation);
#  - what a writer adds just before the copy's last read, and the reader
#    had not read yet when the truncation came, is in the copy only: a
#    reader follows the live file, never the copy.  One line in one run
#    of eight (the reader is a few milliseconds behind at most).
# So the check counts the lines that are in some file after the run (the
# rotated copies and the live file): each must have arrived once, except,
# in each copy, lines after the last one that arrived (the end that was
# truncated before the reader got to it), which must be few: at most one
# batch of each writer.  A line in a copy before one that arrived, or any
# line of the live file, must have arrived; a line Sluice read before the
# truncation may have arrived although no file has it.
rotate copytruncate 1764000021
dir=$work/copytruncate
keys "$dir"/in.log "$dir"/in.log.* >"$dir/in.keys"
kept=$(wc -l <"$dir/in.keys")
# the daemon reads on until nothing more comes for two seconds
last=-1
while [ "$(wc -l <"$dir/out.log")" -ne "$last" ]; do
  last=$(wc -l <"$dir/out.log")
  sleep 2
done
stop_sluice
keys "$dir/out.log" >"$dir/out.keys"
[ "$(uniq -d "$dir/in.keys" | wc -l)" -eq 0 ] || fail "copytruncate: logrotate left a line in two files"
dup=$(uniq -d "$dir/out.keys" | wc -l)
extra=$(comm -13 "$dir/in.keys" "$dir/out.keys" | wc -l)
tailmax=$((3 * batch))
unread=0
for f in "$dir"/in.log "$dir"/in.log.*; do
  # in the file's order: missing lines before the last one that arrived,
  # and after it
  set -- $(sed -n 's/.*seq: \([0-9]*\), thread: \([0-9]*\), runid: \([0-9]*\),.*/\3 \2 \1/p' "$f" | awk '
    NR == FNR { got[$0] = 1; next }
    { n++; if ($0 in got) last = n; else miss[n] = 1 }
    END { m = 0; t = 0; for (i in miss) { if (i + 0 > last) t++; else m++ }; print m, t }' "$dir/out.keys" -)
  [ "$1" -eq 0 ] || fail "copytruncate: $1 lines of $(basename "$f") before the last one that arrived did not arrive"
  [ "$f" != "$dir/in.log" ] || [ "$2" -eq 0 ] || fail "copytruncate: the live file's last $2 lines did not arrive"
  [ "$2" -le $tailmax ] || fail "copytruncate: $(basename "$f"): its last $2 lines did not arrive (at most $tailmax may)"
  unread=$((unread + $2))
done
"$loggen" --check "$dir/out.log" >"$dir/report" || true
echo "copytruncate: $total lines written over $rotations rotations, $kept in the files after the run" \
  "($((total - kept)) lost by logrotate between its copy and its truncation), $(wc -l <"$dir/out.log") arrived" \
  "($extra of them in no file: read before the truncation), $unread at the end of a copy truncated before" \
  "they were read, $dup twice"
[ "$dup" -eq 0 ] || { uniq -d "$dir/out.keys" | head; fail "copytruncate: $dup lines arrived twice"; }
[ $((kept + extra - unread)) -eq "$(wc -l <"$dir/out.log")" ] || fail "copytruncate: the counts do not add up"
# and loggen's checker agrees: nothing twice, nothing reordered, every
# line counted (what it finds missing is what the truncations lost)
grep -q "received=$((kept + extra - unread)) missing=[0-9]* duplicated=0 reordered=0: " "$dir/report" \
  || { cat "$dir/report"; fail "copytruncate: checker"; }
echo "file-logrotate: create and copytruncate every second under 3 writers, nothing lost by the reader, nothing twice"
