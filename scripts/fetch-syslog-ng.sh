#!/bin/sh
# Unpack Debian's syslog-ng-core (the reference daemon and its loggen) and
# syslog-ng-mod-xml-parser (its xml() parser), syslog-ng-mod-graphite
# ($(graphite-output)), syslog-ng-mod-examples (its example-msg-generator()
# source), syslog-ng-mod-add-contextual-data, syslog-ng-mod-slog ($(slog),
# slogkey and slogverify: compare-slog), syslog-ng-mod-http (the http()
# under the SCL's slack(), telegram(), ...: compare-scl-destinations),
# syslog-ng-mod-stardate ($(stardate)) and syslog-ng-scl (the SCL
# that `@include "scl.conf"` brings in on Debian, such as
# default-network-drivers()) into a directory, without installing them as
# a service: the functional tests run it beside Sluice on the same input
# and compare the output, and tests/functional/corpus.sh checks the corpus
# with it.
# Usage: fetch-syslog-ng.sh DIR    (does nothing when DIR has them all already)
set -eu

dir=$1
if [ -x "$dir/usr/sbin/syslog-ng" ] && [ -f "$dir/usr/lib/syslog-ng/3.38/libxml.so" ] \
    && [ -f "$dir/usr/lib/syslog-ng/3.38/libgraphite.so" ] \
    && [ -f "$dir/usr/lib/syslog-ng/3.38/libexamples.so" ] \
    && [ -f "$dir/usr/lib/syslog-ng/3.38/libadd-contextual-data.so" ] \
    && [ -f "$dir/usr/lib/syslog-ng/3.38/libsecure-logging.so" ] && [ -x "$dir/usr/bin/slogverify" ] \
    && [ -f "$dir/usr/lib/syslog-ng/3.38/libhttp.so" ] \
    && [ -f "$dir/usr/lib/syslog-ng/3.38/libstardate.so" ] \
    && [ -f "$dir/usr/share/syslog-ng/include/scl/default-network-drivers/plugin.conf" ]; then
  exit 0
fi
# its shared libraries are installed as packages, it is only unpacked
exec "$(dirname "$0")/unpack-debs.sh" "$dir" \
  "libnet1 libpcre3 libwrap0 libivykis0 libjson-c5 libcap2 libsystemd0 libcurl4" \
  syslog-ng-core syslog-ng-mod-xml-parser syslog-ng-mod-graphite syslog-ng-mod-examples \
  syslog-ng-mod-add-contextual-data syslog-ng-mod-slog syslog-ng-mod-http syslog-ng-mod-stardate syslog-ng-scl
