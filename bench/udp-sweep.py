#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Where UDP loss begins: a rate sweep per source kind and load shape.

For each source kind (Sluice udp(), an so-reuseport() group, udp-balancer(),
syslog-ng 3.38 udp(), rsyslog imudp with two threads) and each load shape
(several senders, each its own socket and source port; one sender), loggen
sends evenly spaced 400-byte datagrams (--steady) at rising rates, a fixed
number of seconds per step.  The loss of a step is what loggen sent minus
what reached the output file, counted by loggen --check per sender.  A
kind's sweep stops after two steps over the loss threshold (0.1 %); its
result is the highest rate with less loss than that.

The steps go rate by rate, every kind still in the sweep taking its turn
at one rate before any goes to the next, so that a change in a shared
machine's speed falls on all kinds alike instead of on one kind's sweep.

The daemons are started, waited for and counted by bench.py's Bench (one
run_once per step); this file only makes the configurations, walks the
rates and writes the report: bench/results/DATE-udp-sweep.{md,json,png}.

    bench/run.sh --udp-sweep                  # the full sweep (see bench/README.md)
    bench/run.sh --udp-sweep --rates 25000,50000 --seconds 2 --kinds sluice-udp,syslog-ng-udp
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from bench import HERE, Bench, Env, RunError
from benchreport import REPO, git_describe, machine, pyplot, write_results

RATES = (25000, 50000, 100000, 150000, 200000, 300000, 400000, 500000, 600000, 800000)

# -------------------------------------------------------------- the kinds
#
# Every kind reads 127.0.0.1:@PORT@ with the same receive buffer per
# socket (@RCVBUF@) and writes $MSG and a newline to one file, without
# flow control (as udp-file): what the daemon cannot keep up with is
# dropped, in the kernel's socket buffer or in the daemon's queue, and
# either way is missing from the file.

SNG_HEAD = "@version: 3.38\n\n"
SNG_TAIL = """destination d_file { file("@OUT@/messages.log" template("$MSG\\n")); };
log { source(s_net); destination(d_file); };
"""


def _sng(sources):
    return SNG_HEAD + "source s_net {\n%s};\n" % "".join("  %s;\n" % s for s in sources) + SNG_TAIL


def _udp(extra=""):
    return 'udp(ip("127.0.0.1") port(@PORT@) so-rcvbuf(@RCVBUF@)%s)' % extra


def _group(n, ebpf):
    """An so-reuseport() group of n udp() sources, as syslog-ng writes one;
    with ebpf the first one attaches the random program to the group."""
    out = []
    for i in range(n):
        extra = ' so-reuseport(yes) persist-name("udp%d")' % (i + 1)
        if ebpf and i == 0:
            extra += " ebpf(reuseport(sockets(%d)))" % n
        out.append(_udp(extra))
    return out


# rsyslog: two imudp threads, batchSize and timeRequery at their defaults
# (32 and 2); rcvbufSize is set with SO_RCVBUFFORCE when rsyslog runs as
# root, past net.core.rmem_max, where the others' SO_RCVBUF stops at it:
# the sweep raises rmem_max (as root) so that all get the same buffer.
# rsyslog takes loggen's time stamp (no zone) for a host name and keeps
# "MM:SS localhost prg00000[1234]: " in its msg: %msg:33:$% cuts those 32
# bytes, so that it writes the same bytes as the others, $MSG and a newline.
RSYSLOG = """global(workDirectory="@WORK@")
module(load="imudp" threads="2")
input(type="imudp" address="127.0.0.1" port="@PORT@" rcvbufSize="@RCVBUF@")
template(name="msg" type="string" string="%msg:33:$%\\n")
action(type="omfile" file="@OUT@/messages.log" template="msg")
"""


def kinds(group):
    """name -> (daemon, configuration, sockets bound, shapes it runs in, what it is)."""
    both = ("multi", "single")
    return {
        "sluice-udp": ("sluice", _sng([_udp()]), 1, both, "Sluice `udp()`"),
        "sluice-reuseport": ("sluice", _sng(_group(group, False)), group, ("multi",),
                             "Sluice `so-reuseport(yes)` group of %d `udp()` (kernel hash)" % group),
        "sluice-reuseport-ebpf": ("sluice", _sng(_group(group, True)), group, ("single",),
                                  "Sluice `so-reuseport(yes)` group of %d `udp()`, `ebpf(reuseport(sockets(%d)))`"
                                  % (group, group)),
        "sluice-balancer-random": ("sluice", _sng([
            'udp-balancer(ip("127.0.0.1") port(@PORT@) so-rcvbuf(@RCVBUF@) listeners(2) balance(random))']), 2, both,
            "Sluice `udp-balancer(listeners(2) balance(random))`"),
        "sluice-balancer-sender": ("sluice", _sng([
            'udp-balancer(ip("127.0.0.1") port(@PORT@) so-rcvbuf(@RCVBUF@) listeners(2) balance(sender))']), 2,
            ("multi",), "Sluice `udp-balancer(listeners(2) balance(sender))`"),
        "syslog-ng-udp": ("syslog-ng", _sng([_udp()]), 1, both, "syslog-ng 3.38 `udp()`"),
        "rsyslog-imudp": ("rsyslog", RSYSLOG, 1, both, 'rsyslog `imudp`, `threads="2"`'),
    }


SHAPES = {"multi": "several senders", "single": "one sender"}


# ----------------------------------------------------------------- system


def read_int(path):
    try:
        with open(path) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def write_int(path, value):
    try:
        with open(path, "w") as f:
            f.write("%d\n" % value)
        return True
    except OSError:
        return False


def udp_counters():
    """The kernel's Udp: counters (every socket on the machine)."""
    try:
        with open("/proc/net/snmp") as f:
            rows = [l.split() for l in f if l.startswith("Udp:")]
        return dict(zip(rows[0][1:], (int(v) for v in rows[1][1:])))
    except (OSError, IndexError, ValueError):
        return {}


RMEM_MAX = "/proc/sys/net/core/rmem_max"


def raise_rmem_max(want):
    """Lifts net.core.rmem_max to want when it is lower and we are root
    (sysctl -w net.core.rmem_max=want); returns what happened, for the
    report, and the value to put back."""
    before = read_int(RMEM_MAX)
    info = {"before": before, "wanted": want, "set_by_sweep": False}
    if before is not None and before < want:
        if os.geteuid() == 0 and write_int(RMEM_MAX, want):
            info["set_by_sweep"] = True
        else:
            info["note"] = ("not root: Sluice's and syslog-ng's SO_RCVBUF stop at %d bytes (rsyslog's "
                            "SO_RCVBUFFORCE too, without CAP_NET_ADMIN)" % before)
    info["during"] = read_int(RMEM_MAX)
    return info


# ------------------------------------------------------------------ sweep


def step_meta(name, kind, shape, rate, args):
    daemon, conf, sockets, _shapes, _what = kind
    conns = args.senders if shape == "multi" else 1
    per_conn = max(1, int(rate * args.seconds) // conns)
    text = conf.replace("@RCVBUF@", str(args.rcvbuf))
    meta = {
        "name": "udp-sweep-%s-%s-%d" % (name, shape, rate), "title": "", "transport": "udp",
        "connections": conns, "size": args.size, "messages": per_conn * conns, "input": "loggen",
        "expect": 1.0, "expect-match": None, "rate": rate, "steady": "yes", "sink": "none", "not-for": {},
        # errors name the kind's configuration (they are all in the JSON)
        "text": text, "path": os.path.join(REPO, "udp-sweep", name + ".conf"), "rsyslog_path": None,
        "sockets": sockets, "check": True,
    }
    if daemon == "rsyslog":
        meta["rsyslog_path"] = args.rsyslog_conf
    return meta


def run_step(bench, name, kind, shape, rate, args):
    meta = step_meta(name, kind, shape, rate, args)
    before = udp_counters()
    try:
        r = bench.run_once(meta, kind[0])
    except RunError as e:
        return {"rate": rate, "error": str(e), "refused": e.refused}
    except (OSError, subprocess.SubprocessError) as e:
        return {"rate": rate, "error": str(e)}
    after = udp_counters()
    sent = r.get("loggen_sent", r["sent"])
    if "check_missing" in r:
        # loggen --check: each sender's numbers that never came; --expect
        # is what it was told to send, so lines loggen did not send count
        # as missing too: take them off
        lost = max(0, r["check_missing"] - (r["sent"] - sent))
        counted = "loggen --check"
    else:
        lost = max(0, sent - r.get("delivered_after_stop", r["delivered"]))
        counted = "lines in the file"
    step = {
        "rate": rate, "sent": sent, "lost": lost, "loss": lost / sent if sent else 1.0, "counted": counted,
        "duplicated": r.get("check_duplicated"), "send_rate": r.get("loggen_rate"),
        "late_p99_us": r.get("loggen_late_p99_us"), "cpu_us_per_msg": r["cpu_us_per_msg"],
        "peak_rss_kib": r["peak_rss_kib"],
        "kernel_rcvbuf_errors": (after.get("RcvbufErrors", 0) - before.get("RcvbufErrors", 0)) if after else None,
    }
    # loggen behind its schedule: the step did not offer the rate it names
    step["sender_short"] = bool(step["send_rate"] and step["send_rate"] < args.sender_floor * rate)
    step["ok"] = step["loss"] < args.threshold and not step["sender_short"]
    return step


def sweep(bench, plan, args):
    """Every (shape, kind) at each rate in turn; a sweep leaves after
    args.stop_after failed steps.  Returns {shape: {kind: entry}}."""
    out = {s: {} for s in SHAPES}
    for shape, name, kind in plan:
        out[shape][name] = {"what": kind[4], "daemon": kind[0], "steps": [], "failed": 0, "status": "ok"}
        why = bench.check(step_meta(name, kind, shape, args.rates[0], args), kind[0])
        if why:
            out[shape][name].update(status="pending" if kind[0] == "sluice" else "error", reason=why)
            print("%-7s %-24s %s" % (shape, name, why), flush=True)
    for rate in args.rates:
        for shape, name, kind in plan:
            e = out[shape][name]
            if e["status"] != "ok" or e["failed"] >= args.stop_after:
                continue
            st = run_step(bench, name, kind, shape, rate, args)
            e["steps"].append(st)
            if "error" in st:
                e["failed"] += 1
                if st.get("refused"):
                    e.update(status="pending", reason=st["error"])
                print("%-7s %-24s %7d msg/s: error: %s" % (shape, name, rate, st["error"]), flush=True)
                continue
            if not st["ok"]:
                e["failed"] += 1
            print("%-7s %-24s %7d msg/s: sent %8d at %8.0f msg/s, lost %7d (%6.3f %%), kernel rcvbuf drops %s, "
                  "%.2f us/msg%s" % (shape, name, rate, st["sent"], st["send_rate"] or 0, st["lost"],
                                     100 * st["loss"], st["kernel_rcvbuf_errors"], st["cpu_us_per_msg"],
                                     "  SENDER SHORT" if st["sender_short"] else ""), flush=True)
    for shape in out:
        for e in out[shape].values():
            good = [s["rate"] for s in e["steps"] if s.get("ok")]
            e["loss_free"] = max(good) if good else None
            # the last rate passed: the loss-free rate is only a lower bound
            e["open_ended"] = bool(e["steps"]) and e["steps"][-1].get("ok", False) and \
                e["steps"][-1]["rate"] == args.rates[-1]
            e["sender_limited"] = any(s.get("sender_short") for s in e["steps"])
    return out


# ----------------------------------------------------------------- report


def fmt_rate(v):
    return "-" if v is None else "{:,}".format(v)


def cell(step):
    if step is None:
        return ""
    if "error" in step:
        return "error"
    text = "%.3f %%" % (100 * step["loss"]) if step["loss"] else "0"
    if step["sender_short"]:
        text += " (sent at %.0fk)" % (step["send_rate"] / 1000)
    return text


def verdicts(res):
    """The issue's goal per shape: udp-balancer() >= 2x a single udp()'s
    loss-free rate, and more than each peer's."""
    out = []
    for shape, entries in res.items():
        bal = [(n, e["loss_free"]) for n, e in entries.items() if n.startswith("sluice-balancer") and e["loss_free"]]
        if not bal:
            if entries:
                out.append("- %s: no udp-balancer() result." % SHAPES[shape])
            continue
        bname, best = max(bal, key=lambda x: x[1])
        parts = []
        met = True
        udp = entries.get("sluice-udp", {}).get("loss_free")
        if "sluice-udp" not in entries:
            met = False
            parts.append("Sluice udp() not in this sweep")
        elif udp:
            ok = best >= 2 * udp
            met &= ok
            parts.append("%.2fx Sluice udp()'s %s (goal >= 2x)" % (best / udp, fmt_rate(udp)))
        else:
            met = False
            parts.append("no loss-free rate for Sluice udp()")
        for peer in ("syslog-ng-udp", "rsyslog-imudp"):
            if peer not in entries:
                continue
            p = entries[peer]["loss_free"]
            if p is None:
                parts.append("%s lost at every rate" % peer)
                continue
            met &= best > p
            parts.append("%.2fx %s's %s" % (best / p, peer, fmt_rate(p)))
        top = [n for n, e in entries.items() if e.get("open_ended")]
        if top:
            # a rate that passed at the top of the sweep is a lower bound
            parts.append("no loss at the highest rate for %s: a lower bound, raise --rates" % ", ".join(top))
        out.append("- %s: %s, %s msg/s loss-free: %s; **%s**." % (
            SHAPES[shape], bname, fmt_rate(best), "; ".join(parts), "met" if met else "NOT met"))
    return out


def markdown(report):
    args = report["settings"]
    rm = report["rmem_max"]
    out = ["# UDP loss sweep, %s" % report["date"], "",
           "Machine: %s, %d CPUs, %s, kernel %s (%s); load average %.2f at the start, %.2f at the end; %.0f s." % (
               report["machine"]["cpu"], report["machine"]["cpus"], report["machine"]["memory"],
               report["machine"]["kernel"], report["machine"]["os"], report["loadavg_start"],
               report["loadavg_end"], report["seconds"]),
           "", *(["**%s**" % report["note"], ""] if report.get("note") else []),
           "Versions: " + "; ".join("%s %s" % (k, v) for k, v in report["versions"].items()) + ".",
           "", ("Load: loggen (%s) `-D --steady`, %d-byte messages, %s s a step (messages = rate x seconds); "
                "several senders = %d loggen connections, each its own UDP socket and source port, the rate "
                "split between them; one sender = one socket. Every kind writes `$MSG` to one file, no flow "
                "control. Loss = sent - received, by `loggen --check` on the file once the daemon stopped. "
                "A step passes below %.1f %% loss with loggen within %d %% of the rate; a sweep stops after %d "
                "failed steps. Receive buffer %s bytes a socket (`so-rcvbuf()`, `rcvbufSize`).") % (
               report["loggen"], args["size"], args["seconds"], args["senders"], 100 * args["threshold"],
               round(100 * (1 - args["sender_floor"])), args["stop_after"], "{:,}".format(args["rcvbuf"])),
           "", "net.core.rmem_max: %s before%s." % (
               "{:,}".format(rm["before"]) if rm["before"] is not None else "unknown",
               ("; the sweep set it to %s with sysctl (as root) for the run and put it back after" %
                "{:,}".format(rm["during"])) if rm["set_by_sweep"] else
               ("; %s" % rm["note"] if rm.get("note") else ", enough; left as it was"))]
    rates = report["settings"]["rates"]
    for shape, entries in report["results"].items():
        if not entries:
            continue
        out += ["", "## %s" % SHAPES[shape].capitalize(), "",
                "Loss at each step (msg/s offered); blank: not run (the sweep had stopped).", "",
                "| source | loss-free msg/s | " + " | ".join("%dk" % (r // 1000) for r in rates) + " |",
                "| --- | ---: | " + " | ".join("---:" for _ in rates) + " |"]
        for name, e in entries.items():
            if e["status"] != "ok":
                out.append("| %s | %s: %s | %s |" % (e["what"], e["status"], e.get("reason", "")[:120],
                                                     " | ".join("" for _ in rates)))
                continue
            by = {s["rate"]: s for s in e["steps"]}
            lf = fmt_rate(e["loss_free"])
            if e["loss_free"] and e["open_ended"]:
                lf = ">= " + lf
            out.append("| %s | **%s** | %s |" % (e["what"], lf, " | ".join(cell(by.get(r)) for r in rates)))
    out += ["", "## Goal", "",
            "udp-balancer() sustains at least twice the loss-free rate of a single udp() source on this "
            "machine, and more than each peer:", ""]
    out += verdicts(report["results"]) or ["- no result."]
    out += ["", "Each step's sent count, loggen's achieved rate and lateness (p99), the kernel's "
            "`RcvbufErrors` over the step (every UDP socket on the machine), CPU µs/msg and peak RSS are "
            "in the JSON beside this file."]
    if report.get("png"):
        out += ["", "![loss per rate](%s)" % report["png"]]
    return "\n".join(out) + "\n"


def chart(report, path):
    plt = pyplot("udp-sweep")
    if not plt:
        return False
    shapes = [s for s, e in report["results"].items() if e]
    if not shapes:
        return False
    fig, axes = plt.subplots(1, len(shapes), figsize=(7 * len(shapes), 5), squeeze=False)
    thr = 100 * report["settings"]["threshold"]
    marks = "os^vDP*X"
    # one colour, marker and dash per kind in both panels
    order = list(kinds(2))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, shape in zip(axes[0], shapes):
        for name, e in report["results"][shape].items():
            i = order.index(name) if name in order else len(order)
            pts = [(s["rate"] / 1000, 100 * s["loss"], s["sender_short"]) for s in e["steps"] if "error" not in s]
            if not pts:
                continue
            # kinds at 0 % lie on each other: a marker and dash of their own
            line, = ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marks[i % len(marks)],
                            linestyle=("-", "--", ":", "-.")[i % 4], markersize=8 - i % 4, label=name,
                            color=colors[i % len(colors)])
            short = [p for p in pts if p[2]]
            if short:
                ax.plot([p[0] for p in short], [p[1] for p in short], linestyle="none", marker="o", markersize=14,
                        markerfacecolor="none", markeredgecolor=line.get_color())
        ax.axhline(thr, color="grey", linestyle="--", linewidth=1)
        ax.set_yscale("symlog", linthresh=0.01)
        ax.set_ylim(bottom=0, top=100)
        ax.set_xlabel("thousand msg/s offered (ringed: loggen fell short of the rate)")
        ax.set_ylabel("loss %% (dashed: %.1f %%)" % thr)
        ax.set_title("%s, %s" % (SHAPES[shape], report["date"]))
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def save(report, results, stem):
    # in run order: the tables follow it
    md = write_results(report, results, stem, markdown, chart, sort_keys=False)
    print(md)
    print("udp-sweep: %.0f s; wrote %s.{md,json%s} in %s" % (report["seconds"], stem,
                                                             ",png" if report.get("png") else "", results))


# ------------------------------------------------------------------- main


def main(argv=None):
    ap = argparse.ArgumentParser(description="UDP loss by rate, per source kind and load shape")
    ap.add_argument("--rates", default=",".join(str(r) for r in RATES), help="msg/s in all, comma-separated")
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds of load a step")
    ap.add_argument("--senders", type=int, default=4, help="loggen connections of the several-senders shape")
    ap.add_argument("--shapes", default="multi,single", help="multi (several senders), single (one sender)")
    ap.add_argument("--kinds", default=None, help="comma-separated subset of: " + ",".join(kinds(2)))
    ap.add_argument("--group", type=int, default=2, help="udp() sources in the so-reuseport() group")
    ap.add_argument("--size", type=int, default=400, help="loggen -s")
    ap.add_argument("--rcvbuf", type=int, default=16 << 20, help="receive buffer a socket, bytes, for every daemon")
    ap.add_argument("--threshold", type=float, default=0.001, help="loss share a step may have (0.001: 0.1 %%)")
    ap.add_argument("--stop-after", type=int, default=2, help="failed steps that end a kind's sweep")
    ap.add_argument("--sender-floor", type=float, default=0.95,
                    help="a step fails when loggen sent slower than this share of its rate")
    ap.add_argument("--sluice", default=os.path.join(REPO, "build-bench/sluice"))
    ap.add_argument("--syslog-ng-root", default=os.path.join(REPO, "build-bench/deps/syslog-ng"))
    ap.add_argument("--rsyslog-root", default=os.path.join(REPO, "build-bench/deps/rsyslog"))
    ap.add_argument("--loggen", default="sluice", help="sluice (needed: --steady and --check) or a path")
    ap.add_argument("--results", default=os.path.join(HERE, "results"))
    ap.add_argument("--no-save", action="store_true", help="print the table only")
    ap.add_argument("--note", default="", help="a line for the top of the report (what the run was for)")
    ap.add_argument("--from-json", metavar="FILE", help="write the reports of a saved sweep again (no run)")
    ap.add_argument("--port-base", type=int, default=25500)
    ap.add_argument("--udp-settle", type=float, default=1.0, help="a step ends this long after the last line")
    ap.add_argument("--timeout", type=float, default=120.0, help="longest step, seconds")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args(argv)
    if args.from_json:
        with open(args.from_json, encoding="utf-8") as f:
            report = json.load(f)
        save(report, args.results, os.path.basename(args.from_json)[: -len(".json")])
        return 0
    args.rates = sorted({int(r) for r in args.rates.split(",") if r.strip()})
    args.stall = 3.0  # Bench reads it for TCP only
    table = kinds(args.group)
    names = [k.strip() for k in (args.kinds or ",".join(table)).split(",") if k.strip()]
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    for n in names:
        if n not in table:
            ap.error("unknown kind %r" % n)
    for s in shapes:
        if s not in SHAPES:
            ap.error("unknown shape %r" % s)
    plan = [(s, n, table[n]) for s in shapes for n in names if s in table[n][3]]
    if not plan:
        ap.error("no kind runs in the shapes asked for")

    env = Env(args)
    if not os.access(env.loggen, os.X_OK):
        print("udp-sweep: loggen not found at %s (Sluice's: build-bench/tools/loggen)" % env.loggen, file=sys.stderr)
        return 2
    bench = Bench(args, env)
    # rsyslog reads its configuration from a file: the one kind's text,
    # rendered by Bench like the others
    args.rsyslog_conf = os.path.join(bench.tmp, "udp-sweep.rsyslog.conf")
    with open(args.rsyslog_conf, "w", encoding="utf-8") as f:
        f.write(table["rsyslog-imudp"][1].replace("@RCVBUF@", str(args.rcvbuf)))
    rmem = raise_rmem_max(args.rcvbuf)
    started = time.time()
    report = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
        "machine": machine(),
        "versions": {d: env.version(d) for d in ("sluice", "syslog-ng", "rsyslog")},
        "sluice_commit": git_describe(),
        "loggen": env.loggen_kind,
        "loadavg_start": round(os.getloadavg()[0], 2),
        "rmem_max": rmem,
        "note": args.note,
        "settings": {k: getattr(args, k) for k in ("rates", "seconds", "senders", "size", "rcvbuf", "threshold",
                                                   "stop_after", "sender_floor", "group")},
        "configs": {n: table[n][1].replace("@RCVBUF@", str(args.rcvbuf)) for n in names},
    }
    report["versions"]["sluice"] += " (%s)" % report["sluice_commit"]
    if rmem["set_by_sweep"]:
        print("udp-sweep: net.core.rmem_max %d -> %d for the sweep (sysctl, as root)" % (rmem["before"],
                                                                                         rmem["during"]), flush=True)
    elif rmem.get("note"):
        print("udp-sweep: " + rmem["note"], file=sys.stderr, flush=True)
    try:
        report["results"] = sweep(bench, plan, args)
    finally:
        bench.close()
        if rmem["set_by_sweep"] and write_int(RMEM_MAX, rmem["before"]):
            print("udp-sweep: net.core.rmem_max back to %d" % rmem["before"], flush=True)
    report["seconds"] = round(time.time() - started, 1)
    report["loadavg_end"] = round(os.getloadavg()[0], 2)
    if args.no_save:
        print(markdown(report))
        return 0
    save(report, args.results, time.strftime("%Y-%m-%d-%H%M", time.gmtime(started)) + "-udp-sweep")
    return 0


if __name__ == "__main__":
    sys.exit(main())
