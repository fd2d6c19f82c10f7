#!/usr/bin/env python3
"""Compare two perf annotate --stdio texts (kiln's and perf's) symbol by
symbol: the symbols both annotate (by dso, start address), whether their
instruction rows have the same addresses and text, and how many sampled
instructions differ in share by more than 1 point.
Usage: annotate-agree.py KILN.txt PERF.txt"""
import re
import sys

ROW = re.compile(r"^ +(\d+\.\d+) : +([0-9a-f]+):\s+(.*)$")
SYM = re.compile(r"^ +: (?:\d+ +)?([0-9a-f]{16}) <(.*)>:$")
HDR = re.compile(r"^ Percent \|\tSource code & Disassembly of (\S+) for (\S+) \((\d+) samples")
Q = re.compile(r"^(retq|callq|jmpq|leaveq|pushq|popq)\b")


def blocks(path):
    out, cur = {}, None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = HDR.match(line)
            if m:
                cur = {"dso": m.group(1), "rows": {}, "start": None, "name": None}
                continue
            if cur is None:
                continue
            m = SYM.match(line)
            if m and cur["start"] is None:
                cur["start"], cur["name"] = int(m.group(1), 16), m.group(2)
                out[(cur["dso"], cur["start"])] = cur
                continue
            m = ROW.match(line)
            if m:
                text = " ".join(m.group(3).split())
                text = Q.sub(lambda q: q.group(1)[:-1], text)
                cur["rows"][int(m.group(2), 16)] = (float(m.group(1)), text)
    return out


k, p = blocks(sys.argv[1]), blocks(sys.argv[2])
both = [key for key in p if key in k]
same_addrs = same_text = 0
shares_bad = shares = 0
for key in both:
    kr, pr = k[key]["rows"], p[key]["rows"]
    if set(kr) == set(pr):
        same_addrs += 1
        if all(kr[a][1] == pr[a][1] for a in pr):
            same_text += 1
    for a, (pct, _) in pr.items():
        if a in kr and (pct > 0 or kr[a][0] > 0):
            shares += 1
            if abs(pct - kr[a][0]) > 1.0:
                shares_bad += 1
print(f"symbols: perf {len(p)}, kiln {len(k)}, both {len(both)}; "
      f"same instruction addresses {same_addrs}, same text too {same_text}; "
      f"sampled instructions {shares}, share off by more than 1 point {shares_bad}")
