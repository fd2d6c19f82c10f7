#!/bin/sh
# Source lines and inline frames, side by side on the same recording:
# `kiln script -F+srcline` against `perf script -F+srcline` (perf runs
# addr2line per address) on a --call-graph dwarf recording of
# `objdump -d -l` on libbfd (Debian's debug packages installed), recorded
# here at -F 2000 unless a FILE is given. Prints both times, kiln's ratio,
# and the share of equal lines. Goal: kiln at most 1/10 of perf's time.
# kiln is timed with its cache of expanded debug files empty (cold) and
# filled (warm); RUNS rounds (default 3) interleave kiln and perf.
# With --compile, also times kiln symbolizing every frame of the big
# compile recording (out/compile.data, or $COMPILE) with inline frames and
# source lines (kiln script -F+srcline), and kiln collapse with and
# without inline frames; perf is run there only with --with-perf (minutes).
# RECORD_OPTS adds options to that recording (e.g. --all-user: where BPF
# programs of other tools run system-wide, kernel stacks hold bpf_prog_*
# frames that make perf 6.1's addr2line child fail and perf script die of
# SIGPIPE part-way; the script says so when perf fails). The load average
# is printed before and after.
# Usage: [RUNS=N] [RECORD_OPTS=...] srcline-speed.sh [--compile [--with-perf]] [FILE]
set -e
here=$(cd "$(dirname "$0")" && pwd)
kiln=${KILN:-$here/../build/kiln}
compile=0 with_perf=0
[ "${1:-}" = --compile ] && { compile=1; shift; }
[ "${1:-}" = --with-perf ] && { with_perf=1; shift; }
mkdir -p "$here/out"
f=${1:-$here/out/objdump.data}
if [ ! -f "$f" ]; then
	lib=$(ls /usr/lib/x86_64-linux-gnu/libbfd-*.so | head -1)
	# shellcheck disable=SC2086 # RECORD_OPTS: options, split
	perf record -q --call-graph dwarf -F 2000 ${RECORD_OPTS:-} -o "$f" -- objdump -d -l "$lib" >/dev/null 2>&1
fi
measure() { # prints "SECONDS MAXRSS_KB CPU_SECONDS"; output to $out
	# CPU: task-clock of the whole process tree (perf's addr2line children
	# included), the fair figure on a loaded machine.
	perf stat -x, -e task-clock -o "$here/out/.cpu" -- \
		/usr/bin/time -f "%e %M" -o "$here/out/.time" "$@" >"$out" 2>/dev/null || true
	cpu=$(awk -F, '/task-clock/ { printf "%.2f", $1 / 1000 }' "$here/out/.cpu")
	if grep -q '^Command' "$here/out/.time"; then # killed or failed: the reason, to stderr
		echo "$* failed: $(grep '^Command' "$here/out/.time")" >&2
		touch "$here/out/.failed"
	fi
	echo "$(grep -v '^Command' "$here/out/.time") ${cpu:-?}"
}
cat "$f" >/dev/null # warm the page cache
echo "input: $f ($(du -m "$f" | cut -f1) MB, $(perf script -i "$f" -F time 2>/dev/null | grep -c .) samples), load: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$here/out/.failed"
# kiln twice per round: with an empty cache of expanded debug files (the
# first run after a debug package is installed: every compressed debug
# file decompressed) and with the cache that run filled (every later run).
# Rounds interleave kiln and perf; RUNS rounds (default 3), min and median.
cache=$here/out/cache
runs=${RUNS:-3}
: >"$here/out/.runs"
i=0
while [ $i -lt "$runs" ]; do
	rm -rf "$cache"
	out=$here/out/srcline.kiln
	set -- $(KILN_CACHE_DIR=$cache measure "$kiln" script -i "$f" -F+srcline); echo "cold $1 $3 $2" >>"$here/out/.runs"
	set -- $(KILN_CACHE_DIR=$cache measure "$kiln" script -i "$f" -F+srcline); echo "warm $1 $3 $2" >>"$here/out/.runs"
	out=$here/out/srcline.perf
	set -- $(measure perf script -i "$f" -F+srcline); echo "perf $1 $3 $2" >>"$here/out/.runs"
	i=$((i + 1))
done
rm -rf "$cache"
# per kind: min and median of wall and CPU, and the peak RSS
stats() {
	awk -v k="$1" '$1 == k { w[n + 0] = $2; c[n + 0] = $3; if ($4 > m) m = $4; n++ }
	function sort(a, n,   i, j, t) { for (i = 1; i < n; i++) for (j = i; j > 0 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }
	END { sort(w, n); sort(c, n); printf "%s %s %s %s %d\n", w[0], w[int((n-1)/2)], c[0], c[int((n-1)/2)], m / 1024 }' "$here/out/.runs"
}
set -- $(stats perf); pw=$2 pc=$4
echo "perf script -F+srcline:        wall min $1 median $2 s, CPU min $3 median $4 s (addr2line included), peak RSS $5 MB"
for k in cold warm; do
	set -- $(stats $k)
	echo "kiln script -F+srcline ($k): wall min $1 median $2 s, CPU min $3 median $4 s, peak RSS $5 MB"
	echo "kiln ($k)/perf, medians: wall $(echo "scale=3; $2 / $pw" | bc), CPU $(echo "scale=3; $4 / $pc" | bc)"
done
python3 "$here/../tests/lib/line_agree.py" "$here/out/srcline.kiln" "$here/out/srcline.perf" 0 >"$here/out/.agree" || true
head -1 "$here/out/.agree"
[ ! -e "$here/out/.failed" ] || echo "a run failed (above): its times and the line agreement are not comparable"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ $compile = 1 ] || exit 0
c=${COMPILE:-$here/out/compile.data}
[ -f "$c" ] || { echo "no $c (bench/record-compile.sh makes one)"; exit 0; }
cat "$c" >/dev/null
echo "input: $c ($(du -m "$c" | cut -f1) MB)"
out=/dev/null
set -- $(measure "$kiln" script -i "$c" -F+srcline); echo "kiln script -F+srcline:   $1 s wall, $3 s CPU, peak RSS $(($2 / 1024)) MB"
set -- $(measure "$kiln" script -i "$c"); echo "kiln script (inline):     $1 s wall, $3 s CPU, peak RSS $(($2 / 1024)) MB"
set -- $(measure "$kiln" script --no-inline -i "$c"); echo "kiln script --no-inline:  $1 s wall, $3 s CPU, peak RSS $(($2 / 1024)) MB"
set -- $(measure "$kiln" collapse "$c"); echo "kiln collapse (inline):   $1 s wall, $3 s CPU, peak RSS $(($2 / 1024)) MB"
set -- $(measure "$kiln" collapse --no-inline "$c"); echo "kiln collapse --no-inline: $1 s wall, $3 s CPU, peak RSS $(($2 / 1024)) MB"
if [ $with_perf = 1 ]; then
	set -- $(measure timeout 3600 perf script -i "$c" -F+srcline); echo "perf script -F+srcline:   $1 s wall, $3 s CPU, peak RSS $(($2 / 1024)) MB"
fi
