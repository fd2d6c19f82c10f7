#!/bin/sh
# kiln report --stdio on every input kiln reads, against perf report (6.1):
#  - perf script text of an FP recording (a file, and on standard input)
#    gives the table perf report gives for the perf.data, byte for byte
#    (-g none with and without children, -s dso, -s parent), and its
#    default callchains; -s srcline on text is refused with exit 3;
#  - pipe mode (perf record -o -) read from standard input: the table
#    perf report -i - prints for the same bytes;
#  - a --call-graph dwarf recording of a program with a known inlining
#    chain (tests/progs/inlines.c): callchains name the inlined functions
#    "name (inlined)", as kiln script does.
. "$(dirname "$0")/lib.sh"
need_perf
need_perf_events
: "${INLINES:?}"

perf record -q -g -o "$T/fp.data" -- "$BURN" 0.5 >/dev/null 2>"$T/rec.err" ||
	skip "perf record cannot run here: $(head -1 "$T/rec.err")"
perf script -i "$T/fp.data" >"$T/fp.txt" 2>/dev/null || fail "perf script failed"

clean() {
	awk '/^# \(Tip:/ { tip = 1; next } tip && /^#$/ { tip = 0; next } { print }' |
		grep -v -e '^$' -e '^#$' -e 'bpf_prog_'
}

# near: a sample perf script prints with no frame lines (its callchain
# could not be resolved; seen in ASan runs, at the exit of the program)
# is counted by both, but perf report names it by its address and kiln
# cannot: the totals are equal, and every entry of 1% or more in perf's
# table is in kiln's, its shares within one sample's share.
near() {
	pe=$(sed -n 's/^# Event count (approx.): \([0-9]*\)$/\1/p' "$T/p.txt" | head -1)
	ke=$(sed -n 's/^# Event count (approx.): \([0-9]*\)$/\1/p' "$T/k.txt" | head -1)
	[ -n "$pe" ] && [ "$pe" = "$ke" ] || return 1
	n=$(grep -c -v -e '^$' -e '^#' -e "$(printf '^\t')" "$T/fp.txt")
	awk -v lim="$(echo "100 / $n + 0.01" | bc -l)" '
		/^ +[0-9]+\.[0-9]+%/ {
			n = $0; gsub(/[0-9.]+%/, "", n)
			if (FILENAME == ARGV[1]) { if ($1 + 0 >= 1) want[n] = $1 + 0 }
			else got[n] = $1 + 0
		}
		END {
			for (n in want) {
				d = want[n] - got[n]; if (d < 0) d = -d
				if (!(n in got) || d > lim + 0) exit 1
			}
		}' "$T/p.txt" "$T/k.txt" || return 1
	echo "perf script text $opts: a sample without frame lines is placed otherwise (tolerated)"
}

for opts in "-g none" "-g none --no-children" "-s dso -g none" "-s parent,sym -p ^render -g none" ""; do
	# shellcheck disable=SC2086
	perf report --stdio -i "$T/fp.data" $opts 2>/dev/null | clean >"$T/p.txt"
	grep -q '%' "$T/p.txt" || fail "perf report $opts printed no rows"
	# shellcheck disable=SC2086
	"$KILN" report --stdio -i "$T/fp.txt" $opts 2>"$T/k.err" | clean >"$T/k.txt" ||
		fail "kiln report $opts of perf script text: $(cat "$T/k.err")"
	# Unresolved frames: perf script prints the address, perf report the
	# map's offset; those rows are left out.
	if ! cmp -s "$T/p.txt" "$T/k.txt"; then
		grep -v -e '\[unknown\]' -e '0x0000' "$T/p.txt" | sed 's/  */ /g' >"$T/p.sq"
		grep -v -e '\[unknown\]' -e '0x0000' "$T/k.txt" | sed 's/  */ /g' >"$T/k.sq"
		# Entries of equal shares (one sample each, on a slow run) may come
		# in another order: perf orders some ties by where its objects lie
		# in memory. The same lines, and the entries of 0.5% or more in the
		# same order, with their callchains.
		if ! cmp -s "$T/p.sq" "$T/k.sq"; then
			sort "$T/p.sq" >"$T/p.so"
			sort "$T/k.sq" >"$T/k.so"
			awk '/^ +[0-9]+\.[0-9]+%/ && $1 + 0 < 0.5 { exit } { print }' "$T/p.sq" >"$T/p.top"
			awk '/^ +[0-9]+\.[0-9]+%/ && $1 + 0 < 0.5 { exit } { print }' "$T/k.sq" >"$T/k.top"
			cmp -s "$T/p.so" "$T/k.so" && cmp -s "$T/p.top" "$T/k.top" || near || {
				diff "$T/p.txt" "$T/k.txt" | head -20
				fail "perf script text $opts: the table differs from perf report's"
			}
		fi
	fi
done
# shellcheck disable=SC2002
cat "$T/fp.txt" | "$KILN" report --stdio -g none -i - 2>"$T/k.err" | clean >"$T/ks.txt" ||
	fail "perf script text on standard input: $(cat "$T/k.err")"
"$KILN" report --stdio -g none -i "$T/fp.txt" | clean >"$T/kf.txt"
cmp -s "$T/ks.txt" "$T/kf.txt" || fail "perf script text: standard input differs from the file"
"$KILN" report --stdio -s srcline -i "$T/fp.txt" >/dev/null 2>"$T/err"
st=$?
[ $st = 3 ] || fail "-s srcline of perf script text: exit $st, want 3"
grep -q "fp.txt: -s srcline: perf script text carries no source lines" "$T/err" ||
	fail "-s srcline of perf script text: $(cat "$T/err")"
echo "ok: perf script text gives perf report's table"

# Pipe mode on standard input
perf record -q -g -o - -- "$BURN" 0.3 2>/dev/null >"$T/pipe.data" || fail "perf record -o - failed"
for opts in "-g none" "--no-children -g none" ""; do
	# shellcheck disable=SC2086
	perf report --stdio $opts -i - <"$T/pipe.data" 2>/dev/null | clean >"$T/p.txt"
	# shellcheck disable=SC2086
	"$KILN" report --stdio $opts -i - <"$T/pipe.data" 2>"$T/k.err" | clean >"$T/k.txt" ||
		fail "kiln report $opts of a pipe: $(cat "$T/k.err")"
	cmp -s "$T/p.txt" "$T/k.txt" || same_plt "pipe mode $opts" "$T/p.txt" "$T/k.txt" || {
		diff "$T/p.txt" "$T/k.txt" | head -20
		fail "pipe mode $opts: the table differs from perf report's"
	}
done
echo "ok: pipe mode on standard input"

# DWARF: inline frames in callchains, named as kiln script names them
"$KILN" record -q --call-graph dwarf -F 499 -o "$T/dw.data" -- "$INLINES" 1 2>"$T/err" ||
	fail "kiln record --call-graph dwarf failed: $(cat "$T/err")"
# Folded callchains: one line per chain, so a sample that stops in middle
# itself (a branch in the graph) cannot hide the caller order.
"$KILN" report --stdio --no-children -g folded,0,caller -i "$T/dw.data" >"$T/dw.txt" 2>"$T/err" ||
	fail "kiln report of a DWARF recording: $(cat "$T/err")"
grep -q 'leaf_mix (inlined)' "$T/dw.txt" || fail "DWARF: no 'leaf_mix (inlined)' frame"
grep -q ';middle (inlined);leaf_mix (inlined)' "$T/dw.txt" ||
	fail "DWARF: leaf_mix (inlined) not called from middle (inlined) (caller order)"
"$KILN" script -i "$T/dw.data" 2>/dev/null | grep -q 'leaf_mix+0x[0-9a-f]* (inlined)' ||
	fail "DWARF: kiln script names no leaf_mix (inlined) frame"
echo "ok: DWARF recordings name inline frames"
