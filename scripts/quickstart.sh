#!/bin/sh
# README's first quick-start command: install what building and running the
# daemon needs (not the test tools), build it without the tests, and run it
# in the foreground on the shipped default configuration (etc/sluice.conf):
# loopback TCP and UDP on port 5514, RFC 5424 on TCP port 5601 and a unix
# socket, files under var/log/ in the source tree (SLUICE_LOGDIR overrides).
# Arguments are passed on to the daemon.  Ctrl-C stops it.
set -eu

cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${SLUICE_BUILDDIR:-$ROOT/build}
SLUICE_LOGDIR=${SLUICE_LOGDIR:-$ROOT/var/log}
export SLUICE_LOGDIR

"$ROOT/scripts/install-deps.sh" --run
if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD" "$ROOT" -Dbuildtype=release -Dtests=false
fi
ninja -C "$BUILD"

mkdir -p "$SLUICE_LOGDIR" "$ROOT/var/run"
pidfile=$ROOT/var/run/sluice.pid
rm -f "$pidfile"
"$BUILD/sluice" -F -f "$ROOT/etc/sluice.conf" -p "$pidfile" "$@" &
daemon=$!
trap 'kill -TERM $daemon 2>/dev/null' INT TERM
# the daemon writes its pid file once every source is bound
while [ ! -s "$pidfile" ]; do
  if ! kill -0 $daemon 2>/dev/null; then
    status=0
    wait $daemon || status=$?
    echo "sluice: did not start (exit status $status)" >&2
    exit $status
  fi
  sleep 0.1
done
cat >&2 <<MSG
sluice: listening on 127.0.0.1:5514 (RFC 3164, tcp and udp), 127.0.0.1:5601
(RFC 5424, tcp) and $SLUICE_LOGDIR/log.sock; writing $SLUICE_LOGDIR/messages
and $SLUICE_LOGDIR/hosts/HOST/PROGRAM.log.  Ctrl-C stops.
Try:  logger --rfc3164 -n 127.0.0.1 -P 5514 -T "hello"
MSG
# wait returns early when a signal is trapped: wait again until it exits
while kill -0 $daemon 2>/dev/null; do
  status=0
  wait $daemon || status=$?
done
exit $status
