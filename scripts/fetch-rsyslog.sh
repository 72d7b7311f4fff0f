#!/bin/sh
# Unpack Debian's rsyslog with its RELP modules (rsyslog-relp: imrelp and
# omrelp, on librelp0) and its OpenSSL stream driver (rsyslog-openssl) into
# a directory, without installing them as a service (rsyslog conflicts with
# syslog-ng-core): the RELP interop tests (tests/functional/relay/relp-*)
# and the benchmark (bench/run.sh) run rsyslogd from there.
# Usage: fetch-rsyslog.sh DIR    (does nothing when DIR has them already)
set -eu

dir=$1
mods=$dir/usr/lib/x86_64-linux-gnu/rsyslog
if [ -x "$dir/usr/sbin/rsyslogd" ] && [ -f "$mods/imrelp.so" ] && [ -f "$mods/lmnsd_ossl.so" ] \
  && ls "$dir"/usr/lib/x86_64-linux-gnu/librelp.so.* >/dev/null 2>&1; then
  exit 0
fi
# the shared libraries rsyslog needs are installed as packages
exec "$(dirname "$0")/unpack-debs.sh" "$dir" \
  "libestr0 libfastjson4 liblognorm5 libuuid1 libzstd1 zlib1g libsystemd0 libgnutls30 libssl3" \
  rsyslog rsyslog-relp librelp0 rsyslog-openssl
