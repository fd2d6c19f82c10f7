#!/bin/sh
# kiln stat's cost against perf stat's: the wall time of a command run bare,
# under `perf stat` and under `kiln stat` (the same -e), side by side in
# interleaved rounds; medians, the overhead of each tool over the bare run
# and the ratio of the two overheads (goal: kiln's ≤ perf's, ratio ≤ 1).
# Workloads: `true` (start-up cost alone), a CPU-bound awk loop (0.3 s),
# a fork/exec loop (200 /bin/true: counters inherited by every child);
# events: the default set, and `sched:*` (26 tracepoints; needs root or
# kernel.perf_event_paranoid = -1).
# Usage: stat-overhead.sh [ROUNDS]   (default 15; KILN=path/to/kiln to override)
set -e
here=$(cd "$(dirname "$0")" && pwd)
kiln=${KILN:-$here/../build/kiln}
rounds=${1:-15}
command -v perf >/dev/null || { echo "perf is not installed" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

ns() { date +%s%N; }
# time_one FILE CMD...: append the wall time (ms) of CMD to FILE
time_one() {
	f=$1
	shift
	t0=$(ns)
	"$@" >/dev/null 2>&1 || true
	t1=$(ns)
	echo "$(((t1 - t0) / 1000)) " | awk '{printf "%.3f\n", $1 / 1000}' >>"$f"
}
median() { sort -n "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

bench() { # NAME EVENTS CMD...
	name=$1 ev=$2
	shift 2
	evarg=
	[ -n "$ev" ] && evarg="-e $ev"
	rm -f "$out"/bare "$out"/perf "$out"/kiln
	i=0
	while [ $i -lt "$rounds" ]; do
		time_one "$out/bare" "$@"
		# shellcheck disable=SC2086
		time_one "$out/perf" perf stat $evarg -- "$@"
		# shellcheck disable=SC2086
		time_one "$out/kiln" "$kiln" stat $evarg -- "$@"
		i=$((i + 1))
	done
	b=$(median "$out/bare")
	p=$(median "$out/perf")
	k=$(median "$out/kiln")
	awk -v n="$name" -v e="${ev:-default}" -v b="$b" -v p="$p" -v k="$k" 'BEGIN {
		po = p - b; ko = k - b
		printf "| %s | %s | %.2f | %.2f | %.2f | %+.2f | %+.2f | %s |\n", n, e, b, p, k, po, ko,
			(po > 0.05) ? sprintf("%.2f", ko / po) : "-"
	}'
}

echo "rounds: $rounds (medians, ms)"
echo
echo "| workload | events | bare | perf stat | kiln stat | perf overhead | kiln overhead | kiln/perf overhead |"
echo "|---|---|---|---|---|---|---|---|"
bench true "" true
bench cpu-loop "" awk 'BEGIN { for (i = 0; i < 3000000; i++) s += i }'
bench fork-exec "" sh -c 'i=0; while [ $i -lt 200 ]; do /bin/true; i=$((i+1)); done'
if "$kiln" stat -e sched:sched_switch -- true 2>/dev/null; then
	bench true 'sched:*' true
	bench fork-exec 'sched:*' sh -c 'i=0; while [ $i -lt 200 ]; do /bin/true; i=$((i+1)); done'
fi
