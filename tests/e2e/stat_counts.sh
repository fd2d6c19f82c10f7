#!/bin/sh
# kiln stat's counts: a program doing a known number of write(2) calls,
# page touches and forks. Its syscalls:sys_enter_write and
# sched:sched_process_fork counts (the command and its children: inherit)
# equal the known numbers exactly; its page-faults equal perf stat's within
# run-to-run noise; -e 'sched:*' and 'syscalls:sys_enter_*' open the events
# perf opens, in its order; the command's exit status is kiln's.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v cc >/dev/null || skip "no C compiler"
cat >"$T/known.c" <<'EOF'
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int writes = atoi(argv[1]), pages = atoi(argv[2]), forks = atoi(argv[3]);
	int fd = open("/dev/null", O_WRONLY);
	for (int i = 0; i < writes; i++)
		if (write(fd, "x", 1) != 1)
			return 1;
	long ps = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, (size_t)pages * ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	for (int i = 0; i < pages; i++)
		m[(long)i * ps] = 1;
	for (int i = 0; i < forks; i++) {
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		waitpid(p, NULL, 0);
	}
	return argc > 4 ? atoi(argv[4]) : 0;
}
EOF
cc -O1 -o "$T/known" "$T/known.c" || fail "cannot compile"

# Tracepoints need tracefs and kernel.perf_event_paranoid <= -1 (or root).
"$KILN" stat -x, -e sched:sched_process_fork -- true 2>"$T/probe" ||
	skip "tracepoints cannot be counted here: $(head -1 "$T/probe")"

# 1. Exact counts, CSV.
"$KILN" stat -x, -e syscalls:sys_enter_write,sched:sched_process_fork -- "$T/known" 37 500 5 \
	2>"$T/c.csv" || fail "stat failed: $(cat "$T/c.csv")"
w=$(awk -F, '$3 == "syscalls:sys_enter_write" {print $1}' "$T/c.csv")
f=$(awk -F, '$3 == "sched:sched_process_fork" {print $1}' "$T/c.csv")
[ "$w" = 37 ] || fail "sys_enter_write: '$w', want 37 ($(cat "$T/c.csv"))"
[ "$f" = 5 ] || fail "sched_process_fork: '$f', want 5"

# 2. The exit status is the command's.
"$KILN" stat -e page-faults -- "$T/known" 1 1 0 7 2>/dev/null
st=$?
[ $st = 7 ] || fail "exit status $st, want the command's 7"
"$KILN" stat -e page-faults -- "$T/no-such-command" 2>"$T/err"
st=$?
[ $st = 127 ] || fail "a missing command: exit $st, want 127"
grep -q "cannot run" "$T/err" || fail "a missing command: $(cat "$T/err")"

# 3. Page faults against perf stat's: the touched pages plus the loader's.
k=$("$KILN" stat -x, -e page-faults -- "$T/known" 1 2000 0 2>&1 >/dev/null | awk -F, '{print $1}')
[ "$k" -ge 2000 ] || fail "page-faults $k for 2000 touched pages"
if command -v perf >/dev/null && perf stat -x, -e page-faults -- "$T/known" 1 2000 0 2>"$T/p.csv" >/dev/null; then
	p=$(awk -F, '$3 == "page-faults" {print $1}' "$T/p.csv")
	if [ -n "$p" ] && [ "$p" -gt 0 ] 2>/dev/null; then
		d=$((k > p ? k - p : p - k))
		[ $((d * 10)) -le "$p" ] || fail "page-faults: kiln $k, perf $p (over 10% apart)"
	fi
fi

# 4. Globs open the events perf opens, in perf's order; an unknown name is
#    a usage error naming a close one.
for glob in 'sched:*' 'syscalls:sys_enter_*'; do
	"$KILN" stat -x, -e "$glob" -- true 2>"$T/k.csv" || fail "$glob: $(head -1 "$T/k.csv")"
	cut -d, -f3 "$T/k.csv" >"$T/k.names"
	[ "$(wc -l <"$T/k.names")" -gt 5 ] || fail "$glob: only $(wc -l <"$T/k.names") events"
	if command -v perf >/dev/null && perf stat -x, -e "$glob" -- true 2>"$T/p.csv" >/dev/null; then
		cut -d, -f3 "$T/p.csv" >"$T/p.names"
		cmp -s "$T/k.names" "$T/p.names" ||
			fail "$glob: event sets differ: $(diff "$T/k.names" "$T/p.names" | head -5)"
	fi
done
# One fd per event and CPU: a low soft limit on open files is raised.
if "$KILN" stat -a -e sched:sched_switch -- true 2>/dev/null; then
	(ulimit -S -n 20 && "$KILN" stat -a -x, -e 'sched:*' -- true) 2>"$T/lim.csv" ||
		fail "-a 'sched:*' with 20 open files allowed: $(head -2 "$T/lim.csv")"
fi
"$KILN" stat -e sched:sched_swich -- true 2>"$T/err"
st=$?
[ $st = 2 ] || fail "unknown event: exit $st, want 2"
grep -q "did you mean 'sched:sched_switch'" "$T/err" || fail "no close name: $(cat "$T/err")"
"$KILN" stat -e page-fault -- true 2>"$T/err"
grep -q "did you mean 'page-faults'" "$T/err" || fail "no close name: $(cat "$T/err")"
echo "ok: writes $w, forks $f, page-faults $k"
