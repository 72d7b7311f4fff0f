#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# An HTTP server on 127.0.0.1 for http.sh, the peer of Sluice's http()
# destination.  The first requests are answered with the codes of PLAN
# (comma-separated, e.g. "503,503"; "huge" answers 200 with an endless
# body, "endless" 200 with a bulk answer that opens its items and never
# ends: blanks for ever), the rest with 200.  PLAN "silent" answers no request (each is
# noted in DIR/held, a line each, and left open); "hold0" leaves the first
# request that carries message seq 0 unanswered (noted in DIR/held) and
# answers the rest with 200.  PLAN "down:S" answers 503 to every request
# that comes within S seconds of the first one, 200 after that.  With "bulk" in PLAN (e.g. "huge,bulk") a
# 200 is a bulk API answer of more than 16 MiB, one item a line of the
# body: the message of seq N with N % 10 == 7 or 8 is refused (400, a long
# reason), with N % 10 == 9 told to come again (429) the first time, the
# others are taken (201) and carry the bulk of the answer (items in the
# order of the request: with seq 0..9, the failed ones come past 16 MiB);
# only the taken ones go to DIR/lines.  Each request goes as one JSON line to
# DIR/requests (method, path, headers, status, body); the body of each one
# answered 2xx, less PREFIX and SUFFIX and cut at DELIM, is appended to
# DIR/lines, one message a line.  It stops on its own after LIFETIME s.
# Usage: http-peer.py PORT DIR LIFETIME PLAN PREFIX SUFFIX DELIM
import http.server
import json
import os
import re
import sys
import time
import threading

port, out, lifetime, plan = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), sys.argv[4]
prefix, suffix, delim = sys.argv[5], sys.argv[6], sys.argv[7]
down = float(plan[5:]) if plan.startswith("down:") else None
codes = [c for c in plan.split(",") if c and c != "bulk" and plan not in ("silent", "hold0") and down is None]
first = []
bulk = "bulk" in plan.split(",")
lock = threading.Lock()
held = []
seen = set()
BULK_SIZE = 17 << 20


def bulk_answer(text):
    """The answer to a bulk request, and the lines taken."""
    lines = text.split(delim)
    outcome = []
    for line in lines:
        m = re.search(r"seq: (\d+)", line)
        seq = int(m.group(1)) if m else -1
        if seq % 10 in (7, 8):
            outcome.append(400)
        elif seq % 10 == 9 and seq not in seen:
            seen.add(seq)
            outcome.append(429)
        else:
            outcome.append(201)
    taken = [l for l, o in zip(lines, outcome) if o == 201]
    filler = "x\\\"\u00e9" * (BULK_SIZE // 10 // max(1, len(taken)))
    items = []
    for i, o in enumerate(outcome):
        if o == 201:
            items.append({"index": {"_index": "t", "_id": str(i), "result": "created", "status": 201,
                                    "echo": filler}})
        elif o == 400:
            items.append({"index": {"_index": "t", "_id": str(i), "status": 400,
                                    "error": {"type": "mapper_parsing_exception",
                                              "reason": "failed to parse " + "r" * 100000}}})
        else:
            items.append({"index": {"_index": "t", "_id": str(i), "status": 429,
                                    "error": {"type": "es_rejected_execution_exception",
                                              "reason": "rejected execution"}}})
    answer = {"took": 5, "errors": any(o != 201 for o in outcome), "items": items}
    return json.dumps(answer).encode(), taken


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _handle(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        text = body.decode("utf-8", errors="replace")
        with lock:
            hold = plan == "silent" or (plan == "hold0" and not held and
                                        0 in [int(m) for m in re.findall(r"seq: (\d+)", text)])
            if hold:
                held.append(1)
                with open(os.path.join(out, "held"), "a") as f:
                    f.write(text.replace("\n", " ") + "\n")
            code = "200" if hold or not codes else codes.pop(0)
            if down is not None:
                first.append(time.monotonic())
                code = "503" if first[-1] - first[0] < down else "200"
        if hold:
            time.sleep(lifetime)
            return
        # 200 with a body that never ends: HEAD, then FILL for ever
        endless = {"endless": (b'{"took":1,"errors":false,"items":[', b" "), "huge": (b"", b"x")}
        if code in endless:
            head, fill = endless[code]
            with lock:
                with open(os.path.join(out, "requests"), "a") as f:
                    f.write(json.dumps({"status": 200, "body": text}) + "\n")
            self.send_response(200)
            self.send_header("Content-Length", str(1 << 40))
            self.end_headers()
            chunk = fill * 65536
            try:
                self.wfile.write(head)
                while True:
                    self.wfile.write(chunk)
            except OSError:
                return
        status = int(code)
        with lock:
            with open(os.path.join(out, "requests"), "a") as f:
                f.write(json.dumps({"method": self.command, "path": self.path, "status": status,
                                    "headers": {k.lower(): v for k, v in self.headers.items()},
                                    "body": text}) + "\n")
            if 200 <= status < 300 and bulk:
                reply, taken = bulk_answer(text)
                with open(os.path.join(out, "lines"), "a") as f:
                    for line in taken:
                        f.write(line + "\n")
            elif 200 <= status < 300:
                if not text.startswith(prefix) or not text.endswith(suffix):
                    text = "BAD FRAMING " + text.replace("\n", " ")
                else:
                    text = text[len(prefix):len(text) - len(suffix)]
                with open(os.path.join(out, "lines"), "a") as f:
                    for line in text.split(delim):
                        f.write(line + "\n")
            if not (200 <= status < 300 and bulk):
                reply = b'{"ok":true}'
        self.send_response(status)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    do_POST = _handle
    do_PUT = _handle

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
server.daemon_threads = True
threading.Timer(lifetime, lambda: os._exit(0)).start()
server.serve_forever()
