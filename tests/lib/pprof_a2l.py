#!/usr/bin/env python3
"""Compare the locations pprof_raw.py prints ("ADDR FILE_OFFSET func file:line
s=N | ..." lines) with `addr2line -a -f -i` on the same binary: for each
location, its lines (innermost first) against addr2line's records, by
function, file basename and line (--no-file: function and line only; a
pprof function's file is its declaration's, which addr2line does not give).
Prints the differences and "N of M locations as addr2line"; exit 1 if any
differ.
Usage: pprof_a2l.py LOCATIONS BINARY [--no-file]"""
import os, re, subprocess, sys
locs = [l.rstrip("\n").split(" ", 2) for l in open(sys.argv[1])]
binary = sys.argv[2]
with_file = "--no-file" not in sys.argv[3:]
# file offset -> link-time address through the PT_LOAD that holds it
loads = []
for l in subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True).stdout.splitlines():
    w = l.split()
    if w and w[0] == "LOAD":
        loads.append((int(w[1], 16), int(w[2], 16), int(w[4], 16)))
def vaddr(off):
    for o, v, n in loads:
        if o <= off < o + n:
            return off - o + v
    sys.exit("offset %x in no PT_LOAD" % off)
addrs = ["0x%x" % vaddr(int(l[1], 16)) for l in locs]
out = subprocess.run(["addr2line", "-a", "-f", "-i", "-e", binary] + addrs,
                     capture_output=True, text=True).stdout.splitlines()
chains, cur = [], None
i = 0
while i < len(out):
    if re.match(r"^0x[0-9a-f]+$", out[i]):
        cur = []
        chains.append(cur)
        i += 1
        continue
    fn, pos = out[i], out[i + 1]
    pos = re.sub(r" \(discriminator \d+\)$", "", pos)
    file, line = pos.rsplit(":", 1)
    line = "0" if line == "?" else line  # addr2line's unknown line; pprof has 0
    cur.append("%s %s:%s" % (fn, os.path.basename(file), line) if with_file else "%s %s" % (fn, line))
    i += 2
bad = 0
for l, want in zip(locs, chains):
    got = []
    for rec in (l[2].split(" | ") if len(l) > 2 and l[2] else []):
        m = re.match(r"^(\S+) (.*):(-?\d+) s=\d+$", rec)
        fn, file, line = m.groups()
        got.append("%s %s:%s" % (fn, os.path.basename(file) or "??", line) if with_file else "%s %s" % (fn, line))
    if got != want:
        bad += 1
        print("0x%s: kiln [%s] addr2line [%s]" % (l[1], "; ".join(got), "; ".join(want)))
print("%d of %d locations as addr2line" % (len(locs) - bad, len(locs)))
sys.exit(1 if bad or len(chains) != len(locs) else 0)
