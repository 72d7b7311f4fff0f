#!/bin/sh
# compare.sh on a configuration that names an in-list() file: @LIST@
# becomes a copy of LIST in a temporary directory (compare.sh itself only
# fills in @OUT@).
# Usage: filter-compare.sh COMPARE SLUICE CONF INPUT LIST
set -eu
compare=$1 sluice=$2 conf=$3 input=$4 list=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$list" "$work/list.txt"
sed "s|@LIST@|$work/list.txt|g" "$conf" >"$work/filters.conf"
sh "$compare" "$sluice" "$work/filters.conf" "$input"
