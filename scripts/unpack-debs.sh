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

"$(dirname "$0")/apt-missing.sh" $libs

SUDO=""
if [ "$(id -u)" != 0 ]; then
  SUDO="sudo"
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
