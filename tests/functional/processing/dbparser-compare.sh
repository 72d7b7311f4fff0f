#!/bin/sh
# compare.sh for db-parser(): the configuration names the patterndb file
# by absolute path, so @DATA@ becomes the data directory first.
# Usage: dbparser-compare.sh COMPARE_SH SLUICE CONF INPUT
set -eu
compare=$1 sluice=$2 conf=$3 input=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed "s|@DATA@|$(cd "$(dirname "$conf")" && pwd)|g" "$conf" >"$tmp/$(basename "$conf")"
sh "$compare" "$sluice" "$tmp/$(basename "$conf")" "$input"
