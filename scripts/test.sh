#!/bin/sh
# Build Sluice and run every test: the unit and functional suites with
# -Werror, the same suites under AddressSanitizer + UndefinedBehaviorSanitizer,
# and each libFuzzer target for a bounded time (FUZZ_SECONDS, default 15).
# This is README's second quick-start command and all that .ci/run runs.
set -eu

cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${SLUICE_TEST_BUILDDIR:-$ROOT/build-test}
FUZZ_SECONDS=${FUZZ_SECONDS:-15}

"$ROOT/scripts/install-deps.sh"

# The functional suite compares Sluice's output with Debian's syslog-ng
# 3.38 on the same input: unpack it once beside the builds.
SLUICE_SYSLOG_NG=${SLUICE_SYSLOG_NG:-$OUT/syslog-ng}
"$ROOT/scripts/fetch-syslog-ng.sh" "$SLUICE_SYSLOG_NG"
export SLUICE_SYSLOG_NG
# compare-slog runs syslog-ng's $(slog), slogkey and slogverify from the
# same unpack (syslog-ng-mod-slog)
SLUICE_SYSLOG_NG_SLOG=${SLUICE_SYSLOG_NG_SLOG:-$SLUICE_SYSLOG_NG}
export SLUICE_SYSLOG_NG_SLOG
# The RELP interop tests run Debian's rsyslog with imrelp/omrelp beside it.
SLUICE_RSYSLOG=${SLUICE_RSYSLOG:-$OUT/rsyslog}
"$ROOT/scripts/fetch-rsyslog.sh" "$SLUICE_RSYSLOG"
export SLUICE_RSYSLOG

total_pass=0
total_fail=0
total_skip=0
failed_names=""

# Count a suite's results (scripts/test-summary.py: Criterion cases, other
# tests one each, anything meson did not judge OK as failed) and keep the
# names of what failed for the end.
count_results() {
  summary=$(python3 "$ROOT/scripts/test-summary.py" "$1" "$2")
  echo "$summary" | sed '$d'
  set -- $(echo "$summary" | tail -1)
  total_pass=$((total_pass + $1))
  total_fail=$((total_fail + $2))
  total_skip=$((total_skip + $3))
  failed_names="$failed_names$(echo "$summary" | grep ': FAILED ' || true)
"
}

run_suite() {
  name=$1
  dir=$2
  shift 2
  echo "=== $name: configure and build"
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$ROOT" "$@"
  else
    meson configure "$dir" "$@"
  fi
  ninja -C "$dir"
  echo "=== $name: test"
  status=0
  meson test -C "$dir" --print-errorlogs --num-processes 2 || status=$?
  before=$total_fail
  count_results "$dir" "$name"
  if [ "$status" != 0 ] && [ "$total_fail" = "$before" ]; then
    # meson failed without a failed test in its log (it could not run them)
    echo "$name: FAILED meson test exited with $status"
    total_fail=$((total_fail + 1))
    failed_names="${failed_names}$name: FAILED meson test (exit $status)
"
  fi
}

run_suite "plain" "$OUT/plain" -Dwerror=true -Dbuildtype=debugoptimized

ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS UBSAN_OPTIONS
run_suite "sanitize" "$OUT/sanitize" -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false

echo "=== fuzz: build with clang, ${FUZZ_SECONDS}s per target"
if [ ! -f "$OUT/fuzz/build.ninja" ]; then
  CC=clang meson setup "$OUT/fuzz" "$ROOT" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false
fi
fuzz_targets=$(sed -n "s/^fuzz_targets = \[\(.*\)\]/\1/p" "$ROOT/tests/fuzz/meson.build" | tr -d "',")
for t in $fuzz_targets; do
  ninja -C "$OUT/fuzz" "tests/fuzz/fuzz-$t"
done
for t in $fuzz_targets; do
  work=$(mktemp -d)
  if "$OUT/fuzz/tests/fuzz/fuzz-$t" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$work/" "$work" "$ROOT/tests/fuzz/corpus/$t" >"$work.log" 2>&1; then
    echo "fuzz-$t: ok ($(grep -c . "$work.log") log lines, $(ls "$work" | wc -l) new inputs)"
    total_pass=$((total_pass + 1))
  else
    echo "fuzz-$t: FAILED"
    tail -40 "$work.log"
    total_fail=$((total_fail + 1))
    failed_names="${failed_names}fuzz: FAILED fuzz-$t
"
  fi
  rm -rf "$work" "$work.log"
done

if [ "$total_fail" != 0 ]; then
  echo "=== what failed"
  printf '%s' "$failed_names" | grep . || echo "(a build step; see above)"
fi
echo "all: $total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" = 0 ]
