#!/bin/sh
# kiln's DWARF unwinding against perf's, sample by sample, on the same
# recording: `kiln script` and `perf script --no-inline` print every
# sample's frames (-F comm,pid,tid,time,ip,sym,dso), samples are matched
# by tid and time, and each is classified (tests/lib/sample_compare.py)
# against perf's valid frames (its stack down to its first [unknown]
# frame, less the frame above it: perf's DWARF unwinding stops early,
# silently or after a garbage frame, in most samples on some kernels):
# identical, perf stopped early and kiln went further, kiln
# stopped early (a prefix of perf's), different frames. perf takes ~10 s
# on the 467 MB compile recording, so this is a benchmark, not a test.
# Usage: unwind-agree.sh [FILE]
set -e
here=$(cd "$(dirname "$0")" && pwd)
kiln=${KILN:-$here/../build/kiln}
f=${1:-$here/out/compile.data}
[ -f "$f" ] || { mkdir -p "$(dirname "$f")"; "$here/record-compile.sh" "$f"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fields=comm,pid,tid,time,ip,sym,dso
"$kiln" script --no-inline -F $fields -i "$f" >"$tmp/kiln" 2>/dev/null
perf script --no-inline -F $fields -i "$f" >"$tmp/perf" 2>/dev/null
echo "input: $f ($(du -m "$f" | cut -f1) MB)"
python3 "$here/../tests/lib/sample_compare.py" "$tmp/kiln" "$tmp/perf" 0 ${EXAMPLES:-10}
