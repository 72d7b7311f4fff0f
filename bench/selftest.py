#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Self-test of the benchmark harness's own code: scenario parsing, expected
line counts, the incremental line counter, the generated input, medians,
ratios and the markdown table.  It starts no daemon.

    python3 bench/selftest.py
"""

import os
import random
import re
import shutil
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from bench import HERE, LineCounter, expected_lines, list_scenarios, mixed_line, render
from bench import RunError, parse_scenario, run_scenario
from benchreport import DAEMONS, goal_verdict, keep_verdict, markdown, ratios, summarize


def load_udp_sweep():
    """bench/udp-sweep.py (a name import cannot take)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("udp_sweep", os.path.join(HERE, "udp-sweep.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class T(unittest.TestCase):
    def test_loggen_summary(self):
        from bench import loggen_summary
        d = tempfile.mkdtemp()
        try:
            path = os.path.join(d, "loggen.log")
            with open(path, "w") as f:
                f.write("average rate = 99676.31 msg/sec, count=200000, time=2.00649, (average) msg size=400, "
                        "bandwidth=38936.06 kB/sec\nlatency (usec behind schedule): count=200000, avg=5472.2, "
                        "p50<=383, p99<=49151, p99.9<=63487, max=66383\n")
            self.assertEqual(loggen_summary(path), {"loggen_rate": 99676.31, "loggen_sent": 200000,
                                                    "loggen_seconds": 2.00649, "loggen_late_p99_us": 49151,
                                                    "loggen_late_max_us": 66383})
            self.assertEqual(loggen_summary(os.path.join(d, "none")), {})
        finally:
            shutil.rmtree(d)

    def test_udp_sweep_report(self):
        us = load_udp_sweep()
        table = us.kinds(2)
        for name, (daemon, conf, sockets, shapes, what) in table.items():
            left = re.findall(r"@[A-Z]+@", render(conf, dict.fromkeys(("PORT", "OUT", "WORK", "RCVBUF"), "x")))
            self.assertEqual(left, [], name)
        self.assertEqual(us._sng(us._group(2, True)).count("so-reuseport(yes)"), 2)

        def step(rate, loss, short=False):
            return {"rate": rate, "sent": rate, "lost": int(rate * loss), "loss": loss, "sender_short": short,
                    "send_rate": rate * (0.5 if short else 1.0), "ok": loss < 0.001 and not short}

        def entry(what, steps, top=False):
            good = [s["rate"] for s in steps if s["ok"]]
            return {"what": what, "status": "ok", "steps": steps, "loss_free": max(good) if good else None,
                    "open_ended": top}
        res = {"multi": {
            "sluice-udp": entry("udp", [step(25000, 0), step(50000, 0.01), step(100000, 0.2)]),
            "sluice-balancer-random": entry("bal", [step(25000, 0), step(50000, 0), step(100000, 0, short=True)]),
            "syslog-ng-udp": entry("sng", [step(25000, 0.002), step(50000, 0.3)]),
        }, "single": {}}
        v = us.verdicts(res)
        self.assertEqual(len(v), 1)
        self.assertIn("2.00x Sluice udp()'s 25,000", v[0])
        self.assertIn("syslog-ng-udp lost at every rate", v[0])
        self.assertIn("**met**", v[0])
        report = {"date": "d", "machine": {"cpu": "c", "cpus": 2, "memory": "m", "kernel": "k", "os": "o"},
                  "loadavg_start": 1, "loadavg_end": 2, "seconds": 3, "versions": {"sluice": "s"}, "loggen": "sluice",
                  "rmem_max": {"before": 212992, "during": 16777216, "set_by_sweep": True}, "note": "smoke",
                  "settings": {"rates": [25000, 50000, 100000], "seconds": 2, "senders": 4, "size": 400,
                               "rcvbuf": 16777216, "threshold": 0.001, "stop_after": 2, "sender_floor": 0.95},
                  "results": res}
        md = us.markdown(report)
        self.assertIn("| bal | **50,000** | 0 | 0 | 0 (sent at 50k) |", md)
        self.assertIn("| sng | **-** | 0.200 % | 30.000 % |  |", md)
        self.assertIn("set it to 16,777,216 with sysctl", md)
        self.assertNotIn("One sender", md)

    def test_scenarios_parse(self):
        for s in list_scenarios(os.path.join(HERE, "scenarios")):
            self.assertTrue(s["title"], s["name"])
            # every scenario has an rsyslog file, unless it is not for rsyslog
            if "rsyslog" in s["not-for"]:
                self.assertIsNone(s["rsyslog_path"], s["name"])
                text = s["text"]
            else:
                self.assertIsNotNone(s["rsyslog_path"], s["name"])
                text = open(s["rsyslog_path"]).read() + s["text"]
            if s["sink"] == "daemon":
                self.assertIsNotNone(s["sink_rsyslog_path"], s["name"])
                text += open(s["sink_path"]).read() + open(s["sink_rsyslog_path"]).read()
            left = re.findall(r"@[A-Z]+@", render(text, dict.fromkeys(("PORT", "OUT", "WORK", "CERT", "KEY", "SINKPORT", "IN", "SCENARIOS"), "x")))
            self.assertEqual(left, [], s["name"])

    def test_not_for_takes_a_line_per_daemon(self):
        s = [x for x in list_scenarios(os.path.join(HERE, "scenarios")) if x["name"] == "logstore-one"][0]
        self.assertEqual(sorted(s["not-for"]), ["rsyslog", "syslog-ng"])
        self.assertIn("PE", s["not-for"]["syslog-ng"])

    def test_logstore_records_are_counted(self):
        # a header with no key block, a DATA chunk of 3 records, a whole
        # CLOSE chunk, and half a DATA chunk (not counted yet)
        def chunk(kind, records, payload):
            h = b"LSCK" + bytes([kind, 0, 0, 0]) + bytes(8) + records.to_bytes(4, "little")
            h += len(payload).to_bytes(4, "little") * 2 + bytes(4) + bytes(48)
            return h + payload + bytes(48)
        with tempfile.TemporaryDirectory() as d:
            data = b"SLUICELS" + bytes(24) + bytes(32) + chunk(1, 3, b"abc") + chunk(2, 0, bytes(16))
            with open(os.path.join(d, "a.lgs"), "wb") as f:
                f.write(data + chunk(1, 5, b"xyz")[:90])
            c = LineCounter(d)
            self.assertEqual(c.poll(), 3)
            with open(os.path.join(d, "a.lgs"), "ab") as f:
                f.write(chunk(1, 5, b"xyz")[90:])
            self.assertEqual(c.poll(), 8)

    def test_keep_names_a_scenario(self):
        scenarios = list_scenarios(os.path.join(HERE, "scenarios"))
        names = {s["name"] for s in scenarios}
        kept = [s for s in scenarios if s["keep-of"]]
        self.assertIn("tcp-json-parser", {s["name"] for s in kept})
        for s in kept:
            self.assertIn(s["keep-of"], names, s["name"])
            self.assertTrue(0 < s["keep"] <= 1, s["name"])
        with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as f:
            f.write("# bench: keep = 0.7\n")
        with self.assertRaisesRegex(ValueError, "keep and keep-of go together"):
            parse_scenario(f.name)
        os.unlink(f.name)

    def test_keep_verdict(self):
        pairs = [{"base": 10.0, "this": t, "ratio": t / 10.0} for t in (6.0, 8.0, 7.5)]
        entry = {"keep": {"of": "b", "goal": 0.7, "pairs": pairs, "median": 0.75}}
        self.assertEqual(keep_verdict(entry), "met: 75% of `b` (goal >= 70%; pairs: 60%, 80%, 75%)")
        entry["keep"]["median"] = 0.65
        self.assertTrue(keep_verdict(entry).startswith("NOT met: 65%"))
        self.assertIsNone(keep_verdict({"name": "x"}))
        entry["keep"].update(pairs=[], median=None)
        self.assertTrue(keep_verdict(entry).startswith("pending"))

    def test_keep_pairs_each_run_with_its_baseline(self):
        class StubBench:
            """Runs nothing: each run's msg/s is the next of a list; the
            calls are logged in order."""
            def __init__(self, rates):
                self.rates, self.calls = list(rates), []

            def check(self, meta, daemon):
                return None

            def run_once(self, meta, daemon):
                self.calls.append((meta["name"], daemon))
                rate = self.rates.pop(0)
                if rate is None:
                    raise RunError("stub failure")
                return {"msgs_per_s": rate, "cpu_us_per_msg": 1.0, "peak_rss_kib": 1.0, "lost": 0,
                        "delivered_after_stop": 0, "expected": 1, "sent": 1}

        s = {"name": "p", "not-for": {}, "keep-of": "b", "keep": 0.7}
        base = {"name": "b", "not-for": {}, "keep-of": None}
        # Sluice and a peer take turns for 2 runs, then pairs up to 4 (a
        # failed baseline run makes none); each Sluice run follows a
        # baseline run
        rates = [10, 7, 3, 10, 8, 3, None, 10, 9, 10, 6]
        bench = StubBench(rates)
        entry = {"daemons": {}}
        run_scenario(bench, s, ["sluice", "rsyslog"], 2, entry, base, 4)
        self.assertEqual(bench.calls, [("b", "sluice"), ("p", "sluice"), ("p", "rsyslog"),
                                       ("b", "sluice"), ("p", "sluice"), ("p", "rsyslog"),
                                       ("b", "sluice"), ("b", "sluice"), ("p", "sluice"),
                                       ("b", "sluice"), ("p", "sluice")])
        self.assertEqual([p["ratio"] for p in entry["keep"]["pairs"]], [0.7, 0.8, 0.9, 0.6])
        self.assertAlmostEqual(entry["keep"]["median"], 0.75)
        # the table's median is the first two Sluice runs only
        self.assertEqual(entry["daemons"]["sluice"]["median"]["msgs_per_s"], 7.5)

    def test_expected(self):
        meta = {"messages": 1000, "connections": 4, "expect": 0.5, "expect-match": None}
        self.assertEqual(expected_lines(meta, None), (1000, 500))
        with tempfile.NamedTemporaryFile("w", delete=False) as f:
            f.write("<32>a\n<13>b\n<80>c\n")
        meta = {"messages": 8, "connections": 2, "expect": 1.0, "expect-match": r"^<(3[2-9]|8[0-7])>"}
        # 4 lines a connection: a b c a -> 3 hits each
        self.assertEqual(expected_lines(meta, f.name), (8, 6))
        os.unlink(f.name)

    def test_counter(self):
        d = tempfile.mkdtemp()
        os.makedirs(os.path.join(d, "h"))
        c = LineCounter(d)
        self.assertEqual(c.poll(), 0)
        with open(os.path.join(d, "h", "a.log"), "w") as f:
            f.write("1\n2\n3")
        self.assertEqual(c.poll(), 2)
        with open(os.path.join(d, "h", "a.log"), "a") as f:
            f.write("\n4\n")
        with open(os.path.join(d, "b.log"), "w") as f:
            f.write("x\n")
        self.assertEqual(c.size(), 10)
        self.assertEqual(c.poll(), 5)
        self.assertEqual(c.poll(), 5)
        shutil.rmtree(d)

    def test_counter_reads_only_what_was_there(self):
        # lines that come while a poll reads must wait for the next poll:
        # counted by this one, they would end a run at the size seen before
        # them (the run of 2026-11-27 09:06 that showed 5M msg/s).  The
        # file's size at the start of the read is made 4 lines short of
        # its end, as if those 4 came during the read.
        d = tempfile.mkdtemp()
        path = os.path.join(d, "a.log")
        with open(path, "w") as f:
            f.write("".join("%d\n" % i for i in range(10)))
        real_fstat = os.fstat

        class Short:
            def __init__(self, st):
                self.st_size = st.st_size - 8
        os.fstat = lambda fd: Short(real_fstat(fd))
        try:
            c = LineCounter(d)
            self.assertEqual(c.poll(), 6)
        finally:
            os.fstat = real_fstat
        self.assertEqual(c.poll(), 10)
        shutil.rmtree(d)

    def test_input_deterministic(self):
        rng1, rng2 = random.Random(1), random.Random(1)
        a = [mixed_line(rng1) for _ in range(200)]
        self.assertEqual(a, [mixed_line(rng2) for _ in range(200)])
        self.assertTrue(all(re.match(r"^<\d+>[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ \S+: ", l) for l in a))
        self.assertGreater(max(map(len, a)) / min(map(len, a)), 5)

    def test_summary_and_report(self):
        runs = [{"msgs_per_s": v, "cpu_us_per_msg": 1.0 / v, "peak_rss_kib": 1000 * v, "lost": 0,
                 "expected": 10, "sent": 10} for v in (3.0, 1.0, 2.0)] + [{"error": "x"}]
        med = summarize(runs)
        self.assertEqual(med["msgs_per_s"], 2.0)
        self.assertEqual(med["runs"], 3)
        entry = {"name": "t", "title": "t", "messages": 10, "connections": 1, "goal": 1.5, "daemons": {
            "sluice": {"status": "ok", "median": dict(med, msgs_per_s=4.0, cpu_us_per_msg=0.5)},
            "syslog-ng": {"status": "ok", "median": med},
            "rsyslog": {"status": "error", "reason": "a|b", "median": None}}}
        entry["ratios"] = ratios(entry)
        self.assertEqual(entry["ratios"]["syslog-ng"]["msgs_per_s"], 2.0)
        self.assertIsNone(entry["ratios"]["rsyslog"])
        self.assertTrue(goal_verdict(entry).startswith("met"))
        entry["goal_verdict"] = goal_verdict(entry)
        pend = dict(entry, daemons=dict(entry["daemons"], sluice={"status": "pending", "reason": "no tcp"}))
        self.assertTrue(goal_verdict(pend).startswith("pending"))
        report = {"date": "d", "machine": {"cpu": "c", "cpus": 2, "memory": "1 GiB", "kernel": "k", "os": "o"},
                  "versions": dict.fromkeys(DAEMONS, "v"), "loggen": "l", "repeat": 3, "scenarios": [entry]}
        md = markdown(report)
        self.assertIn("| t | sluice | 4 | 0.50 |", md)
        self.assertIn("| 2.00 | 1.00 |", md)
        self.assertIn("error: a\\|b", md)
        self.assertIn("Daemon goal", md)
        self.assertNotIn("Throughput kept", md)
        entry["keep"] = {"of": "b", "goal": 0.7, "pairs": [{"base": 2.0, "this": 1.0, "ratio": 0.5}], "median": 0.5}
        self.assertIn("- `t`: NOT met: 50% of `b` (goal >= 70%; pairs: 50%).", markdown(report))


if __name__ == "__main__":
    unittest.main()
