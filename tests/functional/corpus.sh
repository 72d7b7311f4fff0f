#!/bin/sh
# The corpus of real configurations (tests/corpus, issue 16 §6): every file
# through `sluice --syntax-only` with a timeout.  A crash (exit by a
# signal, a sanitizer report) or a hang on any file fails the test, and so
# does an accepted count below $min_accepted, today's measured count: it
# may only go up (raise it when Sluice learns something).  With
# SLUICE_SYSLOG_NG naming an unpacked syslog-ng (scripts/fetch-syslog-ng.sh
# DIR) each file must still be accepted by syslog-ng 3.38, or the corpus
# file is broken.
#
# It writes REPORT (markdown: the refusals grouped by what they name, then
# a row per file, as tests/corpus/REPORT.md holds) and prints it.
# Usage: corpus.sh SLUICE CORPUS_DIR REPORT
. "$(dirname "$0")/lib.sh"
sluice=$1 corpus=$2 report=$3

# files Sluice accepted (43 of 51 on 2026-11-26, 52 of 52 on 2026-11-28,
# when a file whose format-welf() takes a bare key glob came in); the goal is 95 %
min_accepted=52
# seconds a syntax check may take
limit=30

sng=${SLUICE_SYSLOG_NG:-}
if [ -n "$sng" ] && [ ! -x "$sng/usr/sbin/syslog-ng" ]; then
  fail "SLUICE_SYSLOG_NG=$sng has no usr/sbin/syslog-ng"
fi

# sng_check FILE: syslog-ng 3.38's verdict, "accepted" or its first error.
# Its include path is Debian's (the unpacked /etc/syslog-ng and SCL, then
# the file's own directory), given by a @define before the file's text.
sng_check() {
  _w=$work/sng-check.conf
  printf '@define include-path "%s/etc/syslog-ng:%s/usr/share/syslog-ng/include:%s"\n' \
    "$sng" "$sng" "$(dirname "$1")" >"$_w"
  cat "$1" >>"$_w"
  if LD_LIBRARY_PATH=$sng/usr/lib/syslog-ng timeout -k 5 $limit "$sng/usr/sbin/syslog-ng" \
      --module-path="$sng/usr/lib/syslog-ng/3.38" --syntax-only -f "$_w" >"$work/sng.out" 2>&1; then
    echo accepted
  else
    _e=$(grep -m1 -i 'error' "$work/sng.out" | cut -c1-200)
    echo "${_e:-refused}"
  fi
}

# group KEY of an error line: what it names ("default-network-drivers()
# source", "throttle() option"), else the message without its location
group_of() {
  echo "$1" | sed -e 's/^[^ ]*:[0-9]*:[0-9]*: //' \
    -e "s/^'\([^']*\)' is a syslog-ng \([a-z-]*\) that Sluice does not support yet.*/\1 \2/" \
    -e "s/^option '\([^']*\)' is not supported.*/\1() option/" \
    -e "s/^source driver '\([^']*\)' is not supported.*/\1() source/" \
    -e "s/^unknown module '\([^']*\)'.*/module \1/"
}

total=0 accepted=0 broken=0 bad=
: >"$work/rows" && : >"$work/groups"
for f in "$corpus"/*.conf; do
  name=$(basename "$f")
  total=$((total + 1))
  st=0
  timeout -k 5 $limit "$sluice" --syntax-only -f "$f" >"$work/out" 2>&1 || st=$?
  err=
  if [ $st -eq 0 ]; then
    verdict=accepted
    accepted=$((accepted + 1))
  elif [ $st -eq 124 ]; then
    verdict=HANG
    bad="$bad $name(hang)"
  elif [ $st -gt 128 ] || grep -q 'Sanitizer' "$work/out"; then
    verdict=CRASH
    bad="$bad $name(exit $st)"
    cat "$work/out"
  else
    verdict=refused
    err=$(grep -m1 . "$work/out" | sed "s|^$corpus/||")
    echo "$(group_of "$err")" >>"$work/groups"
  fi
  sv="-"
  if [ -n "$sng" ]; then
    sv=$(sng_check "$f")
    [ "$sv" = accepted ] || { broken=$((broken + 1)); echo "corpus file broken: syslog-ng 3.38 refuses $name: $sv"; }
  fi
  printf '| %s | %s | %s | %s |\n' "$name" "$sv" "$verdict" "$(echo "$err" | sed 's/|/\\|/g')" >>"$work/rows"
done

rate=$(awk -v a=$accepted -v t=$total 'BEGIN { printf "%.1f", t ? 100 * a / t : 0 }')
{
  echo "# Configuration corpus: Sluice against syslog-ng 3.38"
  echo
  echo "Written by tests/functional/corpus.sh: $total real configurations"
  echo "(tests/corpus, SOURCES.md), each through \`--syntax-only\`."
  echo
  echo "Sluice accepts $accepted of $total ($rate %); the goal is 95 %."
  echo
  echo "## Refusals by what they name"
  echo
  if [ -s "$work/groups" ]; then
    sort "$work/groups" | uniq -c | sort -k1,1nr -k2 | \
      awk '{ n = $1; $1 = ""; sub(/^ /, ""); printf "- %s: %d file%s\n", $0, n, n == 1 ? "" : "s" }'
  else
    echo "None."
  fi
  echo
  echo "## Every file"
  echo
  echo "| file | syslog-ng 3.38 | Sluice | Sluice's first error |"
  echo "| --- | --- | --- | --- |"
  cat "$work/rows"
} >"$report"
cat "$report"

[ -z "$bad" ] || fail "crashed or hung on:$bad"
[ $broken -eq 0 ] || fail "$broken corpus files syslog-ng 3.38 refuses"
[ $accepted -ge $min_accepted ] || fail "Sluice accepts $accepted of $total ($rate %), fewer than the $min_accepted recorded"
echo "corpus: Sluice accepts $accepted of $total files ($rate %)"
