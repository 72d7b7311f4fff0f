#!/bin/sh
# Run Sluice and Debian's syslog-ng on the same configuration and the same
# input, then require the files they wrote to be identical.
#
# Usage: compare.sh SLUICE CONF INPUT
#   CONF    a syslog-ng configuration; @OUT@ is replaced by each daemon's
#           own output directory, @DATA@ by CONF's directory (for the
#           files a configuration reads).  It reads stdin(), so each daemon stops
#           by itself at the end of INPUT (and writes out what it holds).
#   INPUT   the bytes fed to both.
# SLUICE_SYSLOG_NG names the directory Debian's syslog-ng-core is unpacked
# in (scripts/fetch-syslog-ng.sh; scripts/test.sh sets it up).
set -eu
sluice=$1 conf=$2 input=$3
sng=${SLUICE_SYSLOG_NG:-}
if [ -z "$sng" ] || [ ! -x "$sng/usr/sbin/syslog-ng" ]; then
  echo "SLUICE_SYSLOG_NG must name an unpacked syslog-ng-core (scripts/fetch-syslog-ng.sh DIR)" >&2
  exit 1
fi
work=$(mktemp -d)
pid=""
trap 'if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi; rm -rf "$work"' EXIT

data=$(cd "$(dirname "$conf")" && pwd)
for who in sluice syslog-ng; do
  mkdir -p "$work/$who/out"
  # a configuration that includes scl.conf gets each daemon's own SCL:
  # syslog-ng's from the unpacked syslog-ng-scl, Sluice's from its scl/
  if [ "$who" = syslog-ng ] && grep -q '^@include "scl.conf"' "$conf"; then
    printf '@define include-path "%s/etc/syslog-ng:%s/usr/share/syslog-ng/include"\n' "$sng" "$sng" >"$work/$who/conf"
  else
    : >"$work/$who/conf"
  fi
  sed "s|@OUT@|$work/$who/out|g; s|@DATA@|$data|g" "$conf" >>"$work/$who/conf"
done

# Sluice gets its input only once it says it is running: an end of input
# that comes while it is still starting up must not be what the test is
# about.
mkfifo "$work/sluice/in"
TZ=UTC timeout 60 "$sluice" -F -f "$work/sluice/conf" <"$work/sluice/in" 2>"$work/sluice/stderr" &
pid=$!
exec 3>"$work/sluice/in"
i=0
until grep -q "starting up" "$work/sluice/stderr"; do
  i=$((i + 1))
  if [ "$i" -gt 600 ] || ! kill -0 "$pid" 2>/dev/null; then
    echo "sluice did not start:"; cat "$work/sluice/stderr"; exit 1
  fi
  sleep 0.1
done
cat "$input" >&3
exec 3>&-
status=0
wait "$pid" || status=$?
pid=""
if [ "$status" != 0 ]; then
  echo "sluice failed ($status):"; cat "$work/sluice/stderr"; exit 1
fi

# syslog-ng cannot poll a regular file on stdin: give it a pipe.  It
# stops at the end of its input and sends its program()s SIGTERM at once:
# under load a child that has not run yet writes nothing, so with
# program() destinations the input ends a second after its last line
linger=0
grep -q 'program(' "$conf" && linger=1
{ cat "$input"; sleep $linger; } | TZ=UTC LD_LIBRARY_PATH="$sng/usr/lib/syslog-ng" timeout 60 "$sng/usr/sbin/syslog-ng" -F --no-caps \
  --module-path="$sng/usr/lib/syslog-ng/3.38" -f "$work/syslog-ng/conf" -R "$work/syslog-ng/persist" \
  -p "$work/syslog-ng/pid" -c "$work/syslog-ng/ctl" 2>"$work/syslog-ng/stderr" || {
  echo "syslog-ng failed:"; cat "$work/syslog-ng/stderr"; exit 1; }

if ! diff -r "$work/syslog-ng/out" "$work/sluice/out" >"$work/diff"; then
  echo "Sluice's output differs from syslog-ng's for $(basename "$conf"):"
  head -50 "$work/diff"
  exit 1
fi
# the same files and directories with the same permissions (perm(),
# dir-perm(), create-dirs())
for who in sluice syslog-ng; do
  (cd "$work/$who/out" && find . -printf '%M %p\n' | sort) >"$work/$who/modes"
done
if ! diff "$work/syslog-ng/modes" "$work/sluice/modes" >"$work/diff"; then
  echo "Sluice's files or their permissions differ from syslog-ng's for $(basename "$conf"):"
  head -50 "$work/diff"
  exit 1
fi
n=$(find "$work/sluice/out" -type f -exec cat {} + | wc -l)
if [ "$n" -eq 0 ]; then
  echo "neither daemon wrote anything: the test would prove nothing"
  exit 1
fi
echo "ok: $n lines identical"
