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
#  2. Memory: the same command for MEM_SECS seconds (default 60) while a
#     loop starts and ends about a hundred short processes a second;
#     VmRSS of each tool at 10 s and at the end.
# Usage: top-overhead.sh [SECS [MEM_SECS]]
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

# Memory over a run with processes starting and exiting.
churn() {
	end=$(($(date +%s) + $1))
	while [ "$(date +%s)" -lt "$end" ]; do
		for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; sh -c 'exit 0'; done
		sleep 0.05
	done
}
churn $((mem_secs + 2)) &
c=$!
set -- $(run kilnm "$mem_secs" "$kiln" top $cmd); km10=$2 kmend=$3
wait $c
churn $((mem_secs + 2)) &
c=$!
set -- $(run perfm "$mem_secs" perf top $cmd); pm10=$2 pmend=$3
wait $c
echo "RSS with ~100 short processes a second, $mem_secs s: at 10 s and at the end"
echo "  kiln top: $((km10 / 1024)) MB -> $((kmend / 1024)) MB"
echo "  perf top: $((pm10 / 1024)) MB -> $((pmend / 1024)) MB"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
