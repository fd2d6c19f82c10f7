#!/bin/sh
# One name per frame in every output. A C++ program with inlined calls
# (a template and a member function inlined into a loop), a static
# function gcc clones (hidden_spin, "[clone .constprop.0]") and a call
# into libc's qsort, built -rdynamic and also as a --strip-all copy whose
# only symbols are .dynsym's (its static functions lie past the end of
# the exported symbols before them), recorded by kiln with -g and with
# --call-graph dwarf. For each recording, with and without inline frames:
#  - folded stacks (kiln collapse), pprof and speedscope give every
#    function name the same inclusive share of samples;
#  - no pprof location is named after a symbol its address lies outside of
#    ([st_value, st_value + st_size), a sizeless symbol ending at the next,
#    as perf reads them): such an address has no name, as perf script
#    prints "[unknown]" and folded stacks "[binary]";
#  - in the stripped copy, the static functions' samples are "[names-stripped]"
#    frames, and kiln script prints what perf script prints for them
#    (byte for byte, when perf is installed and reads the file).
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v c++ >/dev/null || skip "no C++ compiler"
command -v strip >/dev/null && command -v readelf >/dev/null || skip "binutils are not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
names() { python3 "$TESTLIB/frame_names.py" "$@"; }

cat >"$T/names.cpp" <<'EOF'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
template <typename T> static inline T mix(T a, T b)
{
	return a * 31 + (b ^ (a >> 3));
}
namespace shapes {
struct acc {
	unsigned long v = 0;
	inline void add(unsigned long x) { v = mix(v, x); }
};
__attribute__((noinline)) unsigned long sum_inl(unsigned long n)
{
	acc a;
	for (unsigned long i = 0; i < n; i++)
		a.add(i);
	return a.v;
}
}
extern "C" __attribute__((noinline)) void exported_small(void)
{
	sink++;
}
static __attribute__((noinline)) unsigned long hidden_spin(int mode, unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++) {
		s += i * i * (unsigned long)mode;
		sink = s;
	}
	return s;
}
static int cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}
static long arr[4096];
extern "C" __attribute__((noinline)) void sort_some(void)
{
	for (int i = 0; i < 4096; i++)
		arr[i] = (i * 7919L) % 4099;
	qsort(arr, 4096, sizeof(arr[0]), cmp);
}
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.5;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		sink += shapes::sum_inl(100000);
		sink += hidden_spin(3, 100000);
		exported_small();
		sort_some();
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return 0;
}
EOF
c++ -O2 -g -fno-omit-frame-pointer -rdynamic -o "$T/names" "$T/names.cpp" 2>"$T/err" ||
	skip "cannot build the test program: $(head -1 "$T/err")"
cp "$T/names" "$T/names-stripped"
strip --strip-all "$T/names-stripped" || fail "strip failed"
readelf -SW "$T/names-stripped" | grep -q ' \.symtab ' && fail "the stripped copy kept .symtab"
readelf -sW --dyn-syms "$T/names-stripped" | grep -q hidden_spin && fail "hidden_spin is in .dynsym"

for prog in names names-stripped; do
	for cg in fp dwarf; do
		"$KILN" record -q --call-graph $cg -F 999 -o "$T/$prog.$cg.data" -- "$T/$prog" 0.6 2>"$T/err" ||
			fail "kiln record --call-graph $cg $prog: $(cat "$T/err")"
		for mode in --inline --no-inline; do
			r="$T/$prog.$cg$mode"
			d="$T/$prog.$cg.data"
			"$KILN" collapse $mode "$d" >"$r.folded" 2>"$T/err" || fail "$r: collapse: $(cat "$T/err")"
			"$KILN" export $mode -f pprof -i "$d" -o "$r.pb.gz" 2>"$T/err" || fail "$r: export pprof: $(cat "$T/err")"
			"$KILN" export $mode -f speedscope -i "$d" -o "$r.json" 2>"$T/err" ||
				fail "$r: export speedscope: $(cat "$T/err")"
			for f in folded pprof speedscope; do
				ext=$f
				[ $f = pprof ] && ext=pb.gz
				[ $f = speedscope ] && ext=json
				names shares $f "$r.$ext" >"$r.$f.shares" || fail "$r: cannot read the $f output"
			done
			[ "$(wc -l <"$r.folded.shares")" -ge 3 ] || fail "$r: too few names: $(cat "$r.folded")"
			for f in pprof speedscope; do
				cmp -s "$r.folded.shares" "$r.$f.shares" ||
					fail "$prog $cg $mode: $f's shares differ from folded stacks' (< folded, > $f):
$(diff "$r.folded.shares" "$r.$f.shares" | head -8)"
			done
			names symbols "$r.pb.gz" >"$r.symbols" ||
				fail "$prog $cg $mode: pprof names addresses after symbols they lie outside of:
$(cat "$r.symbols")"
			echo "$prog $cg $mode: $(wc -l <"$r.folded.shares") names, same shares; $(tail -1 "$r.symbols")"
		done
	done
done
# The unstripped program names its own functions, clones included.
for cg in fp dwarf; do
	grep -q ' hidden_spin' "$T/names.$cg--no-inline.folded.shares" || fail "$cg: no hidden_spin frame"
done
# The stripped copy's static code has no symbol: named after the binary.
for cg in fp dwarf; do
	grep -q ';\[names-stripped\]' "$T/names-stripped.$cg--no-inline.folded" ||
		fail "$cg: no [names-stripped] frame in the stripped program's stacks"
done

# perf script names those addresses as kiln script does ("[unknown]").
# perf's own build-id cache is kept out (an empty HOME): it would hand
# perf the unstripped program, which has the same build-id.
if command -v perf >/dev/null; then
	d="$T/names-stripped.fp.data"
	if HOME=$T perf script -i "$d" >"$T/perf.txt" 2>"$T/err" && [ -s "$T/perf.txt" ]; then
		HOME=$T "$KILN" script -i "$d" >"$T/kiln.txt" 2>"$T/err" || fail "kiln script: $(cat "$T/err")"
		mask_libc_plt "$T/perf.txt" >"$T/perf.m"
		mask_libc_plt "$T/kiln.txt" >"$T/kiln.m"
		cmp -s "$T/perf.m" "$T/kiln.m" ||
			fail "kiln script differs from perf script: $(diff "$T/perf.m" "$T/kiln.m" | head -6)"
		grep -q '\[unknown\] (.*/names-stripped)$' "$T/kiln.txt" ||
			fail "no [unknown] frame of the stripped program in perf script's text"
		echo "stripped: kiln script = perf script, $(grep -c '\[unknown\] (.*/names-stripped)$' "$T/kiln.txt") [unknown] frames"
	else
		echo "perf script could not read the file: $(head -1 "$T/err")"
	fi
fi
echo "PASS"
