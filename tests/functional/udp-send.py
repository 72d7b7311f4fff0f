#!/usr/bin/env python3
# udp-send.py PORT TAG COUNT RATE [FROM]: COUNT syslog datagrams "TAG seq=I"
# from one socket (one sender; bound to port FROM when given) to
# 127.0.0.1:PORT, RATE a second, then exit.
import socket
import sys
import time

port, tag, count, rate = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
if len(sys.argv) > 5:
    s.bind(("127.0.0.1", int(sys.argv[5])))
start = time.monotonic()
for i in range(count):
    s.sendto(b"<13>Nov 22 10:00:00 h p: %s seq=%d" % (tag.encode(), i), ("127.0.0.1", port))
    # evenly spaced: UDP has no flow control, a burst could overflow a buffer
    ahead = start + (i + 1) / rate - time.monotonic()
    if ahead > 0:
        time.sleep(ahead)
s.close()
