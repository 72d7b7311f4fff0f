#!/bin/sh
# `sluice --stdio` turns syslog lines into the file lines syslog-ng writes.
# The expected output is what syslog-ng 3.38 wrote for the same input
# (tcp() source with keep-hostname(yes), file() destination, TZ=UTC).
# Usage: stdio.sh SLUICE INPUT EXPECTED
set -eu
sluice=$1 input=$2 expected=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

TZ=UTC "$sluice" --stdio <"$input" >"$work/out"
if ! cmp -s "$expected" "$work/out"; then
  echo "output differs from syslog-ng's:"
  diff -u "$expected" "$work/out" || true
  exit 1
fi

# The same lines octet-counted (RFC 6587), cut at every size of read.
: >"$work/framed"
while IFS= read -r line; do
  printf '%d %s\n' "$(($(printf '%s\n' "$line" | wc -c)))" "$line" >>"$work/framed"
done <"$input"
TZ=UTC "$sluice" --stdio --framing=octet-counted <"$work/framed" >"$work/out2"
if ! cmp -s "$expected" "$work/out2"; then
  echo "octet-counted output differs:"
  diff -u "$expected" "$work/out2" || true
  exit 1
fi

# A bad option is an error, not a silent default.
if "$sluice" --stdio --framing=bogus </dev/null 2>"$work/err"; then
  echo "--framing=bogus was accepted"
  exit 1
fi
grep -q "unknown --framing 'bogus'" "$work/err"
echo "ok"
