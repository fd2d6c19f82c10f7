#!/bin/sh
# Source lines of a big library with Debian's debug packages
# (binutils-x86-64-linux-gnu-dbg, libbinutils-dbg, libc6-dbg: DWARF 5,
# dwz supplementary files, compressed sections, LTO units): `objdump -d -l`
# on libbfd, recorded by perf with --call-graph dwarf. kiln script
# -F+srcline must equal perf script -F+srcline line for line for >= 98% of
# the lines (perf runs addr2line per address; kiln reads DWARF in-process).
# The cache of expanded debug files must not change a byte: the text is
# the same with the cache off, empty (entries written) and filled (read).
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf
lib=$(ls /usr/lib/x86_64-linux-gnu/libbfd-*.so 2>/dev/null | head -1)
[ -n "$lib" ] && command -v objdump >/dev/null || skip "no objdump / libbfd"
id=$(readelf -n "$lib" 2>/dev/null | awk '/Build ID/ {print $3}')
[ -f "/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug" ] ||
	skip "libbfd's debug file is not installed (libbinutils-dbg)"
perf record -q --call-graph dwarf -F 200 -o "$T/o.data" -- objdump -d -l "$lib" >/dev/null 2>&1 ||
	fail "perf record failed"
KILN_CACHE_DIR=off "$KILN" script -i "$T/o.data" -F+srcline >"$T/kiln.txt" 2>"$T/err" ||
	fail "kiln script failed: $(cat "$T/err")"
for run in empty filled; do
	KILN_CACHE_DIR="$T/cache" "$KILN" script -i "$T/o.data" -F+srcline >"$T/kiln.$run" 2>"$T/err" ||
		fail "kiln script ($run cache) failed: $(cat "$T/err")"
	cmp -s "$T/kiln.txt" "$T/kiln.$run" || fail "the text differs with the cache $run"
done
n=$(ls "$T/cache/expanded-v1" | wc -l)
[ "$n" -ge 2 ] || fail "expected cached images of the compressed debug files, found $n"
perf script -i "$T/o.data" -F+srcline >"$T/perf.txt" 2>/dev/null || fail "perf script failed"
grep -q '^  [a-z0-9_-]*\.c:[0-9][0-9]*' "$T/kiln.txt" || fail "kiln printed no source lines"
python3 "$TESTLIB/line_agree.py" "$T/kiln.txt" "$T/perf.txt" 0.98 >"$T/cmp" ||
	fail "kiln and perf disagree: $(cat "$T/cmp")"
echo "$(grep -c 'cpu-clock\|cycles' "$T/perf.txt") samples; $(head -1 "$T/cmp")"
echo ok
