#!/bin/sh
# file(): a file that cannot be opened holds its messages, and they are all
# written, in order, once the directory appears (retried every
# time-reopen()); nothing is lost or repeated.
# Usage: file-retry.sh SLUICE
set -eu
sluice=$1
work=$(mktemp -d)
pid=""
trap 'if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
out=$work/out
mkdir -p "$out"
cat >"$work/conf" <<CONF
@version: 3.38
options { keep-hostname(yes); };
source s_in { stdin(); };
destination d_late { file("$out/late/messages" time-reopen(1)); };
log { source(s_in); destination(d_late); flags(flow-control); };
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
TZ=UTC timeout 60 "$sluice" -F -f "$work/conf" <"$work/in" 2>"$work/stderr" &
pid=$!
exec 3>"$work/in"
wait_for "$work/stderr" "starting up"
i=0
while [ "$i" -lt 500 ]; do
  printf '<13>Nov 22 10:00:00 h1 app: line %d\n' "$i"
  i=$((i + 1))
done >&3
wait_for "$work/stderr" "Destination write failed"
mkdir "$out/late"
wait_for "$out/late/messages" "line 499"
exec 3>&-
status=0
wait "$pid" || status=$?
pid=""
if [ "$status" != 0 ]; then
  echo "sluice failed ($status):"; cat "$work/stderr"; exit 1
fi
i=0
while [ "$i" -lt 500 ]; do
  printf 'Nov 22 10:00:00 h1 app: line %d\n' "$i"
  i=$((i + 1))
done >"$work/expected"
if ! cmp -s "$work/expected" "$out/late/messages"; then
  echo "written after the retry differs from what was sent:"
  diff "$work/expected" "$out/late/messages" | head -20
  exit 1
fi
echo "ok: 500 lines held and written after the directory appeared"
