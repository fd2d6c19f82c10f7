#!/usr/bin/env python3
"""Read `go tool pprof -raw` text and check or print what a profile holds.

Usage:
  pprof_raw.py RAW locations MAPPING_FILE
      one line per location in the mapping whose file is MAPPING_FILE:
      "ADDR_HEX FILE_OFFSET_HEX func file:line s=START | func file:line ..."
      (innermost first), FILE_OFFSET = ADDR - mapping start + mapping offset
  pprof_raw.py RAW mapping MAPPING_FILE
      "START LIMIT OFFSET BUILD_ID FLAGS" of that mapping
  pprof_raw.py RAW leaves
      "ADDR_HEX COUNT" per leaf address (first location of each sample,
      the first value summed), sorted
  pprof_raw.py RAW stacks
      one line per distinct stack: "COUNT PC PC ..." (leaf first, counts
      summed, sorted), PC being the address as perf script prints it: the
      offset in the mapped object (ADDR - mapping start + mapping offset),
      the address itself for the kernel and unmapped addresses
  pprof_raw.py RAW labels
      the distinct "comm pid tid" label sets
"""
import re
import sys
from collections import Counter

LOC = re.compile(r"^\s+(\d+): 0x([0-9a-f]+) M=(\d+)(?: (.*))?$")
LINE = re.compile(r"^(\S+) (.*):(-?\d+) s=(\d+)$")
MAP = re.compile(r"^(\d+): 0x([0-9a-f]+)/0x([0-9a-f]+)/0x([0-9a-f]+) (\S+)(?: ([0-9a-f]+))?\s*(.*)$")
SAMPLE = re.compile(r"^\s+(\d+)(?:\s+\d+)*: ([\d ]+)$")


def parse(path):
    locs, maps, samples = {}, {}, []
    section = None
    cur = None
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line in ("Samples:", "Locations", "Mappings"):
                section = line
                continue
            if section == "Samples:":
                m = SAMPLE.match(line)
                if m:
                    samples.append((int(m.group(1)), [int(x) for x in m.group(2).split()], {}))
                elif samples and ":[" in line:
                    for k, v in re.findall(r"(\w+):\[([^\]]*)\]", line):
                        samples[-1][2][k] = v
            elif section == "Locations":
                m = LOC.match(line)
                if m:
                    cur = int(m.group(1))
                    locs[cur] = {"addr": int(m.group(2), 16), "map": int(m.group(3)), "lines": []}
                    rest = m.group(4)
                    if rest:
                        lm = LINE.match(rest.strip())
                        if lm:
                            locs[cur]["lines"].append(lm.groups())
                elif cur is not None and line.strip():
                    lm = LINE.match(line.strip())
                    if lm:
                        locs[cur]["lines"].append(lm.groups())
            elif section == "Mappings":
                m = MAP.match(line)
                if m:
                    maps[int(m.group(1))] = {
                        "start": int(m.group(2), 16), "limit": int(m.group(3), 16),
                        "offset": int(m.group(4), 16), "file": m.group(5),
                        "build_id": m.group(6) or "", "flags": m.group(7).strip()}
    return locs, maps, samples


def mapping_of(maps, name):
    for mid, m in sorted(maps.items()):
        if m["file"] == name:
            return mid, m
    sys.exit("pprof_raw: no mapping for %s" % name)


def main():
    path, what = sys.argv[1], sys.argv[2]
    locs, maps, samples = parse(path)
    if what == "mapping":
        _, m = mapping_of(maps, sys.argv[3])
        print("%x %x %x %s %s" % (m["start"], m["limit"], m["offset"], m["build_id"] or "-", m["flags"]))
    elif what == "locations":
        mid, m = mapping_of(maps, sys.argv[3])
        for lid, l in sorted(locs.items()):
            if l["map"] != mid:
                continue
            off = l["addr"] - m["start"] + m["offset"]
            lines = " | ".join("%s %s:%s s=%s" % x for x in l["lines"])
            print("%x %x %s" % (l["addr"], off, lines))
    elif what == "leaves":
        c = Counter()
        for n, ids, _ in samples:
            c[locs[ids[0]]["addr"]] += n
        for a, n in sorted(c.items()):
            print("%x %d" % (a, n))
    elif what == "stacks":
        def pc(loc):
            m = maps.get(loc["map"])
            if not m or m["file"] == "[kernel.kallsyms]":
                return loc["addr"]
            return loc["addr"] - m["start"] + m["offset"]
        out = Counter()
        for n, ids, _ in samples:
            out[" ".join("%x" % pc(locs[i]) for i in ids)] += n
        for s, n in sorted(out.items()):
            print("%d %s" % (n, s))
    elif what == "labels":
        seen = sorted({(l.get("comm", ""), l.get("pid", ""), l.get("tid", "")) for _, _, l in samples})
        for comm, pid, tid in seen:
            print(comm, pid, tid)
    else:
        sys.exit("pprof_raw: unknown request %s" % what)


if __name__ == "__main__":
    main()
