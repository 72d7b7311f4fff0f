#!/bin/sh
# README's first quick-start command: install what is missing, build, and run
# sluice in the foreground.  Until the daemon issue lands this is the
# --stdio mode (syslog lines in on stdin, syslog-ng file lines out on stdout).
set -eu

cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${SLUICE_BUILDDIR:-$ROOT/build}

"$ROOT/scripts/install-deps.sh"
if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD" "$ROOT" -Dbuildtype=release
fi
ninja -C "$BUILD"

echo "sluice: reading syslog lines on stdin, writing file lines to stdout (Ctrl-D ends)" >&2
exec "$BUILD/sluice" --stdio "$@"
