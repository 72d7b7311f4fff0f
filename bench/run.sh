#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The side-by-side benchmark in one command: installs what is missing,
# unpacks syslog-ng and rsyslog from Debian into directories (their packages
# conflict, and neither may start as a service here), builds Sluice in
# release mode, and runs bench/bench.py with the options given:
#
#   bench/run.sh            every scenario, 3 runs each (about 5 minutes)
#   bench/run.sh --quick    every scenario once, a quarter of the messages
#   bench/run.sh --help     bench.py's options (--scenario, --loggen, ...)
#
# Results go to bench/results/. It is a benchmark, never part of the tests.
# SLUICE_BENCH_BUILD (default build-bench/) is the Sluice build directory;
# the peers are unpacked under it, in deps/.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
build=${SLUICE_BENCH_BUILD:-$repo/build-bench}
deps=$build/deps

SUDO=""
if [ "$(id -u)" != 0 ]; then
  SUDO="sudo"
fi
updated=""
apt_update() {
  if [ -z "$updated" ]; then
    $SUDO apt-get update -q
    updated=yes
  fi
}
# installs the named Debian packages that are not installed yet
install_missing() {
  missing=""
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing="$missing $p"
    fi
  done
  if [ -n "$missing" ]; then
    echo "bench: installing:$missing"
    apt_update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
  fi
}
# unpacks Debian packages into a directory without installing them
unpack() {
  dir=$1
  shift
  work=$(mktemp -d)
  if ! (cd "$work" && apt-get download -q "$@" >/dev/null 2>&1); then
    apt_update
    (cd "$work" && apt-get download -q "$@")
  fi
  rm -rf "$dir.tmp"
  mkdir -p "$dir.tmp"
  for deb in "$work"/*.deb; do
    dpkg -x "$deb" "$dir.tmp"
  done
  rm -rf "$dir" "$work"
  mv "$dir.tmp" "$dir"
  echo "bench: unpacked $* into $dir"
}

# the harness, its chart, the TLS certificate, and the peers' shared
# libraries (not the peers themselves)
install_missing python3 python3-matplotlib openssl \
  libestr0 libfastjson4 liblognorm5 libuuid1 libzstd1 zlib1g libssl3 libgnutls30 \
  libnet1 libpcre3 libwrap0 libivykis0 libjson-c5 libcap2 libsystemd0 libglib2.0-0
"$repo/scripts/install-deps.sh"
mkdir -p "$deps"

if [ ! -x "$deps/syslog-ng/usr/sbin/syslog-ng" ]; then
  if [ -f "$repo/scripts/fetch-syslog-ng.sh" ]; then
    sh "$repo/scripts/fetch-syslog-ng.sh" "$deps/syslog-ng"
  else
    unpack "$deps/syslog-ng" syslog-ng-core
  fi
fi
# rsyslog-relp (imrelp, omrelp on librelp0) for the chain-relp scenario; a
# directory unpacked before it was added is unpacked again
if [ ! -x "$deps/rsyslog/usr/sbin/rsyslogd" ] || [ ! -f "$deps/rsyslog/usr/lib/x86_64-linux-gnu/rsyslog/imrelp.so" ]; then
  unpack "$deps/rsyslog" rsyslog rsyslog-openssl rsyslog-relp librelp0
fi

if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$repo" -Dbuildtype=release -Dtests=false
fi
ninja -C "$build"

# Debian's python3 is the one python3-matplotlib is installed for
py=python3
if [ -x /usr/bin/python3 ]; then
  py=/usr/bin/python3
fi
exec "$py" "$here/bench.py" --sluice "$build/sluice" \
  --syslog-ng-root "$deps/syslog-ng" --rsyslog-root "$deps/rsyslog" "$@"
