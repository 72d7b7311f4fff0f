#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Ask syslog-ng 3.38 how it parses syslog lines; write the expected table.

Developer tool, not run by CI.  It feeds every case of syslog_cases.py to a
real syslog-ng (Debian's 3.38, unpacked under /opt/sng/root by default) and
writes what syslog-ng made of each line into
tests/unit/syslog/syslog-corpus.h, which test-syslog-corpus.c includes.

How the answers are made unambiguous:
  * TZ=UTC, and libfaketime (apt-get install faketime) starts the wall
    clock at each group's "now" (the reference date the unit test passes as
    the reception time), so year guessing is reproducible; STAMP equal to
    the reception time is recorded as such ("no usable timestamp");
  * every field is printed base64-encoded, so any byte survives;
  * network sources add no SDATA of their own; local (unix-stream) sources
    add [meta sequenceId="N"], which is stripped here (no case both runs
    locally and carries a Cisco sequence number, which lands in the same
    SD parameter);
  * keep-hostname(yes) + use-dns(no): a line without a hostname gets the
    peer's address, which the table records as "no hostname" (NULL).

Usage: tests/oracle/syslog-oracle.py [--sng /opt/sng/root] [--print]
  --print   show the results instead of writing the header.
"""
import argparse
import base64
import calendar
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import syslog_cases  # noqa: E402

SRCDIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_HEADER = os.path.join(SRCDIR, "tests", "unit", "syslog", "syslog-corpus.h")
PEER = "127.0.0.1"
LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"

FIELDS = ["PRI", "HOST", "PROGRAM", "PID", "MSGID", "MESSAGE", "SDATA", "LEGACY_MSGHDR",
          "S_UNIXTIME", "S_USEC", "S_TZOFFSET", "R_UNIXTIME", "R_USEC", "RAWMSG"]
TEMPLATE = " ".join("$(base64-encode ${%s})" % f for f in FIELDS) + "\\n"

FLAG_NAMES = {
    "no-parse": "MF_NO_PARSE",
    "check-hostname": "MF_CHECK_HOSTNAME",
    "syslog-protocol": "MF_SYSLOG_PROTOCOL",
    "assume-utf8": "MF_ASSUME_UTF8",
    "validate-utf8": "MF_VALIDATE_UTF8",
    "no-multi-line": "MF_NO_MULTI_LINE",
    "no-hostname": "MF_NO_HOSTNAME",
    "expect-hostname": "MF_EXPECT_HOSTNAME",
    "store-raw-message": "MF_STORE_RAW_MESSAGE",
    "dont-store-legacy-msghdr": "MF_DONT_STORE_LEGACY_MSGHDR",
    "no-header": "MF_NO_HEADER",
    "no-rfc3164-fallback": "MF_NO_RFC3164_FALLBACK",
}


def _source_key(case):
    return (tuple(sorted(case.get("flags", ()))), case.get("local", False), case.get("tz"))


def _group_key(case):
    return case.get("now", syslog_cases.DEFAULT_NOW)


def _config(tmp, sources):
    lines = ["@version: 3.38",
             "options { keep-hostname(yes); use-dns(no); stats-freq(0); log-msg-size(65536); flush-lines(1); };"]
    for i, (key, src) in enumerate(sources.items()):
        flags, local, tz = key
        flag_str = " ".join(("store-raw-message",) + flags)
        tz_opt = ' time-zone("%s")' % tz if tz else ""
        if local:
            drv = 'unix-stream("%s" flags(%s)%s)' % (src["path"], flag_str, tz_opt)
        else:
            drv = 'network(transport(tcp) ip(%s) port(%d) flags(%s)%s)' % (PEER, src["port"], flag_str, tz_opt)
        lines.append("source s%d { %s; };" % (i, drv))
        lines.append('destination d%d { file("%s" template("%s")); };' % (i, src["out"], TEMPLATE))
        lines.append("log { source(s%d); destination(d%d); };" % (i, i))
    path = os.path.join(tmp, "oracle.conf")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def _free_port():
    s = socket.socket()
    s.bind((PEER, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _connect(src, deadline):
    while True:
        try:
            if "path" in src:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(src["path"])
            else:
                s = socket.create_connection((PEER, src["port"]))
            return s
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.1)


def _count_lines(path):
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except FileNotFoundError:
        return 0


def _feed_one(proc, src, case, local, deadline):
    """Send one line on its own connection and wait for what it became, so
    that a line syslog-ng drops or splits cannot shift the others."""
    line = case["input"]
    assert b"\n" not in line, case["name"]
    before = _count_lines(src["out"])
    s = _connect(src, deadline)
    s.sendall(line + b"\n")
    s.close()
    until = time.time() + 3
    while _count_lines(src["out"]) == before and time.time() < until:
        if proc.poll() is not None:
            sys.exit("syslog-ng exited")
        time.sleep(0.02)
    time.sleep(0.05)  # a split line would show up as more than one row
    with open(src["out"], "rb") as f:
        rows = f.read().split(b"\n")[:-1][before:]
    if len(rows) != 1:
        sys.exit("case %s gave %d messages; leave it out" % (case["name"], len(rows)))
    return _decode(rows[0], local)


def _run_group(sng, now, cases):
    tmp = tempfile.mkdtemp(prefix="sluice-oracle-")
    try:
        sources = {}
        for c in cases:
            key = _source_key(c)
            if key not in sources:
                n = len(sources)
                src = {"out": os.path.join(tmp, "out%d.txt" % n), "cases": []}
                if key[1]:
                    src["path"] = os.path.join(tmp, "sock%d" % n)
                else:
                    src["port"] = _free_port()
                sources[key] = src
            sources[key]["cases"].append(c)
        conf = _config(tmp, sources)
        # libfaketime preloaded into syslog-ng itself (not the faketime
        # wrapper, whose child a signal would miss); "@" starts the clock at
        # `now` and lets it run, which syslog-ng's timers need
        env = dict(os.environ, TZ="UTC", LD_LIBRARY_PATH=sng + "/usr/lib/syslog-ng",
                   LD_PRELOAD=LIBFAKETIME, FAKETIME="@" + now, FAKETIME_DONT_FAKE_MONOTONIC="1")
        cmd = [sng + "/usr/sbin/syslog-ng", "-F", "--no-caps",
               "--module-path=" + sng + "/usr/lib/syslog-ng/3.38", "-f", conf,
               "-R", tmp + "/persist", "-p", tmp + "/pid", "-c", tmp + "/ctl"]
        log = open(os.path.join(tmp, "syslog-ng.log"), "w")
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            results = {}
            deadline = time.time() + 15
            for key, src in sources.items():
                for c in src["cases"]:
                    results[id(c)] = _feed_one(proc, src, c, key[1], deadline)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        return results
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _decode(row, local):
    parts = row.split(b" ")
    assert len(parts) == len(FIELDS), row
    r = {f: base64.b64decode(p) for f, p in zip(FIELDS, parts)}
    if local:
        # a local source appends [meta sequenceId="N"]; it is not the parser's
        sd = r["SDATA"]
        i = sd.rfind(b'[meta sequenceId="')
        if i >= 0 and sd.endswith(b'"]'):
            r["SDATA"] = sd[:i]
    return r


def _tzoffset_seconds(s):
    s = s.decode()
    sign = -1 if s[0] == "-" else 1
    return sign * (int(s[1:3]) * 3600 + int(s[4:6]) * 60)


def _c_bytes(b):
    if b is None:
        return "NULL"
    out = []
    for ch in b:
        c = chr(ch)
        if c in '"\\':
            out.append("\\" + c)
        elif 32 <= ch < 127 and c != "?":  # '?': no trigraphs
            out.append(c)
        else:
            out.append("\\%03o" % ch)  # octal escapes are exactly 3 digits
    return '"' + "".join(out) + '"'


def _entry(c, r, now_sec):
    parse_error = r["PROGRAM"] == b"syslog-ng" and r["MESSAGE"].startswith(b"Error processing log message: ")
    host = r["HOST"]
    if host in (PEER.encode(), socket.gethostname().encode(), b""):
        host = None
    flags = [FLAG_NAMES[f] for f in c.get("flags", ())]
    if c.get("local"):
        # local sources: LF_LOCAL, and no hostname unless asked for
        flags.append("MF_LOCAL")
        if "expect-hostname" not in c.get("flags", ()):
            flags.append("MF_NO_HOSTNAME")
    flags = " | ".join(flags) or "0"
    s_sec, s_usec = int(r["S_UNIXTIME"]), int(r["S_USEC"] or b"0")
    r_sec, r_usec = int(r["R_UNIXTIME"]), int(r["R_USEC"] or b"0")
    # "no timestamp" makes STAMP the reception time; for RFC 5424's "-"
    # syslog-ng reads the clock again, a few microseconds later
    stamp_is_recvd = abs((s_sec - r_sec) * 1000000 + s_usec - r_usec) < 100000
    f = []
    f.append("    .name = %s," % _c_bytes(c["name"].encode()))
    f.append("    .input = %s, .input_len = %d," % (_c_bytes(c["input"]), len(c["input"])))
    f.append("    .flags = %s," % flags)
    f.append("    .tz = %s," % (_c_bytes(c["tz"].encode()) if c.get("tz") else "NULL"))
    f.append("    .now = %d," % now_sec)
    if parse_error:
        f.append("    /* syslog-ng: %s */" % _c_bytes(r["MESSAGE"][:120]).replace("*/", "*\\/"))
        f.append("    .parse_error = true,")
    else:
        f.append("    .pri = %d," % int(r["PRI"]))
        f.append("    .host = %s," % _c_bytes(host))
        f.append("    .program = %s," % _c_bytes(r["PROGRAM"]))
        f.append("    .pid = %s," % _c_bytes(r["PID"]))
        f.append("    .msgid = %s," % _c_bytes(r["MSGID"]))
        f.append("    .message = %s, .message_len = %d," % (_c_bytes(r["MESSAGE"]), len(r["MESSAGE"])))
        f.append("    .sdata = %s," % _c_bytes(r["SDATA"]))
        f.append("    .msghdr = %s," % _c_bytes(r["LEGACY_MSGHDR"]))
        if stamp_is_recvd:
            f.append("    .stamp_is_recvd = true,")
        else:
            f.append("    .sec = %d, .usec = %d, .gmtoff = %d," % (s_sec, s_usec, _tzoffset_seconds(r["S_TZOFFSET"])))
    return "  {\n" + "\n".join(f) + "\n  },\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sng", default="/opt/sng/root")
    ap.add_argument("--print", action="store_true")
    args = ap.parse_args()

    cases = syslog_cases.CASES
    names = [c["name"] for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit("duplicate case names: %s" % ", ".join(sorted(dup)))

    groups = {}
    for c in cases:
        groups.setdefault(_group_key(c), []).append(c)
    results = {}
    for now, group in groups.items():
        results.update(_run_group(args.sng, now, group))

    if args.print:
        for c in cases:
            r = results[id(c)]
            print(c["name"], c.get("flags", ()), c["input"])
            for k in FIELDS:
                if k != "RAWMSG":
                    print("   %-14s %r" % (k, r[k]))
        return

    out = ["/* SPDX-License-Identifier: GPL-2.0-or-later */\n",
           "/* GENERATED by tests/oracle/syslog-oracle.py from syslog_cases.py: do not edit.\n",
           " * Expected values are what syslog-ng 3.38 (Debian) made of each line, TZ=UTC.\n",
           " * parse_error = true: syslog-ng replaced the message with \"Error processing\n",
           " * log message: ...\"; Sluice deliberately differs (MESSAGE = the raw line,\n",
           " * LF_PARSE_ERROR, tag message.parse_error), see msg-format.h. */\n\n"]
    for c in cases:
        now_sec = calendar.timegm(time.strptime(_group_key(c), "%Y-%m-%d %H:%M:%S"))
        out.append(_entry(c, results[id(c)], now_sec))
    with open(OUT_HEADER, "w") as f:
        f.write("".join(out))
    print("wrote %d cases to %s" % (len(cases), OUT_HEADER))


if __name__ == "__main__":
    main()
