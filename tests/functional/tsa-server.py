#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A local RFC 3161 time-stamping authority for logstore-tsa.sh: an HTTP
# server on 127.0.0.1 that answers each POSTed time-stamp query with
# `openssl ts -reply` under CONFIG, and counts the queries in COUNTFILE.
# It stops on its own after LIFETIME seconds.
# Usage: tsa-server.py PORT CONFIG COUNTFILE LIFETIME
import http.server
import subprocess
import sys
import tempfile
import threading
import os

port, config, countfile, lifetime = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
count = 0


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        global count
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with tempfile.TemporaryDirectory() as d:
            q, r = os.path.join(d, "q"), os.path.join(d, "r")
            with open(q, "wb") as f:
                f.write(body)
            done = subprocess.run(["openssl", "ts", "-reply", "-config", config, "-queryfile", q, "-out", r],
                                  capture_output=True)
            if done.returncode != 0:
                sys.stderr.write(done.stderr.decode(errors="replace"))
                self.send_response(500)
                self.end_headers()
                return
            reply = open(r, "rb").read()
        count += 1
        with open(countfile, "w") as f:
            f.write("%d\n" % count)
        self.send_response(200)
        self.send_header("Content-Type", "application/timestamp-reply")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", port), Handler)
threading.Timer(lifetime, server.shutdown).start()
server.serve_forever()
