#!/bin/sh
# Folded stacks that share nothing (every frame of every stack a new node
# with a name of its own) take at most 8x the input's size in memory
# (peak RSS, the input's own pages included), and when memory runs out
# (an address-space cap) flame and collapse end with one line
# "error: out of memory (...)" and exit 1, never a signal.
. "$(dirname "$0")/lib.sh"
# Sanitizers reserve terabytes of address space and inflate the heap:
# neither a cap nor a ratio means anything there.
(ulimit -v 1000000 && "$KILN" --help >/dev/null 2>&1) || skip "kiln cannot run under an address-space cap (sanitizer build?)"
python3 - "$T" <<'PY'
import sys
d = sys.argv[1]
k = 0
with open(d + "/uniq.folded", "w") as f:
    for i in range(160000):
        f.write(";".join("f%07x" % (k + j) for j in range(20)) + " 1\n")
        k += 20
with open(d + "/uniq.txt", "w") as f:
    for i in range(60000):
        f.write("prog %d/%d [000] 1.0: 1 cycles:\n" % (i, i))
        for j in range(20):
            f.write("\t%x f%x+0x1 (/bin/p)\n" % (k, k))
            k += 1
        f.write("\n")
PY
# peak_kb CMD...: run CMD, print its peak RSS in KiB.
peak_kb() {
	python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
size_kb=$(($(wc -c <"$T/uniq.folded") / 1024))
# What the process takes whatever its input (its libraries): not the input's.
printf 'a;b 1\n' >"$T/tiny.folded"
base=$(peak_kb "$KILN" flame -o "$T/tiny.svg" "$T/tiny.folded" 2>/dev/null) || fail "flame failed"
rss=$(peak_kb "$KILN" flame -o "$T/uniq.svg" "$T/uniq.folded" 2>/dev/null) || fail "flame failed"
echo "input ${size_kb} KiB, peak RSS ${rss} KiB (${base} KiB for a tiny input), ratio $(awk "BEGIN{printf \"%.2f\", ($rss - $base) / $size_kb}")"
[ "$rss" -le $((size_kb * 8 + base)) ] || fail "peak RSS ${rss} KiB over 8x the input (${size_kb} KiB)"
# Out of memory under a cap the input needs more than.
oom() {
	name=$1
	shift
	(ulimit -v 120000 && exec "$KILN" "$@") >/dev/null 2>"$T/$name.err"
	st=$?
	[ "$st" = 1 ] || fail "$name: exit $st under the cap, want 1: $(cat "$T/$name.err")"
	[ "$(wc -l <"$T/$name.err")" -eq 1 ] || fail "$name: $(cat "$T/$name.err")"
	grep -q '^error: out of memory (' "$T/$name.err" || fail "$name: $(cat "$T/$name.err")"
}
oom flame flame -o "$T/oom.svg" "$T/uniq.folded"
[ -e "$T/oom.svg" ] && fail "an SVG was written"
oom collapse collapse -o "$T/oom.folded" "$T/uniq.txt"
oom flame_stdin flame -o "$T/oom.svg" - <"$T/uniq.folded"
echo ok
