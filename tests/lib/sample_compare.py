#!/usr/bin/env python3
"""Compare kiln's and perf's stacks sample by sample.

Both inputs are `script` text of the same perf.data printed with
`-F comm,pid,tid,time,ip,sym,dso` (perf with --no-inline). Samples are
matched by (pid/tid, time, occurrence); each matched pair is classified by
its frames (ip, symbol and dso of each, leaf first):

  identical      the same frames
  perf_short     perf's frames are a proper leaf-side prefix of kiln's:
                 perf's unwinder stopped early (kiln found more callers)
  kiln_short     kiln's frames are a proper prefix of perf's: kiln stopped
                 early (a kiln bug unless kiln marked the stack truncated)
  different      the frames differ somewhere

Frames are compared by address (ip and dso); samples whose addresses all
agree but whose symbol names differ are counted apart ("names differ").

A final "ffffffffffffffff [unknown] ([unknown])" frame is how perf marks a
stack whose unwinding ran out of stack copy; it is dropped before the
comparison and counted as "perf marked cut".

Three shares are printed:
  kiln has every frame perf found
      (identical + perf_short) / matched: kiln's stack starts with all of
      perf's frames, leaf first (perf's frames are a prefix of kiln's);
  agreement where perf did not stop early
      identical / (identical + kiln_short + different): all samples but
      those where perf's stack is a proper prefix of kiln's;
  agreement where perf reached the outermost frame
      the same share over the samples whose perf stack ends in an entry
      point (_start, clone, clone3: perf unwound all the way down).
The exit status is 1 if the first share is below MIN (default 0), or
if kiln stopped early in more than 1 - MIN of the samples.

usage: sample_compare.py KILN_TEXT PERF_TEXT [MIN] [EXAMPLES]
"""
import re
import sys
from collections import Counter

HEADER = re.compile(r'^(\S.*?)\s+(\d+/\d+|\d+)\s+(\d+\.\d+):\s*$')
CUT = 'ffffffffffffffff [unknown] ([unknown])'


def load(path):
    samples = {}
    seen = Counter()
    key, frames = None, None

    def flush():
        if key is not None:
            samples[key] = frames

    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if not line:
                continue
            if line[0] in ' \t':
                if frames is not None:
                    frames.append(' '.join(line.split()))
                continue
            m = HEADER.match(line)
            flush()
            if not m:
                key, frames = None, None
                continue
            k = (m.group(2), m.group(3))
            seen[k] += 1
            key, frames = (k, seen[k]), []
    flush()
    return samples


ENTRY = re.compile(r'^\S+ (_start|__?clone3?|clone3?)(@@\S+)? \(')


def outermost(frames):
    """True if the stack ends in a process or thread entry point."""
    return bool(frames) and ENTRY.match(frames[-1]) is not None


def addrs(frames):
    """(ip, dso) of each frame line "ip sym (dso)"."""
    out = []
    for f in frames:
        ip, _, rest = f.partition(' ')
        out.append((ip, rest[rest.rfind(' ('):] if ' (' in rest else ''))
    return out


def strip_cut(frames):
    if frames and frames[-1] == CUT:
        return frames[:-1], True
    return frames, False


def main():
    kiln, perf = load(sys.argv[1]), load(sys.argv[2])
    need = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    nex = int(sys.argv[4]) if len(sys.argv) > 4 else 8
    cls = Counter()
    perf_cut = kiln_cut = both_cut = names_differ = perf_complete = complete_same = 0
    where_kiln = Counter()  # (kiln's last frame, perf's next) for kiln_short
    where_diff = Counter()  # (kiln frame, perf frame) at the first difference
    matched = 0
    for k, pf in perf.items():
        kf = kiln.get(k)
        if kf is None:
            continue
        matched += 1
        pf, pc = strip_cut(pf)
        kf, kc = strip_cut(kf)
        perf_cut += pc
        kiln_cut += kc
        names = kf, pf
        complete = outermost(pf)
        kf, pf = addrs(kf), addrs(pf)
        if complete:
            perf_complete += 1
            complete_same += kf == pf
        if kf == pf:
            cls['identical'] += 1
            if names[0] != names[1]:
                names_differ += 1
            if pc and kc:
                both_cut += 1
        elif len(pf) < len(kf) and kf[:len(pf)] == pf:
            cls['perf_short'] += 1
        elif len(kf) < len(pf) and pf[:len(kf)] == kf:
            cls['kiln_short'] += 1
            where_kiln[(names[0][-1] if kf else '-', names[1][len(kf)])] += 1
        else:
            i = next(i for i in range(min(len(kf), len(pf))) if kf[i] != pf[i])
            cls['different'] += 1
            where_diff[(names[0][i], names[1][i])] += 1
    print('samples: kiln %d, perf %d, matched %d' % (len(kiln), len(perf), matched))
    for c, what in (('identical', 'the same frames'),
                    ('perf_short', "perf stopped early (its stack is a prefix of kiln's)"),
                    ('kiln_short', "kiln stopped early (its stack is a prefix of perf's)"),
                    ('different', 'different frames')):
        print('%-11s %7d  %6.2f%%  %s' % (c, cls[c], 100.0 * cls[c] / max(matched, 1), what))
    print('marked cut (ffffffffffffffff frame): perf %d, kiln %d, both and identical %d'
          % (perf_cut, kiln_cut, both_cut))
    print('names differ (same addresses): %d' % names_differ)
    found = (cls['identical'] + cls['perf_short']) / max(matched, 1)
    print("kiln has every frame perf found: %.4f (%d of %d)"
          % (found, cls['identical'] + cls['perf_short'], matched))
    base = cls['identical'] + cls['kiln_short'] + cls['different']
    share = cls['identical'] / base if base else 0.0
    print('agreement where perf did not stop early: %.4f (%d of %d)'
          % (share, cls['identical'], base))
    share2 = complete_same / perf_complete if perf_complete else 0.0
    print('agreement where perf reached the outermost frame: %.4f (%d of %d)'
          % (share2, complete_same, perf_complete))
    for title, where in (('kiln stopped early at', where_kiln),
                         ('first different frame (kiln | perf)', where_diff)):
        if where:
            print(title + ':')
            for (a, b), n in where.most_common(nex):
                print('  %6d  %s | %s' % (n, a, b))
    ok = matched and found >= need and cls['kiln_short'] <= (1 - need) * matched
    sys.exit(0 if ok else 1)


main()
