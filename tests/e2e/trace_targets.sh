#!/bin/sh
# kiln trace's targets beside a command: -p on a running program (its
# calls under its pid and no other; tracing ends by itself when it exits,
# status 0; on SIGINT kiln ends, status 130, and the program runs on), a
# pid that is gone (one error line, status 1), and -a (the calls of two
# different programs, each under its own pid); two tracers at once (the
# BPF program's return lets the raw tracepoints of another tracer see
# the calls).
. "$(dirname "$0")/lib.sh"
"$KILN" trace -o "$T/probe.txt" -- true 2>"$T/probe.err" ||
	skip "cannot trace here: $(head -1 "$T/probe.err")"
cat >"$T/loop.c" <<'PROG'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	/* argv[1] writes of argv[2] bytes to /dev/null, 50 ms apart; with
	 * argv[3], only once that file exists (then it ends) */
	static char b[65536];
	int n = atoi(argv[1]), size = atoi(argv[2]);
	int fd = open("/dev/null", O_WRONLY);
	for (int i = 0; i < n; i++) {
		if (argc > 3 && access(argv[3], F_OK) != 0)
			i = 0;
		if (write(fd, b, (size_t)size) != size)
			return 1;
		usleep(50000);
	}
	return 0;
}
PROG
cc -O1 -o "$T/loop" "$T/loop.c" || fail "cannot build the test program"
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$T"' EXIT
# Wait (up to 60 s: -a under ASan on a busy machine formats a lot) for
# kiln ($1) to end; fail if it does not.
wait_end() {
	i=0
	while [ $i -lt 600 ] && kill -0 "$1" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
	kill -0 "$1" 2>/dev/null && { kill -9 "$1"; fail "$2: kiln trace still runs after 60 s"; }
	wait "$1"
}
writes() { # file pid size: lines of that pid's writes of that size
	grep -cE "^ +[0-9]+\\.[0-9]{3} \\( *[0-9]+\\.[0-9]{3} ms\\): loop/$2 write\\(fd: [0-9]+</dev/null>, buf: 0x[0-9a-f]+, count: $3\\) += $3\$" "$1"
}

# Start the loop ($1 writes of $2 bytes, counted once $T/go exists) as
# $p, then kiln trace -p $p -e write into $T/$3.out as $k.
trace_loop() {
	rm -f "$T/go"
	"$T/loop" "$1" "$2" "$T/go" &
	p=$!
	pids="$pids $p"
	sleep 0.2
	"$KILN" trace -p $p -e write -o "$T/$3.out" 2>"$T/$3.err" &
	k=$!
	wait_trace_ready $k
	: >"$T/go"
}

# -p until the program exits: 10 writes once tracing runs.
trace_loop 10 1234 exit
wait_end $k "-p, the program exited"
rc=$?
[ $rc = 0 ] || fail "-p: status $rc when the program ended, not 0: $(cat "$T/exit.err")"
n=$(writes "$T/exit.out" $p 1234)
[ "$n" -ge 1 ] || fail "-p: no write of $p: $(head -5 "$T/exit.out") $(cat "$T/exit.err")"
grep -vE "^ +[0-9.]+ \\([ 0-9.]+ms\\): loop/$p " "$T/exit.out" | grep . &&
	fail "-p: lines of other tasks than $p"

# -p and SIGINT: kiln ends, the program runs on.
trace_loop 400 2345 int
sleep 1
kill -INT $k
wait_end $k "-p, SIGINT"
rc=$?
[ $rc = 130 ] || fail "-p: status $rc after SIGINT, not 130: $(cat "$T/int.err")"
kill -0 $p 2>/dev/null || fail "-p: the traced program did not survive kiln's end"
[ "$(writes "$T/int.out" $p 2345)" -ge 1 ] || fail "-p, SIGINT: no write of $p: $(head -3 "$T/int.out")"

# A pid that is gone.
true &
gone=$!
wait $gone
"$KILN" trace -p $gone -o "$T/gone.out" 2>"$T/gone.err"
rc=$?
[ $rc = 1 ] || fail "-p of a gone pid: status $rc, not 1"
[ "$(wc -l <"$T/gone.err")" = 1 ] && grep -q "no such process: $gone" "$T/gone.err" ||
	fail "-p of a gone pid: $(cat "$T/gone.err")"

# -a: two programs, each under its own pid.
"$T/loop" 400 3456 &
a=$!
"$T/loop" 400 4567 &
b=$!
pids="$pids $a $b"
sleep 0.2
"$KILN" trace -a -e write -o "$T/all.out" 2>"$T/all.err" &
k=$!
wait_trace_ready $k
sleep 1
kill -INT $k
wait_end $k "-a"
[ "$(writes "$T/all.out" $a 3456)" -ge 1 ] || fail "-a: no write of $a: $(grep loop "$T/all.out" | head -3) $(cat "$T/all.err")"
[ "$(writes "$T/all.out" $b 4567)" -ge 1 ] || fail "-a: no write of $b: $(grep loop "$T/all.out" | head -3)"
grep -qE "loop/$a write\\(.*count: 4567\\)" "$T/all.out" && fail "-a: one program's call under the other's pid"

# Two tracers at once: kiln trace with the BPF program on one program,
# kiln trace --no-bpf (perf events on the same tracepoints) on another.
"$KILN" trace -e write -o "$T/one.out" -- "$T/loop" 60 5678 2>"$T/one.err" &
k=$!
wait_trace_ready $k
if grep -q 'string arguments are shown as pointers' "$T/one.err"; then
	echo "note: BPF not usable here: two tracers not checked"
else
	"$KILN" trace --no-bpf -e write -o "$T/two.out" -- "$T/loop" 3 6789 2>"$T/two.err" ||
		fail "--no-bpf beside BPF: $(cat "$T/two.err")"
	[ "$(grep -cE 'count: 6789\) += 6789$' "$T/two.out")" = 3 ] ||
		fail "--no-bpf beside a BPF trace saw $(grep -c 'count: 6789' "$T/two.out") of 3 writes"
fi
wait_end $k "the BPF trace"
[ "$(grep -cE 'count: 5678\) += 5678$' "$T/one.out")" = 60 ] ||
	fail "the BPF trace saw $(grep -c 'count: 5678' "$T/one.out") of 60 writes"
exit 0
