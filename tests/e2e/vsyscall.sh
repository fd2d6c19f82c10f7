#!/bin/sh
# Samples taken while the kernel emulates a [vsyscall] call (a program
# calling time() at 0xffffffffff600400 directly): the user frame at the
# vsyscall address and the kernel frames above it print as perf script
# prints them, for a file perf recorded and for one kiln recorded.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf
command -v gcc >/dev/null || skip "gcc is not installed"
grep -q '\[vsyscall\]' /proc/self/maps || skip "this kernel maps no [vsyscall] page (vsyscall=none)"
cat >"$T/vs.c" <<'SRC'
#include <stdlib.h>
#include <time.h>
typedef time_t (*vtime_fn)(time_t *);
int main(int c, char **v)
{
	(void)c;
	long n = strtol(v[1], 0, 10);
	volatile time_t s = 0;
	vtime_fn f = (vtime_fn)0xffffffffff600400UL;
	for (long i = 0; i < n; i++)
		s += f(NULL);
	return 0;
}
SRC
gcc -O1 -o "$T/vs" "$T/vs.c" || fail "cannot build the test program"
"$T/vs" 10 || skip "calling the vsyscall page fails here"
perf record -q -g -o "$T/p.data" -- "$T/vs" 200000 >/dev/null 2>&1 || fail "perf record failed"
"$KILN" record -g -o "$T/k.data" -- "$T/vs" 200000 2>"$T/rec.err" || fail "kiln record: $(cat "$T/rec.err")"
for f in p k; do
	"$KILN" script -i "$T/$f.data" >"$T/$f.kiln" 2>"$T/$f.err" || fail "kiln script $f: $(cat "$T/$f.err")"
	perf script -i "$T/$f.data" >"$T/$f.perf" 2>/dev/null || fail "perf script $f failed"
	grep -q 'ffffffffff600400 \[unknown\]' "$T/$f.perf" || fail "no sample at the vsyscall address in $f.data"
	same_script "$T/$f.kiln" "$T/$f.perf" ||
		fail "$f.data: kiln script differs from perf script: $(diff "$T/$f.kiln" "$T/$f.perf" | head -6)"
done
echo "ok: $(grep -c ffffffffff600400 "$T/k.kiln") vsyscall frames, as perf prints them"
