#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Run every <example> of a directory of patterndb rulesets (such as
syslog-ng-patterndb) through syslog-ng 3.38's pdbtool and sluice-pdbtool
and compare everything each one sets, name by name.

Developer tool, not run by CI (the rulesets are not in this repository).
It also runs `test` of both tools on every file and reports their verdicts.

Usage: tests/oracle/pdb-conformance.py --sng /tmp/sng --pdbtool BUILD/tools/sluice-pdbtool/sluice-pdbtool DIR
"""
import argparse
import os
import subprocess
import sys
import xml.etree.ElementTree as ET


def sng_cmd(sng, *args):
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(sng, "usr/lib/syslog-ng"))
    cmd = [os.path.join(sng, "usr/bin/pdbtool"), args[0],
           "--module-path=" + os.path.join(sng, "usr/lib/syslog-ng/3.38"), *args[1:]]
    return subprocess.run(cmd, env=env, capture_output=True, text=True)


def values(out):
    v = {}
    for line in out.splitlines():
        if "=" in line:
            k, _, val = line.partition("=")
            v[k] = val
    if "TAGS" in v:  # tag ids, hence their order, differ between the two
        v["TAGS"] = ",".join(sorted(v["TAGS"].split(",")))
    return v


def examples(path):
    for ex in ET.parse(path).getroot().iter("example"):
        tm = ex.find("test_message")
        if tm is not None and tm.text is not None:
            yield tm.get("program", ""), tm.text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sng", default="/tmp/sng")
    ap.add_argument("--pdbtool", required=True)
    ap.add_argument("dir")
    args = ap.parse_args()
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(args.dir) for f in fs if f.endswith(".pdb"))
    same = differ = 0
    for path in files:
        for prog, msg in examples(path):
            want = values(sng_cmd(args.sng, "match", "-p", path, "-P", prog, "-M", msg).stdout)
            r = subprocess.run([args.pdbtool, "match", "-p", path, "-P", prog, "-M", msg],
                               capture_output=True, text=True)
            got = values(r.stdout)
            if want == got:
                same += 1
                continue
            differ += 1
            print(f"DIFFER {path}: program={prog!r} message={msg!r}")
            for k in sorted(set(want) | set(got)):
                if want.get(k) != got.get(k):
                    print(f"  {k}: syslog-ng={want.get(k)!r} sluice={got.get(k)!r}")
        sng_ok = sng_cmd(args.sng, "test", path).returncode == 0
        our_ok = subprocess.run([args.pdbtool, "test", path], capture_output=True).returncode == 0
        if sng_ok != our_ok:
            differ += 1
            print(f"DIFFER {path}: test verdict syslog-ng={sng_ok} sluice={our_ok}")
    print(f"{len(files)} files, {same} examples alike, {differ} differences")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
