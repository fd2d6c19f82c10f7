#!/bin/sh
# DWARF unwinding + symbolization, side by side on the same recording:
# kiln collapse (two threads, and one with KILN_THREADS=1), hotspot's
# perfparser (apt-get install hotspot), and, with --with-perf, perf script
# once. Each tool runs RUNS times (default 3), interleaved; prints the min
# and median wall time and the peak RSS of each, and kiln's ratios (min
# against min). Usage: [RUNS=N] unwind-speed.sh [--with-perf] [FILE]
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
measure() { # NAME CMD...: appends "SECONDS MAXRSS_KB" to $t/NAME
	name=$1
	shift
	/usr/bin/time -f "%e %M" -o "$t/one" "$@" >/dev/null 2>&1 || true
	cat "$t/one" >>"$t/$name"
}
stats() { # NAME: "min median maxrss"
	sort -n "$t/$1" | awk '{ s[NR] = $1; if ($2 > m) m = $2 }
		END { printf "%s %s %d\n", s[1], s[int((NR + 1) / 2)], m / 1024 }'
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
set -- $(stats kiln); kt=$1; km=$3
echo "kiln collapse:               min $1 s, median $2 s, peak RSS $3 MB"
set -- $(stats kiln1); k1=$1
echo "kiln collapse, one thread:   min $1 s, median $2 s, peak RSS $3 MB"
echo "two threads / one thread:    $(echo "scale=3; $kt / $k1" | bc)"
if [ -x "$pp" ]; then
	set -- $(stats pp); pt=$1; pm=$3
	echo "perfparser:                  min $1 s, median $2 s, peak RSS $3 MB"
	echo "kiln/perfparser:             time $(echo "scale=3; $kt / $pt" | bc), memory $(echo "scale=3; $km / $pm" | bc)"
else
	echo "perfparser: not installed (apt-get install hotspot)"
fi
if [ $with_perf = 1 ]; then
	measure perf perf script --no-inline -i "$f"
	set -- $(stats perf); st=$1
	echo "perf script --no-inline:     $1 s, peak RSS $3 MB"
	echo "kiln/perf: time $(echo "scale=4; $kt / $st" | bc)"
fi
