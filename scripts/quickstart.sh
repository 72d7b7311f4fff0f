#!/bin/sh
# README's first quick-start command: install what is missing, build, and run
# the daemon in the foreground on the default configuration in etc/.
set -eu

cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${SLUICE_BUILDDIR:-$ROOT/build}

"$ROOT/scripts/install-deps.sh"
if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD" "$ROOT" -Dbuildtype=release
fi
ninja -C "$BUILD"

exec "$BUILD/src/sluice" -F -f "$ROOT/etc/sluice.conf" "$@"
