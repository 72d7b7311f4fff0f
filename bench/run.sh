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
#   bench/run.sh --udp-sweep [--help]   UDP loss by rate (bench/udp-sweep.py)
#
# Results go to bench/results/. It is a benchmark, never part of the tests.
# SLUICE_BENCH_BUILD (default build-bench/) is the Sluice build directory;
# the peers are unpacked under it, in deps/.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
build=${SLUICE_BENCH_BUILD:-$repo/build-bench}
deps=$build/deps

scripts=$repo/scripts
# the harness, its chart and the TLS certificate
"$scripts/apt-missing.sh" python3 python3-matplotlib openssl
"$scripts/install-deps.sh"
mkdir -p "$deps"

# the peers, unpacked (their shared libraries installed as packages):
# rsyslog with rsyslog-openssl for tls-file and rsyslog-relp for chain-relp
"$scripts/fetch-syslog-ng.sh" "$deps/syslog-ng"
"$scripts/fetch-rsyslog.sh" "$deps/rsyslog"

if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$repo" -Dbuildtype=release -Dtests=false
fi
ninja -C "$build"

# Debian's python3 is the one python3-matplotlib is installed for
py=python3
if [ -x /usr/bin/python3 ]; then
  py=/usr/bin/python3
fi
# --udp-sweep (first): bench/udp-sweep.py, the UDP loss-by-rate sweep,
# with the rest of the options
script=bench.py
if [ "${1:-}" = --udp-sweep ]; then
  shift
  script=udp-sweep.py
fi
exec "$py" "$here/$script" --sluice "$build/sluice" \
  --syslog-ng-root "$deps/syslog-ng" --rsyslog-root "$deps/rsyslog" "$@"
