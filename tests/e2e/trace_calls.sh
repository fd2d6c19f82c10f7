#!/bin/sh
# kiln trace on a program with known calls: a path that does not exist
# (ENOENT), four writes of known sizes to a pipe, a child that execs; its
# exit status passed on; -s counts equal strace -c -f's for the calls the
# program makes deterministically; --failure, -e, -c. Paths are checked
# where the BPF program runs (strings read at entry), pointers and the
# one fallback message where it does not; --no-bpf checks the raw
# tracepoints either way.
. "$(dirname "$0")/lib.sh"
"$KILN" trace -o "$T/probe.txt" -- true 2>"$T/probe.err" ||
	skip "cannot trace here: $(head -1 "$T/probe.err")"
TRUE=
for t in /usr/bin/true /bin/true; do [ -x "$t" ] && TRUE=$t && break; done
[ -n "$TRUE" ] || skip "no true binary"
cat >"$T/prog.c" <<'PROG'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	static char b[64];
	int p[2];
	if (argc < 3 || open("/nonexistent-kiln-trace/x", O_RDONLY | O_CLOEXEC) >= 0 || pipe(p))
		return 1;
	for (int i = 1; i <= 4; i++)
		if (write(p[1], b, (size_t)(11 * i)) != 11 * i)
			return 1;
	pid_t c = fork();
	if (c == 0) {
		execl(argv[1], "true", (char *)0);
		_exit(127);
	}
	FILE *f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "%d\n", (int)c);
	fclose(f);
	int st;
	waitpid(c, &st, 0);
	return 3;
}
PROG
cc -O1 -o "$T/prog" "$T/prog.c" || fail "cannot build the test program"

"$KILN" trace -o "$T/out" -- "$T/prog" "$TRUE" "$T/child" 2>"$T/err"
rc=$?
[ $rc = 3 ] || fail "exit status $rc, not the command's 3: $(cat "$T/err")"
child=$(cat "$T/child")
bpf=yes
if grep -q 'string arguments are shown as pointers' "$T/err"; then
	bpf=no
	n=$(grep -c 'string arguments are shown as pointers' "$T/err")
	[ "$n" = 1 ] || fail "the fallback was said $n times"
	echo "note: BPF unavailable here ($(head -1 "$T/err")); checking pointers"
fi
line() { grep -E "$1" "$T/out" >/dev/null || fail "no line like '$1' in: $(head -c 3000 "$T/out")"; }
if [ $bpf = yes ]; then
	line 'openat\(dfd: CWD, filename: "/nonexistent-kiln-trace/x", flags: RDONLY\|CLOEXEC\) += -1 ENOENT \(No such file or directory\)$'
	line "/$child execve\\(filename: \"$TRUE\","
else
	line 'openat\(dfd: CWD, filename: 0x[0-9a-f]+, flags: RDONLY\|CLOEXEC\) += -1 ENOENT \(No such file or directory\)$'
	line "/$child execve\\(filename: 0x[0-9a-f]+,"
fi
for i in 1 2 3 4; do
	n=$((11 * i))
	c=$(grep -cE "/[0-9]+ write\\(fd: [0-9]+(<[^>]*>)?, buf: 0x[0-9a-f]+, count: $n\\) += $n\$" "$T/out")
	[ "$c" = 1 ] || fail "write of $n bytes shown $c times"
done
# The child's own calls under its pid, the line format perf trace's.
grep -qE "^ +[0-9]+\\.[0-9]{3} \\( *[0-9]+\\.[0-9]{3} ms\\): [^ ]+/$child (close|mmap|brk|openat)\\(" "$T/out" ||
	fail "no call of the child $child: $(grep "/$child " "$T/out" | head -5)"
grep -qE '/[0-9]+ exit_group\(error_code: 3\) += \?$' "$T/out" || fail "no exit_group(3)"

# --failure: failed calls only.
"$KILN" trace --failure -o "$T/fail" -- "$T/prog" "$TRUE" "$T/child" 2>/dev/null
[ -s "$T/fail" ] || fail "--failure printed nothing"
grep -vE '= -1 E[A-Z0-9]+ \(' "$T/fail" | grep . && fail "--failure printed calls that did not fail"
grep -q 'ENOENT' "$T/fail" || fail "--failure lost the ENOENT"

# -e: only the calls named; !: all but those.
"$KILN" trace -e 'write,pipe*' -o "$T/e1" -- "$T/prog" "$TRUE" "$T/child" 2>/dev/null
grep -vE '/[0-9]+ (write|pipe2?)\(' "$T/e1" | grep . && fail "-e write,pipe* showed other calls"
[ "$(grep -cE ' write\(.*count: (11|22|33|44)\)' "$T/e1")" = 4 ] || fail "-e write: not 4 writes"
"$KILN" trace -e '!write' -o "$T/e2" -- "$T/prog" "$TRUE" "$T/child" 2>/dev/null
grep -q ' write(' "$T/e2" && fail "-e !write showed writes"
grep -q ' openat(' "$T/e2" || fail "-e !write lost openat"
"$KILN" trace -e 'Open' -- true 2>"$T/e3.err"
[ $? = 2 ] || fail "-e with a bad name is not a usage error"

# -c: strace -c's table.
"$KILN" trace -c -o "$T/c" -- "$T/prog" "$TRUE" "$T/child" 2>/dev/null
head -1 "$T/c" | grep -q '^% time     seconds  usecs/call     calls    errors syscall$' || fail "-c header: $(head -2 "$T/c")"
grep -qE '^100\.00 +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9]+ total$' "$T/c" || fail "-c total: $(tail -2 "$T/c")"
grep -qE ' +5 +write$' "$T/c" || fail "-c: not 5 writes (4 to the pipe, 1 to the file)"

# --no-bpf: the raw tracepoints, pointers for strings.
"$KILN" trace --no-bpf -o "$T/raw" -- "$T/prog" "$TRUE" "$T/child" 2>"$T/raw.err"
[ $? = 3 ] || fail "--no-bpf: $(cat "$T/raw.err")"
grep -qE 'openat\(dfd: CWD, filename: 0x[0-9a-f]+, flags: RDONLY\|CLOEXEC\) += -1 ENOENT' "$T/raw" ||
	fail "--no-bpf: no openat ENOENT"
[ "$(grep -cE ' write\(fd: [0-9]+(<[^>]*>)?, buf: 0x[0-9a-f]+, count: (11|22|33|44)\)' "$T/raw")" = 4 ] ||
	fail "--no-bpf: not 4 writes"

# -s against strace -c -f, for the calls this program makes a known number of times.
command -v strace >/dev/null || { echo "note: no strace, -s not compared"; exit 0; }
strace -f -c -o "$T/strace" "$T/prog" "$TRUE" "$T/child" >/dev/null 2>&1
"$KILN" trace -s -o "$T/s" -- "$T/prog" "$TRUE" "$T/child" 2>/dev/null
grep -q '^ Summary of events:$' "$T/s" || fail "-s: no summary"
grep -q '^   syscall            calls  errors  total       min       avg       max       stddev$' "$T/s" ||
	fail "-s: no table header"
for sc in write pipe2 execve wait4 clone openat close; do
	a=$(awk -v s="$sc" '$1 == s && NF == 8 { n += $2 } END { print n + 0 }' "$T/s")
	b=$(awk -v s="$sc" '$NF == s && $1 ~ /^[0-9.]+$/ { n += $4 } END { print n + 0 }' "$T/strace")
	[ "$b" = 0 ] && continue # a libc that makes another call (clone3, pipe) for it
	[ "$a" = "$b" ] || fail "-s counts $a $sc calls, strace -c $b"
done
exit 0
