#!/usr/bin/env python3
"""A perf.data as if its kernel had been loaded DELTA bytes higher (KASLR).

    kaslr_shift.py IN OUT DELTA

The core kernel MMAP ("[kernel.kallsyms]...") gets DELTA added to its start
and pgoff (the recorded address of its reference symbol), and every sample
address inside it (ip, callchain entries) moves by DELTA too. File mode,
samples of one layout (IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU,
PERIOD, CALLCHAIN); exits 77 for anything else.
"""
import struct
import sys

KNOWN = {0x10000: 8, 0x1: 8, 0x2: 8, 0x4: 8, 0x8: 8, 0x40: 8, 0x200: 8, 0x80: 8, 0x100: 8}
ORDER = [0x10000, 0x1, 0x2, 0x4, 0x8, 0x40, 0x200, 0x80, 0x100]


def main():
    src, dst, delta = sys.argv[1], sys.argv[2], int(sys.argv[3], 0)
    d = bytearray(open(src, "rb").read())
    if d[:8] != b"PERFILE2" or struct.unpack_from("<Q", d, 8)[0] == 16:
        sys.exit(77)
    attr_size, aoff, asz = struct.unpack_from("<QQQ", d, 16)
    doff, dsz = struct.unpack_from("<QQ", d, 40)
    types = {struct.unpack_from("<Q", d, aoff + i + 24)[0] for i in range(0, asz, attr_size)}
    if len(types) != 1:
        sys.exit(77)
    st = types.pop()
    if st & ~(sum(KNOWN) | 0x20):
        sys.exit(77)
    lo = hi = None
    pos, end = doff, doff + dsz
    while pos + 8 <= end:
        t, _, size = struct.unpack_from("<IHH", d, pos)
        if size < 8:
            sys.exit(77)
        if t in (1, 10):
            name_at = pos + 8 + (32 if t == 1 else 56)
            name = bytes(d[name_at:pos + size]).split(b"\0")[0]
            if name.startswith(b"[kernel.kallsyms]"):
                start, length, pgoff = struct.unpack_from("<QQQ", d, pos + 16)
                lo, hi = start, start + length
                struct.pack_into("<QQQ", d, pos + 16, start + delta, length, pgoff + delta)
        elif t == 9 and lo is not None:
            at = pos + 8

            def shift(off):
                (v,) = struct.unpack_from("<Q", d, off)
                if lo <= v < hi:
                    struct.pack_into("<Q", d, off, v + delta)

            for bit in ORDER:
                if st & bit:
                    if bit == 0x1:
                        shift(at)
                    at += 8
            if st & 0x20:
                (nr,) = struct.unpack_from("<Q", d, at)
                for i in range(nr):
                    shift(at + 8 + 8 * i)
        pos += size
    if lo is None:
        sys.exit(77)
    open(dst, "wb").write(d)


main()
