#!/bin/sh
# Unpack Debian's syslog-ng-core (the reference daemon and its loggen) and
# syslog-ng-mod-xml-parser (its xml() parser) into a directory, without
# installing them as a service: the functional tests run it beside Sluice
# on the same input and compare the output.
# Usage: fetch-syslog-ng.sh DIR    (does nothing when DIR has both already)
set -eu

dir=$1
if [ -x "$dir/usr/sbin/syslog-ng" ] && [ -f "$dir/usr/lib/syslog-ng/3.38/libxml.so" ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then
  SUDO="sudo"
fi
# its shared libraries, without the package itself
libs="libnet1 libpcre3 libwrap0 libivykis0 libjson-c5 libcap2 libsystemd0"
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
(cd "$work" && apt-get download -q syslog-ng-core syslog-ng-mod-xml-parser >/dev/null 2>&1) || {
  $SUDO apt-get update -q
  (cd "$work" && apt-get download -q syslog-ng-core syslog-ng-mod-xml-parser)
}
mkdir -p "$dir.tmp"
dpkg -x "$work"/syslog-ng-core_*.deb "$dir.tmp"
dpkg -x "$work"/syslog-ng-mod-xml-parser_*.deb "$dir.tmp"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "fetch-syslog-ng: unpacked $(ls "$work") into $dir"
