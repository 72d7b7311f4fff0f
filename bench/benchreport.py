#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The benchmark's medians, ratios and reports (markdown, chart, machine),
apart from the code that runs daemons so that the self-test can load it
without starting anything."""

import json
import os
import platform
import socket
import statistics
import subprocess
import sys

DAEMONS = ("sluice", "syslog-ng", "rsyslog")
PEERS = ("syslog-ng", "rsyslog")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

def median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summarize(runs):
    """The medians of a daemon's repeated runs of one scenario."""
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return None
    return {
        "msgs_per_s": median_or_none([r["msgs_per_s"] for r in ok]),
        "cpu_us_per_msg": median_or_none([r["cpu_us_per_msg"] for r in ok]),
        "peak_rss_kib": median_or_none([r["peak_rss_kib"] for r in ok]),
        "lost": median_or_none([r["lost"] for r in ok]),
        "held": median_or_none([max(0, r.get("delivered_after_stop", 0) - r["delivered"]) if r["lost"] else 0
                                for r in ok]),
        "expected": ok[0]["expected"],
        "sent": ok[0]["sent"],
        "runs": len(ok),
        # file sources (transport = file): seconds from the daemon's start
        # to its first line, and loggen --check's counts
        "startup_s": median_or_none([r.get("startup_s") for r in ok]),
        "duplicated": median_or_none([r.get("check_duplicated") for r in ok]),
        "missing": median_or_none([r.get("check_missing") for r in ok]),
    }


def ratios(entry):
    """Sluice divided by each peer, for each figure."""
    out = {}
    s = entry["daemons"].get("sluice", {}).get("median")
    for peer in PEERS:
        p = entry["daemons"].get(peer, {}).get("median")
        if not s or not p:
            out[peer] = None
            continue
        out[peer] = {k: (s[k] / p[k] if p[k] else None) for k in ("msgs_per_s", "cpu_us_per_msg", "peak_rss_kib")}
    return out


def goal_verdict(entry):
    goal = entry.get("goal")
    if goal is None:
        return None
    s = entry["daemons"].get("sluice", {})
    r = (entry.get("ratios") or {}).get("syslog-ng")
    if s.get("status") != "ok" or r is None:
        return "pending (Sluice: %s)" % (s.get("reason") or s.get("status", "not run"))
    lost = s["median"]["lost"]
    met = r["msgs_per_s"] >= goal and s["median"]["cpu_us_per_msg"] <= 1.0 and not lost
    return "%s: Sluice/syslog-ng %.2fx msg/s (goal >= %.1fx), %.2f µs CPU/msg (goal <= 1), %s lost (goal 0)" % (
        "met" if met else "NOT met", r["msgs_per_s"], goal, s["median"]["cpu_us_per_msg"], fmt_num(lost))


def keep_verdict(entry):
    """What share of its baseline's throughput Sluice kept, against the
    scenario's keep goal; None when the scenario names no baseline."""
    k = entry.get("keep")
    if not k:
        return None
    if k["median"] is None:
        return "pending (no run of both)"
    return "%s: %.0f%% of `%s` (goal >= %.0f%%; pairs: %s)" % (
        "met" if k["median"] >= k["goal"] else "NOT met", 100.0 * k["median"], k["of"], 100.0 * k["goal"],
        ", ".join("%.0f%%" % (100.0 * p["ratio"]) for p in k["pairs"]))


def fmt_num(v, digits=0):
    if v is None:
        return "-"
    if digits == 0:
        return "{:,}".format(int(round(v)))
    return "%.*f" % (digits, v)


def markdown(report):
    m = report["machine"]
    out = ["# Sluice benchmark, %s" % report["date"], "",
           "Machine: %s, %s CPUs, %s memory, Linux %s, %s." % (m["cpu"], m["cpus"], m["memory"], m["kernel"], m["os"]),
           "Daemons: Sluice %s; %s; %s." % (report["versions"]["sluice"], report["versions"]["syslog-ng"],
                                          report["versions"]["rsyslog"]),
           "Load: %s loggen, same messages and connections for every daemon; median of %d run%s each; "
           "msg/s counts end to end, from loggen's start to the last line in the output files; "
           "msg/s and CPU count the messages the daemon read (a filter's dropped share included); CPU is the daemon's user+system time." % (
               report["loggen"], report["repeat"], "" if report["repeat"] == 1 else "s"),
           "",
           "Load average (1 min) at start and end: %s, %s; other work on the machine moves the figures." % (
               report.get("loadavg_start", "-"), report.get("loadavg_end", "-")),
           "",
           "| scenario | daemon | msg/s | CPU µs/msg | peak RSS MiB | Sluice/this msg/s | Sluice/this CPU | note |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for e in report["scenarios"]:
        for d in DAEMONS:
            info = e["daemons"].get(d)
            if info is None:
                continue
            med = info.get("median")
            ratio, cpu_ratio = "-", "-"
            if d != "sluice" and e["ratios"].get(d):
                ratio = "%.2f" % e["ratios"][d]["msgs_per_s"]
                cpu_ratio = fmt_num(e["ratios"][d]["cpu_us_per_msg"], 2)
                if med["lost"] or e["daemons"]["sluice"]["median"]["lost"]:
                    ratio += " †"
            note = ""
            if info["status"] != "ok":
                note = ("%s: %s" % (info["status"], info.get("reason", ""))).replace("|", "\\|")
            elif med["lost"]:
                note = "lost %s of %s (%.1f%%)" % (fmt_num(med["lost"]), fmt_num(med["expected"]),
                                                   100.0 * med["lost"] / med["expected"])
                if med.get("held"):
                    note += "; %s of them written only at stop" % fmt_num(med["held"])
            if info["status"] == "ok" and med.get("startup_s") is not None:
                note += "%sfirst line after %.2f s" % ("; " if note else "", med["startup_s"])
                if med.get("duplicated"):
                    note += "; %s duplicated" % fmt_num(med["duplicated"])
                if e.get("files", 1) > 1:
                    note += "; %.1f KiB RSS per file" % (med["peak_rss_kib"] / e["files"])
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                e["name"] if d == DAEMONS[0] else "", d,
                fmt_num(med and med["msgs_per_s"]), fmt_num(med and med["cpu_us_per_msg"], 2),
                fmt_num(med and med["peak_rss_kib"] / 1024.0, 1), ratio, cpu_ratio, note))
    out.append("")
    out.append("Scenarios:")
    out.append("")
    for e in report["scenarios"]:
        if e.get("transport") == "file":
            out.append("- `%s`: %s; %s lines in %s file%s, written before the daemon starts; msg/s from the "
                       "daemon's start to the last line in the output." % (
                           e["name"], e["title"], fmt_num(e["messages"]), fmt_num(e.get("files", 1)),
                           "" if e.get("files", 1) == 1 else "s"))
            continue
        out.append("- `%s`: %s; %s messages over %d connection%s." % (
            e["name"], e["title"], fmt_num(e["messages"]), e["connections"], "" if e["connections"] == 1 else "s"))
    out += ["", "† one side lost messages: the ratio compares the messages delivered.",
            "Without flow control a daemon that reads faster than it writes drops what overflows its queue "
            "(log-fifo-size), as syslog-ng does."]
    for e in report["scenarios"]:
        if e.get("goal_verdict"):
            out += ["", "Daemon goal (`%s`): %s." % (e["name"], e["goal_verdict"])]
    kept = [(e["name"], keep_verdict(e)) for e in report["scenarios"] if keep_verdict(e)]
    if kept:
        out += ["", "Throughput kept (Sluice; each run paired with a run of its baseline scenario just before it, "
                "median of the pairs' ratios):", ""]
        out += ["- `%s`: %s." % (name, v) for name, v in kept]
    if report.get("png"):
        out += ["", "![msg/s per scenario](%s)" % report["png"]]
    return "\n".join(out) + "\n"


def pyplot(tool):
    """matplotlib.pyplot on the Agg backend, or None (said on stderr) when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("%s: matplotlib is missing, no PNG (bench/run.sh installs python3-matplotlib)" % tool, file=sys.stderr)
        return None
    return plt


def write_results(report, results, stem, markdown_of, chart_of, sort_keys=True):
    """Writes STEM.png (when chart_of draws one), STEM.json and STEM.md in results; returns the markdown."""
    os.makedirs(results, exist_ok=True)
    report.pop("png", None)
    png = os.path.join(results, stem + ".png")
    if chart_of(report, png):
        report["png"] = os.path.basename(png)
    with open(os.path.join(results, stem + ".json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1, sort_keys=sort_keys)
        f.write("\n")
    md = markdown_of(report)
    with open(os.path.join(results, stem + ".md"), "w", encoding="utf-8") as f:
        f.write(md)
    return md


def chart(report, path):
    plt = pyplot("bench")
    if not plt:
        return False
    names = [e["name"] for e in report["scenarios"]]
    colors = {"sluice": "#1f77b4", "syslog-ng": "#ff7f0e", "rsyslog": "#2ca02c"}
    fig, axes = plt.subplots(2, 1, figsize=(max(8, 0.9 * len(names) + 2), 8), sharex=True)
    width = 0.27
    for i, d in enumerate(DAEMONS):
        for ax, key, scale in ((axes[0], "msgs_per_s", 1e-3), (axes[1], "cpu_us_per_msg", 1.0)):
            xs, ys, hatch = [], [], []
            for j, e in enumerate(report["scenarios"]):
                info = e["daemons"].get(d) or {}
                med = info.get("median")
                x = j + (i - 1) * width
                if med:
                    xs.append(x)
                    ys.append(med[key] * scale)
                    hatch.append("////" if med["lost"] else "")
                else:
                    ax.text(x, 0, info.get("status", "n/a"), rotation=90, ha="center", va="bottom", fontsize=7,
                            color=colors[d])
            bars = ax.bar(xs, ys, width, label=d, color=colors[d], edgecolor="white")
            for bar, h in zip(bars, hatch):
                bar.set_hatch(h)
    axes[0].set_ylabel("thousand msg/s delivered (higher is better)")
    axes[1].set_xlabel("hatched: messages were lost (see the table)")
    axes[1].set_ylabel("daemon CPU µs/msg (lower is better)")
    from matplotlib.patches import Patch
    axes[0].legend(handles=[Patch(color=colors[d], label=d) for d in DAEMONS])
    axes[0].set_title("Sluice, syslog-ng, rsyslog: %s, %s CPUs" % (report["date"], report["machine"]["cpus"]))
    axes[1].set_xticks(range(len(names)))
    axes[1].set_xticklabels(names, rotation=35, ha="right")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = "unknown"
    try:
        with open("/proc/meminfo") as f:
            kib = int(f.readline().split()[1])
            mem = "%.1f GiB" % (kib / 1048576.0)
    except (OSError, ValueError, IndexError):
        pass
    osname = platform.system()
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    osname = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return {"cpu": model, "cpus": len(os.sched_getaffinity(0)), "memory": mem, "kernel": platform.release(),
            "os": osname, "host": socket.gethostname()}


def git_describe():
    try:
        rev = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return rev + ("+local changes" if dirty else "")
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


