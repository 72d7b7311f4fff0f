#!/usr/bin/env python3
"""A pseudo-terminal for file() tests: a character device whose lines come
from this script.  Prints the slave's path, waits until the file GO exists,
writes the lines of INPUT to the master, then keeps the terminal until the
file DONE exists (or 60 s passed).
Usage: pty-writer.py INPUT GO DONE"""
import os
import sys
import time
import tty

master, slave = os.openpty()
tty.setraw(slave)  # no echo, no line editing: the bytes go through as written
print(os.ttyname(slave), flush=True)
inp, go, done = sys.argv[1:4]
deadline = time.time() + 60
while not os.path.exists(go) and time.time() < deadline:
    time.sleep(0.05)
with open(inp, 'rb') as f:
    os.write(master, f.read())
while not os.path.exists(done) and time.time() < deadline:
    time.sleep(0.05)
