#!/bin/sh
# kiln flame / kiln collapse against FlameGraph's Perl scripts, side by side
# on the same inputs: wall time, CPU time (user + system), peak RSS, and the
# ratios (goals: folded → SVG 80x, text → folded 40x). On a shared, loaded machine the
# CPU-time ratio is the steadier one; both are printed.
#   (a) the folded stacks of out/compile.data (the DWARF compile recording,
#       folded once by kiln collapse), rendered to SVG;
#   (b) a synthetic folded file of a million distinct stacks, rendered;
#   (c) perf script text → folded: stackcollapse-perf.pl against kiln
#       collapse on the same text, and the whole text → SVG pipeline. The
#       text is `perf script --no-inline` of out/small.data (SCRIPT_DATA), a
#       `perf record --call-graph dwarf -F 1000` of one g++ -O2 compile of
#       heavy.cpp, recorded here when missing (perf script of the 467 MB
#       recording takes many minutes);
#   (d) the same on large text: `perf script --no-inline` of out/large.data
#       (LARGE_DATA), the same recording of four compiles in a row (~300 MB;
#       its text ~60 MB), made when missing (LARGE=0 skips (d));
#   (e) the folded stacks of that large text (out/large.folded, folded once
#       by kiln collapse from out/large.script; FOLDED_LARGE names another
#       file), rendered: the real stacks of four compiles.
# (a), (e), (c) and (d) run in RUNS interleaved rounds (default 3: kiln, then the
# Perl script, round after round, so a load that comes and goes weighs on
# both); each line gives the median wall and CPU time and the ratios are
# of medians. (b) runs once (SYNTHETIC=0 skips it). The load average is
# printed before and after.
# FLAMEGRAPH_DIR names a directory holding flamegraph.pl and
# stackcollapse-perf.pl (FlameGraph's); without it only kiln is timed.
# Usage: flame-speed.sh [COMPILE.DATA]   (KILN=path/to/kiln to override)
set -e
here=$(cd "$(dirname "$0")" && pwd)
kiln=${KILN:-$here/../build/kiln}
data=${1:-$here/out/compile.data}
out=${BENCH_OUT:-$here/out}
mkdir -p "$out"
fg=${FLAMEGRAPH_DIR:-}
if [ -n "$fg" ] && [ ! -f "$fg/flamegraph.pl" ]; then
	echo "FLAMEGRAPH_DIR=$fg has no flamegraph.pl" >&2
	exit 2
fi
[ -n "$fg" ] || echo "note: FLAMEGRAPH_DIR not set: FlameGraph's Perl scripts are skipped, kiln alone is timed"

# run NAME OUTFILE CMD...: wall and CPU seconds and peak RSS (MB) of CMD,
# stdout to OUTFILE; sets $last (wall) and $lastcpu. When perf is there,
# CPU is perf stat's task-clock (to the millisecond; /usr/bin/time's is in
# hundredths) and wall its duration_time (from the command's start to its
# exit: perf stat's own start-up, ~25 ms, would be a large part of kiln's
# wall time on the small inputs); else user + system time, and the wall
# time around the command.
run() {
	name=$1 o=$2
	shift 2
	t0=$(date +%s.%N)
	if command -v perf >/dev/null; then
		set -- perf stat -x, -e task-clock,duration_time -o "$out/.cpu" -- "$@"
	fi
	/usr/bin/time -f "%e %U %S %M" -o "$out/.time" "$@" >"$o" 2>"$out/.err" || {
		echo "$name failed: $(tail -2 "$out/.err")" >&2
		exit 1
	}
	t1=$(date +%s.%N)
	set -- $(cat "$out/.time")
	last=$(echo "$t1 - $t0" | bc)
	lastcpu=$(echo "$2 + $3" | bc)
	if command -v perf >/dev/null; then
		lastcpu=$(awk -F, '/task-clock/ { printf "%.4f", $1 / 1000 }' "$out/.cpu")
		last=$(awk -F, '/duration_time/ { printf "%.4f", $1 / 1e9 }' "$out/.cpu")
	fi
	printf '  %-30s wall %7.3f s  cpu %7.3f s  peak %6d MB\n' "$name" "$last" "$lastcpu" $(($4 / 1024))
}
# rec KEY NAME OUTFILE CMD...: run quietly, appending "wall cpu" to $out/.KEY
rec() {
	key=$1
	shift
	run "$@" >/dev/null
	echo "$last $lastcpu" >>"$out/.r.$key"
}
# med KEY NAME: print the medians of KEY's runs; sets $last and $lastcpu
med() {
	set -- "$1" "$2" $(awk '{ w[NR] = $1; c[NR] = $2 }
		function srt(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }
		END { srt(w, NR); srt(c, NR); m = int((NR + 1) / 2); print w[m], c[m], NR }' "$out/.r.$1")
	last=$3 lastcpu=$4
	printf '  %-30s wall %7.3f s  cpu %7.3f s  (median of %d)\n' "$2" "$3" "$4" "$5"
}
rm -f "$out"/.r.*
runs=${RUNS:-3}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $runs rounds"
ratio() { echo "scale=1; $1 / $2" | bc; }
show_input() { echo "  input: $(wc -l <"$1") lines, $(du -kL "$1" | cut -f1) KB"; }
# folded_svg KEY FILE: kiln flame and flamegraph.pl on FILE, RUNS
# interleaved rounds, medians and ratios (outputs $out/KEY.kiln.svg, .pl.svg)
folded_svg() {
	fkey=$1 ffile=$2
	show_input "$ffile"
	i=0
	while [ $i -lt "$runs" ]; do
		rec "${fkey}k" "kiln flame" "$out/$fkey.kiln.svg" "$kiln" flame "$ffile" -o -
		[ -z "$fg" ] || rec "${fkey}p" "flamegraph.pl" "$out/$fkey.pl.svg" perl "$fg/flamegraph.pl" "$ffile"
		i=$((i + 1))
	done
	med "${fkey}k" "kiln flame"
	tk=$last ck=$lastcpu
	if [ -n "$fg" ]; then
		med "${fkey}p" "flamegraph.pl"
		ratios "flamegraph.pl / kiln" "$last" "$lastcpu" "$tk" "$ck"
	fi
}
# ratios NAME REF_WALL REF_CPU KILN_WALL KILN_CPU
ratios() {
	echo "  ratio $1: wall $(ratio "$2" "$4")x, cpu $(ratio "$3" "$5")x"
}

if [ ! -f "$data" ]; then
	echo "no $data: record it with bench/record-compile.sh" >&2
	exit 2
fi
echo "== (a) folded stacks of $data"
[ -s "$out/compile.folded" ] || "$kiln" collapse "$data" >"$out/compile.folded" 2>/dev/null
folded_svg a "$out/compile.folded"

if [ "${SYNTHETIC:-1}" = 0 ]; then
	echo "== (b) skipped (SYNTHETIC=0)"
else
echo "== (b) synthetic: a million distinct folded stacks"
if [ ! -s "$out/synthetic.folded" ]; then
	python3 - "$out/synthetic.folded" <<'PY'
import sys
# Deterministic: a linear congruential generator picks depth and names.
x = 12345
def rnd(n):
    global x
    x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    return (x >> 33) % n
with open(sys.argv[1], "w") as f:
    for i in range(1000000):
        depth = 4 + rnd(28)
        frames = ["proc%d" % rnd(4)]
        for d in range(depth - 1):
            frames.append("fn_%d_%d" % (d, rnd(3 + d)))
        frames.append("leaf_%d" % i)
        f.write("%s %d\n" % (";".join(frames), 1 + rnd(50)))
PY
fi
show_input "$out/synthetic.folded"
run "kiln flame" "$out/b.kiln.svg" "$kiln" flame "$out/synthetic.folded" -o -
tk=$last ck=$lastcpu
if [ -n "$fg" ]; then
	run "flamegraph.pl" "$out/b.pl.svg" perl "$fg/flamegraph.pl" "$out/synthetic.folded"
	ratios "flamegraph.pl / kiln" "$last" "$lastcpu" "$tk" "$ck"
fi
fi

# text TKEY DATA SCRIPT COMPILES: (c)/(d) on the perf script text of DATA,
# a --call-graph dwarf -F 1000 recording of COMPILES g++ -O2 compiles of
# heavy.cpp (recorded when missing), written to SCRIPT once.
text() {
	tkey=$1 tdata=$2 script=$3 compiles=$4
	if [ ! -s "$tdata" ]; then
		perf record -q --call-graph dwarf -F 1000 -o "$tdata" -- sh -c "
			i=0
			while [ \$i -lt $compiles ]; do
				g++ -O2 -std=c++17 -c '$here/heavy.cpp' -o /dev/null
				i=\$((i + 1))
			done" 2>/dev/null
		rm -f "$script"
	fi
	[ -s "$script" ] || perf script --no-inline -i "$tdata" >"$script" 2>/dev/null
	show_input "$script"
	i=0
	while [ $i -lt "$runs" ]; do
		rec "${tkey}ck" "kiln collapse (text)" "$out/$tkey.kiln.folded" "$kiln" collapse "$script"
		[ -z "$fg" ] || rec "${tkey}cp" "stackcollapse-perf.pl" "$out/$tkey.pl.folded" perl "$fg/stackcollapse-perf.pl" "$script"
		rec "${tkey}fk" "kiln flame (text)" "$out/$tkey.kiln.svg" "$kiln" flame "$script" -o -
		[ -z "$fg" ] || rec "${tkey}fp" "flamegraph.pl (its folded)" "$out/$tkey.pl.svg" perl "$fg/flamegraph.pl" "$out/$tkey.pl.folded"
		i=$((i + 1))
	done
	med "${tkey}ck" "kiln collapse (text)"
	tc=$last cc=$lastcpu
	med "${tkey}fk" "kiln flame (text)"
	tf=$last cf=$lastcpu
	if [ -n "$fg" ]; then
		med "${tkey}cp" "stackcollapse-perf.pl"
		tsc=$last csc=$lastcpu
		ratios "stackcollapse-perf.pl / kiln collapse" "$tsc" "$csc" "$tc" "$cc"
		med "${tkey}fp" "flamegraph.pl (its folded)"
		ratios "stackcollapse-perf.pl + flamegraph.pl / kiln flame" \
			"$(echo "$tsc + $last" | bc)" "$(echo "$csc + $lastcpu" | bc)" "$tf" "$cf"
		# stackcollapse-perf.pl before periods (FlameGraph ef64564) counts
		# samples; the current one sums the samples' periods, as kiln does.
		if cmp -s "$out/$tkey.kiln.folded" "$out/$tkey.pl.folded"; then
			echo "  folded output: identical"
		elif sed 's/ [0-9]*$//' "$out/$tkey.kiln.folded" | cmp -s - "$(sed 's/ [0-9]*$//' "$out/$tkey.pl.folded" >"$out/.stacks"; echo "$out/.stacks")"; then
			echo "  folded output: the same stacks, counts differ (this stackcollapse-perf.pl counts samples, kiln sums their periods)"
		else
			echo "  folded output: differs ($(diff "$out/$tkey.kiln.folded" "$out/$tkey.pl.folded" | grep -c '^[<>]') lines)"
		fi
	fi
}

if command -v perf >/dev/null; then
	sdata=${SCRIPT_DATA:-$out/small.data}
	echo "== (c) perf script text of $sdata (1 compile)"
	text c "$sdata" "$out/small.script" 1
	if [ "${LARGE:-1}" = 0 ]; then
		echo "== (d) skipped (LARGE=0)"
	else
		ldata=${LARGE_DATA:-$out/large.data}
		echo "== (d) large perf script text of $ldata (4 compiles)"
		text d "$ldata" "$out/large.script" 4
	fi
else
	echo "== (c), (d): perf is not installed: skipped"
fi
lfold=${FOLDED_LARGE:-$out/large.folded}
if [ ! -s "$lfold" ] && [ -s "$out/large.script" ]; then
	"$kiln" collapse "$out/large.script" >"$lfold" 2>/dev/null
fi
if [ -s "$lfold" ]; then
	echo "== (e) folded stacks of the large text ($lfold)"
	folded_svg e "$lfold"
else
	echo "== (e) skipped (no $lfold, and no out/large.script to fold it from: (d) makes it)"
fi

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
