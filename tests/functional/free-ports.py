#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# free-ports.py KIND...: one free 127.0.0.1 port per KIND (tcp or udp),
# printed on one line.
#
# Ports are picked at random below the kernel's ephemeral range
# (net.ipv4.ip_local_port_range), never in it: a port from that range (what
# binding to port 0 gives) can become the source port of any outgoing
# connection, such as another test's client, between the pick and the
# daemon's bind, which then fails with "Address already in use".  Each
# port is held until all are picked, so none is given twice.
import random
import socket
import sys

KINDS = {"tcp": socket.SOCK_STREAM, "udp": socket.SOCK_DGRAM}

try:
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        low, high = (int(x) for x in f.read().split())
except (OSError, ValueError):
    low, high = 32768, 60999
first, last = (10000, low - 1) if low > 11000 else (high + 1, 65535)

held, ports = [], []
for kind in sys.argv[1:]:
    for _ in range(1000):
        port = random.randint(first, last)
        if port in ports:
            continue
        s = socket.socket(socket.AF_INET, KINDS[kind])
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            s.close()
            continue
        held.append(s)
        ports.append(port)
        break
    else:
        sys.exit("free-ports.py: no free %s port in %d-%d" % (kind, first, last))
print(" ".join(str(p) for p in ports))
