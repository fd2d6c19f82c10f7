#!/usr/bin/env python3
"""Compare kiln's and perf's stacks sample by sample.

Both inputs are `script` text of the same perf.data printed with
`-F comm,pid,tid,time,ip,sym,dso` (perf with --no-inline). Samples are
matched by (pid/tid, time, occurrence); frames are compared by address
(ip and dso), leaf first.

perf is held as a reference only as far as its unwinding can be trusted.
perf's DWARF unwinding stops early in many samples on some kernel/perf
pairs: silently, or after a garbage return address read from the stack
(a frame that may even land in a real function) followed by an
"[unknown]" frame. So perf's *valid prefix* is its stack cut before its
first "[unknown]" frame and before the frame above that one; an
"[unknown]" frame down to which kiln's frames are the same (a function
without a symbol, where both unwinders agree) does not cut. (A final
"ffffffffffffffff [unknown] ([unknown])" frame is how perf marks a stack
whose unwinding ran out of stack copy; it is dropped first, counted as
"marked cut" (with the samples both marked cut where kiln's stack starts
with perf's valid frames), and the frames before it stay valid.) kiln's stack must
start with perf's valid prefix. Each matched pair is classified:

  identical      the same frames as perf's whole stack
  perf_short     perf's valid prefix is a proper prefix of kiln's frames:
                 perf stopped early (silently or at an [unknown] frame)
                 and kiln went further
  within         kiln's frames are perf's valid prefix exactly (perf went
                 on with frames past it that are not trusted)
  kiln_short     kiln's frames are a proper prefix of perf's valid
                 prefix: kiln stopped early (a kiln bug unless kiln marked
                 the stack truncated)
  different      the frames differ within perf's valid prefix

A special mapping spelt "[[vdso]]" on one side and "[vdso]" on the
other is the same dso. Samples whose addresses all agree but whose symbol names differ are
counted apart ("names differ").

Printed: the classes; how often perf's stack held an [unknown] frame;
how often kiln went further than perf's valid prefix, and in how many of
those perf had stopped silently (no [unknown] frame, no entry point at
the bottom);
  kiln has every frame perf found
      (identical + perf_short + within) / matched: the agreement within
      perf's valid prefix;
  agreement where perf reached the outermost frame
      identical samples among those whose perf stack ends in an entry
      point (_start, clone, clone3: perf unwound all the way down).
The exit status is 1 if the agreement within perf's valid prefix is
below MIN (default 0), or if kiln stopped early in more than 1 - MIN of
the samples.

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


SPECIAL = re.compile(r'^ \(\[(\[[^\[\]]*\])\]\)$')


def addrs(frames):
    """(ip, dso) of each frame line "ip sym (dso)"; a special mapping's
    name "[[vdso]]" counts as "[vdso]" (its spelling differs between perf
    versions and kernels)."""
    out = []
    for f in frames:
        ip, _, rest = f.partition(' ')
        out.append((ip, SPECIAL.sub(r' (\1)', rest[rest.rfind(' ('):]) if ' (' in rest else ''))
    return out


def unknown(frame):
    """True for a frame line "ip [unknown] (dso)": no symbol."""
    _, _, rest = frame.partition(' ')
    return (rest[:rest.rfind(' (')] if ' (' in rest else rest) == '[unknown]'


def strip_cut(frames):
    if frames and frames[-1] == CUT:
        return frames[:-1], True
    return frames, False


def valid_prefix(frames, kiln):
    """perf's frames before its first [unknown] frame and the one above it.
    An [unknown] frame where kiln has the same frames down to and including
    it is no garbage (a function without a symbol, both unwinders agreeing):
    the search goes on below it."""
    pa, ka = addrs(frames), addrs(kiln)
    for i, f in enumerate(frames):
        if unknown(f) and pa[:i + 1] != ka[:i + 1]:
            return frames[:max(i - 1, 0)]
    return frames


def main():
    kiln, perf = load(sys.argv[1]), load(sys.argv[2])
    need = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    nex = int(sys.argv[4]) if len(sys.argv) > 4 else 8
    cls = Counter()
    perf_cut = kiln_cut = both_cut = names_differ = perf_complete = complete_same = 0
    perf_unknown = further = further_silent = 0
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
        pv = valid_prefix(pf, kf)
        perf_unknown += len(pv) < len(pf)
        names = kf, pv
        complete = outermost(pf)
        ka, pa, va = addrs(kf), addrs(pf), addrs(pv)
        if complete:
            perf_complete += 1
            complete_same += ka == pa
        if ka == pa:
            cls['identical'] += 1
            if kf != pf:
                names_differ += 1
        elif ka == va:
            cls['within'] += 1
        elif len(va) < len(ka) and ka[:len(va)] == va:
            cls['perf_short'] += 1
            further += 1
            further_silent += len(pv) == len(pf) and not complete and not pc
        elif len(ka) < len(va) and va[:len(ka)] == ka:
            cls['kiln_short'] += 1
            where_kiln[(names[0][-1] if kf else '-', names[1][len(kf)])] += 1
        else:
            i = next(i for i in range(min(len(ka), len(va))) if ka[i] != va[i])
            cls['different'] += 1
            where_diff[(names[0][i], names[1][i])] += 1
        both_cut += pc and kc and ka[:len(va)] == va
    print('samples: kiln %d, perf %d, matched %d' % (len(kiln), len(perf), matched))
    for c, what in (('identical', 'the same frames'),
                    ('perf_short', "perf stopped early, kiln went further (perf's valid frames are a prefix of kiln's)"),
                    ('within', "kiln's frames are perf's valid frames (perf went on past an [unknown] frame)"),
                    ('kiln_short', "kiln stopped early (its stack is a prefix of perf's valid frames)"),
                    ('different', "different frames within perf's valid frames")):
        print('%-11s %7d  %6.2f%%  %s' % (c, cls[c], 100.0 * cls[c] / max(matched, 1), what))
    print('marked cut (ffffffffffffffff frame): perf %d, kiln %d, both and agreeing %d'
          % (perf_cut, kiln_cut, both_cut))
    print('names differ (same addresses): %d' % names_differ)
    print('perf stack cut at an [unknown] frame (valid frames end one above it): %d' % perf_unknown)
    print('kiln went further than perf: %d (perf stopped silently in %d of them)'
          % (further, further_silent))
    agree = cls['identical'] + cls['perf_short'] + cls['within']
    found = agree / max(matched, 1)
    print("kiln has every frame perf found: %.4f (%d of %d)" % (found, agree, matched))
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
