#!/bin/sh
# compare.sh on a generated input: N lines (default 20000) over 50 hosts,
# 7 programs and all priorities, so that every batch spreads over many
# files.  Usage: compare-many.sh SLUICE CONF [N]
set -eu
sluice=$1 conf=$2 n=${3:-20000}
input=$(mktemp)
trap 'rm -f "$input"' EXIT
awk -v n="$n" 'BEGIN {
  for (i = 0; i < n; i++)
    printf "<%d>Nov 22 %02d:%02d:%02d host%02d app%d[%d]: message %d of the generated input\n",
      i % 192, (i / 3600) % 24, (i / 60) % 60, i % 60, i % 50, i % 7, 1000 + i % 13, i
}' >"$input"
sh "$(dirname "$0")/compare.sh" "$sluice" "$conf" "$input"
