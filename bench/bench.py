#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Side-by-side benchmark of Sluice, syslog-ng and rsyslog.

Each scenario is a syslog-ng configuration under bench/scenarios/NAME.conf,
given unchanged to Sluice and to syslog-ng, with an rsyslog equivalent in
NAME.rsyslog.conf.  Only the placeholders @PORT@, @OUT@, @WORK@, @CERT@,
@KEY@, @IN@, @SCENARIOS@ and @SINKPORT@ (bench: sink = tcp or daemon) are filled in, the same way for every daemon.
A chain (bench: sink = daemon) runs a second instance of the same daemon
as the far end, on NAME.sink.conf (NAME.sink.rsyslog.conf for rsyslog).  A run starts one
daemon, sends a fixed number of messages with loggen, waits until every
expected line is in the output files, and reads the daemon's CPU time and
peak RSS from /proc.  Each run is repeated and the median is reported.

This is a benchmark, not a test: it asserts nothing about speed.  The
machine is shared by loggen and the daemon, as it would be on a relay.

bench/run.sh installs the peers and builds Sluice, then calls this script.
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from benchreport import (DAEMONS, REPO, chart, git_describe, goal_verdict, machine, markdown, median_or_none, ratios,
                         summarize, write_results)

HERE = os.path.dirname(os.path.abspath(__file__))
CLK_TCK = os.sysconf("SC_CLK_TCK")

# -------------------------------------------------------------- scenarios


def parse_scenario(path):
    """Reads the '# bench: key = value' header of a scenario file."""
    meta = {
        "name": os.path.basename(path)[: -len(".conf")],
        "title": "",
        "transport": "tcp",
        "connections": 1,
        "size": 400,
        "messages": 100000,
        "input": "loggen",
        "expect": 1.0,
        "expect-match": None,
        "goal": None,
        "keep": None,
        "keep-of": None,
        "order": 100,
        "rate": 0,
        "steady": "no",
        "sink": "none",
        "not-for": "",
        # transport = file: the daemon reads files that the harness writes
        # before it starts (bench/filegen.c), "files" of them, dealt over
        # "dirs" directories under @IN@ (0: @IN@ itself)
        "files": 1,
        "dirs": 0,
        "timeout": 0,
    }
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for line in text.splitlines():
        m = re.match(r"^#\s*bench:\s*([a-z-]+)\s*=\s*(.*?)\s*$", line)
        if not m:
            continue
        key, value = m.group(1), m.group(2)
        if key not in meta:
            raise ValueError("%s: unknown bench key %r" % (path, key))
        if key in ("connections", "size", "messages", "order", "rate", "files", "dirs", "timeout"):
            meta[key] = int(value)
        elif key in ("expect", "goal", "keep"):
            meta[key] = float(value)
        elif key == "not-for" and meta[key]:
            meta[key] += "\n" + value  # one line per daemon
        else:
            meta[key] = value
    if meta["transport"] not in ("tcp", "udp", "tls", "file"):
        raise ValueError("%s: transport must be tcp, udp, tls or file" % path)
    if meta["transport"] == "file" and (meta["sink"] != "none" or meta["input"] != "loggen"):
        raise ValueError("%s: transport = file reads generated loggen-style lines, no sink" % path)
    if not 1 <= meta["files"] <= 10000:
        raise ValueError("%s: files must be 1..10000" % path)
    if meta["sink"] not in ("none", "tcp", "daemon"):
        raise ValueError("%s: sink must be none, tcp or daemon" % path)
    if meta["input"] not in ("loggen", "mixed", "kv", "json"):
        raise ValueError("%s: input must be loggen, mixed, kv or json" % path)
    if (meta["keep"] is None) != (meta["keep-of"] is None):
        raise ValueError("%s: keep and keep-of go together" % path)
    # "not-for = DAEMON: why": the scenario does not apply to that daemon
    # (a protocol it does not speak); the table says so instead of an error.
    # One such line per daemon.
    na = {}
    for entry in meta["not-for"].splitlines():
        d, _, why = entry.partition(":")
        na[d.strip()] = why.strip() or "not applicable"
    meta["not-for"] = na
    meta["path"] = path
    meta["text"] = text
    rs = path[: -len(".conf")] + ".rsyslog.conf"
    meta["rsyslog_path"] = rs if os.path.exists(rs) else None
    if meta["sink"] == "daemon":
        sk = path[: -len(".conf")] + ".sink.conf"
        if not os.path.exists(sk):
            raise ValueError("%s: sink = daemon needs %s" % (path, os.path.basename(sk)))
        meta["sink_path"] = sk
        rsk = path[: -len(".conf")] + ".sink.rsyslog.conf"
        meta["sink_rsyslog_path"] = rsk if os.path.exists(rsk) else None
    return meta


def list_scenarios(directory):
    names = sorted(n for n in os.listdir(directory)
                   if n.endswith(".conf") and not n.endswith(".rsyslog.conf") and not n.endswith(".sink.conf"))
    return sorted((parse_scenario(os.path.join(directory, n)) for n in names), key=lambda s: (s["order"], s["name"]))


def render(text, subs):
    for key, value in subs.items():
        text = text.replace("@%s@" % key, str(value))
    return text


# ------------------------------------------------------------- input data

HOSTS = ["web-%02d" % i for i in range(1, 9)] + ["db-1", "db-2", "lb-1", "mail-1", "fw-edge"]
WORDS = ("request completed user session connection timeout retry upstream backend cache miss hit "
         "queue worker started stopped failed accepted rejected from port client server status "
         "latency bytes read write disk volume mounted unit service").split()


def _stamp(rng):
    return "Nov %2d %02d:%02d:%02d" % (rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59))


def _words(rng, length):
    out = []
    n = 0
    while n < length:
        w = rng.choice(WORDS)
        out.append(w)
        n += len(w) + 1
    return " ".join(out)[:length]


def mixed_line(rng):
    """One RFC 3164 line as real systems send them, of a realistic length."""
    host = rng.choice(HOSTS)
    kind = rng.random()
    if kind < 0.25:
        fac, prog = rng.choice(((4, "sshd"), (10, "sshd"), (10, "sudo"), (4, "login"))), None
        fac, prog = fac
        msg = rng.choice((
            "Accepted publickey for deploy from 10.%d.%d.%d port %d ssh2: ED25519 SHA256:%s" % (
                rng.randint(0, 255), rng.randint(0, 255), rng.randint(1, 254), rng.randint(1024, 65535),
                "".join(rng.choice("ABCDEFabcdef0123456789+/") for _ in range(43))),
            "pam_unix(sshd:session): session opened for user deploy(uid=1000) by (uid=0)",
            "Failed password for invalid user admin from 192.0.2.%d port %d ssh2" % (rng.randint(1, 254), rng.randint(1024, 65535)),
            "   deploy : TTY=pts/0 ; PWD=/home/deploy ; USER=root ; COMMAND=/usr/bin/systemctl restart nginx",
        ))
    elif kind < 0.55:
        fac, prog = 16 + rng.randint(0, 7), "nginx"
        msg = '10.0.%d.%d - - [23/Nov/2026:12:00:00 +0000] "GET /api/v1/items/%d?page=%d HTTP/1.1" %d %d "-" "%s"' % (
            rng.randint(0, 255), rng.randint(1, 254), rng.randint(1, 99999), rng.randint(1, 50),
            rng.choice((200, 200, 200, 304, 404, 500)), rng.randint(100, 90000),
            rng.choice(("curl/7.88.1", "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0")))
    elif kind < 0.70:
        fac, prog = 0, "kernel"
        msg = "[%d.%06d] %s" % (rng.randint(1, 999999), rng.randint(0, 999999), rng.choice((
            "IN=eth0 OUT= MAC=52:54:00:12:34:56 SRC=198.51.100.%d DST=10.0.0.1 LEN=60 TOS=0x00 PROTO=TCP SPT=%d DPT=22 SYN" % (
                rng.randint(1, 254), rng.randint(1024, 65535)),
            "EXT4-fs (sda1): mounted filesystem with ordered data mode. Quota mode: none.",
            "TCP: request_sock_TCP: Possible SYN flooding on port 443. Sending cookies.")))
    elif kind < 0.80:
        fac, prog = 9, "CRON"
        msg = "(root) CMD (   cd / && run-parts --report /etc/cron.hourly)"
    elif kind < 0.95:
        fac, prog = 1, "app"
        length = int(min(3800, rng.lognormvariate(5.3, 0.9)))
        msg = "level=%s trace=%016x %s" % (rng.choice(("info", "info", "warn", "error")), rng.getrandbits(64),
                                          _words(rng, max(10, length)))
    else:
        fac, prog = 1, "java"
        frames = "".join(" at com.example.service.Handler%d.process(Handler%d.java:%d)" % (i, i, rng.randint(10, 900))
                         for i in range(rng.randint(10, 60)))
        msg = "ERROR Unhandled exception java.lang.IllegalStateException: state %d%s" % (rng.randint(1, 9), frames)
    sev = rng.randint(2, 7)
    if prog in ("kernel",):
        tag = "kernel:"
    else:
        tag = "%s[%d]:" % (prog, rng.randint(100, 99999))
    return "<%d>%s %s %s %s" % (fac * 8 + sev, _stamp(rng), host, tag, msg)


def kv_line(rng):
    host = rng.choice(HOSTS)
    return "<%d>%s %s auditd[%d]: user=u%04d action=%s status=%s bytes=%d src=10.%d.%d.%d session=%08x" % (
        13 * 8 + 6, _stamp(rng), host, rng.randint(100, 9999), rng.randint(0, 9999),
        rng.choice(("login", "logout", "read", "write", "delete")), rng.choice(("ok", "ok", "ok", "denied")),
        rng.randint(0, 1 << 20), rng.randint(0, 255), rng.randint(0, 255), rng.randint(1, 254), rng.getrandbits(32))


def json_line(rng):
    """An application event as a JSON object after the tag (about 300 bytes)."""
    host = rng.choice(HOSTS)
    return ('<%d>%s %s app[%d]: {"user":"u%04d","action":"%s","status":"%s","bytes":%d,"latency":%.3f,'
            '"src":"10.%d.%d.%d","session":"%08x","geo":{"country":"%s","city":"%s"},"tags":["%s","%s"],'
            '"ok":%s}') % (
        14 * 8 + 6, _stamp(rng), host, rng.randint(100, 9999), rng.randint(0, 9999),
        rng.choice(("login", "logout", "read", "write", "delete")), rng.choice(("ok", "ok", "ok", "denied")),
        rng.randint(0, 1 << 20), rng.random() * 2, rng.randint(0, 255), rng.randint(0, 255), rng.randint(1, 254),
        rng.getrandbits(32), rng.choice(("HU", "DE", "US")), rng.choice(("Budapest", "Berlin", "Boston")),
        rng.choice(WORDS), rng.choice(WORDS), rng.choice(("true", "false")))


def write_input(path, kind, lines=20000, seed=1):
    """A deterministic input file for loggen -R; the same bytes every run."""
    rng = random.Random(seed)
    make = {"mixed": mixed_line, "kv": kv_line, "json": json_line}[kind]
    with open(path, "w", encoding="ascii") as f:
        for _ in range(lines):
            f.write(make(rng) + "\n")


def expected_lines(meta, input_path):
    """How many lines the output should have once every message went through."""
    sent = (meta["messages"] // meta["connections"]) * meta["connections"]
    if meta["expect-match"] is None:
        return sent, int(round(sent * meta["expect"]))
    # loggen -R -l: every connection sends the file's lines from the top, looping
    with open(input_path, encoding="ascii") as f:
        lines = f.read().splitlines()
    rx = re.compile(meta["expect-match"])
    per_conn = meta["messages"] // meta["connections"]
    full, rest = divmod(per_conn, len(lines))
    hits = sum(1 for line in lines if rx.search(line))
    hits_rest = sum(1 for line in lines[:rest] if rx.search(line))
    return sent, (full * hits + hits_rest) * meta["connections"]


# -------------------------------------------------------------- processes


def proc_cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        rest = f.read().rsplit(")", 1)[1].split()
    # fields 14 and 15 of stat(5), counted after the command name
    return (int(rest[11]) + int(rest[12])) / CLK_TCK


def proc_peak_rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def port_is_bound(port, udp):
    """True when something listens on 127.0.0.1:port; reads /proc so that
    probing does not open a connection the daemon would count."""
    files = ("/proc/net/udp", "/proc/net/udp6") if udp else ("/proc/net/tcp", "/proc/net/tcp6")
    want = ":%04X" % port
    for name in files:
        try:
            with open(name) as f:
                next(f)
                for line in f:
                    parts = line.split()
                    if parts[1].endswith(want) and (udp or parts[3] == "0A"):
                        return True
        except OSError:
            continue
    return False


def udp_sockets_bound(port):
    """How many UDP sockets are bound to port (an so-reuseport() group
    or a udp-balancer() has several)."""
    want = ":%04X" % port
    n = 0
    for name in ("/proc/net/udp", "/proc/net/udp6"):
        try:
            with open(name) as f:
                next(f)
                n += sum(1 for line in f if line.split()[1].endswith(want))
        except OSError:
            continue
    return n


def loggen_summary(path):
    """loggen's last lines (printed with -Q too): what it sent, how fast,
    and with --steady how far behind schedule; {} when it printed none."""
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError:
        return {}
    out = {}
    m = re.search(r"average rate = ([\d.]+) msg/sec, count=(\d+), time=([\d.e+-]+)", text)
    if m:
        out.update({"loggen_rate": float(m.group(1)), "loggen_sent": int(m.group(2)),
                    "loggen_seconds": float(m.group(3))})
    m = re.search(r"latency \(usec behind schedule\):.*?p99<=(\d+).*?max=(\d+)", text)
    if m:
        out.update({"loggen_late_p99_us": int(m.group(1)), "loggen_late_max_us": int(m.group(2))})
    return out


def port_is_free(port):
    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
        s = socket.socket(socket.AF_INET, kind)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        finally:
            s.close()
    return True


def make_cert(directory):
    """A self-signed certificate and its key in directory, for @CERT@ and
    @KEY@ (TLS scenarios, logstore()'s encrypt-certificate())."""
    cert = os.path.join(directory, "cert.pem")
    key = os.path.join(directory, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "2", "-subj", "/CN=localhost"], check=True, capture_output=True)
    return cert, key


class LineCounter:
    """Counts newlines in every file under a directory, reading only what
    was appended since the last call; a *.lgs file (logstore()) counts its
    records instead."""

    def __init__(self, root):
        self.root = root
        self.offsets = {}
        self.lines = 0

    def size(self):
        """The bytes in all the files, from stat alone."""
        total = 0
        for dirpath, _dirs, files in os.walk(self.root):
            for name in files:
                try:
                    total += os.stat(os.path.join(dirpath, name)).st_size
                except OSError:
                    continue
        return total

    def _poll_logstore(self, path):
        """A logstore() file (docs/logstore-format.md): the records of its
        whole DATA chunks, from their plain chunk headers (no key needed)."""
        off = self.offsets.get(path, 0)
        try:
            with open(path, "rb") as f:
                if off == 0:
                    head = f.read(32)
                    if len(head) < 32:
                        return
                    off = 32 + int.from_bytes(head[14:16], "little") + 32
                while True:
                    f.seek(off)
                    h = f.read(80)
                    if len(h) < 80 or h[:4] != b"LSCK":
                        break
                    end = off + 80 + int.from_bytes(h[24:28], "little") + 48
                    if os.fstat(f.fileno()).st_size < end:
                        break
                    if h[4] == 1:
                        self.lines += int.from_bytes(h[16:20], "little")
                    off = end
        except OSError:
            return
        self.offsets[path] = off

    def poll(self):
        for dirpath, _dirs, files in os.walk(self.root):
            for name in files:
                path = os.path.join(dirpath, name)
                if name.endswith(".lgs"):
                    self._poll_logstore(path)
                    continue
                off = self.offsets.get(path, 0)
                try:
                    with open(path, "rb") as f:
                        # only what is there now: a file that grows while
                        # it is read would keep the read going, and lines
                        # that came meanwhile would end the run at the
                        # time the caller last saw the size change (one run
                        # of 2026-11-27 09:06 ended 0.16 s in, at 5M msg/s)
                        end = os.fstat(f.fileno()).st_size
                        f.seek(off)
                        while off < end:
                            chunk = f.read(min(1 << 20, end - off))
                            if not chunk:
                                break
                            self.lines += chunk.count(b"\n")
                            off += len(chunk)
                except OSError:
                    continue
                self.offsets[path] = off
        return self.lines


def stop_process(proc, timeout=10.0):
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# ----------------------------------------------------------------- daemons


class Env:
    """Where the three daemons and loggen are."""

    def __init__(self, args):
        # absolute: the daemons run in their work directories
        self.sluice = os.path.abspath(args.sluice)
        self.sng_root = os.path.abspath(args.syslog_ng_root)
        self.rs_root = os.path.abspath(args.rsyslog_root)
        self.sng_env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(self.sng_root, "usr/lib/syslog-ng"),
                            SYSLOGNG_PREFIX=os.path.join(self.sng_root, "usr"))
        self.rs_moddir = os.path.join(self.rs_root, "usr/lib/x86_64-linux-gnu/rsyslog")
        # librelp (omrelp, imrelp) is unpacked beside rsyslog, not installed
        self.rs_env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(self.rs_root, "usr/lib/x86_64-linux-gnu"))
        if not os.path.isdir(self.rs_moddir):
            cand = [d for d in _glob_dirs(os.path.join(self.rs_root, "usr/lib")) if d.endswith("/rsyslog")
                    and os.path.exists(os.path.join(d, "imtcp.so"))]
            self.rs_moddir = cand[0] if cand else self.rs_moddir
        self.loggen_kind, self.loggen = resolve_loggen(args.loggen, self)

    def available(self, daemon):
        path = self.binary(daemon)
        return path is not None and os.access(path, os.X_OK)

    def binary(self, daemon):
        if daemon == "sluice":
            return self.sluice
        if daemon == "syslog-ng":
            return os.path.join(self.sng_root, "usr/sbin/syslog-ng")
        return os.path.join(self.rs_root, "usr/sbin/rsyslogd")

    def check_cmd(self, daemon, conf):
        if daemon == "sluice":
            return [self.sluice, "--syntax-only", "-f", conf], None
        if daemon == "syslog-ng":
            return [self.binary(daemon), "--syntax-only", "--module-path=" + self._sng_modpath(), "-f", conf], self.sng_env
        return [self.binary(daemon), "-N1", "-f", conf, "-M", self.rs_moddir], self.rs_env

    def run_cmd(self, daemon, conf, work):
        pid = os.path.join(work, "daemon.pid")
        if daemon == "sluice":
            # positions and the control socket in the run's directory, as
            # for syslog-ng: a file source must start from the top
            return [self.sluice, "-F", "-f", conf, "-p", pid, "-R", os.path.join(work, "persist"),
                    "-c", os.path.join(work, "ctl")], None
        if daemon == "syslog-ng":
            return ([self.binary(daemon), "-F", "--no-caps", "--module-path=" + self._sng_modpath(), "-f", conf,
                     "-R", os.path.join(work, "persist"), "-p", pid, "-c", os.path.join(work, "ctl")], self.sng_env)
        return [self.binary(daemon), "-n", "-f", conf, "-i", pid, "-M", self.rs_moddir], self.rs_env

    def version(self, daemon):
        if not self.available(daemon):
            return "not available"
        cmd = {"sluice": [self.sluice, "--version"],
               "syslog-ng": [self.binary(daemon), "--version"],
               "rsyslog": [self.binary(daemon), "-v"]}[daemon]
        env = self.sng_env if daemon == "syslog-ng" else None
        try:
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=10).stdout
        except (OSError, subprocess.TimeoutExpired) as e:
            return "unknown (%s)" % e
        first = out.strip().splitlines()[0] if out.strip() else "unknown"
        return re.sub(r"\s+", " ", first.replace("compiled with:", "")).strip()

    def _sng_modpath(self):
        base = os.path.join(self.sng_root, "usr/lib/syslog-ng")
        for d in sorted(_glob_dirs(base), reverse=True):
            if re.search(r"/\d+\.\d+$", d):
                return d
        return base


def _glob_dirs(base):
    out = []
    for dirpath, dirs, _files in os.walk(base):
        for d in dirs:
            out.append(os.path.join(dirpath, d))
    return out


def resolve_loggen(choice, env):
    sluice_loggen = os.path.join(os.path.dirname(env.sluice or ""), "tools/loggen/loggen")
    sng_loggen = os.path.join(env.sng_root, "usr/bin/loggen")
    if choice == "auto":
        choice = "sluice" if os.access(sluice_loggen, os.X_OK) else "syslog-ng"
    if choice == "sluice":
        return "sluice", sluice_loggen
    if choice == "syslog-ng":
        return "syslog-ng", sng_loggen
    return "custom", os.path.abspath(choice)


def loggen_cmd(env, meta, port, input_path):
    per_conn = meta["messages"] // meta["connections"]
    # loggen takes one transport plugin: -U is TLS over TCP on its own.  -F:
    # loggen frames with octet counting over TLS, which network() does not
    # read; the same newline-ended lines as over TCP make tls-file differ
    # from tcp-file only in the transport
    if meta["transport"] == "tls":
        cmd = [env.loggen, "-U", "-F"]
    else:
        cmd = [env.loggen, "-i", "-D" if meta["transport"] == "udp" else "-S"]
    # rate: messages per second in all; loggen's -r counts per connection
    rate = max(1, meta["rate"] // meta["connections"]) if meta["rate"] else 100000000
    cmd += ["--active-connections=%d" % meta["connections"], "-r", str(rate), "-n", str(per_conn),
            "-I", "600", "-Q"]
    if env.loggen_kind == "sluice" and meta["connections"] <= 16:
        # a thread per connection, blocking in its sends, as loggen ran
        # before it had sender threads: the leanest sender for a few
        # connections, and the load earlier results were measured with
        cmd.append("--sender-threads=%d" % meta["connections"])
    if meta["steady"] == "yes" and env.loggen_kind == "sluice":
        # syslog-ng's loggen sends its rate in bursts that overflow a UDP
        # socket buffer at any rate; Sluice's can space the messages evenly
        cmd.append("--steady")
    if meta["input"] == "loggen":
        cmd += ["-s", str(meta["size"])]
    else:
        cmd += ["-R", input_path, "-d", "-l"]
    cmd += ["127.0.0.1", str(port)]
    return cmd


# -------------------------------------------------------------------- runs


class Bench:
    def __init__(self, args, env):
        self.args = args
        self.env = env
        self.port = args.port_base
        self.tmp = tempfile.mkdtemp(prefix="sluice-bench.")
        self.cert, self.key = self._make_cert()
        self.inputs = {}

    def close(self):
        if not self.args.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)
        else:
            print("bench: kept %s" % self.tmp)

    def _make_cert(self):
        return make_cert(self.tmp)

    def input_for(self, kind):
        if kind == "loggen":
            return None
        key = ("loggen-kind", kind)
        if key not in self.inputs:
            path = os.path.join(self.tmp, "input-%s.txt" % kind)
            write_input(path, kind)
            self.inputs[key] = path
        return self.inputs[key]

    def file_input(self, meta):
        """The files a transport = file scenario reads, written once per
        scenario and run of the harness (bench/filegen.c, compiled here)
        and shared by every daemon's runs; None for the others."""
        if meta["transport"] != "file":
            return None
        key = (meta["name"], meta["messages"], meta["size"], meta["dirs"], meta["files"])
        if key in self.inputs:
            return self.inputs[key]
        gen = os.path.join(self.tmp, "filegen")
        if not os.path.exists(gen):
            subprocess.run(["cc", "-O2", "-o", gen, os.path.join(HERE, "filegen.c")], check=True)
        # the previous scenario's files go: a few GB each
        for k in [k for k in self.inputs if k[0] != "loggen-kind"]:
            shutil.rmtree(self.inputs.pop(k), ignore_errors=True)
        path = os.path.join(self.tmp, "input-%s" % meta["name"])
        os.makedirs(path)
        t = time.monotonic()
        subprocess.run([gen, path, str(meta["messages"]), str(meta["size"]), str(meta["dirs"]), str(meta["files"]),
                        str(int(time.time()) % 1000000000)], check=True)
        # the GBs just written go to disk now, not during the first run
        # (which ran at a third of the others' speed while they did)
        os.sync()
        print("%-20s input: %s lines of %d bytes in %d file%s, written in %.1f s" % (
            meta["name"], "{:,}".format(meta["messages"]), meta["size"], meta["files"],
            "" if meta["files"] == 1 else "s", time.monotonic() - t), flush=True)
        self.inputs[key] = path
        return path

    def next_port(self):
        for _ in range(2000):
            self.port += 1
            if self.port > self.args.port_base + 2000:
                self.port = self.args.port_base + 1
            if port_is_free(self.port):
                return self.port
        raise RuntimeError("no free port near %d" % self.args.port_base)

    def _conf(self, meta, daemon, work, port, sink_port=0, sink=False):
        """Renders the daemon's configuration (sink: the far end of a
        chain, listening on port, writing under work/out)."""
        if sink:
            path = meta["sink_rsyslog_path"] if daemon == "rsyslog" else meta["sink_path"]
            src = open(path, encoding="utf-8").read()
        else:
            src = meta["text"] if daemon != "rsyslog" else open(meta["rsyslog_path"], encoding="utf-8").read()
        out = os.path.join(work, "out")
        os.makedirs(out, exist_ok=True)
        rs_work = os.path.join(work, "rsyslog-work-sink" if sink else "rsyslog-work")
        os.makedirs(rs_work, exist_ok=True)
        conf = os.path.join(work, "%s%s.conf" % (daemon, "-sink" if sink else ""))
        with open(conf, "w", encoding="utf-8") as f:
            f.write(render(src, {"PORT": port, "OUT": out, "WORK": rs_work,
                                 "CERT": self.cert, "KEY": self.key, "SINKPORT": sink_port,
                                 "IN": self.file_input(meta) or os.path.join(self.tmp, "no-input"),
                                 "SCENARIOS": os.path.dirname(os.path.abspath(meta["path"]))}))
        return conf, out

    def _shown(self, meta, daemon, conf, text):
        """Names the scenario file instead of the rendered copy: they have the same lines."""
        shown = meta["rsyslog_path"] if daemon == "rsyslog" else meta["path"]
        return text.replace(conf, os.path.relpath(shown, REPO)).replace(os.path.basename(conf) + ":", os.path.basename(shown) + ":")

    def check(self, meta, daemon):
        """None when the daemon accepts the scenario, else why not."""
        if daemon == "rsyslog" and meta["rsyslog_path"] is None:
            return "no rsyslog equivalent (%s.rsyslog.conf)" % meta["name"]
        if daemon == "rsyslog" and meta["sink"] == "daemon" and meta["sink_rsyslog_path"] is None:
            return "no rsyslog equivalent (%s.sink.rsyslog.conf)" % meta["name"]
        if not self.env.available(daemon):
            return "%s not found at %s" % (daemon, self.env.binary(daemon))
        for sink in ((False, True) if meta["sink"] == "daemon" else (False,)):
            why = self._check_one(meta, daemon, sink)
            if why:
                return why
        return None

    def _check_one(self, meta, daemon, sink):
        work = tempfile.mkdtemp(prefix="check-", dir=self.tmp)
        conf, _out = self._conf(meta, daemon, work, self.args.port_base, self.args.port_base + 1, sink)
        cmd, cenv = self.env.check_cmd(daemon, conf)
        try:
            p = subprocess.run(cmd, env=cenv, capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:
            return "configuration check timed out"
        text = self._shown(meta, daemon, conf, (p.stdout + p.stderr).strip())
        if daemon == "rsyslog" and p.returncode == 0 and re.search(r"error", text, re.I):
            return first_error(text)
        if p.returncode != 0:
            return first_error(text) or "configuration check failed (exit %d)" % p.returncode
        return None

    def _start_sink_daemon(self, meta, daemon, work, sink_port):
        """The far end of a chain: the same daemon on NAME.sink.conf, in
        its own directory, listening before the relay starts."""
        swork = os.path.join(work, "sink")
        os.makedirs(swork)
        sconf, _ = self._conf(meta, daemon, work, sink_port, sink=True)
        cmd, denv = self.env.run_cmd(daemon, sconf, swork)
        log = open(os.path.join(swork, "daemon.log"), "wb")
        proc = subprocess.Popen(cmd, env=denv, stdout=log, stderr=subprocess.STDOUT, cwd=swork)
        log.close()
        deadline = time.monotonic() + 15
        while not port_is_bound(sink_port, False):
            if proc.poll() is not None or time.monotonic() > deadline:
                stop_process(proc)
                raise RunError("the far end did not listen on port %d: %s" % (
                    sink_port, tail(os.path.join(swork, "daemon.log"))))
            time.sleep(0.02)
        return proc

    def run_once(self, meta, daemon):
        if meta["transport"] == "file":
            return self._run_file(meta, daemon)
        work = tempfile.mkdtemp(prefix="%s-%s-" % (meta["name"], daemon), dir=self.tmp)
        port = self.next_port()
        sink_port = self.next_port() if meta["sink"] != "none" else 0
        conf, out = self._conf(meta, daemon, work, port, sink_port)
        input_path = self.input_for(meta["input"])
        sent, expected = expected_lines(meta, input_path)
        udp = meta["transport"] == "udp"
        cmd, denv = self.env.run_cmd(daemon, conf, work)
        sink = None
        if meta["sink"] == "daemon":
            sink = self._start_sink_daemon(meta, daemon, work, sink_port)
        elif sink_port:
            # a relay forwards to a sink that writes under @OUT@, counted as files are;
            # it listens before the daemon starts, so no daemon waits for time-reopen
            sink = subprocess.Popen([sys.executable, os.path.join(HERE, "sink.py"), str(sink_port), out])
            deadline = time.monotonic() + 15
            while not port_is_bound(sink_port, False):
                if sink.poll() is not None or time.monotonic() > deadline:
                    stop_process(sink)
                    raise RunError("the sink did not listen on port %d" % sink_port)
                time.sleep(0.02)
        log = open(os.path.join(work, "daemon.log"), "wb")
        proc = subprocess.Popen(cmd, env=denv, stdout=log, stderr=subprocess.STDOUT, cwd=work)
        result = {"sent": sent, "expected": expected}
        lg = None
        try:
            deadline = time.monotonic() + 15
            while not port_is_bound(port, udp):
                if proc.poll() is not None:
                    # a daemon that refuses its configuration only at start
                    raise RunError(self._shown(meta, daemon, conf, error_line(log.name) or
                                              "exited (%d) before listening" % proc.returncode), refused=True)
                if time.monotonic() > deadline:
                    raise RunError("not listening on port %d after 15 s: %s" % (port, tail(log.name)))
                time.sleep(0.02)
            # a group of sockets on one address (udp-sweep.py's kinds): all
            # of them, so that the first bound does not take a sender alone
            while udp and udp_sockets_bound(port) < meta.get("sockets", 1):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RunError("%d of %d sockets bound on port %d: %s" % (
                        udp_sockets_bound(port), meta["sockets"], port, tail(log.name)))
                time.sleep(0.02)
            # a chain's CPU is both daemons': the far end's work is the
            # protocol's cost too
            cpu_pids = [proc.pid] + ([sink.pid] if meta["sink"] == "daemon" else [])
            cpu0 = sum(proc_cpu_seconds(p) for p in cpu_pids)
            counter = LineCounter(out)
            lg_log = open(os.path.join(work, "loggen.log"), "wb")
            lcmd = loggen_cmd(self.env, meta, port, input_path)
            t0 = time.monotonic()
            # any loggen but Sluice's may be syslog-ng's, which needs its libraries
            lg = subprocess.Popen(lcmd, env=self.env.sng_env if self.env.loggen_kind != "sluice" else None,
                                  stdout=lg_log, stderr=subprocess.STDOUT)
            # Only the files' sizes are read while they grow: counting lines
            # as they come would take CPU from the daemon on a small machine.
            # The lines are counted once the sizes hold still for two polls.
            last_size, last_change, quiet, count = 0, t0, 0, 0
            stall = self.args.udp_settle if udp else self.args.stall
            hard = t0 + self.args.timeout
            while True:
                time.sleep(0.01)
                size = counter.size()
                now = time.monotonic()
                if size != last_size:
                    last_size, last_change, quiet = size, now, 0
                else:
                    quiet += 1
                loggen_done = lg.poll() is not None
                # counted only once the sizes hold still: counting while the
                # daemon writes its tail, after loggen is done, takes a CPU
                # from it on two (the lines of a run are hundreds of MB)
                if quiet >= 2:
                    count = counter.poll()
                    if count >= expected:
                        break
                if proc.poll() is not None:
                    raise RunError("exited (%d) during the run: %s" % (proc.returncode, tail(log.name)))
                if loggen_done and lg.returncode != 0:
                    raise RunError("loggen failed (%d): %s" % (lg.returncode, tail(lg_log.name)))
                if loggen_done and now - last_change > stall:
                    count = counter.poll()
                    break
                if now > hard:
                    count = counter.poll()
                    break
            last_count = count
            elapsed = last_change - t0
            if sink is not None and sink.poll() is not None:
                raise RunError("the far end exited (%d) during the run" % sink.returncode)
            cpu = sum(proc_cpu_seconds(p) for p in cpu_pids) - cpu0
            rss = proc_peak_rss_kib(proc.pid)
            if lg.poll() is None:
                lg.wait(30)
            delivered = last_count
            # a filter drops a known share: messages through the daemon
            processed = delivered * sent / expected if expected else delivered
            # over TCP the daemon read every message, the ones it dropped too
            read = processed if udp else sent
            if delivered == 0:
                raise RunError("no message reached the output in %.0f s: %s %s" % (
                    time.monotonic() - t0, tail(log.name), tail(lg_log.name)))
            result.update({
                "delivered": delivered,
                "seconds": round(elapsed, 4),
                "msgs_per_s": processed / elapsed if elapsed > 0 else 0.0,
                "cpu_us_per_msg": cpu * 1e6 / read,
                "peak_rss_kib": rss,
                "lost": max(0, expected - delivered),
            })
            if result["lost"]:
                # lines held in a buffer show up at stop; lost ones never do
                stop_process(proc)
                result["delivered_after_stop"] = counter.poll()
            if meta.get("check"):
                # udp-sweep.py: what loggen sent, and loggen --check's exact
                # count of each sender's missing and doubled lines, once the
                # daemon has written everything it held
                stop_process(proc)
                result.update(loggen_summary(lg_log.name))
                result.update(self._loggen_check(out, {"messages": sent, "files": meta["connections"]}))
            return result
        finally:
            if lg is not None and lg.poll() is None:
                lg.kill()
                lg.wait()
            stop_process(proc)
            if sink is not None:
                stop_process(sink)
            log.close()
            if not self.args.keep:
                shutil.rmtree(work, ignore_errors=True)


    def _run_file(self, meta, daemon):
        """A transport = file run: the files are written before the daemon
        starts (file_input), the daemon reads them from their start, and the
        run ends when the output holds every line, or nothing new came for
        --file-stall seconds after the first line.

        msg/s is timed from the daemon's start to the last line in the
        output.  Timing from the first line written would leave out what a
        file source does before it writes: syslog-ng's wildcard-file()
        opens all 10,000 files of file-tree before its first line (1.2 s,
        then the lines come at 600k msg/s), Sluice writes its first line
        after 10-20 ms; and starting a daemon (configuration, modules)
        takes 20-40 ms, under 1 % of a file-one run.  The time to the first
        line ("startup_s") and the rate from it ("msgs_per_s_from_first")
        are kept beside it.  CPU is the daemon's whole life up to the last
        line, start-up included.  Then the daemon is stopped and
        loggen --check counts missing and doubled lines per file."""
        work = tempfile.mkdtemp(prefix="%s-%s-" % (meta["name"], daemon), dir=self.tmp)
        conf, out = self._conf(meta, daemon, work, 0)
        sent = expected = meta["messages"]
        cmd, denv = self.env.run_cmd(daemon, conf, work)
        log = open(os.path.join(work, "daemon.log"), "wb")
        result = {"sent": sent, "expected": expected}
        counter = LineCounter(out)
        ts = time.monotonic()
        proc = subprocess.Popen(cmd, env=denv, stdout=log, stderr=subprocess.STDOUT, cwd=work)
        try:
            timeout = meta["timeout"] or self.args.timeout
            hard = ts + timeout
            t_first = None
            last_size, last_change, quiet, count = 0, ts, 0, 0
            while True:
                time.sleep(0.01)
                size = counter.size()
                now = time.monotonic()
                if size != last_size:
                    if t_first is None:
                        t_first = now
                    last_size, last_change, quiet = size, now, 0
                else:
                    quiet += 1
                # lines are counted only while the output holds still:
                # reading GBs as they come would take CPU from the daemon
                if quiet == 2:
                    count = counter.poll()
                    if count >= expected:
                        break
                if proc.poll() is not None:
                    if t_first is None:
                        raise RunError(self._shown(meta, daemon, conf, error_line(log.name) or
                                                  "exited (%d) before writing" % proc.returncode), refused=True)
                    raise RunError("exited (%d) during the run: %s" % (proc.returncode, tail(log.name)))
                if t_first is not None and now - last_change > self.args.file_stall:
                    count = counter.poll()
                    break
                if now > hard:
                    count = counter.poll()
                    if t_first is None:
                        raise RunError("no line in the output after %.0f s: %s" % (timeout, tail(log.name)))
                    break
            cpu = proc_cpu_seconds(proc.pid)
            rss = proc_peak_rss_kib(proc.pid)
            elapsed = last_change - t_first  # from the first line
            result.update({
                "delivered": count,
                "seconds": round(last_change - ts, 4),
                "startup_s": round(t_first - ts, 3),
                "msgs_per_s": count / (last_change - ts),
                "msgs_per_s_from_first": count / elapsed if elapsed > 0 else 0.0,
                "cpu_us_per_msg": cpu * 1e6 / sent,
                "peak_rss_kib": rss,
                "lost": max(0, expected - count),
            })
            stop_process(proc)
            after = counter.poll()
            if result["lost"]:
                # lines held in a buffer show up at stop; lost ones never do
                result["delivered_after_stop"] = after
            result.update(self._loggen_check(out, meta))
            return result
        finally:
            stop_process(proc)
            log.close()
            if not self.args.keep:
                shutil.rmtree(work, ignore_errors=True)

    def _loggen_check(self, out, meta):
        """missing / duplicated / reordered lines by loggen --check (Sluice's
        loggen; syslog-ng's has no checker)."""
        checker = os.path.join(os.path.dirname(self.env.sluice), "tools/loggen/loggen")
        if not os.access(checker, os.X_OK):
            return {}
        p = subprocess.run([checker, "--check", out, "--expect", str(meta["messages"] // meta["files"]),
                            "--expect-threads", str(meta["files"]), "-Q"], capture_output=True, text=True)
        m = re.search(r"check: threads=(\d+) received=(\d+) missing=(\d+) duplicated=(\d+) reordered=(\d+)",
                      p.stdout + p.stderr)
        if not m:
            return {"check": (p.stdout + p.stderr).strip()[-300:]}
        return {"check_missing": int(m.group(3)), "check_duplicated": int(m.group(4)),
                "check_reordered": int(m.group(5))}


class RunError(Exception):
    def __init__(self, text, refused=False):
        super().__init__(text)
        self.refused = refused


def tail(path, n=3):
    try:
        with open(path, errors="replace") as f:
            lines = [l.strip() for l in f.read().splitlines() if l.strip()]
    except OSError:
        return ""
    return " | ".join(lines[-n:])[:300]


def error_line(path):
    """The daemon's last error line, for a daemon that stopped at start."""
    try:
        with open(path, errors="replace") as f:
            lines = [l.strip() for l in f.read().splitlines() if l.strip()]
    except OSError:
        return ""
    for l in reversed(lines):
        if re.search(r"error", l, re.I):
            return re.sub(r"^\[[^]]*\] ", "", l)[:300]
    return " | ".join(lines[-2:])[:300]


def first_error(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in lines:
        if re.search(r"error|not supported|unknown|invalid", l, re.I):
            return l[:300]
    return lines[0][:300] if lines else ""


# -------------------------------------------------------------------- main


def main(argv=None):
    ap = argparse.ArgumentParser(description="Sluice vs syslog-ng vs rsyslog, same load, same machine")
    ap.add_argument("--quick", action="store_true", help="one run each and a quarter of the messages")
    ap.add_argument("--repeat", type=int, default=None, help="runs per scenario and daemon (default 3, --quick 1)")
    ap.add_argument("--scale", type=float, default=None, help="multiply every scenario's message count")
    ap.add_argument("--keep-pairs", type=int, default=None,
                    help="pairs of runs (baseline, then Sluice) behind a keep goal, at least --repeat (default 5, "
                    "--quick 1)")
    ap.add_argument("--scenario", action="append", default=[], help="run only these (repeatable; a name, else every name it begins)")
    ap.add_argument("--daemons", default=",".join(DAEMONS), help="comma-separated subset of " + ",".join(DAEMONS))
    ap.add_argument("--sluice", default=os.path.join(REPO, "build-bench/sluice"), help="the daemon binary")
    ap.add_argument("--syslog-ng-root", default=os.path.join(REPO, "build-bench/deps/syslog-ng"),
                    help="where syslog-ng-core is unpacked")
    ap.add_argument("--rsyslog-root", default=os.path.join(REPO, "build-bench/deps/rsyslog"),
                    help="where rsyslog is unpacked")
    ap.add_argument("--loggen", default="auto",
                    help="auto (Sluice's if built, else syslog-ng's), sluice, syslog-ng, or a path")
    ap.add_argument("--scenarios-dir", default=os.path.join(HERE, "scenarios"))
    ap.add_argument("--results", default=os.path.join(HERE, "results"), help="where the reports go")
    ap.add_argument("--no-save", action="store_true", help="print the table only")
    ap.add_argument("--port-base", type=int, default=24500, help="ports above it, on 127.0.0.1")
    ap.add_argument("--timeout", type=float, default=120.0, help="longest run, seconds")
    ap.add_argument("--stall", type=float, default=3.0, help="TCP: give up after this long without a new line")
    ap.add_argument("--file-stall", type=float, default=5.0,
                    help="transport = file: give up after this long without a new line (follow-freq is 1 s)")
    ap.add_argument("--udp-settle", type=float, default=1.0, help="UDP: the run ends this long after the last line")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--from-json", metavar="FILE", help="write the reports of a saved run again (no run)")
    args = ap.parse_args(argv)
    if args.from_json:
        # redo the table and the chart of a saved run, without running anything
        with open(args.from_json, encoding="utf-8") as f:
            report = json.load(f)
        save(report, args.results, os.path.basename(args.from_json)[: -len(".json")])
        return 0
    repeat = args.repeat or (1 if args.quick else 3)
    keep_pairs = max(repeat, args.keep_pairs or (1 if args.quick else 5))
    scale = args.scale if args.scale is not None else (0.25 if args.quick else 1.0)
    daemons = [d.strip() for d in args.daemons.split(",") if d.strip()]
    for d in daemons:
        if d not in DAEMONS:
            ap.error("unknown daemon %r" % d)

    scenarios = list_scenarios(args.scenarios_dir)
    by_name = {s["name"]: s for s in scenarios}
    for s in scenarios:
        if s["keep-of"] and s["keep-of"] not in by_name:
            ap.error("%s: keep-of names no scenario: %s" % (s["name"], s["keep-of"]))
    if args.scenario:
        names = {s["name"] for s in scenarios}
        scenarios = [s for s in scenarios
                     if any(s["name"] == p if p in names else s["name"].startswith(p) for p in args.scenario)]
        if not scenarios:
            ap.error("no scenario matches %s" % ", ".join(args.scenario))
    for s in by_name.values():
        per_conn = max(10, int(s["messages"] * scale) // s["connections"] // 10 * 10)
        s["messages"] = per_conn * s["connections"]

    env = Env(args)
    if not os.access(env.loggen, os.X_OK):
        print("bench: loggen not found at %s" % env.loggen, file=sys.stderr)
        return 2
    bench = Bench(args, env)
    started = time.time()
    report = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
        "machine": machine(),
        "versions": {d: env.version(d) for d in DAEMONS},
        "sluice_commit": git_describe(),
        "loggen": "%s (%s)" % (env.loggen_kind, env.loggen),
        "repeat": repeat,
        "loadavg_start": round(os.getloadavg()[0], 2),
        "scenarios": [],
    }
    report["versions"]["sluice"] += " (%s)" % report["sluice_commit"]
    try:
        for s in scenarios:
            entry = {k: s[k] for k in ("name", "title", "transport", "connections", "size", "messages", "input", "goal",
                                       "files")}
            entry["daemons"] = {}
            base = by_name[s["keep-of"]] if s["keep-of"] and "sluice" in daemons else None
            run_scenario(bench, s, daemons, repeat, entry, base, keep_pairs)
            entry["ratios"] = ratios(entry)
            entry["goal_verdict"] = goal_verdict(entry)
            report["scenarios"].append(entry)
    finally:
        bench.close()
    report["seconds"] = round(time.time() - started, 1)
    report["loadavg_end"] = round(os.getloadavg()[0], 2)

    if args.no_save:
        print(markdown(report))
        return 0
    stem = "%s-%s" % (time.strftime("%Y-%m-%d-%H%M", time.gmtime(started)), re.sub(r"[^A-Za-z0-9_.-]", "_",
                                                                                  report["machine"]["host"]))
    save(report, args.results, stem)
    return 0


def run_scenario(bench, s, daemons, repeat, entry, base=None, keep_pairs=0):
    """Runs one scenario on each daemon, repeat times, the daemons taking
    turns so that a change in the machine's load falls on all of them.
    With base (the scenario named by keep-of), each of Sluice's runs is
    paired with a run of base just before it, and the share of base's
    throughput it keeps is the median of the pairs' ratios: a pair runs
    within a second or two, so a machine whose speed drifts from one
    minute to the next moves both sides of a ratio alike.  Up to
    keep_pairs pairs are made (extra Sluice runs count only there): one
    pair caught astride a change of speed then moves the median less."""
    runs = {}
    pairs = []
    for d in daemons:
        if d in s["not-for"]:
            entry["daemons"][d] = {"status": "n/a", "reason": s["not-for"][d], "runs": []}
            print("%-20s %-9s n/a: %s" % (s["name"], d, s["not-for"][d]), flush=True)
            continue
        why = bench.check(s, d)
        if why is None:
            runs[d] = []
            continue
        status = "pending" if d == "sluice" else "error"
        entry["daemons"][d] = {"status": status, "reason": why, "runs": []}
        print("%-20s %-9s %s: %s" % (s["name"], d, status, why), flush=True)
    if base is not None and "sluice" in runs and bench.check(base, "sluice") is not None:
        base = None
    for i in range(repeat):
        for d in [d for d in daemons if d in runs]:
            before = None
            if d == "sluice" and base is not None:
                before = _baseline_run(bench, base, i)
            try:
                r = bench.run_once(s, d)
            except RunError as e:
                if e.refused and d == "sluice":
                    # Sluice refuses what it cannot run: the feature is not built yet
                    del runs[d]
                    entry["daemons"][d] = {"status": "pending", "reason": str(e), "runs": []}
                    print("%-20s %-9s pending: %s" % (s["name"], d, e), flush=True)
                    continue
                r = {"error": str(e)}
                print("%-20s %-9s run %d: error: %s" % (s["name"], d, i + 1, e), flush=True)
            except (OSError, subprocess.SubprocessError) as e:
                r = {"error": str(e)}
                print("%-20s %-9s run %d: error: %s" % (s["name"], d, i + 1, e), flush=True)
            else:
                print("%-20s %-9s run %d: %10.0f msg/s %6.2f us/msg %7.1f MiB%s%s" % (
                    s["name"], d, i + 1, r["msgs_per_s"], r["cpu_us_per_msg"], r["peak_rss_kib"] / 1024.0,
                    "  lost %d (%d lines after stop)" % (r["lost"], r["delivered_after_stop"])
                    if r["lost"] else "", _file_note(r)), flush=True)
            runs[d].append(r)
            if before is not None and "error" not in r:
                pairs.append({"base": before["msgs_per_s"], "this": r["msgs_per_s"],
                              "ratio": r["msgs_per_s"] / before["msgs_per_s"]})
    tries = 0
    while base is not None and "sluice" in runs and len(pairs) < keep_pairs and tries < 2 * keep_pairs:
        tries += 1
        before = _baseline_run(bench, base, len(pairs))
        if before is None:
            continue
        try:
            r = bench.run_once(s, "sluice")
        except (RunError, OSError, subprocess.SubprocessError) as e:
            print("%-20s %-9s pair %d: error: %s" % (s["name"], "sluice", len(pairs) + 1, e), flush=True)
            continue
        print("%-20s %-9s pair %d: %10.0f msg/s %6.2f us/msg" % (
            s["name"], "sluice", len(pairs) + 1, r["msgs_per_s"], r["cpu_us_per_msg"]), flush=True)
        pairs.append({"base": before["msgs_per_s"], "this": r["msgs_per_s"],
                      "ratio": r["msgs_per_s"] / before["msgs_per_s"]})
    if s["keep-of"]:
        entry["keep"] = {"of": s["keep-of"], "goal": s["keep"], "pairs": pairs,
                         "median": median_or_none([p["ratio"] for p in pairs])}
    for d, rs in runs.items():
        med = summarize(rs)
        info = {"status": "ok" if med else "error", "median": med, "runs": rs}
        if not med:
            info["reason"] = rs[-1]["error"] if rs else "no run"
        entry["daemons"][d] = info
    # the table lists the daemons in their usual order
    entry["daemons"] = {d: entry["daemons"][d] for d in DAEMONS if d in entry["daemons"]}


def _file_note(r):
    """A file run's start-up time and loggen --check's counts."""
    if "startup_s" not in r:
        return ""
    note = "  first line after %.2f s (%.0f msg/s from it)" % (r["startup_s"], r["msgs_per_s_from_first"])
    if "check_missing" in r:
        note += "; check: missing %d, duplicated %d, reordered %d" % (
            r["check_missing"], r["check_duplicated"], r["check_reordered"])
    elif "check" in r:
        note += "; check: %s" % r["check"]
    return note


def _baseline_run(bench, base, i):
    """One run of Sluice on the baseline scenario; None when it failed."""
    try:
        r = bench.run_once(base, "sluice")
    except (RunError, OSError, subprocess.SubprocessError) as e:
        print("%-20s %-9s run %d: error: %s" % (base["name"], "sluice", i + 1, e), flush=True)
        return None
    print("%-20s %-9s run %d: %10.0f msg/s %6.2f us/msg (baseline)" % (
        base["name"], "sluice", i + 1, r["msgs_per_s"], r["cpu_us_per_msg"]), flush=True)
    return r


def save(report, results, stem):
    """Writes STEM.{md,json,png} and latest.{md,json,png} in results."""
    md = write_results(report, results, stem, markdown, chart)
    if report.get("png"):
        shutil.copyfile(os.path.join(results, report["png"]), os.path.join(results, "latest.png"))
    latest = dict(report, png="latest.png" if report.get("png") else None)
    with open(os.path.join(results, "latest.md"), "w", encoding="utf-8") as f:
        f.write(markdown(latest))
    shutil.copyfile(os.path.join(results, stem + ".json"), os.path.join(results, "latest.json"))
    print(md)
    print("bench: %.0f s; wrote %s.{md,json,png} and latest.{md,json,png} in %s" % (
        report["seconds"], stem, results))

if __name__ == "__main__":
    sys.exit(main())
