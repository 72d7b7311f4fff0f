#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The far end of bench/http.sh: an HTTP/1.1 server on 127.0.0.1:PORT that
counts the lines ("\\n") of every request body and answers 200 with an
empty body, keeping the connection.  GET /count answers the lines and the
requests so far ("LINES REQUESTS").

One thread and a selector, large reads, and no parsing of a body beyond
counting its newlines as the bytes arrive (bytes.count, in C): the sink
must not be what limits the daemon under test.  Takes Content-Length
bodies and "Expect: 100-continue" (libcurl asks it of large bodies);
refuses chunked ones (411).  Runs until SIGTERM or LIFETIME seconds.

Usage: http-sink.py PORT LIFETIME
"""
import selectors
import signal
import socket
import sys
import time

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


class Conn:
    __slots__ = ("head", "left")

    def __init__(self):
        self.head = b""
        self.left = 0  # body bytes still to come


def main():
    port, lifetime = int(sys.argv[1]), float(sys.argv[2])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", port))
    lsock.listen(64)
    sel = selectors.DefaultSelector()
    sel.register(lsock, selectors.EVENT_READ)
    conns = {}
    total = requests = 0
    end = time.monotonic() + lifetime
    while time.monotonic() < end:
        for key, _ in sel.select(1.0):
            s = key.fileobj
            if s is lsock:
                c, _ = lsock.accept()
                c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                conns[c] = Conn()
                sel.register(c, selectors.EVENT_READ)
                continue
            st = conns[s]
            try:
                data = s.recv(1 << 20)
            except ConnectionError:
                data = b""
            if not data:
                sel.unregister(s)
                del conns[s]
                s.close()
                continue
            pos, size = 0, len(data)
            out = []
            while pos < size:
                if st.left:
                    take = min(st.left, size - pos)
                    total += data.count(b"\n", pos, pos + take)
                    st.left -= take
                    pos += take
                    if not st.left:
                        requests += 1
                        out.append(OK)
                    continue
                # a request head: up to the blank line
                st.head += data[pos:]
                pos = size
                cut = st.head.find(b"\r\n\r\n")
                if cut < 0:
                    continue
                head, rest = st.head[:cut].decode("latin-1"), st.head[cut + 4:]
                st.head = b""
                lines = head.split("\r\n")
                fields = {}
                for line in lines[1:]:
                    k, _, v = line.partition(":")
                    fields[k.strip().lower()] = v.strip()
                if lines[0].startswith("GET /count"):
                    body = b"%d %d" % (total, requests)
                    out.append(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
                elif "chunked" in fields.get("transfer-encoding", ""):
                    out.append(b"HTTP/1.1 411 Length Required\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                else:
                    st.left = int(fields.get("content-length", "0"))
                    if st.left and fields.get("expect", "").lower() == "100-continue":
                        out.append(CONTINUE)
                    if not st.left:
                        requests += 1
                        out.append(OK)
                # what came behind the head: the body, or the next request
                data, pos, size = rest, 0, len(rest)
            if out:
                s.sendall(b"".join(out))


if __name__ == "__main__":
    main()
