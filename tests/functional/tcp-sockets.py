#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# How many TCP sockets of this host listen on PORT (listen) or are
# connected to PORT (established), read from /proc/net/tcp and tcp6, so
# that the tests need no ss(8) (iproute2 is not in a minimal Debian root).
# Usage: tcp-sockets.py listen|established PORT
import sys

kind, port = sys.argv[1], int(sys.argv[2])
state = {"listen": "0A", "established": "01"}[kind]
n = 0
for path in ("/proc/net/tcp", "/proc/net/tcp6"):
    try:
        with open(path) as f:
            rows = f.read().splitlines()[1:]
    except OSError:
        continue
    for row in rows:
        fields = row.split()
        local, remote, st = fields[1], fields[2], fields[3]
        addr = local if kind == "listen" else remote
        if st == state and int(addr.rsplit(":", 1)[1], 16) == port:
            n += 1
print(n)
