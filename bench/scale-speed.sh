#!/bin/sh
# How kiln collapse's time and memory grow with the recording: the DWARF
# compile recording at 1x, 4x and 16x (bench/record-compile.sh with 1, 4
# and 16 compiles: out/compile.data, out/compile4.data, out/compile16.data,
# recorded when missing, ~180 MB per compile), each read with
# KILN_THREADS=1 and with two threads (KILN_THREADS=2; kiln's default with
# 2+ CPUs). RUNS rounds (default 2) interleave the files and settings.
# Prints per file and setting the medians of wall time and CPU time
# (perf stat's task-clock), the peak RSS, and per sample: CPU microseconds
# and peak RSS in KB (linear growth: the CPU per sample stays flat, the RSS
# grows with the distinct stacks, not with the samples), and the speedup of
# two threads over one (CPU time and wall time). The load average is
# printed before and after: on a loaded machine the second thread finds no
# free core, so compare the CPU columns.
# Usage: [RUNS=N] scale-speed.sh   (KILN=path/to/kiln to override)
set -e
here=$(cd "$(dirname "$0")" && pwd)
kiln=${KILN:-$here/../build/kiln}
out=$here/out
mkdir -p "$out"
runs=${RUNS:-2}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
files="1:$out/compile.data 4:$out/compile4.data 16:$out/compile16.data"
for x in $files; do
	n=${x%%:*} f=${x#*:}
	[ -s "$f" ] || "$here/record-compile.sh" "$f" "$n" >/dev/null
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $runs rounds, $(nproc) CPUs"
# measure KEY THREADS FILE: appends "wall cpu maxrss_kb" to $T/KEY
measure() {
	t0=$(date +%s.%N)
	KILN_THREADS=$2 perf stat -x, -e task-clock -o "$T/cpu" -- \
		/usr/bin/time -f "%M" -o "$T/rss" "$kiln" collapse "$3" >/dev/null 2>"$T/err" || {
		echo "kiln collapse $3 failed: $(tail -1 "$T/err")" >&2
		exit 1
	}
	t1=$(date +%s.%N)
	echo "$(echo "$t1 - $t0" | bc) $(awk -F, '/task-clock/ { printf "%.3f", $1 / 1000 }' "$T/cpu") $(cat "$T/rss")" >>"$T/$1"
}
for x in $files; do
	n=${x%%:*} f=${x#*:}
	cat "$f" >/dev/null # page cache
	"$kiln" script -F time -i "$f" 2>/dev/null | grep -c . >"$T/samples.$n" || true
done
i=0
while [ $i -lt "$runs" ]; do
	for x in $files; do
		n=${x%%:*} f=${x#*:}
		measure "$n.1" 1 "$f"
		measure "$n.2" 2 "$f"
	done
	i=$((i + 1))
done
med() { # KEY COLUMN
	awk -v c="$2" '{ print $c }' "$T/$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
printf "%-6s %-9s %9s %9s %9s %8s %12s %11s\n" size threads samples wall cpu "RSS MB" "cpu us/smp" "RSS KB/smp"
for x in $files; do
	n=${x%%:*}
	s=$(cat "$T/samples.$n")
	for th in 1 2; do
		w=$(med "$n.$th" 1) c=$(med "$n.$th" 2) r=$(med "$n.$th" 3)
		printf "%-6s %-9s %9d %8.2fs %8.2fs %9d %12.1f %11.2f\n" "${n}x" "$th" "$s" "$w" "$c" \
			$((r / 1024)) "$(echo "$c * 1000000 / $s" | bc -l)" "$(echo "$r / $s" | bc -l)"
	done
	echo "       two threads / one: wall $(echo "scale=2; $(med "$n.2" 1) / $(med "$n.1" 1)" | bc), cpu $(echo "scale=2; $(med "$n.2" 2) / $(med "$n.1" 2)" | bc)"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
