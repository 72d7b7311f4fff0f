#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The far end of a relay scenario (bench: sink = tcp).

Listens on 127.0.0.1:PORT and appends what each connection sends to its
own file OUTDIR/sink-N.log, unchanged, so the harness counts the relayed
lines as it counts a file destination's.  One file per connection: chunks
of two connections never interleave mid-line.  Big reads, no parsing: the
sink must not be what limits the relay.  Runs until SIGTERM.

Usage: sink.py PORT OUTDIR
"""
import os
import selectors
import signal
import socket
import sys


def main():
    port, out = int(sys.argv[1]), sys.argv[2]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", port))
    lsock.listen(64)
    sel = selectors.DefaultSelector()
    sel.register(lsock, selectors.EVENT_READ)
    files = {}
    n = 0
    buf = bytearray(1 << 20)
    while True:
        for key, _ in sel.select():
            s = key.fileobj
            if s is lsock:
                c, _ = lsock.accept()
                files[c] = os.open(os.path.join(out, "sink-%d.log" % n), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
                n += 1
                sel.register(c, selectors.EVENT_READ)
                continue
            k = s.recv_into(buf)
            if k <= 0:
                sel.unregister(s)
                os.close(files.pop(s))
                s.close()
                continue
            os.write(files[s], memoryview(buf)[:k])


if __name__ == "__main__":
    main()
