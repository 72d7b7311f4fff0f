#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Run every <example> of a directory of patterndb rulesets (such as
syslog-ng-patterndb) through syslog-ng 3.38's pdbtool and sluice-pdbtool
and compare everything each one sets, name by name.

Developer tool, not run by CI (the rulesets are not in this repository).
It also runs `test` of both tools on every file and reports their verdicts.
With --logs, the rulesets merged into one (sluice-pdbtool merge) classify
every line of each log file (such as loghub's OpenSSH_2k.log) in both
tools (`match -f`), and each line's values are compared the same way.

Usage: tests/oracle/pdb-conformance.py --sng /tmp/sng --pdbtool BUILD/tools/sluice-pdbtool/sluice-pdbtool
           DIR [--logs LOG...]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def sng_cmd(sng, *args):
    # pdbtool loads its syslog parser before it reads --module-path: the
    # prefix from the environment is what finds it
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(sng, "usr/lib/syslog-ng"),
               SYSLOGNG_PREFIX=os.path.join(sng, "usr"))
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


def blocks(out):
    """match -f's output: one block of NAME=value lines per message"""
    for block in out.split("\n\n"):
        if block.strip():
            v = values(block)
            v.pop("LEGACY_MSGHDR", None)  # syslog-ng's own header copy, not a match's doing
            if v.get("PROGRAM") == "":  # syslog-ng prints a line without one as PROGRAM=, Sluice not at all
                del v["PROGRAM"]
            yield v


def compare_logs(args, files):
    same = differ = matched = 0
    with tempfile.TemporaryDirectory() as tmp:
        merged = os.path.join(tmp, "merged.pdb")
        rules = os.path.join(tmp, "rules")
        os.mkdir(rules)
        for i, path in enumerate(files):  # .pdb and .xml alike
            shutil.copy(path, os.path.join(rules, "%03d.pdb" % i))
        subprocess.run([args.pdbtool, "merge", "-D", rules, "-p", merged], check=True)
        for log in args.logs:
            want = list(blocks(sng_cmd(args.sng, "match", "-p", merged, "-f", log).stdout))
            got = list(blocks(subprocess.run([args.pdbtool, "match", "-p", merged, "-f", log],
                                             capture_output=True, text=True).stdout))
            if len(want) != len(got):
                print(f"DIFFER {log}: syslog-ng printed {len(want)} messages, sluice {len(got)}")
                differ += 1
            for w, g in zip(want, got):
                if w.get(".classifier.rule_id"):
                    matched += 1
                if w == g:
                    same += 1
                    continue
                differ += 1
                print(f"DIFFER {log}: message={w.get('MESSAGE')!r}")
                for k in sorted(set(w) | set(g)):
                    if w.get(k) != g.get(k):
                        print(f"  {k}: syslog-ng={w.get(k)!r} sluice={g.get(k)!r}")
    print(f"{len(args.logs)} logs, {same + differ} lines, {matched} matched by a rule in syslog-ng, "
          f"{same} alike, {differ} differences")
    return differ


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
    ap.add_argument("--logs", nargs="*", default=[])
    args = ap.parse_args()
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(args.dir) for f in fs if f.endswith((".pdb", ".xml")))
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
    if args.logs:
        differ += compare_logs(args, files)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
