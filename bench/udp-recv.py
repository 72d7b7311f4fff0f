#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The receiving side of UDP, per datagram: the daemon's CPU time and,
with --strace, its system calls (strace -c -f), for udp() or
udp-balancer(listeners(2) balance(random)) into one file.

loggen sends COUNT 400-byte datagrams, evenly spaced at RATE a second
(--rate 0: as fast as it goes), from --senders sockets; the run ends once
no line came for 2 s.  Figures are per datagram written (what the kernel
dropped is left out and reported).  CPU time is the daemon's user + system
time (/proc/PID/stat), which a busy machine moves less than a rate.  With
--syscalls, perf stat counts the daemon's system calls over the same span
(tracepoints: a few percent of CPU, where strace -f would slow the daemon
many times and make its batches longer than they are).

    bench/udp-recv.py --sluice build-prof/sluice --kind udp --count 200000 --rate 50000 [--syscalls]

Not a test; nothing asserts a figure.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

SOURCES = {
    "udp": 'udp(ip("127.0.0.1") port(%d) so-rcvbuf(8388608))',
    "balancer": 'udp-balancer(ip("127.0.0.1") port(%d) so-rcvbuf(8388608) listeners(2) balance(random))',
}


EVENTS = ("raw_syscalls:sys_enter", "syscalls:sys_enter_recvmmsg", "syscalls:sys_enter_recvfrom",
          "syscalls:sys_enter_epoll_wait", "syscalls:sys_enter_getsockopt", "syscalls:sys_enter_write",
          "syscalls:sys_enter_writev", "syscalls:sys_enter_futex")


def lines(path):
    try:
        with open(path, "rb") as f:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    except FileNotFoundError:
        return 0


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--kind", choices=sorted(SOURCES), default="udp")
    ap.add_argument("--count", type=int, default=200000)
    ap.add_argument("--rate", type=int, default=50000)
    ap.add_argument("--senders", type=int, default=1)
    ap.add_argument("--syscalls", action="store_true")
    ap.add_argument("--port", type=int, default=24000)
    args = ap.parse_args()

    sluice = os.path.abspath(args.sluice)
    loggen = os.path.join(os.path.dirname(sluice), "tools/loggen/loggen")
    work = tempfile.mkdtemp(prefix="sluice-udp-recv.")
    port = args.port
    while not bench.port_is_free(port):
        port += 1
    out = os.path.join(work, "out.log")
    conf = os.path.join(work, "sluice.conf")
    with open(conf, "w") as f:
        f.write("@version: 3.38\noptions { stats-freq(0); };\nsource s { %s; };\n"
                "destination d { file(\"%s\"); };\nlog { source(s); destination(d); };\n"
                % (SOURCES[args.kind] % port, out))
    cmd = [sluice, "-F", "-f", conf, "-R", os.path.join(work, "persist"), "-p", os.path.join(work, "pid")]
    trace = os.path.join(work, "perf.txt")
    perf = None
    proc = subprocess.Popen(cmd, stdout=open(os.path.join(work, "daemon.log"), "wb"), stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while not bench.port_is_bound(port, True):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("not listening: see %s" % work)
            time.sleep(0.1)
        time.sleep(0.3)
        pid = proc.pid
        if args.syscalls:
            perf = subprocess.Popen(["perf", "stat", "-x,", "-o", trace, "-p", str(pid)] +
                                    sum((["-e", e] for e in EVENTS), []))
            time.sleep(0.5)
        cpu0 = cpu_seconds(pid)
        lg = [loggen, "-i", "-D", "--active-connections=%d" % args.senders, "-n", str(args.count // args.senders),
              "-r", str(args.rate // args.senders if args.rate else 100000000), "-I", "600", "-Q", "-s", "400"]
        if args.rate:
            lg.append("--steady")
        subprocess.run(lg + ["127.0.0.1", str(port)], check=True, capture_output=True)
        last, last_t = -1, time.monotonic()
        while time.monotonic() - last_t < 2:
            n = lines(out)
            if n != last:
                last, last_t = n, time.monotonic()
            time.sleep(0.1)
        cpu = cpu_seconds(pid) - cpu0
        if perf:
            perf.send_signal(2)
            perf.wait()
    finally:
        bench.stop_process(proc, timeout=30)
    sent = (args.count // args.senders) * args.senders
    print("%s %s: %d of %d datagrams written (%.2f%% lost), CPU %.3f s, %.3f us/datagram" % (
        os.path.basename(os.path.dirname(os.path.abspath(sluice))), args.kind, last, sent,
        100.0 * (sent - last) / sent, cpu, 1e6 * cpu / max(last, 1)))
    if perf:
        calls = {}
        with open(trace) as f:
            for line in f:
                parts = line.strip().split(",")
                if len(parts) > 2 and parts[0].isdigit():
                    calls[parts[2].split(":")[1].replace("sys_enter_", "")] = int(parts[0])
        total = calls.pop("sys_enter", 0)
        print("  syscalls per datagram: %.3f in all; %s" % (
            total / max(last, 1), ", ".join("%s %.3f" % (k, v / max(last, 1)) for k, v in calls.items() if v)))
    print("  (work directory %s)" % work)


if __name__ == "__main__":
    main()
