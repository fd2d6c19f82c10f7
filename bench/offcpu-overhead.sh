#!/bin/sh
# Off-CPU recording cost on a program that switches ~100k times a second
# (bench/pingpong.c: two threads ping-ponging a byte over pipes): the
# program's own run time bare, under `kiln record --off-cpu=bpf` (in-kernel
# sums; kernel and user stacks, and with --user-callchains the user stack
# only) and `--off-cpu=sched` (every switch a record), under `perf record
# --off-cpu` (perf's BPF method; a perf built without BPF skeletons refuses
# it: reported as such), under `perf record -e sched:sched_switch -g`
# (perf's records of every switch) and under bcc's offcputime (Debian's
# bpfcc-tools, when installed and it runs on this kernel), each the median
# of RUNS runs taken in turns. Also the whole command's time (setup and
# writing the file included) and the file size. Needs root.
# Usage: offcpu-overhead.sh [KILN] [ROUNDS] [RUNS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
kiln=${1:-$here/../build/kiln}
rounds=${2:-150000}
runs=${3:-5}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -O2 -pthread -o "$T/pingpong" "$here/pingpong.c" || exit 1

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
now() { date +%s.%N; }

names="bare|kiln record --off-cpu=bpf|kiln record --off-cpu=sched|kiln record (no --off-cpu)|perf record --off-cpu|perf record -e sched:sched_switch -g|perf record (no --off-cpu)|bcc offcputime (-p, folded)|kiln --off-cpu=bpf --user-callchains|kiln --off-cpu=sched --user-callchains"
bcc=$(command -v offcputime-bpfcc || command -v offcputime || echo offcputime-bpfcc)
# cmd N: the N-th configuration's command line
cmd() {
	p="$T/pingpong $rounds"
	case $1 in
	1) echo "$p" ;;
	2) echo "$kiln record -q --off-cpu=bpf -o $T/out2.data -- $p" ;;
	3) echo "$kiln record -q --off-cpu=sched -o $T/out3.data -- $p" ;;
	4) echo "$kiln record -q -o $T/out4.data -- $p" ;;
	5) echo "perf record -q --off-cpu -o $T/out5.data -- $p" ;;
	6) echo "perf record -q -e sched:sched_switch -g -o $T/out6.data -- $p" ;;
	7) echo "perf record -q -o $T/out7.data -- $p" ;;
	8) echo "bcc" ;;
	9) echo "$kiln record -q --off-cpu=bpf --user-callchains -o $T/out9.data -- $p" ;;
	10) echo "$kiln record -q --off-cpu=sched --user-callchains -o $T/out10.data -- $p" ;;
	esac
}
# bcc's offcputime follows a pid, not a command: start it on the program
# (held on a FIFO until offcputime has attached), stop it when the program
# is done. Its output (folded stacks) is the file.
run_bcc() {
	rm -f "$T/go"
	mkfifo "$T/go"
	sh -c 'read x <"$1"; exec "$2" "$3"' sh "$T/go" "$T/pingpong" "$rounds" >"$T/o" &
	pp=$!
	"$bcc" -f -p "$pp" >"$T/out8.data" 2>"$T/e8" &
	bp=$!
	# offcputime prints nothing until it stops; give it time to attach.
	sleep 3
	if ! kill -0 "$bp" 2>/dev/null; then
		echo x >"$T/go"
		wait "$pp"
		cat "$T/e8" >&2
		return 1
	fi
	echo x >"$T/go"
	wait "$pp"
	kill -INT "$bp"
	wait "$bp"
}
# The configurations take turns, so a load that comes and goes on the
# machine weighs on all of them alike.
i=0
while [ $i -lt "$runs" ]; do
	for n in 1 2 9 3 10 4 5 6 7 8; do
		[ -e "$T/failed$n" ] && continue
		t0=$(now)
		if [ $n = 8 ]; then
			if ! run_bcc 2>"$T/e"; then
				grep -E 'Unable|rror|Exception' "$T/e" | head -2 | tr '\n' ' ' >"$T/failed$n"
				[ -s "$T/failed$n" ] || echo "$bcc: did not run" >"$T/failed$n"
				continue
			fi
		elif ! $(cmd $n) >"$T/o" 2>"$T/e"; then
			grep -v '^$' "$T/e" | head -2 | tr '\n' ' ' >"$T/failed$n"
			continue
		fi
		t1=$(now)
		awk '/rounds\/s/ { print $1 }' "$T/o" >>"$T/prog$n"
		echo "$t1 - $t0" | bc >>"$T/cmd$n"
		awk '/rounds\/s/ { print $5 }' "$T/o" >>"$T/sw$n"
		grep -h 'lost' "$T/e" >>"$T/lost$n"
	done
	i=$((i + 1))
done
printf "%-40s %10s %9s %10s %9s %9s\n" "" "program" "overhead" "command" "file" "switch/s"
bare=$(median <"$T/prog1")
for n in 1 2 9 3 10 4 5 6 7 8; do
	name=$(echo "$names" | cut -d'|' -f$n)
	if [ -e "$T/failed$n" ]; then
		printf "%-40s failed: %s\n" "$name" "$(cat "$T/failed$n")"
		continue
	fi
	p=$(median <"$T/prog$n")
	c=$(median <"$T/cmd$n")
	sw=$(median <"$T/sw$n")
	size=$(stat -c %s "$T/out$n.data" 2>/dev/null || echo 0)
	awk -v n="$name" -v p="$p" -v c="$c" -v b="$bare" -v s="$size" -v sw="$sw" 'BEGIN {
		printf "%-40s %8.3f s %+8.1f%% %8.3f s %6.1f MB %9.0f\n", n, p, (p - b) / b * 100, c,
		       s / 1048576, sw }'
	[ $n = 8 ] && echo "    (command time includes a 3 s wait for offcputime to attach)"
	if [ $n = 5 ] && ! perf evlist -i "$T/out5.data" 2>/dev/null | grep -q offcpu-time; then
		echo "    (this perf accepted --off-cpu but wrote no offcpu-time event: built without BPF skeletons)"
	fi
	[ -s "$T/lost$n" ] && sed 's/^/    /' "$T/lost$n" | sort | uniq -c | head -3
done
# The BPF program's own time per run (kernel.bpf_stats_enabled: the kernel
# times each run), which the load of the machine does not blur as much.
# Each followed switch-out runs it twice: at the switch-out (stacks taken)
# and at the switch-in (the interval added to its sum); the runs for other
# threads return at once.
bpftool=$(command -v bpftool || echo /usr/sbin/bpftool)
if [ -x "$bpftool" ] && [ -w /proc/sys/kernel/bpf_stats_enabled ]; then
	old=$(cat /proc/sys/kernel/bpf_stats_enabled)
	echo 1 >/proc/sys/kernel/bpf_stats_enabled
	for n in 2 9; do
		[ -e "$T/failed$n" ] && continue
		i=0
		while [ $i -lt "$runs" ]; do
			$(cmd $n) >/dev/null 2>&1 &
			kp=$!
			sleep 1
			"$bpftool" prog show 2>/dev/null | awk '/ name on_switch / {
				for (i = 1; i < NF; i++) { if ($i == "run_time_ns") t = $(i + 1); if ($i == "run_cnt") c = $(i + 1) }
				if (c) print t / c }' >>"$T/ns$n"
			wait $kp
			i=$((i + 1))
		done
		[ -s "$T/ns$n" ] && printf "%s: its BPF program %.0f ns per run (median of %d first seconds)\n" \
			"$(echo "$names" | cut -d'|' -f$n)" "$(median <"$T/ns$n")" "$(wc -l <"$T/ns$n")"
	done
	echo "$old" >/proc/sys/kernel/bpf_stats_enabled
fi
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) on $(nproc) CPUs"
exit 0
