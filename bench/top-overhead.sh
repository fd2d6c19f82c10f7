#!/bin/sh
# kiln top's own cost next to perf top's, at the same settings, side by
# side in one run:
#  1. CPU: `top -a -F 999 --stdio -d 1` for SECS seconds (default 30) on a
#     busy machine (two `burn` workloads besides whatever runs), each
#     tool on a pseudo-terminal of its own (script(1): perf top wants
#     one), one after the other, then again in the other order; the CPU
#     time of the tool's process (all its threads: utime + stime from
#     /proc/PID/stat) per second of the run, and the ratio kiln/perf
#     (goal <= 0.5).
#  2. Memory: the same command, both tools at once for MEM_SECS seconds
#     (default 60), while a loop starts and ends about a hundred short
#     processes a second and a new binary (a copy of burn at a new path,
#     removed 20 copies later) every ~0.15 s; VmRSS of each tool at 10 s,
#     60 s, 300 s and the end, and its CPU per second over the run.
# Usage: top-overhead.sh [SECS [MEM_SECS]]  (SECS 0: memory only)
set -e
here=$(cd "$(dirname "$0")" && pwd)
kiln=${KILN:-$here/../build/kiln}
burn=${BURN:-$here/../build/examples/burn}
secs=${1:-30}
mem_secs=${2:-60}
out=$(mktemp -d)
trap 'kill $b1 $b2 2>/dev/null; rm -rf "$out"' EXIT
"$burn" $((secs * 4 + mem_secs * 2 + 60)) >/dev/null &
b1=$!
"$burn" $((secs * 4 + mem_secs * 2 + 60)) >/dev/null &
b2=$!

# run NAME SECS CMD...: the tool on a pty for SECS s; prints "CPU_S RSS10_KB RSSEND_KB"
run() {
	name=$1 dur=$2
	shift 2
	(sleep $((dur + 5)) | script -qfc "sh -c 'echo \$\$ >$out/$name.pid; exec $*'" /dev/null \
		>"$out/$name.out" 2>&1) &
	sleep 1
	pid=$(cat "$out/$name.pid")
	t0=$(date +%s)
	sleep 9
	rss10=$(awk '/^VmRSS:/ { print $2 }' /proc/"$pid"/status)
	sleep $((dur - 9))
	rssend=$(awk '/^VmRSS:/ { print $2 }' /proc/"$pid"/status)
	ticks=$(awk '{ print $14 + $15 }' /proc/"$pid"/stat)
	t1=$(date +%s)
	kill -INT "$pid" 2>/dev/null || true
	sleep 2
	kill -KILL "$pid" 2>/dev/null || true
	wait
	hz=$(getconf CLK_TCK)
	echo "$ticks $hz $((t1 - t0 + 1)) $rss10 $rssend" | awk '{ printf "%.3f %d %d\n", $1 / $2 / $3, $4, $5 }'
}
cmd="-a -F 999 --stdio -d 1"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$secs" -gt 0 ]; then
set -- $(run kiln1 "$secs" "$kiln" top $cmd); k1=$1
set -- $(run perf1 "$secs" perf top $cmd); p1=$1
set -- $(run perf2 "$secs" perf top $cmd); p2=$1
set -- $(run kiln2 "$secs" "$kiln" top $cmd); k2=$1
echo "load after CPU runs: $(cut -d' ' -f1-3 /proc/loadavg)"
grep -a -c 'PerfTop:' "$out/kiln1.out" >/dev/null || echo "warning: kiln printed no table"
grep -a -c 'PerfTop:' "$out/perf1.out" >/dev/null || echo "warning: perf printed no table"
echo "CPU per second of the run (top $cmd, $secs s each, two rounds):"
echo "  kiln top: $k1 $k2"
echo "  perf top: $p1 $p2"
awk -v a="$k1" -v b="$k2" -v c="$p1" -v d="$p2" 'BEGIN {
	k = (a + b) / 2; p = (c + d) / 2
	printf "  mean kiln %.3f, perf %.3f CPU-s/s; ratio kiln/perf %.2f (goal <= 0.5)\n", k, p, (p > 0 ? k / p : 0) }'
fi

# Memory over a run with processes starting and exiting: both tools at
# once, side by side, while the loop runs; RSS at 10 s, 60 s, 300 s and
# the end.
churn() {
	end=$(($(date +%s) + $1))
	n=0
	while [ "$(date +%s)" -lt "$end" ]; do
		for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; sh -c 'exit 0'; done
		# a new binary each time (a copy at a new path), as a build makes them
		n=$((n + 1))
		cp "$burn" "$out/bin.$n"
		"$out/bin.$n" 0.05 >/dev/null 2>&1
		rm -f "$out/bin.$((n - 20))"
	done
}
rss() { awk '/^VmRSS:/ { print int($2 / 1024) }' /proc/"$1"/status 2>/dev/null; }
# start NAME CMD...: the tool on a pty for mem_secs s; its pid in $out/NAME.pid
start() {
	name=$1
	shift
	(sleep $((mem_secs + 5)) | script -qfc "sh -c 'echo \$\$ >$out/$name.pid; exec $*'" /dev/null \
		>"$out/$name.out" 2>&1) &
}
churn $((mem_secs + 2)) &
c=$!
start kilnm "$kiln" top $cmd
start perfm perf top $cmd
sleep 1
kp=$(cat "$out/kilnm.pid")
pp=$(cat "$out/perfm.pid")
t0=$(date +%s)
kt0=$(awk '{ print $14 + $15 }' /proc/"$kp"/stat)
pt0=$(awk '{ print $14 + $15 }' /proc/"$pp"/stat)
k_at="" p_at=""
for at in 10 60 300 "$mem_secs"; do
	[ "$at" -le "$mem_secs" ] || continue
	sleep $((t0 + at - $(date +%s)))
	k_at="$k_at $at s: $(rss "$kp") MB;"
	p_at="$p_at $at s: $(rss "$pp") MB;"
done
kt1=$(awk '{ print $14 + $15 }' /proc/"$kp"/stat)
pt1=$(awk '{ print $14 + $15 }' /proc/"$pp"/stat)
kill -INT "$kp" "$pp" 2>/dev/null || true
sleep 2
kill -KILL "$kp" "$pp" 2>/dev/null || true
wait $c
hz=$(getconf CLK_TCK)
echo "RSS side by side, a new binary and ~100 short processes a second, $mem_secs s:"
echo "  kiln top:$k_at CPU $(echo "$kt0 $kt1 $hz $mem_secs" | awk '{ printf "%.3f", ($2 - $1) / $3 / $4 }') s/s"
echo "  perf top:$p_at CPU $(echo "$pt0 $pt1 $hz $mem_secs" | awk '{ printf "%.3f", ($2 - $1) / $3 / $4 }') s/s"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
