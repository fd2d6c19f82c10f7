#!/bin/sh
# kiln trace -F: a program maps N fresh anonymous pages and writes one
# byte to each from touch_pages(); -F min shows N minor faults in
# touch_pages at addresses in that mapping, one per page, as perf trace
# prints them ("minfault [touch_pages+0x..] => //anon@0xADDR (d.)"), with
# the BPF program and with --no-bpf; perf trace -F min counts the same
# where it works; -F maj shows no minor faults; -s adds "N minfaults" to
# the thread's summary line.
. "$(dirname "$0")/lib.sh"
"$KILN" trace -F min -o "$T/probe.txt" -- true 2>"$T/probe.err" ||
	skip "cannot trace page faults here: $(head -1 "$T/probe.err")"
cat >"$T/pf.c" <<'PROG'
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
__attribute__((noinline)) void touch_pages(volatile char *p, int n)
{
	for (int i = 0; i < n; i++)
		p[(size_t)i * 4096] = 1;
}
int main(int argc, char **argv)
{
	int n = atoi(argv[1]);
	char *p = mmap(NULL, (size_t)n * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	FILE *f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "%lu %lu\n", (unsigned long)p, (unsigned long)(p + (size_t)n * 4096));
	fclose(f);
	touch_pages(p, n);
	return 0;
}
PROG
cc -O1 -o "$T/pf" "$T/pf.c" || fail "cannot build the test program"
N=64

# Faults in touch_pages at page addresses inside the mapping ($1: output, $2: range file).
count_in_range() {
	read -r lo hi <"$2"
	grep -E 'minfault \[touch_pages\+0x[0-9a-f]+\] => (//anon@)?0x[0-9a-f]+ \((d\.|\?\.)\)$' "$1" |
		sed -E 's/.* => (\/\/anon@)?(0x[0-9a-f]+) .*/\2/' | sort -u |
		while read -r a; do
			v=$(printf '%d' "$a")
			[ "$v" -ge "$lo" ] && [ "$v" -lt "$hi" ] && [ $((v % 4096)) = 0 ] && echo "$a"
		done | wc -l
}

for src in bpf no-bpf; do
	opt=
	[ $src = no-bpf ] && opt=--no-bpf
	"$KILN" trace $opt -F min -e exit_group -o "$T/$src.out" -- "$T/pf" $N "$T/$src.range" \
		2>"$T/$src.err" || fail "$src: kiln trace -F min failed: $(cat "$T/$src.err")"
	n=$(count_in_range "$T/$src.out" "$T/$src.range")
	[ "$n" = $N ] || fail "$src: $n faults on the $N pages, not $N: $(grep touch_pages "$T/$src.out" | head -5)"
	grep -E 'minfault \[touch_pages' "$T/$src.out" | grep -qvE '//anon@0x[0-9a-f]+ \(d\.\)$' &&
		fail "$src: a fault on the mapping not shown as //anon@ADDR (d.): $(grep touch_pages "$T/$src.out" | head -3)"
	# The line itself, as perf trace prints it.
	grep -qE "^ +[0-9]+\\.[0-9]{3} \\( 0\\.000 ms\\): pf/[0-9]+ minfault \\[touch_pages\\+0x[0-9a-f]+\\] => //anon@0x[0-9a-f]+ \\(d\\.\\)\$" \
		"$T/$src.out" || fail "$src: no line in perf trace's layout: $(grep touch_pages "$T/$src.out" | head -2)"
	grep -qE '/[0-9]+ exit_group\(' "$T/$src.out" || fail "$src: the calls are gone with -F"
done

"$KILN" trace -F maj -o "$T/maj.out" -- "$T/pf" $N "$T/maj.range" 2>/dev/null ||
	fail "kiln trace -F maj failed"
grep -q minfault "$T/maj.out" && fail "-F maj printed minor faults"

"$KILN" trace -s -F all -o "$T/sum.out" -- "$T/pf" $N "$T/sum.range" 2>/dev/null
m=$(sed -nE 's/^ pf \([0-9]+\), [0-9]+ events, [0-9.]+%, ([0-9]+) minfaults$/\1/p' "$T/sum.out")
[ -n "$m" ] && [ "$m" -ge $N ] || fail "-s: no 'N minfaults' of at least $N: $(head -5 "$T/sum.out")"

# perf trace's count for the same pages, where it works.
if command -v perf >/dev/null; then
	mountpoint -q /sys/kernel/tracing 2>/dev/null || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	if perf trace -F min --no-syscalls -o "$T/perf.out" -- "$T/pf" $N "$T/perf.range" 2>"$T/perf.err" &&
		grep -q minfault "$T/perf.out"; then
		p=$(count_in_range "$T/perf.out" "$T/perf.range")
		[ "$p" = $N ] || fail "perf trace saw $p faults on the pages, kiln $N"
	else
		echo "note: perf trace -F gave nothing here: $(head -1 "$T/perf.err")"
	fi
fi
exit 0
