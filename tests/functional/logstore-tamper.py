#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Damage a logstore file (docs/logstore-format.md) the ways logstore.sh
# checks sluice-logcat --verify against.  It finds the chunks by their
# lengths only, as an attacker with the file but not the key could.
# Usage: logstore-tamper.py FILE OUTDIR
#   writes OUTDIR/removed (chunk 2 taken out), swapped (chunks 2 and 3
#   exchanged), cut (the file ends in the middle of chunk 3), cutchunk (the
#   file ends after chunk 3: its closing record and what came before it
#   gone), flipped (one bit of chunk 2's payload changed), header (one bit
#   of the certificate fingerprint changed), and prints the chunk count.
import os
import struct
import sys

path, out = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
assert data[:8] == b"SLUICELS", "not a logstore file"
k = struct.unpack_from("<H", data, 14)[0]
off = 32 + k + 32
header = data[:off]
chunks = []
while off < len(data):
    assert data[off:off + 4] == b"LSCK", "no chunk at %d" % off
    s = struct.unpack_from("<I", data, off + 24)[0]
    end = off + 80 + s + 48
    chunks.append(data[off:end])
    off = end
assert len(chunks) >= 6, "want at least 6 chunks, have %d" % len(chunks)


def write(name, blob):
    with open(os.path.join(out, name), "wb") as f:
        f.write(blob)


write("removed", header + b"".join(chunks[:2] + chunks[3:]))
write("swapped", header + b"".join(chunks[:2] + [chunks[3], chunks[2]] + chunks[4:]))
cut = header + b"".join(chunks[:3]) + chunks[3][: len(chunks[3]) // 2]
write("cut", cut)
write("cutchunk", header + b"".join(chunks[:4]))
flipped = bytearray(chunks[2])
flipped[80 + (len(flipped) - 128) // 2] ^= 0x10
write("flipped", header + b"".join(chunks[:2] + [bytes(flipped)] + chunks[3:]))
hdr = bytearray(header)
if k:
    hdr[32] ^= 1
else:
    hdr[16] ^= 1  # the file id
write("header", bytes(hdr) + b"".join(chunks))
print(len(chunks))
