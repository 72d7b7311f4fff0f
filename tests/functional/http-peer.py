#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# An HTTP server on 127.0.0.1 for http.sh, the peer of Sluice's http()
# destination.  The first requests are answered with the codes of PLAN
# (comma-separated, e.g. "503,503"; "huge" answers 200 with an endless
# body), the rest with 200.  PLAN "silent" answers no request (each is
# noted in DIR/held, a line each, and left open); "hold0" leaves the first
# request that carries message seq 0 unanswered (noted in DIR/held) and
# answers the rest with 200.  Each request goes as one JSON line to
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
codes = [c for c in plan.split(",") if c and plan not in ("silent", "hold0")]
lock = threading.Lock()
held = []


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
        if hold:
            time.sleep(lifetime)
            return
        if code == "huge":
            with lock:
                with open(os.path.join(out, "requests"), "a") as f:
                    f.write(json.dumps({"status": 200, "body": text}) + "\n")
            self.send_response(200)
            self.send_header("Content-Length", str(1 << 40))
            self.end_headers()
            chunk = b"x" * 65536
            try:
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
            if 200 <= status < 300:
                if not text.startswith(prefix) or not text.endswith(suffix):
                    text = "BAD FRAMING " + text.replace("\n", " ")
                else:
                    text = text[len(prefix):len(text) - len(suffix)]
                with open(os.path.join(out, "lines"), "a") as f:
                    for line in text.split(delim):
                        f.write(line + "\n")
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
