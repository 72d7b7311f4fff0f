#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# capture-peers.py DIR KIND:PORT:NAME...: stand in for the servers a
# destination sends to, on 127.0.0.1, and write what each one gets to
# DIR/NAME, in the order it came:
#   tcp   every connection's bytes, as they are
#   unix  as tcp, on a unix-stream socket at PORT (a path), answering each
#         line with collectd's "0 Success: 1 value has been dispatched."
#   udp   each datagram, then a line "--"
#   http  each request as "METHOD PATH", its Content-Type, its body, then a
#         line "--"; answered 200 with an empty body
#   proxy an HTTP proxy that takes CONNECT HOST:PORT and plays that server
#         over TLS itself (the certificate and key in $CAPTURE_CERT and
#         $CAPTURE_KEY): each request inside as http's, "METHOD PATH" as
#         "METHOD https://HOST:PORT/PATH"
# DIR/NAME.count holds the number of messages so far (datagrams, requests,
# or for tcp the NUL or newline bytes seen).  It runs until SIGTERM.
import http.server
import os
import ssl
import signal
import socket
import socketserver
import sys
import threading

out = sys.argv[1]
lock = threading.Lock()
counts = {}


def record(name, data, messages):
    with lock:
        with open(os.path.join(out, name), "ab") as f:
            f.write(data)
        counts[name] = counts.get(name, 0) + messages
        tmp = os.path.join(out, name + ".count.tmp")
        with open(tmp, "w") as f:
            f.write("%d\n" % counts[name])
        os.replace(tmp, os.path.join(out, name + ".count"))


# Each maker binds its port and returns the loop that serves it: the ports
# are all bound before "ready" is written.
def _accept_loop(srv, conn):
    def loop():
        while True:
            c, _ = srv.accept()
            threading.Thread(target=conn, args=(c,), daemon=True).start()

    return loop


def _stream(srv, name, answer):
    """What each connection to srv sends goes to name; answer(data) is
    sent back."""
    srv.listen(16)

    def conn(c):
        with c:
            while True:
                try:
                    data = c.recv(65536)
                    if not data:
                        return
                    record(name, data, data.count(b"\0") + data.count(b"\n"))
                    c.sendall(answer(data))
                except OSError:  # reset: a daemon that stops unread
                    return

    return _accept_loop(srv, conn)


def serve_tcp(port, name):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    return _stream(srv, name, lambda data: b"")


def serve_unix(path, name):
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    return _stream(srv, name, lambda data: b"0 Success: 1 value has been dispatched.\n" * data.count(b"\n"))


def serve_udp(port, name):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", port))

    def loop():
        while True:
            data, _ = s.recvfrom(65536)
            record(name, data + b"\n--\n", 1)

    return loop


def serve_http(port, name):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _any(self):
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n)
            head = "%s %s\nContent-Type: %s\n" % (self.command, self.path, self.headers.get("Content-Type"))
            record(name, head.encode() + body + b"\n--\n", 1)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_POST = do_PUT = do_GET = _any

        def log_message(self, *args):
            pass

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True

    return Server(("127.0.0.1", port), Handler).serve_forever


def _read_head(f):
    """The request line and headers (lower-case names) of the next request
    on f, or None at the end."""
    line = f.readline()
    if not line:
        return None
    headers = {}
    while True:
        h = f.readline()
        if h in (b"\r\n", b"\n", b""):
            break
        k, _, v = h.decode("latin-1").partition(":")
        headers[k.strip().lower()] = v.strip()
    return line.decode("latin-1").split(), headers


def serve_proxy(port, name):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(16)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.environ["CAPTURE_CERT"], os.environ["CAPTURE_KEY"])

    def conn(c):
        with c:
            f = c.makefile("rb")
            head = _read_head(f)
            if not head or head[0][0] != "CONNECT":
                return
            target = head[0][1]
            c.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            with ctx.wrap_socket(c, server_side=True) as t:
                tf = t.makefile("rb")
                while True:
                    req = _read_head(tf)
                    if not req:
                        return
                    (method, path, *_), headers = req
                    body = tf.read(int(headers.get("content-length") or 0))
                    host = target[:-4] if target.endswith(":443") else target
                    text = "%s https://%s%s\nContent-Type: %s\n" % (method, host, path, headers.get("content-type"))
                    record(name, text.encode() + body + b"\n--\n", 1)
                    t.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")

    return _accept_loop(srv, conn)


servers = {"tcp": serve_tcp, "udp": serve_udp, "http": serve_http, "proxy": serve_proxy, "unix": serve_unix}
loops = []
for spec in sys.argv[2:]:
    kind, port, name = spec.split(":", 2)
    loops.append(servers[kind](port if kind == "unix" else int(port), name))
for loop in loops:
    threading.Thread(target=loop, daemon=True).start()
with open(os.path.join(out, "ready"), "w") as f:
    f.write("ready\n")
signal.sigwait([signal.SIGTERM, signal.SIGINT])
