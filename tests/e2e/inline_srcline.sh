#!/bin/sh
# Inline frames and source lines on a program with a known inlining chain
# (tests/progs/inlines.c, -O2 -g: leaf_mix and middle always_inline into
# outer), recorded with --call-graph dwarf by perf and by kiln:
#  - kiln script prints the inlined functions as their own frames, as
#    perf script does ("leaf_mix+0x.. (inlined)"), and equals perf's text;
#  - kiln script -F+srcline equals perf script -F+srcline, and the
#    file:line of each frame of the inline chain is what addr2line -i says;
#  - kiln collapse has ;outer;middle;leaf_mix and agrees with perf script
#    folded by stackcollapse's rules, with and without --no-inline.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf
: "${INLINES:?}"
command -v addr2line >/dev/null || skip "addr2line is not installed"
perf record -q --call-graph dwarf -F 499 -o "$T/p.data" -- "$INLINES" 1 2>/dev/null ||
	fail "perf record failed"
"$KILN" record -q --call-graph dwarf -F 499 -o "$T/k.data" -- "$INLINES" 1 2>"$T/err" ||
	fail "kiln record failed: $(cat "$T/err")"
for f in p k; do
	d="$T/$f.data"
	"$KILN" script -i "$d" >"$T/$f.kiln" 2>/dev/null || fail "$f: kiln script failed"
	perf script -i "$d" >"$T/$f.perf" 2>/dev/null || fail "$f: perf script failed"
	python3 "$TESTLIB/line_agree.py" "$T/$f.kiln" "$T/$f.perf" 0.99 >"$T/$f.cmp" ||
		fail "$f: kiln script differs from perf script: $(cat "$T/$f.cmp")"
	echo "$f default: $(head -1 "$T/$f.cmp")"
	grep -Eq '^	 +[0-9a-f]+ leaf_mix\+0x[0-9a-f]+ \(inlined\)$' "$T/$f.kiln" ||
		fail "$f: no inlined leaf_mix frame"
	grep -A1 -E ' leaf_mix\+0x[0-9a-f]+ \(inlined\)$' "$T/$f.kiln" | grep -q ' middle+0x.* (inlined)$' ||
		fail "$f: leaf_mix is not followed by the inlined middle"
	"$KILN" script -i "$d" -F+srcline >"$T/$f.ksrc" 2>/dev/null || fail "$f: kiln script -F+srcline failed"
	perf script -i "$d" -F+srcline >"$T/$f.psrc" 2>/dev/null || fail "$f: perf script -F+srcline failed"
	python3 "$TESTLIB/line_agree.py" "$T/$f.ksrc" "$T/$f.psrc" 0.99 >"$T/$f.cmp" ||
		fail "$f: -F+srcline differs from perf: $(cat "$T/$f.cmp")"
	echo "$f srcline: $(head -1 "$T/$f.cmp")"
	# The chain at one address, against addr2line -i: leaf, middle, outer.
	addr=$(grep -m1 -E ' leaf_mix\+0x[0-9a-f]+$' "$T/$f.ksrc" | awk '{print $1}')
	[ -n "$addr" ] || fail "$f: no leaf_mix frame with -F+srcline"
	awk -v a="$addr" '
		$1 == a && ($2 ~ /^(leaf_mix|middle|outer)\+/) { getline s; sub(/^  /, "", s); sub(/ \(inlined\)$/, "", s); print s; n++ }
		n == 3 { exit }' "$T/$f.ksrc" >"$T/$f.chain"
	addr2line -i -e "$INLINES" "0x$addr" | sed 's|.*/||' | sed 's/ (discriminator [0-9]*)//' >"$T/$f.a2l"
	[ "$(wc -l <"$T/$f.chain")" = 3 ] || fail "$f: inline chain at $addr: $(cat "$T/$f.chain")"
	cmp -s "$T/$f.chain" "$T/$f.a2l" ||
		fail "$f: chain at 0x$addr: kiln [$(tr '\n' ' ' <"$T/$f.chain")] addr2line -i [$(tr '\n' ' ' <"$T/$f.a2l")]"
	echo "$f chain at 0x$addr: $(tr '\n' ' ' <"$T/$f.chain")"
	# Folded stacks: inline frames by default, none with --no-inline.
	"$KILN" collapse "$d" >"$T/$f.fold" 2>/dev/null || fail "$f: collapse failed"
	grep -q ';outer;middle;leaf_mix ' "$T/$f.fold" || fail "$f: no ;outer;middle;leaf_mix stack"
	python3 "$TESTLIB/perf_fold.py" <"$T/$f.perf" >"$T/$f.pfold"
	python3 "$TESTLIB/fold_compare.py" "$T/$f.fold" "$T/$f.pfold" 0.98 >"$T/$f.cmp" ||
		fail "$f: collapse vs perf script: $(cat "$T/$f.cmp")"
	"$KILN" collapse --no-inline "$d" >"$T/$f.nfold" 2>/dev/null || fail "$f: collapse --no-inline failed"
	grep -q ';middle' "$T/$f.nfold" && fail "$f: --no-inline still has inline frames"
	perf script --no-inline -i "$d" 2>/dev/null | python3 "$TESTLIB/perf_fold.py" >"$T/$f.pnfold"
	python3 "$TESTLIB/fold_compare.py" "$T/$f.nfold" "$T/$f.pnfold" 0.98 >"$T/$f.cmp" ||
		fail "$f: collapse --no-inline vs perf script --no-inline: $(cat "$T/$f.cmp")"
	"$KILN" collapse --mark-inline "$d" 2>/dev/null | grep -q ';outer;middle_\[i\];leaf_mix_\[i\] ' ||
		fail "$f: --mark-inline does not mark inline frames"
done
echo ok
