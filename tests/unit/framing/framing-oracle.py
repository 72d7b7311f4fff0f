#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Ask syslog-ng 3.38 how it frames byte streams and datagrams.

Developer tool, not run by CI.  Sends each case below to a real syslog-ng
(Debian's 3.38, unpacked under /opt/sng/root by default) over its own
connection (or as datagrams) and prints, one JSON line per case, the
messages it made before the client closed, whether syslog-ng had closed
the connection by then, the messages it made at EOF, and its internal log
lines (framing errors).  test-framing.c records these answers; "16" sources
use log-msg-size(16), "trim" ones trim-large-messages(yes).

Every source has flags(no-parse), so MESSAGE is the framed bytes; the
output template base64-encodes it, so any byte survives.

Usage: tests/unit/framing/framing-oracle.py [--sng /opt/sng/root]
"""
import argparse
import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

PEER = "127.0.0.1"

SOURCES = {
    "tcp": "network(transport(tcp) %s)",
    "tcp16": "network(transport(tcp) %s log-msg-size(16))",
    "tcp16trim": "network(transport(tcp) %s log-msg-size(16) trim-large-messages(yes))",
    "framed": "network(transport(framed) %s)",
    "framed16": "network(transport(framed) %s log-msg-size(16))",
    "framed16trim": "network(transport(framed) %s log-msg-size(16) trim-large-messages(yes))",
    "syslogtcp": "syslog(transport(tcp) %s)",
    "udp": "network(transport(udp) %s)",
    "udp16": "network(transport(udp) %s log-msg-size(16))",
}

D16 = b"0123456789abcdef"

# (name, source, [chunks]); each chunk is one send() (one datagram for udp)
CASES = [
    ("lf", "tcp", [b"a\nb\n"]),
    ("crlf", "tcp", [b"a\r\nb\r\n"]),
    ("nul", "tcp", [b"a\x00b\x00"]),
    ("nul_lf", "tcp", [b"a\x00\nb\n"]),
    ("cr_only", "tcp", [b"a\rb\r"]),
    ("empty_lines", "tcp", [b"\n\na\n\r\n\n"]),
    ("trailing_partial", "tcp", [b"a\nbcd"]),
    ("crcrlf", "tcp", [b"a\r\r\nb\n"]),
    ("lfcr", "tcp", [b"a\n\rb\n"]),
    ("cr_nul", "tcp", [b"a\r\x00b\n"]),
    ("only_spaces", "tcp", [b"  \n"]),
    ("only_crs", "tcp", [b"\r\r\r"]),
    ("exact16", "tcp16", [D16 + b"\nok\n"]),
    ("over16", "tcp16", [D16 + b"XYZ\nok\n"]),
    ("over16_twice", "tcp16", [D16 + D16 + b"QQ\nok\n"]),
    ("over16_trim", "tcp16trim", [D16 + b"XYZ\nok\n"]),
    ("exact16_crlf", "tcp16", [D16 + b"\r\nok\n"]),
    ("under16_crlf", "tcp16", [b"0123456789abcde\r\nok\n"]),
    ("one_over16", "tcp16", [D16 + b"g\nok\n"]),
    ("over16_chunks", "tcp16", [b"0123456789", b"abcdefXY", b"Z\nok\n"]),
    ("over16_at_eof", "tcp16", [D16 + b"XYZ"]),
    ("exact16_crs_at_eof", "tcp16", [D16 + b"\r\r"]),
    ("crs_then_text16", "tcp16", [D16 + b"\r\rX\nok\n"]),
    ("many_crs16", "tcp16", [D16 + b"\r\r\r\r\r\nok\n"]),
    ("head_crs16", "tcp16", [b"0123456789abcde\r\r\r\nok\n"]),
    ("f_basic", "framed", [b"3 abc5 hello"]),
    ("f_leading0", "framed", [b"003 abc"]),
    ("f_zero", "framed", [b"0 3 abc"]),
    ("f_nondigit", "framed", [b"x3 abc3 def"]),
    ("f_no_digits", "framed", [b" abc"]),
    ("f_plus", "framed", [b"+3 abc"]),
    ("f_exact16", "framed16", [b"16 " + D16 + b"3 abc"]),
    ("f_over16", "framed16", [b"17 " + D16 + b"g3 abc"]),
    ("f_over16_trim", "framed16trim", [b"17 " + D16 + b"g3 abc"]),
    ("f_over16_trim_skip", "framed16trim", [b"20 " + D16 + b"WXYZ2 ok"]),
    ("f_huge", "framed", [b"99999999999999999999 abc"]),
    ("f_10digits", "framed", [b"0000000003 abc"]),
    ("f_11digits", "framed", [b"00000000003 abc"]),
    ("f_4294967295", "framed", [b"4294967295 abc"]),
    ("f_no_space", "framed", [b"3abc"]),
    ("f_double_space", "framed", [b"3  abc"]),
    ("f_trailing_lf", "framed", [b"3 abc\n3 def"]),
    ("f_crlf_between", "framed", [b"3 abc\r\n3 def"]),
    ("f_lf_at_eof", "framed", [b"3 abc\n"]),
    ("f_partial_body_at_eof", "framed", [b"3 abc5 he"]),
    ("f_partial_header_at_eof", "framed", [b"3 abc12"]),
    ("f_lf_inside", "framed", [b"5 a\nb\nc3 def"]),
    ("f_nul_inside", "framed", [b"3 a\x00b"]),
    ("f_text", "framed", [b"<13>hello\n"]),
    ("syslog_tcp_text", "syslogtcp", [b"<13>hello\n"]),
    ("syslog_tcp_framed", "syslogtcp", [b"9 <13>hello"]),
    ("u_basic", "udp", [b"hello\n", b"a\nb\n", b"x\r\n", b"n\x00", b""]),
    ("u_lflf", "udp", [b"x\n\n"]),
    ("u_lfnul", "udp", [b"x\n\x00"]),
    ("u_nullf", "udp", [b"x\x00\n"]),
    ("u_mid_nul", "udp", [b"a\x00b"]),
    ("u_only_lf", "udp", [b"\n"]),
    ("u_only_nul", "udp", [b"\x00"]),
    ("u_over16", "udp16", [D16 + b"XYZ"]),
    ("u_exact16_lf", "udp16", [D16 + b"\n"]),
]


def _free_port(kind):
    s = socket.socket(socket.AF_INET, kind)
    s.bind((PEER, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _read_rows(path):
    try:
        with open(path, "rb") as f:
            return f.read().split(b"\n")[:-1]
    except FileNotFoundError:
        return []


def _start(sng, tmp):
    ports = {}
    lines = ["@version: 3.38",
             "options { keep-hostname(yes); use-dns(no); stats-freq(0); flush-lines(1); };"]
    for i, (name, drv) in enumerate(SOURCES.items()):
        kind = socket.SOCK_DGRAM if name.startswith("udp") else socket.SOCK_STREAM
        ports[name] = _free_port(kind)
        where = "ip(%s) port(%d) flags(no-parse)" % (PEER, ports[name])
        lines.append("source s%d { %s; };" % (i, drv % where))
        lines.append('destination d%d { file("%s/%s.out" template("$(base64-encode ${MESSAGE})\\n")); };'
                     % (i, tmp, name))
        lines.append("log { source(s%d); destination(d%d); };" % (i, i))
    lines.append('source si { internal(); }; destination di { file("%s/internal.out" template("${MESSAGE}\\n")); };'
                 ' log { source(si); destination(di); };' % tmp)
    conf = os.path.join(tmp, "oracle.conf")
    with open(conf, "w") as f:
        f.write("\n".join(lines) + "\n")
    env = dict(os.environ, LD_LIBRARY_PATH=sng + "/usr/lib/syslog-ng")
    log = open(os.path.join(tmp, "syslog-ng.log"), "w")
    proc = subprocess.Popen([sng + "/usr/sbin/syslog-ng", "-F", "--no-caps",
                             "--module-path=" + sng + "/usr/lib/syslog-ng/3.38", "-f", conf,
                             "-R", tmp + "/persist", "-p", tmp + "/pid", "-c", tmp + "/ctl"],
                            env=env, stdout=log, stderr=subprocess.STDOUT)
    time.sleep(1.0)
    return proc, ports


def _run_case(tmp, ports, src, chunks):
    out = os.path.join(tmp, src + ".out")
    internal = os.path.join(tmp, "internal.out")
    before, ibefore = len(_read_rows(out)), len(_read_rows(internal))
    after = []
    if src.startswith("udp"):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for c in chunks:
            s.sendto(c, (PEER, ports[src]))
        time.sleep(0.3)
        s.close()
        conn = "n/a"
        mid = _read_rows(out)[before:]
    else:
        s = socket.create_connection((PEER, ports[src]))
        for c in chunks:
            s.sendall(c)
            time.sleep(0.05)
        time.sleep(0.4)
        mid = _read_rows(out)[before:]
        s.settimeout(0.3)
        try:
            conn = "closed by syslog-ng" if s.recv(10) == b"" else "data"
        except socket.timeout:
            conn = "open"
        except ConnectionResetError:
            conn = "reset by syslog-ng"
        s.close()
        time.sleep(0.4)
        after = _read_rows(out)[before + len(mid):]
    errors = [r.decode(errors="replace") for r in _read_rows(internal)[ibefore:]
              if b"connection closed" not in r and b"connection accepted" not in r]
    return {"before_eof": [repr(base64.b64decode(r)) for r in mid], "connection": conn,
            "at_eof": [repr(base64.b64decode(r)) for r in after], "errors": errors}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sng", default="/opt/sng/root")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="sluice-framing-oracle-")
    proc = None
    try:
        proc, ports = _start(args.sng, tmp)
        for name, src, chunks in CASES:
            if proc.poll() is not None:
                sys.exit("syslog-ng exited")
            r = _run_case(tmp, ports, src, chunks)
            print(json.dumps(dict(name=name, source=src, **r)))
            sys.stdout.flush()
    finally:
        if proc:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
