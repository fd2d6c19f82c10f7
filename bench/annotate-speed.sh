#!/bin/sh
# kiln annotate against perf annotate --stdio, side by side on the same
# recording: every symbol with samples annotated (neither names one), as
# the issue's speed goal states it (kiln at most 0.1x perf's time, memory
# at most perf's). perf annotate runs objdump once per symbol; kiln
# disassembles in-process. Prints wall and CPU time (task-clock of the
# whole process tree: perf's objdump children included) and peak RSS of
# each, the ratios, and how far the two texts agree (annotate-agree.py).
# The input: FILE, or out/annotate-fp.data, recorded here once as
# `perf record -g -F 2000` of one g++ -O2 compile of heavy.cpp (frame
# pointers, about 6,000 samples); a DWARF recording from
# record-compile.sh works too (perf annotate takes minutes there).
# RUNS rounds (default 2) interleave kiln and perf; medians are printed.
# Usage: annotate-speed.sh [FILE]
set -e
here=$(cd "$(dirname "$0")" && pwd)
kiln=${KILN:-$here/../build/kiln}
mkdir -p "$here/out"
f=${1:-$here/out/annotate-fp.data}
if [ ! -f "$f" ]; then
	perf record -q -g -F 2000 -o "$f" -- g++ -O2 -std=c++17 -c "$here/heavy.cpp" -o /dev/null
fi
measure() { # prints "SECONDS MAXRSS_KB CPU_SECONDS"; output to $out
	perf stat -x, -e task-clock -o "$here/out/.cpu" -- \
		/usr/bin/time -f "%e %M" -o "$here/out/.time" "$@" >"$out" 2>/dev/null || true
	cpu=$(awk -F, '/task-clock/ { printf "%.2f", $1 / 1000 }' "$here/out/.cpu")
	echo "$(cat "$here/out/.time") ${cpu:-?}"
}
cat "$f" >/dev/null # warm the page cache
echo "input: $f ($(du -k "$f" | cut -f1) KB, $(perf script -i "$f" -F time 2>/dev/null | grep -c .) samples)"
runs=${RUNS:-2}
: >"$here/out/.runs"
i=0
while [ $i -lt "$runs" ]; do
	out=$here/out/annotate.kiln
	set -- $(measure "$kiln" annotate --stdio -i "$f"); echo "kiln $1 $3 $2" >>"$here/out/.runs"
	out=$here/out/annotate.perf
	set -- $(measure perf annotate --stdio -i "$f"); echo "perf $1 $3 $2" >>"$here/out/.runs"
	i=$((i + 1))
done
# per tool: median wall, median CPU, peak RSS (MB)
stats() {
	awk -v k="$1" '$1 == k { w[n + 0] = $2; c[n + 0] = $3; if ($4 > m) m = $4; n++ }
	function sort(a, n,   i, j, t) { for (i = 1; i < n; i++) for (j = i; j > 0 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }
	END { sort(w, n); sort(c, n); printf "%s %s %.1f\n", w[int((n-1)/2)], c[int((n-1)/2)], m / 1024 }' "$here/out/.runs"
}
set -- $(stats perf); pw=$1 pc=$2 pm=$3
echo "perf annotate --stdio: wall $1 s, CPU $2 s (objdump included), peak RSS $3 MB"
set -- $(stats kiln)
echo "kiln annotate --stdio: wall $1 s, CPU $2 s, peak RSS $3 MB"
echo "kiln/perf (medians of $runs): wall $(echo "scale=3; $1 / $pw" | bc), CPU $(echo "scale=3; $2 / $pc" | bc), peak RSS $(echo "scale=2; $3 / $pm" | bc)"
python3 "$here/annotate-agree.py" "$here/out/annotate.kiln" "$here/out/annotate.perf" || true
