#!/usr/bin/env python3
"""Deterministic corrupt variants of a perf.data file, for the corruption
sweep (tests/e2e/corruption_sweep.sh; RELIABILITY.md c.5).

    corrupt.py FILE OUTDIR NFLIPS

writes into OUTDIR and prints one "PATH KIND" line per variant:
  cut    FILE cut at 0, 1, 7, 8, 16, 64, 104 and 256 bytes, at 50% and 75%,
         at size - 1, and at the first record boundaries of the data (the
         data start, the end of the first record and one byte before it,
         the end of the second);
  flip   NFLIPS copies with 1 to 4 bytes changed in the first 4 KiB (random
         value, one bit flipped, 0x00 or 0xff), from a generator seeded
         with the file's name, so every run makes the same files.
Cut points past the end of the file, or equal to its size, are skipped.
"""
import os
import random
import struct
import sys


def record_boundaries(data, n=2):
    """Data start and the ends of its first n records (file or pipe mode)."""
    if len(data) < 16 or data[:8] != b"PERFILE2":
        return []
    (hdr_size,) = struct.unpack_from("<Q", data, 8)
    if hdr_size == 16:
        pos, end = 16, len(data)
    elif len(data) >= 56:
        pos, size = struct.unpack_from("<QQ", data, 40)
        end = min(len(data), pos + size) if size else len(data)
    else:
        return []
    out = [pos]
    while len(out) <= n and pos + 8 <= end:
        (size,) = struct.unpack_from("<H", data, pos + 6)
        if size < 8:
            break
        pos += size
        out.append(pos)
    return out


def main():
    path, outdir, nflips = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(path, "rb") as f:
        data = f.read()
    size = len(data)
    name = os.path.basename(path)

    cuts = [0, 1, 7, 8, 16, 64, 104, 256, size // 2, size * 3 // 4, size - 1]
    b = record_boundaries(data)
    if b:
        cuts.append(b[0])
    if len(b) > 1:
        cuts += [b[1] - 1, b[1]]
    cuts += b[2:3]
    seen = set()
    for c in cuts:
        if c < 0 or c >= size or c in seen:
            continue
        seen.add(c)
        out = os.path.join(outdir, "%s.cut%d" % (name, c))
        with open(out, "wb") as f:
            f.write(data[:c])
        print(out, "cut")

    rng = random.Random("kiln-corruption-sweep:" + name)
    span = min(size, 4096)
    for i in range(nflips if span else 0):
        v = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(span)
            how = rng.randrange(4)
            if how == 0:
                v[at] = rng.randrange(256)
            elif how == 1:
                v[at] ^= 1 << rng.randrange(8)
            else:
                v[at] = 0 if how == 2 else 0xFF
        out = os.path.join(outdir, "%s.flip%d" % (name, i))
        with open(out, "wb") as f:
            f.write(v)
        print(out, "flip")


if __name__ == "__main__":
    main()
