#!/usr/bin/env python3
"""Compare two texts line for line (perf script output): prints how many
lines of the longer one the other matches, in order (a longest common
subsequence of lines), and the first differing lines; exits 1 when the
share is below the threshold.
usage: line_agree.py A B [MIN_SHARE]"""
import difflib
import sys

a = open(sys.argv[1], errors='replace').read().split('\n')
b = open(sys.argv[2], errors='replace').read().split('\n')
need = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
same = sum(m.size for m in sm.get_matching_blocks())
share = same / max(len(a), len(b), 1)
print('line agreement: %.4f (%d equal of %d vs %d lines)' % (share, same, len(a), len(b)))
shown = 0
for tag, i1, i2, j1, j2 in sm.get_opcodes():
    if tag == 'equal' or shown >= 8:
        continue
    shown += 1
    print('  kiln %d: %r' % (i1 + 1, a[i1] if i1 < len(a) else ''))
    print('  perf %d: %r' % (j1 + 1, b[j1] if j1 < len(b) else ''))
sys.exit(0 if share >= need and len(a) > 1 else 1)
