#!/bin/sh
# DWARF unwinding + symbolization, side by side on the same recording:
# kiln collapse (two threads, and one with KILN_THREADS=1), hotspot's
# perfparser (apt-get install hotspot), and, with --with-perf, perf script
# once. Each tool runs RUNS times (default 3), interleaved; prints the min
# and median wall time, the median CPU time (user + system) and the peak
# RSS of each, and kiln's ratios (wall: min against min; CPU: median
# against median, the fairer figure on a loaded machine), with the load
# average before and after. perfparser comes from Debian's hotspot package
# (apt-get install hotspot). Usage: [RUNS=N] unwind-speed.sh [--with-perf] [FILE]
set -e
here=$(cd "$(dirname "$0")" && pwd)
kiln=${KILN:-$here/../build/kiln}
pp=/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser
runs=${RUNS:-3}
with_perf=0
[ "${1:-}" = --with-perf ] && { with_perf=1; shift; }
f=${1:-$here/out/compile.data}
[ -f "$f" ] || { mkdir -p "$(dirname "$f")"; "$here/record-compile.sh" "$f"; }
mkdir -p "$here/out"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
measure() { # NAME CMD...: appends "SECONDS MAXRSS_KB CPU_SECONDS" to $t/NAME
	name=$1
	shift
	/usr/bin/time -f "%e %M %U %S" -o "$t/one" "$@" >/dev/null 2>&1 || true
	awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$t/one" >"$t/one2"
	mv "$t/one2" "$t/one"
	cat "$t/one" >>"$t/$name"
}
stats() { # NAME: "min median maxrss median_cpu"
	sort -n "$t/$1" | awk '{ s[NR] = $1; if ($2 > m) m = $2 }
		END { printf "%s %s %d ", s[1], s[int((NR + 1) / 2)], m / 1024 }'
	awk '{ print $3 }' "$t/$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
cat "$f" >/dev/null # warm the page cache
echo "input: $f ($(du -m "$f" | cut -f1) MB), $runs runs each, load: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ $i -lt "$runs" ]; do
	measure kiln "$kiln" collapse "$f"
	measure kiln1 env KILN_THREADS=1 "$kiln" collapse "$f"
	[ -x "$pp" ] && measure pp "$pp" --input "$f" --output /dev/null
	i=$((i + 1))
done
set -- $(stats kiln); kt=$1; km=$3; kc=$4
echo "kiln collapse:               min $1 s, median $2 s, CPU median $4 s, peak RSS $3 MB"
set -- $(stats kiln1); k1=$1; k1c=$4
echo "kiln collapse, one thread:   min $1 s, median $2 s, CPU median $4 s, peak RSS $3 MB"
echo "two threads / one thread:    wall $(echo "scale=3; $kt / $k1" | bc), CPU $(echo "scale=3; $kc / $k1c" | bc)"
if [ -x "$pp" ]; then
	set -- $(stats pp); pt=$1; pm=$3; pc=$4
	echo "perfparser:                  min $1 s, median $2 s, CPU median $4 s, peak RSS $3 MB"
	echo "kiln/perfparser:             time $(echo "scale=3; $kt / $pt" | bc) (CPU $(echo "scale=3; $kc / $pc" | bc); one thread $(echo "scale=3; $k1c / $pc" | bc)), memory $(echo "scale=3; $km / $pm" | bc)"
else
	echo "perfparser: not installed (apt-get install hotspot)"
fi
if [ $with_perf = 1 ]; then
	measure perf perf script --no-inline -i "$f"
	set -- $(stats perf); st=$1
	echo "perf script --no-inline:     $1 s, peak RSS $3 MB"
	echo "kiln/perf: time $(echo "scale=4; $kt / $st" | bc)"
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
