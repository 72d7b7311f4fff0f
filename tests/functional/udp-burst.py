#!/usr/bin/env python3
# udp-burst.py udp PORT MAX EXPECTED   (three senders: 127.0.0.1, .2, .3)
# udp-burst.py unix PATH MAX EXPECTED  (one socket; as root each datagram
#                                       carries uid 1000, 1001 or 1002)
# A burst of 40 syslog datagrams per sender, sent round by round, of sizes
# from 30 to about 900 bytes, every fifth with a newline at its end; the
# 21st of each is longer than MAX (log-msg-size()).  EXPECTED gets the line the daemon should write for
# each, "SOURCEIP MSG" (unix: "UID MSG"), the long ones cut at MAX bytes.
import os
import socket
import struct
import sys

kind, target, maxsize, expected = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
# a local source's messages have no host name
HEAD = b"<13>Nov 22 10:00:00 h p: " if kind == "udp" else b"<13>Nov 22 10:00:00 p: "
COUNT = 40
root = os.geteuid() == 0

if kind == "udp":
    senders = []
    for k in range(3):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.%d" % (k + 1), 0))
        senders.append(("127.0.0.%d" % (k + 1), s))
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
    senders = [("unix", s)]

with open(expected, "w") as out:
    for i in range(COUNT):
        for k, (who, s) in enumerate(senders):
            size = maxsize + 500 if i == COUNT // 2 else 30 + (i * 97 + k * 31) % 870
            body = b"s%d seq=%d " % (k, i)
            data = HEAD + body + bytes(ord("a") + (j % 26) for j in range(max(0, size - len(HEAD) - len(body))))
            if i % 5 == 0:
                data += b"\n"  # dropped by the framer, as syslog-ng does
            if kind == "udp":
                s.sendto(data, ("127.0.0.1", int(target)))
            elif root:
                uid = 1000 + i % 3
                who = str(uid)
                s.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, struct.pack("iII", os.getpid(), uid, uid))],
                           0, target)
            else:
                who = str(os.getuid())
                s.sendto(data, target)
            msg = data[:maxsize].rstrip(b"\n")[len(HEAD):]
            out.write("%s %s\n" % (who, msg.decode()))
