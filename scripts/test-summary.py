#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Count what one `meson test` run did, from its meson-logs/testlog.json.

A Criterion executable counts as its cases (its "Synthesis" line); every other
test (shell scripts, Python) counts as one.  A test that meson did not judge
OK counts as failed even when its cases passed: a crash after the synthesis,
a timeout, a leak report at exit.  Skipped tests (exit 77) are counted apart.

Usage: test-summary.py BUILDDIR NAME
Prints "NAME: P passed, F failed, S skipped (T meson tests: ...)" and the
names of the failed tests, one a line, each as "NAME: FAILED test-name
(result)"; the last line is "P F S" for the caller to add up.
"""
import json
import re
import sys

SYNTHESIS = re.compile(
    r"Synthesis: Tested: \d+ \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)")


def main():
    builddir, name = sys.argv[1], sys.argv[2]
    passed = failed = skipped = 0
    results = {}
    failures = []
    try:
        with open(f"{builddir}/meson-logs/testlog.json", encoding="utf-8",
                  errors="replace") as log:
            lines = log.readlines()
    except OSError as err:
        print(f"{name}: no test log ({err})")
        print("0 1 0")
        return
    for line in lines:
        test = json.loads(line)
        result = test["result"]
        results[result] = results.get(result, 0) + 1
        output = (test.get("stdout") or "") + (test.get("stderr") or "")
        found = SYNTHESIS.findall(output)
        ok = result in ("OK", "EXPECTEDFAIL")
        if found:
            p, f, c = (int(x) for x in found[-1])
            passed += p
            failed += f + c
            if not ok and f + c == 0:
                failed += 1
        elif result == "SKIP":
            skipped += 1
        elif ok:
            passed += 1
        else:
            failed += 1
        if not ok and result != "SKIP":
            failures.append(f"{test['name']} ({result})")
    detail = ", ".join(f"{n} {r}" for r, n in sorted(results.items()))
    print(f"{name}: {passed} passed, {failed} failed, {skipped} skipped "
          f"({len(lines)} meson tests: {detail})")
    for failure in failures:
        print(f"{name}: FAILED {failure}")
    print(f"{passed} {failed} {skipped}")


if __name__ == "__main__":
    main()
