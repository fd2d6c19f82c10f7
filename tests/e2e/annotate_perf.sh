#!/bin/sh
# The annotate modules against perf annotate --stdio on the hottest
# symbol of a perf recording of tests/progs/inlines.c (-O2 -g, a known
# inline chain): the sampled offsets and periods come from kiln script, the
# annotation from tests/annotate_check.c. Checked:
#  - the header line and the dashes under it equal perf's;
#  - every instruction row perf prints has kiln's address and text;
#  - the shares of the five hottest instructions are within 1 point;
#  - the shares add up to 100 and the per-line summary is perf's
#    --print-line summary;
#  - kiln runs no objdump (strace, when installed).
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf
: "${INLINES:?}" "${ANNOTATE_CHECK:?}"
command -v nm >/dev/null || skip "nm is not installed"
perf record -q -F 999 -o "$T/p.data" -- "$INLINES" 1 2>/dev/null || skip "perf record failed"
"$KILN" script -i "$T/p.data" -G -F period,ip,sym,symoff,dso >"$T/samples" 2>"$T/err" ||
	fail "kiln script failed: $(cat "$T/err")"
bin=$(readlink -f "$INLINES")
# The hottest symbol of the program, and its sampled offsets with counts.
sym=$(awk -v b="($bin)" '$4 == b { sub(/\+0x[0-9a-f]+$/, "", $3); print $3 }' "$T/samples" |
	sort | uniq -c | sort -k1,1nr -k2 | awk 'NR == 1 { print $2 }')
[ -n "$sym" ] || skip "no samples in $bin"
awk -v b="($bin)" -v s="$sym" '$4 == b { i = index($3, "+0x"); if (i && substr($3, 1, i - 1) == s) { n[substr($3, i + 3)]++; p[substr($3, i + 3)] += $1 } }
	END { for (o in n) print o, n[o], p[o] }' "$T/samples" | sort >"$T/offsets"
set -- $(nm -S "$bin" | awk -v s="$sym" '$4 == s && ($3 == "t" || $3 == "T") { print $1, $2; exit }')
[ $# = 2 ] || fail "nm has no symbol $sym"
event=$("$KILN" script -i "$T/p.data" -G -F event 2>/dev/null | head -1 | sed 's/^ *//; s/: *$//')
"$ANNOTATE_CHECK" "$bin" "$1" "$2" "$event" <"$T/offsets" >"$T/kiln.txt" 2>"$T/err" ||
	fail "annotate-check failed: $(cat "$T/err")"
perf annotate --stdio -i "$T/p.data" -s "$sym" >"$T/perf.txt" 2>/dev/null ||
	skip "perf annotate failed"
grep -q '^ Percent |' "$T/perf.txt" || skip "perf annotate printed no annotation"

# Header and dashes.
[ "$(head -2 "$T/kiln.txt")" = "$(head -2 "$T/perf.txt")" ] ||
	fail "header differs: kiln: $(head -1 "$T/kiln.txt") perf: $(head -1 "$T/perf.txt")"
# Instruction rows: "PCT : ADDR: TEXT".
rows() {
	awk -F' : ' '/^ +[0-9]+\.[0-9]+ : +[0-9a-f]+:/ {
		pct = $1; sub(/^ +/, "", pct)
		rest = substr($0, index($0, " : ") + 3)
		addr = rest; sub(/^ +/, "", addr); sub(/:.*/, "", addr)
		text = rest; sub(/^ *[0-9a-f]+: +/, "", text)
		# binutils before 2.37 spelled these with a q; kiln as later ones.
		if (match(text, /^(retq|callq|jmpq|leaveq|pushq|popq)( |$)/)) {
			m = substr(text, 1, RLENGTH); sub(/q *$/, "", m)
			ops = substr(text, RLENGTH + 1); sub(/^ +/, "", ops)
			text = ops == "" ? m : sprintf("%-6s %s", m, ops)
		}
		print addr "\t" pct "\t" text
	}' "$1" | sort
}
rows "$T/kiln.txt" >"$T/k.rows"
rows "$T/perf.txt" >"$T/p.rows"
[ -s "$T/p.rows" ] || fail "no instruction rows in perf's text"
cut -f1,3 "$T/p.rows" >"$T/p.text"
cut -f1,3 "$T/k.rows" >"$T/k.text"
cmp -s "$T/p.text" "$T/k.text" ||
	fail "instructions differ: $(diff "$T/p.text" "$T/k.text" | head -5)"
# Top five by perf's share: kiln's within 1 point.
sort -t'	' -k2,2nr "$T/p.rows" | head -5 | while IFS='	' read -r a p _; do
	k=$(awk -F'\t' -v a="$a" '$1 == a { print $2 }' "$T/k.rows")
	awk -v k="$k" -v p="$p" 'BEGIN { d = k - p; exit !(d <= 1 && d >= -1) }' ||
		fail "$sym+$a: kiln $k%, perf $p%"
	echo "$a: kiln $k% perf $p%"
done || exit 1
awk -F'\t' '{ s += $2 } END { exit !(s > 99.5 && s < 100.5) }' "$T/k.rows" ||
	fail "kiln's shares do not add up to 100"
# Per-line summary: perf annotate --print-line's.
"$ANNOTATE_CHECK" "$bin" "$1" "$2" "$event" --lines <"$T/offsets" |
	sed -n '/^Sorted summary/,/^ Percent/p' | grep -E '^ +[0-9]' >"$T/k.sum"
perf annotate --stdio --print-line -i "$T/p.data" -s "$sym" 2>/dev/null |
	sed -n '/^Sorted summary/,/^ Percent/p' | grep -E '^ +[0-9]' >"$T/p.sum"
if [ -s "$T/p.sum" ]; then
	cmp -s "$T/k.sum" "$T/p.sum" || fail "line summary differs: $(diff "$T/p.sum" "$T/k.sum" | head -5)"
fi
# No objdump (nor any other program) is started. (LeakSanitizer cannot
# run under ptrace: a sanitized build checks leaks in the runs above.)
if command -v strace >/dev/null; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=execve -o "$T/trace" "$ANNOTATE_CHECK" "$bin" "$1" "$2" "$event" \
		<"$T/offsets" >/dev/null 2>&1 || fail "annotate-check failed under strace"
	[ "$(grep -c 'execve(' "$T/trace")" = 1 ] || fail "programs started: $(grep execve "$T/trace")"
fi
echo "ok: $sym, $(wc -l <"$T/p.rows") instructions"
