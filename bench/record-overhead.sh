#!/bin/sh
# What a DWARF recording costs the program recorded: one `g++ -O2 -c
# bench/heavy.cpp` bare, under `kiln record --call-graph dwarf -F 999` and
# under `perf record --call-graph dwarf -F 999` (the same settings: 8 KiB
# stack copies, cpu-clock), RUNS rounds (default 5) taken in turns. Prints
# per configuration the median of the compile's own wall time (timed by
# /usr/bin/time inside the recording), its overhead over the bare run, the
# whole command's wall time (start-up and writing the file included), the
# file size, the samples in it and its bytes per sample, and kiln's ratios
# to perf (goal: both at most 1). At a fixed frequency the samples follow
# the CPU time the compile took, which moves from run to run (this
# machine's cores change speed), so the bytes per sample compare the two
# formats where the file sizes also compare the runs. CPU time, less
# moved by the load than wall time: the compile's own (user + system, the
# kernel's sample copies included: the same attributes in both), and the
# recorder's own (the whole command's CPU less the compile's), the part
# that competes with the program for the cores. The load
# average is printed before and after. Needs root (or
# perf_event_paranoid <= -1). Usage: [RUNS=N] record-overhead.sh [KILN]
set -u
here=$(cd "$(dirname "$0")" && pwd)
kiln=${1:-$here/../build/kiln}
runs=${RUNS:-5}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
now() { date +%s.%N; }
work="/usr/bin/time -f %e_%U_%S -o $T/prog g++ -O2 -std=c++17 -c $here/heavy.cpp -o $T/heavy.o"
cmd() {
	case $1 in
	1) echo "$work" ;;
	2) echo "$kiln record -q --call-graph dwarf -F 999 -o $T/kiln.data -- $work" ;;
	3) echo "perf record -q --call-graph dwarf -F 999 -o $T/perf.data -- $work" ;;
	esac
}
names="bare|kiln record --call-graph dwarf -F 999|perf record --call-graph dwarf -F 999"
echo "workload: g++ -O2 -c heavy.cpp, $runs rounds in turns, load: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ $i -lt "$runs" ]; do
	for n in 1 2 3; do
		rm -f "$T/kiln.data" "$T/perf.data"
		t0=$(now)
		if ! /usr/bin/time -f "%U %S" -o "$T/all" $(cmd $n) >"$T/o" 2>"$T/e"; then
			echo "$(echo "$names" | cut -d'|' -f$n) failed: $(head -2 "$T/e" | tr '\n' ' ')" >&2
			exit 1
		fi
		t1=$(now)
		tr '_' ' ' <"$T/prog" | awk '{ print $1 }' >>"$T/prog$n"
		tr '_' ' ' <"$T/prog" | awk '{ print $2 + $3 }' >"$T/pcpu"
		cat "$T/pcpu" >>"$T/pcpu$n"
		awk -v p="$(cat "$T/pcpu")" '{ printf "%.2f\n", $1 + $2 - p }' "$T/all" >>"$T/rcpu$n"
		echo "$t1 - $t0" | bc >>"$T/cmd$n"
		case $n in
		2) f=$T/kiln.data ;;
		3) f=$T/perf.data ;;
		*) f= ;;
		esac
		if [ -n "$f" ]; then
			stat -c %s "$f" >>"$T/size$n"
			perf report --stats -i "$f" 2>/dev/null |
				awk '/SAMPLE events:/ { print $3; exit }' >>"$T/samples$n"
		fi
	done
	i=$((i + 1))
done
printf "%-42s %9s %9s %9s %9s %9s %9s %9s %9s\n" "" "compile" "overhead" "command" "file MB" "samples" "B/sample" "comp CPU" "rec CPU"
bare=$(median <"$T/prog1")
for n in 1 2 3; do
	p=$(median <"$T/prog$n")
	c=$(median <"$T/cmd$n")
	s=- k=- b=-
	if [ -s "$T/size$n" ]; then
		s=$(median <"$T/size$n" | awk '{ printf "%.1f", $1 / 1048576 }')
		paste "$T/size$n" "$T/samples$n" | awk '$2 > 0 { print $1 / $2 }' >"$T/per$n"
		k=$(median <"$T/samples$n")
		[ -s "$T/per$n" ] && b=$(median <"$T/per$n" | awk '{ printf "%.0f", $1 }')
	fi
	pc_=$(median <"$T/pcpu$n")
	rc_=$(median <"$T/rcpu$n")
	printf "%-42s %8.2fs %+8.2fs %8.2fs %9s %9s %9s %8.2fs %8.2fs\n" "$(echo "$names" | cut -d'|' -f$n)" \
		"$p" "$(echo "$p - $bare" | bc)" "$c" "$s" "$k" "$b" "$pc_" "$rc_"
done
kp=$(median <"$T/prog2") pp=$(median <"$T/prog3")
ks=$(median <"$T/size2") ps=$(median <"$T/size3")
kc=$(median <"$T/cmd2") pc=$(median <"$T/cmd3")
kb=$(median <"$T/per2") pb=$(median <"$T/per3")
kpc=$(median <"$T/pcpu2") ppc=$(median <"$T/pcpu3")
krc=$(median <"$T/rcpu2") prc=$(median <"$T/rcpu3")
echo "kiln/perf: compile time $(echo "scale=3; $kp / $pp" | bc), overhead $(echo "scale=3; ($kp - $bare) / ($pp - $bare)" | bc 2>/dev/null || echo -), command $(echo "scale=3; $kc / $pc" | bc), file $(echo "scale=3; $ks / $ps" | bc), bytes per sample $(echo "scale=3; $kb / $pb" | bc 2>/dev/null || echo -), compile CPU $(echo "scale=3; $kpc / $ppc" | bc 2>/dev/null || echo -), recorder CPU $(echo "scale=3; $krc / $prc" | bc 2>/dev/null || echo -)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
