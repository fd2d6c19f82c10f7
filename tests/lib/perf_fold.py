#!/usr/bin/env python3
"""Fold `perf script` text the way stackcollapse-perf.pl does (its default
options): the process name is the root frame, frames run root to leaf, a
frame without a symbol becomes "[dso basename]" (or "[unknown]"), "+0x.."
offsets are dropped, identical stacks are summed, lines are sorted.
A test helper: it turns perf's own view of a file into the text kiln's
`collapse` must reproduce."""
import re
import sys
from collections import Counter

HEADER = re.compile(r'^(\S.+?)\s+(\d+)[\s/]')
FRAME = re.compile(r'^\s*(\w+)\s*(.+) \((\S*)\)$')


def fold(lines):
    out = Counter()
    comm, stack = None, []

    def flush():
        if comm is not None and stack:
            out[';'.join([comm] + stack[::-1])] += 1

    for line in lines:
        line = line.rstrip('\n')
        if line.startswith('#'):
            continue
        if not line.strip():
            flush()
            comm, stack = None, []
            continue
        m = HEADER.match(line)
        if m and not line[0].isspace():
            flush()
            comm, stack = m.group(1).replace(' ', '_'), []
            continue
        m = FRAME.match(line)
        if m:
            func, mod = m.group(2), m.group(3)
            func = re.sub(r'\+0x[0-9a-f]+$', '', func)
            if func == '[unknown]':
                func = '[unknown]' if mod == '[unknown]' else '[%s]' % mod.split('/')[-1]
            func = func.replace(';', ':')
            stack.append(func)
    flush()
    return out


if __name__ == '__main__':
    folded = fold(open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin)
    for k in sorted(folded):
        print('%s %d' % (k, folded[k]))
