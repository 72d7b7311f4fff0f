#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Ask syslog-ng 3.38 how it formats messages; write the expected table.

Developer tool, not run by CI.  It starts a real syslog-ng (Debian's 3.38,
unpacked under /opt/sng/root by default) with one network() source for
RFC 3164 input and one syslog() source for RFC 5424 input, and many
destinations: file() with the default line and with templates,
network() and syslog() pointed at TCP listeners in this script.  Every
input line is sent on its own connection; the exact bytes each destination
wrote are recorded into tests/unit/template/template-corpus.h, which
test-template-corpus.c includes.

How the answers are made reproducible:
  * TZ=UTC, and libfaketime starts syslog-ng's clock at NOW (the reception
    time the unit test uses), so BSD dates get the same year;
  * templates only use the message's own timestamp (S_ / plain macros),
    never the reception time or the current time;
  * a line without a hostname gets the peer's address (keep-hostname(yes),
    use-dns(no)); the unit test sets HOST, HOST_FROM and SOURCEIP the way a
    source would.

Usage: tests/oracle/template-oracle.py [--sng /opt/sng/root] [--print]
       tests/oracle/template-oracle.py --try 'TEMPLATE' ['TEMPLATE'...]
  --print   show the results instead of writing the header
  --try     format the first case with ad-hoc templates and print the bytes
"""
import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import template_cases  # noqa: E402

SRCDIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_HEADER = os.path.join(SRCDIR, "tests", "unit", "template", "template-corpus.h")
PEER = "127.0.0.1"
LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"


def _free_port():
    s = socket.socket()
    s.bind((PEER, 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Listener:
    """A TCP listener that keeps every byte it receives (one connection is
    enough: syslog-ng keeps its destination connection open)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((PEER, 0))
        self.sock.listen(4)
        self.port = self.sock.getsockname()[1]
        self.data = b""
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._read, args=(conn,), daemon=True).start()

    def _read(self, conn):
        while True:
            b = conn.recv(65536)
            if not b:
                return
            with self.lock:
                self.data += b

    def get(self):
        with self.lock:
            return self.data


def _records(kind, data):
    """Split what a destination wrote into one record per message."""
    out = []
    if kind == "syslog":
        while data:
            sp = data.find(b" ")
            if sp < 0:
                break
            n = int(data[:sp])
            if len(data) < sp + 1 + n:
                break
            out.append(data[:sp + 1 + n])
            data = data[sp + 1 + n:]
        return out
    while b"\n" in data:
        i = data.index(b"\n")
        out.append(data[:i + 1])
        data = data[i + 1:]
    return out


def _dest_driver(d, target):
    kind, opts = d["kind"], d.get("opts", "")
    if kind == "file":
        tpl = ""
        if "template" in d:
            assert "'" not in d["template"]
            # single quotes: the template reaches the compiler unchanged
            tpl = " template('%s')" % d["template"]
        return 'file("%s"%s %s)' % (target, tpl, opts)
    return '%s("%s" port(%d) transport(tcp) %s)' % (kind, PEER, target.port, opts)


def run(sng, cases, dests):
    tmp = tempfile.mkdtemp(prefix="sluice-tpl-oracle-")
    try:
        ports = {"3164": _free_port(), "5424": _free_port()}
        lines = ["@version: 3.38",
                 "options { keep-hostname(yes); use-dns(no); stats-freq(0); log-msg-size(65536);"
                 " flush-lines(1); time-reopen(1); };",
                 "source s3164 { network(transport(tcp) ip(%s) port(%d)); };" % (PEER, ports["3164"]),
                 "source s5424 { syslog(transport(tcp) ip(%s) port(%d)); };" % (PEER, ports["5424"])]
        targets = []
        for i, d in enumerate(dests):
            if d["kind"] == "file":
                target = os.path.join(tmp, "out%d" % i)
            else:
                target = Listener()
            targets.append(target)
            lines.append("destination d%d { %s; };" % (i, _dest_driver(d, target)))
            lines.append("log { source(s3164); source(s5424); destination(d%d); };" % i)
        conf = os.path.join(tmp, "oracle.conf")
        with open(conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        env = dict(os.environ, TZ="UTC", LD_LIBRARY_PATH=sng + "/usr/lib/syslog-ng",
                   LD_PRELOAD=LIBFAKETIME, FAKETIME="@" + template_cases.NOW, FAKETIME_DONT_FAKE_MONOTONIC="1")
        cmd = [sng + "/usr/sbin/syslog-ng", "-F", "--no-caps",
               "--module-path=" + sng + "/usr/lib/syslog-ng/3.38", "-f", conf,
               "-R", tmp + "/persist", "-p", tmp + "/pid", "-c", tmp + "/ctl"]
        log = open(os.path.join(tmp, "syslog-ng.log"), "w")
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            return _feed(proc, cases, dests, targets, ports, tmp)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _read_target(d, target):
    if d["kind"] == "file":
        try:
            with open(target, "rb") as f:
                return f.read()
        except FileNotFoundError:
            return b""
    return target.get()


def _feed(proc, cases, dests, targets, ports, tmp):
    for n, c in enumerate(cases, 1):
        deadline = time.time() + 10
        while True:
            try:
                s = socket.create_connection((PEER, ports[c["proto"]]))
                break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    sys.exit("syslog-ng did not start: " + open(tmp + "/syslog-ng.log").read())
                time.sleep(0.1)
        line = c["input"]
        if c["proto"] == "5424":
            s.sendall(b"%d %s" % (len(line), line))
        else:
            s.sendall(line + b"\n")
        s.close()
        while True:
            counts = [len(_records(d["kind"], _read_target(d, t))) for d, t in zip(dests, targets)]
            if min(counts) >= n:
                break
            if time.time() > deadline:
                sys.exit("case %s: destinations got %r messages" % (c["name"], counts))
            time.sleep(0.02)
    time.sleep(0.2)
    result = []
    for d, t in zip(dests, targets):
        recs = _records(d["kind"], _read_target(d, t))
        if len(recs) != len(cases):
            sys.exit("destination %s wrote %d records for %d cases" % (d["name"], len(recs), len(cases)))
        result.append(recs)
    return result


def _c_bytes(b):
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


TS_ENUM = {None: "LTZ_FORMAT_RFC3164", "rfc3164": "LTZ_FORMAT_RFC3164", "bsd": "LTZ_FORMAT_RFC3164",
           "iso": "LTZ_FORMAT_RFC3339", "rfc3339": "LTZ_FORMAT_RFC3339", "full": "LTZ_FORMAT_FULL",
           "unix": "LTZ_FORMAT_UNIX"}


def _dest_enum(d):
    if d["kind"] == "file":
        return "DEST_TEMPLATE" if "template" in d else "DEST_FILE"
    return {"network": "DEST_NETWORK", "syslog": "DEST_SYSLOG"}[d["kind"]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sng", default="/opt/sng/root")
    ap.add_argument("--print", action="store_true")
    ap.add_argument("--try", dest="try_", nargs="+")
    args = ap.parse_args()

    cases = template_cases.CASES
    dests = template_cases.DESTS
    if args.try_:
        cases = cases[:1]
        dests = [dict(name="try%d" % i, kind="file", template=t + "\n") for i, t in enumerate(args.try_)]
    results = run(args.sng, cases, dests)
    if args.print or args.try_:
        for d, recs in zip(dests, results):
            print("==", d["name"], d.get("template", d.get("opts", "")))
            for c, r in zip(cases, recs):
                print("   %-20s %r" % (c["name"], r))
        return

    out = ["/* SPDX-License-Identifier: GPL-2.0-or-later */\n",
           "/* GENERATED by tests/oracle/template-oracle.py from template_cases.py: do not edit.\n",
           " * What syslog-ng 3.38 (Debian) wrote for each input line and destination, TZ=UTC. */\n\n",
           "static const TemplateCase cases[] = {\n"]
    for c in cases:
        out.append("  { %s, %s, %d, %s },\n" % (_c_bytes(c["name"].encode()), _c_bytes(c["input"]),
                                              len(c["input"]), "true" if c["proto"] == "5424" else "false"))
    out.append("};\n\nstatic const TemplateDest dests[] = {\n")
    for d in dests:
        out.append("  { %s, %s, %s, %s, %d, %s },\n" % (
            _c_bytes(d["name"].encode()), _dest_enum(d),
            _c_bytes(d["template"].encode()) if "template" in d else "NULL",
            TS_ENUM[d.get("ts")], d.get("frac") or 0,
            _c_bytes(d["tz"].encode()) if d.get("tz") else "NULL"))
    out.append("};\n\n/* expected[dest][case] */\n")
    out.append("static const TemplateBytes expected[%d][%d] = {\n" % (len(dests), len(cases)))
    for d, recs in zip(dests, results):
        out.append("  { /* %s */\n" % d["name"])
        for r in recs:
            out.append("    { %s, %d },\n" % (_c_bytes(r), len(r)))
        out.append("  },\n")
    out.append("};\n")
    with open(OUT_HEADER, "w") as f:
        f.write("".join(out))
    print("wrote %d cases x %d destinations to %s" % (len(cases), len(dests), OUT_HEADER))


if __name__ == "__main__":
    main()
