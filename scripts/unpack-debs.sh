#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Unpack Debian packages into a directory without installing them (the
# reference daemons the tests and the benchmark run beside Sluice: their
# packages conflict, and neither may start as a service here), after
# installing as packages the shared libraries they need.
# Usage: unpack-debs.sh DIR "LIB-PACKAGES" PACKAGE...
# DIR is replaced as a whole once everything is unpacked.
set -eu

dir=$1
libs=$2
shift 2

SUDO=""
if [ "$(id -u)" != 0 ]; then
  SUDO="sudo"
fi
missing=""
for p in $libs; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
if [ -n "$missing" ]; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download -q "$@" >/dev/null 2>&1) || {
  $SUDO apt-get update -q
  (cd "$work" && apt-get download -q "$@")
}
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
for deb in "$work"/*.deb; do
  dpkg -x "$deb" "$dir.tmp"
done
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "unpacked $(ls "$work" | tr '\n' ' ')into $dir"
