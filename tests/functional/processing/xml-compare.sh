#!/bin/sh
# compare.sh for xml(): syslog-ng's xml() is a Debian package of its own
# (syslog-ng-mod-xml-parser), which scripts/fetch-syslog-ng.sh unpacks
# beside syslog-ng-core.  A reference directory made before it did has no
# xml() to compare with: that is a skip (77), not a pass.
# Usage: xml-compare.sh COMPARE_SH SLUICE CONF INPUT
set -eu
compare=$1
shift
sng=${SLUICE_SYSLOG_NG:-}
if [ -n "$sng" ] && [ -x "$sng/usr/sbin/syslog-ng" ] && [ ! -f "$sng/usr/lib/syslog-ng/3.38/libxml.so" ]; then
  echo "skipped: $sng has no syslog-ng-mod-xml-parser (remove it and run scripts/fetch-syslog-ng.sh $sng)"
  exit 77
fi
exec sh "$compare" "$@"
