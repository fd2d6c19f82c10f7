#!/bin/sh
# kiln trace --call-graph: a program opens a missing path from a known
# chain (main -> outer_fn -> middle_fn -> leaf_open); the chain is printed
# under that openat's line, indented as perf trace prints callchains: with
# fp on a frame-pointer build (the syscall made in leaf_open itself), with
# dwarf on a -fomit-frame-pointer build (through libc's open); the frames
# equal perf trace's own where perf trace works here; -p on a running
# process (its mappings synthesized from /proc); lines without -g have no
# frames under them.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip "the test program makes an x86_64 system call"
"$KILN" trace -g -o "$T/probe.txt" -- true 2>"$T/probe.err" ||
	skip "cannot trace call graphs here: $(head -1 "$T/probe.err")"
cat >"$T/cg.c" <<'PROG'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef RAW
__attribute__((noinline)) long leaf_open(const char *p)
{
	long r;
	register long r10 __asm__("r10") = 0;
	__asm__ volatile("syscall" : "=a"(r) : "0"(257L), "D"(-100L), "S"(p), "d"(0L), "r"(r10)
			 : "rcx", "r11", "memory");
	return r;
}
#else
__attribute__((noinline)) long leaf_open(const char *p)
{
	long fd = open(p, O_RDONLY);
	__asm__ volatile("");
	return fd;
}
#endif
__attribute__((noinline)) long middle_fn(const char *p)
{
	long r = leaf_open(p);
	__asm__ volatile("");
	return r + 1;
}
__attribute__((noinline)) long outer_fn(const char *p)
{
	long r = middle_fn(p);
	__asm__ volatile("");
	return r + 1;
}
int main(int argc, char **argv)
{
	/* argv[1]: rounds, 0.1 s apart (for -p) */
	int n = argc > 1 ? atoi(argv[1]) : 1;
	for (int i = 0; i < n; i++) {
		if (outer_fn("/nonexistent-kiln-cg/x") > 100)
			return 1;
		if (n > 1)
			usleep(100000);
	}
	return 0;
}
PROG
cc -O0 -DRAW -fno-omit-frame-pointer -o "$T/fp" "$T/cg.c" || fail "cannot build the fp program"
cc -O2 -g -fomit-frame-pointer -o "$T/nofp" "$T/cg.c" || fail "cannot build the no-fp program"

# The frames under the last openat that failed with ENOENT in $1 (the
# program's own, made after the loader's; perf trace prints its path as
# a pointer).
frames() {
	awk '/ openat\(.*= -1 ENOENT/ { on = 1; n = 0; delete f; next }
	     on && /^                                       [^ ]/ { f[n++] = $0; next }
	     { if (on) { m = n; for (i = 0; i < n; i++) g[i] = f[i] } on = 0 }
	     END { if (on) { m = n; for (i = 0; i < n; i++) g[i] = f[i] }
		   for (i = 0; i < m; i++) print g[i] }' "$1"
}
expect_chain() { # file, what
	frames "$1" >"$1.frames"
	[ -s "$1.frames" ] || fail "$2: no frames under the openat line: $(head -c 2000 "$1")"
	for f in leaf_open middle_fn outer_fn main; do
		grep -qxE " {39}$f \\([^)]*/(fp|nofp)\\)" "$1.frames" ||
			fail "$2: no frame '$f (program)' under the call: $(cat "$1.frames")"
	done
	# leaf first, in call order
	order=$(grep -oE '^ +(leaf_open|middle_fn|outer_fn|main) ' "$1.frames" | tr -d ' ' | tr '\n' ' ')
	[ "$order" = "leaf_open middle_fn outer_fn main " ] || fail "$2: frames out of order: $order"
}

"$KILN" trace --call-graph fp -e openat -o "$T/fp.out" -- "$T/fp" 2>"$T/fp.err" ||
	fail "--call-graph fp failed: $(cat "$T/fp.err")"
expect_chain "$T/fp.out" "fp"
[ "$(head -1 "$T/fp.out.frames")" = "$(printf '%39s' '')leaf_open ($T/fp)" ] ||
	fail "fp: the leaf frame is not the caller of the syscall: $(head -1 "$T/fp.out.frames")"

"$KILN" trace --call-graph dwarf -e openat -o "$T/dw.out" -- "$T/nofp" 2>"$T/dw.err" ||
	fail "--call-graph dwarf failed: $(cat "$T/dw.err")"
expect_chain "$T/dw.out" "dwarf, no frame pointers"

# Without -g: no frames.
"$KILN" trace -e openat -o "$T/plain.out" -- "$T/nofp" 2>/dev/null
frames "$T/plain.out" | grep . && fail "frames printed without --call-graph"

# perf trace's own frames for the same call, where perf trace works.
if command -v perf >/dev/null; then
	mountpoint -q /sys/kernel/tracing 2>/dev/null || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	for m in fp dwarf; do
		prog=$T/fp
		[ $m = dwarf ] && prog=$T/nofp
		if perf trace --call-graph $m -e openat -o "$T/perf.$m" -- "$prog" 2>"$T/perf.$m.err" &&
			[ -n "$(frames "$T/perf.$m")" ]; then
			frames "$T/perf.$m" >"$T/perf.$m.frames"
			out=$T/fp.out
			[ $m = dwarf ] && out=$T/dw.out
			cmp -s "$T/perf.$m.frames" "$out.frames" ||
				fail "$m: frames differ from perf trace's: $(diff "$T/perf.$m.frames" "$out.frames")"
		else
			echo "note: perf trace --call-graph $m gave no frames here: $(head -1 "$T/perf.$m.err")"
		fi
	done
fi

# -p: a running process, its mappings read from /proc.
"$T/nofp" 100 &
pid=$!
busy=$pid
sleep 0.3
"$KILN" trace -p $pid --call-graph dwarf -e openat -o "$T/pid.out" 2>"$T/pid.err" &
k=$!
wait_trace_ready $k
sleep 1
kill -INT $k
wait $k
grep -qE "/$pid openat\\(" "$T/pid.out" || fail "-p: no openat of $pid: $(head -5 "$T/pid.out") $(cat "$T/pid.err")"
expect_chain "$T/pid.out" "-p, dwarf"
exit 0
