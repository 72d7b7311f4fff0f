#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run README's two quick-start commands as a new user would, on a fresh
# minimal Debian 12: debootstrap a minbase root (no /etc/hosts, no openssl,
# no python3, nothing but what Debian calls required), clone this
# repository's committed HEAD into it, then
#   1. ./scripts/quickstart.sh: the daemon must start, and a line sent with
#      logger over TCP must reach var/log/messages;
#   2. ./scripts/test.sh: the whole suite must pass.
# Run it before a release (as root: debootstrap and chroot need it); it
# takes about 25 minutes on 2 cores and needs Debian's package mirror.
#
# Usage: scripts/fresh-root-check.sh [--user] [--keep] [DIR]
#   --user  run both commands as a new non-root user with sudo, instead of root
#   --keep  keep DIR afterwards (default: removed when the check passes)
#   DIR     where to build the root (default: a new directory under /var/tmp)
# Environment: SLUICE_MIRROR (Debian mirror), FUZZ_SECONDS (passed to test.sh).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
as_user=no
keep=no
dir=
for arg in "$@"; do
  case $arg in
    --user) as_user=yes ;;
    --keep) keep=yes ;;
    -*) echo "usage: $0 [--user] [--keep] [DIR]" >&2; exit 2 ;;
    *) dir=$arg ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "$0: needs root (debootstrap, chroot, mount)" >&2; exit 2; }
command -v debootstrap >/dev/null || "$ROOT/scripts/apt-missing.sh" debootstrap
[ -n "$dir" ] || dir=$(mktemp -d /var/tmp/sluice-fresh-root.XXXXXX)
MIRROR=${SLUICE_MIRROR:-http://deb.debian.org/debian}

mounted=""
cleanup() {
  for m in $mounted; do umount -l "$m" 2>/dev/null || true; done
  # never remove a root that still has the host's /dev or /proc mounted in it
  if [ "$keep" = no ] && [ "${passed:-no}" = yes ] && ! grep -q " $dir/" /proc/mounts; then rm -rf "$dir"; fi
}
trap cleanup EXIT

step() { echo "=== fresh-root: $* ($(date -u +%H:%M:%S))"; }

if [ ! -x "$dir/usr/bin/apt-get" ]; then
  step "debootstrap bookworm (minbase) into $dir"
  debootstrap --variant=minbase bookworm "$dir" "$MIRROR"
fi
cp /etc/resolv.conf "$dir/etc/resolv.conf"
# The machine's own certificate authorities (a proxy between it and the
# package registries may sign with one): copied before anything is
# installed, so that ca-certificates and Java's store take them in, as the
# machine's tools do (Maven fetches the Kafka and OpenSearch jars over https)
if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
  mkdir -p "$dir/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$dir/usr/local/share/ca-certificates/"
fi
# A minimal root has no /etc/hosts: leave it so, the tests must not need it.
rm -f "$dir/etc/hosts"

# The root a mount point of its own, as a machine's / is: Java finds a
# path's file store through /proc/self/mounts (the OpenSearch node of the
# elasticsearch-http test failed with "Mount point not found" without it)
mount --bind "$dir" "$dir"
mounted="$dir"
for m in proc sys dev dev/pts; do
  mkdir -p "$dir/$m"
  case $m in
    proc) mount -t proc proc "$dir/proc" ;;
    sys) mount -t sysfs sys "$dir/sys" ;;
    dev) mount --bind /dev "$dir/dev" ;;
    dev/pts) mount -t devpts devpts "$dir/dev/pts" ;;
  esac
  mounted="$dir/$m $mounted"
done

if [ "$as_user" = yes ]; then
  step "a new user with sudo"
  chroot "$dir" sh -c 'apt-get update -q && apt-get install -y -q --no-install-recommends sudo' >/dev/null
  chroot "$dir" sh -c 'id newuser >/dev/null 2>&1 || useradd -m -s /bin/sh newuser'
  echo 'newuser ALL=(ALL) NOPASSWD:ALL' >"$dir/etc/sudoers.d/newuser"
  home=/home/newuser
  run() { chroot "$dir" su - newuser -c "cd $home/sluice && $1"; }
else
  home=/root
  run() { chroot "$dir" sh -c "cd $home/sluice && $1"; }
fi

step "clone $(git -C "$ROOT" rev-parse --short HEAD) into $home/sluice"
rm -rf "$dir$home/sluice"
git clone -q --no-local "$ROOT" "$dir$home/sluice"
[ "$as_user" = no ] || chroot "$dir" chown -R newuser: "$home/sluice"

step "README command 1: ./scripts/quickstart.sh"
log=$dir/tmp/quickstart.log
run "./scripts/quickstart.sh" >"$log" 2>&1 &
qs=$!
i=0
until grep -q "listening on" "$log"; do
  i=$((i + 1))
  if [ $i -gt 1800 ] || ! kill -0 $qs 2>/dev/null; then
    tail -30 "$log"
    echo "FAIL: quickstart.sh did not start the daemon"
    exit 1
  fi
  sleep 1
done
chroot "$dir" logger --rfc3164 -n 127.0.0.1 -P 5514 -T "fresh-root-check $$"
i=0
until grep -q "fresh-root-check $$" "$dir$home/sluice/var/log/messages" 2>/dev/null; do
  i=$((i + 1))
  if [ $i -gt 50 ]; then
    tail -30 "$log"
    echo "FAIL: the line sent with logger did not reach var/log/messages"
    exit 1
  fi
  sleep 0.1
done
pkill -TERM -f "$home/sluice/build/sluice" || true
wait $qs || true
grep -h . "$log" | tail -5
echo "quickstart: ok (the daemon took a line from logger)"

step "README command 2: ./scripts/test.sh"
status=0
run "FUZZ_SECONDS=${FUZZ_SECONDS:-15} ./scripts/test.sh" 2>&1 | tee "$dir/tmp/test.log" || true
tail -1 "$dir/tmp/test.log" | grep -q "^all: [0-9]* passed, 0 failed" || status=1
if [ $status = 0 ]; then
  passed=yes
  step "passed"
else
  step "FAILED (root kept in $dir)"
fi
exit $status
