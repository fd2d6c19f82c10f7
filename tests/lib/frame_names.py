#!/usr/bin/env python3
"""Frame names across kiln's outputs: read a pprof profile (gzip'd
profile.proto, decoded here: no protobuf module needed), a speedscope file
or folded stacks, and print or check what names they give.

Usage:
  frame_names.py shares folded FILE
  frame_names.py shares pprof FILE
  frame_names.py shares speedscope FILE
      "COUNT NAME" per function name: the samples whose stack holds the
      name at least once (inclusive), sorted by name. Folded stacks lose
      their first frame (the process), as speedscope's per-thread profiles
      and pprof's stacks have none; pprof names have ';' as ':', as folded
      stacks spell them. Names in brackets ("[unknown]", "[libx.so]") are
      left out: they name no function.
  frame_names.py leaves pprof FILE
      "VALUE NAME" per name of a sample's leaf (its first location's
      innermost line): the samples' last values summed, sorted by name,
      brackets kept (an off-CPU sample's "[off-cpu: S]" state frame).
  frame_names.py symbols FILE [DEBUG_DIR]
      For each location of the pprof profile FILE in a mapped file, the
      function of its outermost line (the function holding the address):
      when its system name (else name) is a symbol of the binary (from
      .symtab, else .dynsym; the debug file DEBUG_DIR/.build-id/xx/y.debug
      when there is one), the location's address must lie in
      [st_value, st_value + st_size) of a symbol of that name, a sizeless
      symbol ending where the next one starts (perf's symbols__fixup_end).
      Prints "N of M named locations outside their symbol" (and the first
      few); exit 1 if N > 0.
"""
import gzip
import json
import os
import re
import subprocess
import sys
from collections import Counter


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, i


def fields(b):
    """(field number, value) pairs of a message; value is int or bytes."""
    i, out = 0, []
    while i < len(b):
        key, i = varint(b, i)
        f, t = key >> 3, key & 7
        if t == 0:
            v, i = varint(b, i)
        elif t == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif t == 1:
            v, i = int.from_bytes(b[i:i + 8], "little"), i + 8
        elif t == 5:
            v, i = int.from_bytes(b[i:i + 4], "little"), i + 4
        else:
            sys.exit("bad wire type %d" % t)
        out.append((f, v))
    return out


def ints(v):
    """A repeated integer field, packed (bytes) or not (int)."""
    if isinstance(v, int):
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def pprof(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    strs, samples, locs, funcs, maps = [], [], {}, {}, {}
    for f, v in fields(data):
        if f == 6:
            strs.append(v.decode("utf-8", "replace"))
        elif f == 2:
            s = {"locs": [], "values": []}
            for sf, sv in fields(v):
                if sf == 1:
                    s["locs"] += ints(sv)
                elif sf == 2:
                    s["values"] += ints(sv)
            samples.append(s)
        elif f == 4:
            loc = {"id": 0, "mapping": 0, "address": 0, "lines": []}
            for lf, lv in fields(v):
                if lf == 1:
                    loc["id"] = lv
                elif lf == 2:
                    loc["mapping"] = lv
                elif lf == 3:
                    loc["address"] = lv
                elif lf == 4:
                    loc["lines"].append(dict(fields(lv)).get(1, 0))
            locs[loc["id"]] = loc
        elif f == 5:
            d = dict(fields(v))
            funcs[d.get(1, 0)] = (d.get(2, 0), d.get(3, 0))
        elif f == 3:
            d = dict(fields(v))
            maps[d.get(1, 0)] = (d.get(2, 0), d.get(3, 0), d.get(4, 0), d.get(5, 0))
    funcs = {k: (strs[n], strs[s]) for k, (n, s) in funcs.items()}
    maps = {k: (a, b, c, strs[n]) for k, (a, b, c, n) in maps.items()}
    return samples, locs, funcs, maps


def shares_pprof(path):
    samples, locs, funcs, _ = pprof(path)
    c = Counter()
    for s in samples:
        names = {funcs[fid][0].replace(";", ":") for lid in s["locs"] for fid in locs[lid]["lines"]}
        for n in names:
            c[n] += s["values"][0]
    return c


def leaves_pprof(path):
    samples, locs, funcs, _ = pprof(path)
    c = Counter()
    for s in samples:
        lines = locs[s["locs"][0]]["lines"] if s["locs"] else []
        c[funcs[lines[0]][0] if lines else "(none)"] += s["values"][-1]
    return c


def shares_folded(path):
    c = Counter()
    for line in open(path, encoding="utf-8", errors="replace"):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        for name in set(stack.split(";")[1:]):
            c[name] += int(n)
    return c


def shares_speedscope(path):
    doc = json.load(open(path))
    frames = [f["name"] for f in doc["shared"]["frames"]]
    c = Counter()
    for p in doc["profiles"]:
        # A timed profile weighs samples by time; its samples are still one each.
        timed = p.get("unit", "none") != "none"
        for stack, w in zip(p["samples"], p["weights"]):
            w = 1 if timed else w
            for name in {frames[i] for i in stack}:
                c[name] += w
    return c


def symbols(binary, debug_dir):
    """name -> [(start, end)] of the function symbols perf reads."""
    path = binary
    note = subprocess.run(["readelf", "-nW", binary], capture_output=True, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", note)
    if m and debug_dir:
        d = os.path.join(debug_dir, ".build-id", m.group(1)[:2], m.group(1)[2:] + ".debug")
        if os.path.exists(d):
            path = d
    out = subprocess.run(["readelf", "-sW", path], capture_output=True, text=True).stdout
    tables, cur = {}, None
    for l in out.splitlines():
        m = re.match(r"^Symbol table '(\S+)'", l)
        if m:
            cur = tables.setdefault(m.group(1), [])
            continue
        w = l.split()
        if cur is None or len(w) < 8 or not w[0].endswith(":"):
            continue
        if w[3] not in ("FUNC", "IFUNC", "NOTYPE") or w[6] in ("UND", "ABS"):
            continue
        size = int(w[2], 16) if w[2].startswith("0x") else int(w[2])
        cur.append((int(w[1], 16), size, w[7].split("@")[0]))
    syms = sorted(set(tables.get(".symtab") or tables.get(".dynsym") or []))
    starts = sorted({s for s, _, _ in syms})
    byname = {}
    for start, size, name in syms:
        if size:
            end = start + size
        else:  # perf: a sizeless symbol ends where the next one starts
            nxt = [s for s in starts if s > start][:1]
            end = nxt[0] if nxt else start + 1
        byname.setdefault(name, []).append((start, end))
    loads = []
    for l in subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True).stdout.splitlines():
        w = l.split()
        if w and w[0] == "LOAD":
            loads.append((int(w[1], 16), int(w[2], 16), int(w[4], 16)))
    return byname, loads


def check_symbols(path, debug_dir):
    _, locs, funcs, maps = pprof(path)
    cache, named, bad, shown = {}, 0, 0, []
    for loc in locs.values():
        if not loc["lines"] or loc["mapping"] not in maps:
            continue
        start, _, off, file = maps[loc["mapping"]]
        if not file.startswith("/") or not os.path.isfile(file):
            continue
        if file not in cache:
            cache[file] = symbols(file, debug_dir)
        byname, loads = cache[file]
        name, system = funcs[loc["lines"][-1]]
        ranges = byname.get(system or name)
        if ranges is None:
            continue  # named after no symbol (DWARF's name, kernel, JIT)
        named += 1
        foff = loc["address"] - start + off
        vaddr = next((foff - o + v for o, v, n in loads if o <= foff < o + n), None)
        if vaddr is None or not any(a <= vaddr < b for a, b in ranges):
            bad += 1
            if len(shown) < 5:
                shown.append("%s 0x%x: %s (%s)" % (os.path.basename(file), vaddr or 0, name,
                                                   " ".join("%x-%x" % r for r in ranges[:3])))
    for s in shown:
        print(s)
    print("%d of %d named locations outside their symbol" % (bad, named))
    return bad


def main():
    a = sys.argv[1:]
    if len(a) == 3 and a[0] == "shares":
        c = {"folded": shares_folded, "pprof": shares_pprof, "speedscope": shares_speedscope}[a[1]](a[2])
        for name in sorted(c):
            if not name.startswith("["):
                print(c[name], name)
        return 0
    if len(a) == 3 and a[0] == "leaves" and a[1] == "pprof":
        c = leaves_pprof(a[2])
        for name in sorted(c):
            print(c[name], name)
        return 0
    if len(a) in (2, 3) and a[0] == "symbols":
        return 1 if check_symbols(a[1], a[2] if len(a) == 3 else "/usr/lib/debug") else 0
    sys.exit(__doc__)


sys.exit(main())
