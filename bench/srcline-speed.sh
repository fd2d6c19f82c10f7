#!/bin/sh
# Source lines and inline frames, side by side on the same recording:
# `kiln script -F+srcline` against `perf script -F+srcline` (perf runs
# addr2line per address) on a --call-graph dwarf recording of
# `objdump -d -l` on libbfd (Debian's debug packages installed), recorded
# here at -F 2000 unless a FILE is given. Prints both times, kiln's ratio,
# and the share of equal lines. Goal: kiln at most 1/10 of perf's time.
# With --compile, also times kiln symbolizing every frame of the big
# compile recording (out/compile.data, or $COMPILE) with inline frames and
# source lines (kiln script -F+srcline), and kiln collapse with and
# without inline frames; perf is run there only with --with-perf (minutes).
# Usage: srcline-speed.sh [--compile [--with-perf]] [FILE]
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
	perf record -q --call-graph dwarf -F 2000 -o "$f" -- objdump -d -l "$lib" >/dev/null 2>&1
fi
measure() { # prints "SECONDS MAXRSS_KB CPU_SECONDS"; output to $out
	# CPU: task-clock of the whole process tree (perf's addr2line children
	# included), the fair figure on a loaded machine.
	perf stat -x, -e task-clock -o "$here/out/.cpu" -- \
		/usr/bin/time -f "%e %M" -o "$here/out/.time" "$@" >"$out" 2>/dev/null || true
	cpu=$(awk -F, '/task-clock/ { printf "%.2f", $1 / 1000 }' "$here/out/.cpu")
	echo "$(cat "$here/out/.time") ${cpu:-?}"
}
cat "$f" >/dev/null # warm the page cache
echo "input: $f ($(du -m "$f" | cut -f1) MB, $(perf script -i "$f" -F time 2>/dev/null | grep -c .) samples)"
out=$here/out/srcline.kiln
set -- $(measure "$kiln" script -i "$f" -F+srcline); kt=$1; km=$2; kc=$3
out=$here/out/srcline.perf
set -- $(measure perf script -i "$f" -F+srcline); pt=$1; pm=$2; pc=$3
echo "kiln script -F+srcline: ${kt} s wall, ${kc} s CPU, peak RSS $((km / 1024)) MB"
echo "perf script -F+srcline: ${pt} s wall, ${pc} s CPU (addr2line included), peak RSS $((pm / 1024)) MB"
echo "kiln/perf: wall $(echo "scale=4; $kt / $pt" | bc), CPU $(echo "scale=4; $kc / $pc" | bc)"
python3 "$here/../tests/lib/line_agree.py" "$here/out/srcline.kiln" "$here/out/srcline.perf" 0 >"$here/out/.agree" || true
head -1 "$here/out/.agree"
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
