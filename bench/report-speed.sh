#!/bin/sh
# kiln report --stdio against perf report --stdio on the same recordings,
# side by side: wall time and peak RSS of each (GNU time; perf's addr2line
# children are counted in its wall time), and the ratios kiln/perf.
# Recordings (made when missing, under bench/out/):
#  - compile.data: a --call-graph dwarf recording of g++ compiles
#    (record-compile.sh; COMPILES=N, default 1);
#  - long-fp.data: an FP (-g) recording of the example workload burn
#    running SECS seconds (default 30) at 4000 Hz.
# Usage: report-speed.sh [FILE...]   (default: both recordings)
# OPTS="..." adds report options to both (e.g. OPTS="-g none").
set -e
here=$(cd "$(dirname "$0")" && pwd)
kiln=${KILN:-$here/../build/kiln}
burn=${BURN:-$here/../build/examples/burn}
out=$here/out
mkdir -p "$out"
if [ $# -eq 0 ]; then
	[ -f "$out/compile.data" ] || "$here/record-compile.sh" "$out/compile.data" "${COMPILES:-1}"
	[ -f "$out/long-fp.data" ] ||
		perf record -q -g -F 4000 -o "$out/long-fp.data" -- "$burn" "${SECS:-30}" >/dev/null
	set -- "$out/compile.data" "$out/long-fp.data"
fi
# run LABEL CMD...: "wall_s rss_kb" of one run, output discarded
run() {
	/usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" >/dev/null 2>&1 || true
	tail -1 "$out/time.txt"
}
printf '%-14s %8s %10s %10s %10s %8s %8s\n' input MB kiln_s perf_s kiln_MB perf_MB "ratio t/m"
for f in "$@"; do
	mb=$(du -m "$f" | cut -f1)
	# shellcheck disable=SC2086
	"$kiln" report --stdio $OPTS -i "$f" >/dev/null 2>&1 || true # warm the page cache
	# shellcheck disable=SC2086
	set -- $(run "$kiln" report --stdio $OPTS -i "$f")
	tk=$1 mk=$2
	# shellcheck disable=SC2086
	set -- $(run perf report --stdio $OPTS -i "$f")
	tp=$1 mp=$2
	printf '%-14s %8s %10s %10s %10s %8s %8s\n' "$(basename "$f")" "$mb" "$tk" "$tp" \
		"$((mk / 1024))" "$((mp / 1024))" \
		"$(echo "scale=4; $tk / $tp" | bc)/$(echo "scale=2; $mk / $mp" | bc)"
done
