#!/bin/sh
# The cost of tracing system calls: a loop of N getppid() calls (default
# 1,000,000) timed by the program itself (CLOCK_MONOTONIC around the loop),
# bare, under strace -f, perf trace, and kiln trace (BPF, and --no-bpf: the
# raw tracepoints), each writing its lines to /dev/null, plus kiln trace -s
# (summary only), and with the stack of each call (-g: frame pointers;
# --call-graph dwarf: 8 KiB stack copies unwound by kiln). KILN_BASE=path
# adds the BPF line for another kiln build in the same run (before and
# after a change). Prints each run's loop time, its slowdown against the
# bare loop, and kiln's lost-event warning if any. RUNS rounds (default 3),
# the median kept. Needs root (or CAP_BPF and CAP_PERFMON) for the BPF line.
# Usage: [KILN_BASE=path] bench/trace-overhead.sh [path/to/kiln] [N]
set -u
KILN=${1:-build/kiln}
N=${2:-1000000}
RUNS=${RUNS:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat >"$T/loop.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		getppid();
	clock_gettime(CLOCK_MONOTONIC, &b);
	FILE *f = fopen(argv[2], "w");
	fprintf(f, "%.6f\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	fclose(f);
	return 0;
}
C
cc -O2 -o "$T/loop" "$T/loop.c" || exit 1

# median of RUNS loop times for a command prefix ("" for bare)
measure() {
	name=$1
	shift
	: >"$T/times"
	: >"$T/$name.err"
	r=0
	while [ $r -lt "$RUNS" ]; do
		"$@" "$T/loop" "$N" "$T/t" >/dev/null 2>>"$T/$name.err" </dev/null
		cat "$T/t" >>"$T/times"
		r=$((r + 1))
	done
	sort -n "$T/times" | awk -v m=$(((RUNS + 1) / 2)) 'NR == m'
}

bare=$(measure bare env)
printf '%-28s %10s %9s\n' "" "loop (s)" "slowdown"
printf '%-28s %10.3f %9s\n' "bare" "$bare" "1.0x"
row() {
	name=$1
	shift
	if ! command -v "$1" >/dev/null 2>&1 && [ ! -x "$1" ]; then
		printf '%-28s %10s\n' "$name" "(not installed)"
		return
	fi
	t=$(measure "$name" "$@")
	if [ -z "$t" ]; then
		printf '%-28s %10s  %s\n' "$name" "failed" "$(head -1 "$T/$name.err")"
		return
	fi
	printf '%-28s %10.3f %8.1fx' "$name" "$t" "$(echo "$t / $bare" | bc -l)"
	lost=$(grep -h 'lost\|LOST' "$T/$name.err" | head -1)
	[ -n "$lost" ] && printf '  (%s)' "$lost"
	printf '\n'
}
row "strace -f" strace -f -o /dev/null
row "perf trace" perf trace -o /dev/null --
row "kiln trace (BPF)" "$KILN" trace -o /dev/null --
row "kiln trace --no-bpf" "$KILN" trace --no-bpf -o /dev/null --
row "kiln trace -s (BPF)" "$KILN" trace -s -o /dev/null --
[ -n "${KILN_BASE:-}" ] && row "base: kiln trace (BPF)" "$KILN_BASE" trace -o /dev/null --
row "kiln trace -g (BPF)" "$KILN" trace -g -o /dev/null --
row "kiln trace --call-graph dwarf" "$KILN" trace --call-graph dwarf -o /dev/null --
