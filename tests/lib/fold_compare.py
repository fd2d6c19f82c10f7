#!/usr/bin/env python3
"""Compare two folded files: prints the share of sample weight on which
they agree (sum over stacks of min(a, b) / max(total a, total b)) and the
biggest differences; exits 1 if the share is below the threshold.
A frame "[[name]]" counts as "[name]" on both sides: a symbol-less frame
in a special mapping is "[vdso]" in kiln and "[[vdso]]" in perf's
stackcollapse view on some kernels (the names of special mappings differ
between perf versions and kernels).
usage: fold_compare.py A B [MIN_SHARE]"""
import re
import sys

SPECIAL = re.compile(r'(?<![^;])\[(\[[^\[\];]*\])\](?![^;])')


def load(path):
    d = {}
    for line in open(path):
        line = line.rstrip('\n')
        if not line:
            continue
        stack, _, n = line.rpartition(' ')
        stack = SPECIAL.sub(r'\1', stack)
        d[stack] = d.get(stack, 0) + int(n)
    return d


a, b = load(sys.argv[1]), load(sys.argv[2])
need = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
ta, tb = sum(a.values()), sum(b.values())
same = sum(min(a.get(k, 0), b.get(k, 0)) for k in set(a) | set(b))
share = same / max(ta, tb, 1)
print('agreement: %.4f of %d vs %d samples' % (share, ta, tb))
diffs = sorted(((abs(a.get(k, 0) - b.get(k, 0)), k) for k in set(a) | set(b)), reverse=True)
for d, k in diffs[:10]:
    if d:
        print('  %6d vs %6d  %s' % (a.get(k, 0), b.get(k, 0), k))
sys.exit(0 if share >= need and ta > 0 else 1)
