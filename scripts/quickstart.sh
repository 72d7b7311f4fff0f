#!/bin/sh
# README's first quick-start command: install what is missing, build, and run
# the daemon in the foreground on the shipped default configuration
# (etc/sluice.conf): loopback TCP and UDP on port 5514 and a unix socket,
# files under var/log/ in the source tree (SLUICE_LOGDIR overrides).
set -eu

cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${SLUICE_BUILDDIR:-$ROOT/build}
SLUICE_LOGDIR=${SLUICE_LOGDIR:-$ROOT/var/log}
export SLUICE_LOGDIR

"$ROOT/scripts/install-deps.sh"
if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD" "$ROOT" -Dbuildtype=release
fi
ninja -C "$BUILD"

mkdir -p "$SLUICE_LOGDIR" "$ROOT/var/run"
cat >&2 <<MSG
sluice: listening on 127.0.0.1:5514 (RFC 3164, tcp and udp), 127.0.0.1:5601
(RFC 5424, tcp) and $SLUICE_LOGDIR/log.sock; writing $SLUICE_LOGDIR/messages
and $SLUICE_LOGDIR/hosts/HOST/PROGRAM.log.  Ctrl-C stops.
Try:  logger --rfc3164 -n 127.0.0.1 -P 5514 -T "hello"
MSG
exec "$BUILD/sluice" -F -f "$ROOT/etc/sluice.conf" -p "$ROOT/var/run/sluice.pid" "$@"
