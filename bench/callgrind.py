#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Instructions per message of one scenario, counted by callgrind.

The machine's speed moves from one minute to the next; an instruction count
does not.  This runs Sluice on a scenario under `valgrind --tool=callgrind`,
starts counting once the port is bound (so the start is left out), sends
MESSAGES with loggen, waits for every line, stops the daemon (its stop is
counted: a few hundred thousand instructions), and prints the daemon's
instructions per message.  The profile stays in the output directory for
callgrind_annotate.

    bench/callgrind.py --sluice build-bench/sluice tcp-file [--messages 50000] [--out DIR]

UDP scenarios (udp-file, udp-file-rate) count per datagram written: what the
kernel dropped while the daemon ran under valgrind is left out, and the run
ends once no line came for 5 s.  --rate sends evenly spaced datagrams at that
rate instead of the scenario's (a rate the daemon keeps up with under
valgrind reads a few datagrams a wakeup; as fast as loggen goes, a backlog).

Build with debug information for the annotation (meson -Ddebug=true).
Not a test; nothing asserts a count.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402


def _total_ir(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"^(?:summary|totals):\s+(\d+)", line)
            if m:
                return int(m.group(1))
    raise RuntimeError("no totals in %s" % path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario")
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--messages", type=int, default=50000)
    ap.add_argument("--out", default=None, help="where the profile goes (default: a new temp directory)")
    ap.add_argument("--port", type=int, default=23000)
    ap.add_argument("--loggen", default=None, help="default: tools/loggen/loggen beside --sluice")
    ap.add_argument("--rate", type=int, default=None, help="msg/s in all, evenly spaced (default: the scenario's)")
    args = ap.parse_args()

    meta = bench.parse_scenario(os.path.join(HERE, "scenarios", args.scenario + ".conf"))
    if meta["transport"] not in ("tcp", "udp") or meta["sink"] != "none":
        ap.error("only tcp and udp scenarios without a sink")
    udp = meta["transport"] == "udp"
    meta["messages"] = args.messages
    if args.rate:
        meta["rate"], meta["steady"] = args.rate, "yes"
    work = args.out or tempfile.mkdtemp(prefix="sluice-callgrind.")
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "out")
    os.makedirs(out, exist_ok=True)
    port = args.port
    while not bench.port_is_free(port):
        port += 1
    conf = os.path.join(work, "sluice.conf")
    with open(conf, "w", encoding="utf-8") as f:
        cert, key = bench.make_cert(work)
        f.write(bench.render(meta["text"], {"PORT": port, "OUT": out, "CERT": cert, "KEY": key,
                                            "SCENARIOS": os.path.join(HERE, "scenarios")}))
    input_path = None
    if meta["input"] != "loggen":
        input_path = os.path.join(work, "input-%s.txt" % meta["input"])
        bench.write_input(input_path, meta["input"])
    _, expected = bench.expected_lines(meta, input_path)

    sluice = os.path.abspath(args.sluice)
    prof = os.path.join(work, "callgrind.out")
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=" + prof,
           sluice, "-F", "-f", conf, "-R", os.path.join(work, "persist"), "-p", os.path.join(work, "pid")]
    log = open(os.path.join(work, "daemon.log"), "wb")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=work)
    try:
        deadline = time.monotonic() + 60
        while not bench.port_is_bound(port, udp):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("not listening: see %s" % log.name)
            time.sleep(0.1)
        time.sleep(0.5)
        subprocess.run(["callgrind_control", "-i", "on", str(proc.pid)], check=True, capture_output=True)

        class Env:
            loggen = args.loggen or os.path.join(os.path.dirname(sluice), "tools/loggen/loggen")
            loggen_kind = "sluice"
        lcmd = bench.loggen_cmd(Env, meta, port, input_path)
        subprocess.run(lcmd, check=True, capture_output=True)
        deadline = time.monotonic() + 600
        last, last_t = -1, time.monotonic()
        counter = bench.LineCounter(out)
        while True:
            n = counter.poll()
            if n >= expected:
                break
            if n != last:
                last, last_t = n, time.monotonic()
            if udp and time.monotonic() - last_t > 5:
                break  # what has not come by now was dropped
            if time.monotonic() - last_t > 10 or time.monotonic() > deadline:
                raise RuntimeError("%d of %d lines" % (n, expected))
            time.sleep(0.2)
    finally:
        bench.stop_process(proc, timeout=60)
    ir = _total_ir(prof)
    sent = (meta["messages"] // meta["connections"]) * meta["connections"]
    if udp:
        sent = bench.LineCounter(out).poll()  # per datagram read and written
    print("%s: %d messages, %d instructions, %.0f per message (profile %s)" % (
        args.scenario, sent, ir, ir / sent, prof))


if __name__ == "__main__":
    main()
