#!/bin/sh
# Unpack Debian's rsyslog with its RELP modules (rsyslog-relp: imrelp and
# omrelp, on librelp0) into a directory, without installing them as a
# service (rsyslog conflicts with syslog-ng-core): the RELP interop tests
# (tests/functional/relay/relp-rsyslog.sh) run rsyslogd from there.
# Shared libraries rsyslog needs are installed as packages when missing.
# Usage: fetch-rsyslog.sh DIR    (does nothing when DIR has them already)
set -eu

dir=$1
if [ -x "$dir/usr/sbin/rsyslogd" ] && [ -f "$dir/usr/lib/x86_64-linux-gnu/rsyslog/imrelp.so" ] \
  && ls "$dir"/usr/lib/x86_64-linux-gnu/librelp.so.* >/dev/null 2>&1; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then
  SUDO="sudo"
fi
libs="libestr0 libfastjson4 liblognorm5 libuuid1 libzstd1 zlib1g libsystemd0 libgnutls30 libssl3"
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
pkgs="rsyslog rsyslog-relp librelp0"
(cd "$work" && apt-get download -q $pkgs >/dev/null 2>&1) || {
  $SUDO apt-get update -q
  (cd "$work" && apt-get download -q $pkgs)
}
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
for deb in "$work"/*.deb; do
  dpkg -x "$deb" "$dir.tmp"
done
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "fetch-rsyslog: unpacked $(ls "$work") into $dir"
