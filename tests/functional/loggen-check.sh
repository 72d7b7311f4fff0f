#!/bin/sh
# The loss checker (loggen --check) on a clean capture and on copies with an
# injected gap, duplicate and reordering, with the bodies inside other line
# formats. Usage: loggen-check.sh LOGGEN SINK
set -eu
LC_ALL=C
export LC_ALL
loggen=$1 sink=$2
work=$(mktemp -d)
sink_pid=
trap '[ -n "$sink_pid" ] && kill "$sink_pid" 2>/dev/null; rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $*"
  [ -f "$work/report" ] && cat "$work/report"
  exit 1
}
. "$(dirname "$0")/sink-lib.sh"

# check EXPECTED_STATUS ARGS...: runs the checker, report in $work/report.
check() {
  want=$1
  shift
  set +e
  "$loggen" --check "$@" >"$work/report" 2>&1
  got=$?
  set -e
  [ "$got" -eq "$want" ] || fail "--check $* exited $got, not $want"
}

"$sink" --tcp --port-file "$work/port" --out "$work/clean" --idle 2 --max 60 &
sink_pid=$!
sink_port
"$loggen" -S -n 200 -r 1000000 --active-connections=2 127.0.0.1 "$port" 2>/dev/null
wait "$sink_pid"
sink_pid=

check 0 "$work/clean" --expect 200
grep -q '^check: threads=2 received=400 missing=0 duplicated=0 reordered=0: OK$' "$work/report" || fail "clean"

# The body inside a destination's own line format (here syslog-ng's file line).
sed 's/^<38>[^ ]* localhost /Nov 23 12:00:00 relay /' "$work/clean" >"$work/reformatted"
check 0 "$work/reformatted" --expect 200

# A gap: seq 50 of thread 1 is gone.
grep -v 'seq: 0000000050, thread: 0001' "$work/clean" >"$work/gap"
check 1 "$work/gap"
grep -q 'thread=0001 received=199 missing=1 ' "$work/report" || fail "gap count"
grep -q '^  missing: 50$' "$work/report" || fail "gap listed"

# Loss at the end is only visible against --expect.
grep -v 'seq: 0000000199, thread: 0000' "$work/clean" >"$work/tail"
check 0 "$work/tail"
check 1 "$work/tail" --expect 200
grep -q '^  missing: 199$' "$work/report" || fail "tail listed"

# A thread that delivered nothing is only visible against --expect-threads.
grep -v 'thread: 0001' "$work/clean" >"$work/onethread"
check 0 "$work/onethread" --expect 200
check 1 "$work/onethread" --expect 200 --expect-threads 2
grep -q 'thread=0001 received=0 missing=200 duplicated=0 reordered=0 absent$' "$work/report" || fail "absent thread"
check 1 "$work/onethread" --expect-threads 2
grep -q 'thread=0001 received=0 missing=0 duplicated=0 reordered=0 absent$' "$work/report" || fail "absent thread without --expect"
if "$loggen" --check "$work/clean" --expect -1 2>/dev/null; then fail "negative --expect accepted"; fi

# A duplicate: fails, unless duplicates are allowed (at-least-once).
{ cat "$work/clean"; grep 'seq: 0000000007, thread: 0000' "$work/clean"; } >"$work/dup"
check 1 "$work/dup"
grep -q 'thread=0000 received=201 missing=0 duplicated=1 reordered=0' "$work/report" || fail "dup count"
grep -q '^  duplicated: 7$' "$work/report" || fail "dup listed"
check 0 "$work/dup" --allow-duplicates

# Reordering: seq 10 of thread 0 arrives after seq 11.
awk '/seq: 0000000010, thread: 0000/ { held = $0; next }
     { print }
     /seq: 0000000011, thread: 0000/ { print held }' "$work/clean" >"$work/reorder"
check 1 "$work/reorder"
grep -q 'thread=0000 received=200 missing=0 duplicated=0 reordered=1' "$work/report" || fail "reorder count"
grep -q '^  reordered: 10$' "$work/report" || fail "reorder listed"
check 0 "$work/reorder" --allow-reordering

# A directory: its files are read together; order is judged per file.
mkdir "$work/dir"
grep 'thread: 0000' "$work/clean" >"$work/dir/a"
grep 'thread: 0001' "$work/clean" >"$work/dir/b"
check 0 "$work/dir" --expect 200
check 1 "$work/dir" "$work/clean"
grep -q 'duplicated=200' "$work/report" || fail "second path not read"

# Nothing to check, and unreadable input.
: >"$work/empty"
check 1 "$work/empty"
grep -q 'no loggen messages found' "$work/report" || fail "empty"
check 2 "$work/nosuch"
echo "loggen-check: all cases passed"
