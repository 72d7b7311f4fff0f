#!/bin/sh
# file(): logrotate's way (rename the files, then SIGUSR1) loses nothing:
# what came before the signal stays in the renamed files, what comes after
# goes to new files at the configured paths, for a fixed path and for a
# path with macros alike.
# Usage: file-reopen.sh SLUICE
set -eu
sluice=$1
work=$(mktemp -d)
pid=""
trap 'if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
out=$work/out
cat >"$work/conf" <<CONF
@version: 3.38
options { keep-hostname(yes); create-dirs(yes); };
source s_in { stdin(); };
destination d_files { file("$out/messages"); file("$out/by-program/\${PROGRAM}.log"); };
log { source(s_in); destination(d_files); };
CONF

# wait_for FILE PATTERN: until grep finds PATTERN in FILE (30 s at most)
wait_for() {
  i=0
  until grep -q "$2" "$1" 2>/dev/null; do
    i=$((i + 1))
    if [ "$i" -gt 300 ] || ! kill -0 "$pid" 2>/dev/null; then
      echo "timed out waiting for '$2' in $1"; cat "$work/stderr"; exit 1
    fi
    sleep 0.1
  done
}

mkfifo "$work/in"
TZ=UTC timeout 60 "$sluice" -F -f "$work/conf" -p "$work/pid" <"$work/in" 2>"$work/stderr" &
pid=$!
exec 3>"$work/in"
wait_for "$work/stderr" "starting up"

printf '<13>Nov 22 10:00:00 h1 app: before 1\n<13>Nov 22 10:00:01 h1 web: before 2\n' >&3
wait_for "$out/messages" "before 2"
wait_for "$out/by-program/web.log" "before 2"
mv "$out/messages" "$out/messages.1"
mv "$out/by-program/app.log" "$out/by-program/app.log.1"
mv "$out/by-program/web.log" "$out/by-program/web.log.1"
# the signal goes to sluice itself, not to timeout(1) around it
kill -USR1 "$(cat "$work/pid")"
wait_for "$work/stderr" "Reopening destination files"
printf '<13>Nov 22 10:00:02 h1 app: after 1\n<13>Nov 22 10:00:03 h1 web: after 2\n' >&3
exec 3>&-
status=0
wait "$pid" || status=$?
pid=""
if [ "$status" != 0 ]; then
  echo "sluice failed ($status):"; cat "$work/stderr"; exit 1
fi

fail=0
check() {
  if [ "$(cat "$out/$1" 2>/dev/null)" != "$2" ]; then
    echo "$1: expected:"; printf '%s\n' "$2"; echo "got:"; cat "$out/$1" 2>/dev/null || echo "(missing)"
    fail=1
  fi
}
check messages.1 "Nov 22 10:00:00 h1 app: before 1
Nov 22 10:00:01 h1 web: before 2"
check messages "Nov 22 10:00:02 h1 app: after 1
Nov 22 10:00:03 h1 web: after 2"
check by-program/app.log.1 "Nov 22 10:00:00 h1 app: before 1"
check by-program/web.log.1 "Nov 22 10:00:01 h1 web: before 2"
check by-program/app.log "Nov 22 10:00:02 h1 app: after 1"
check by-program/web.log "Nov 22 10:00:03 h1 web: after 2"
[ "$fail" = 0 ] || exit 1
echo "ok: rotated and reopened"
