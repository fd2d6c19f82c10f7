#!/bin/sh
# kiln annotate against perf annotate --stdio on the hottest symbol of a
# perf recording of tests/progs/inlines.c (-O2 -g, a known inline chain).
# Checked:
#  - the header line and the dashes under it equal perf's;
#  - every instruction row perf prints has kiln's address and text;
#  - the shares of the five hottest instructions are within 1 point;
#  - the shares add up to 100 and the per-line summary (-l) is perf's
#    --print-line summary;
#  - --top 1 annotates the symbol perf report puts first;
#  - kiln runs no objdump (nor any other program: strace, when installed).
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf
: "${INLINES:?}"
perf record -q -F 999 -o "$T/p.data" -- "$INLINES" 1 2>/dev/null || skip "perf record failed"
# The hottest user symbol by kiln's count; perf report's first row.
"$KILN" annotate -i "$T/p.data" --top 1 >"$T/top.txt" 2>"$T/err" ||
	fail "kiln annotate --top 1 failed: $(cat "$T/err")"
[ "$(grep -c '^ Percent |' "$T/top.txt")" = 1 ] || fail "--top 1 printed $(grep -c '^ Percent |' "$T/top.txt") annotations"
sym=$(sed -n 's/^ *: [0-9a-f]\{16\} <\(.*\)>:$/\1/p' "$T/top.txt" | head -1)
[ -n "$sym" ] || fail "no symbol in kiln's --top 1 text"
psym=$(perf report --stdio --no-children -i "$T/p.data" 2>/dev/null |
	awk '!/^#/ && /%/ { sub(/.*\] /, ""); sub(/ +$/, ""); print; exit }')
if [ -n "$psym" ]; then
	[ "$sym" = "$psym" ] || fail "--top 1 annotates $sym, perf report's first row is $psym"
fi
"$KILN" annotate --stdio -i "$T/p.data" "$sym" >"$T/kiln.txt" 2>"$T/err" ||
	fail "kiln annotate $sym failed: $(cat "$T/err")"
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
"$KILN" annotate -l -i "$T/p.data" "$sym" |
	sed -n '/^Sorted summary/,/^ Percent/p' | grep -E '^ +[0-9]' >"$T/k.sum"
[ -s "$T/k.sum" ] || fail "kiln annotate -l printed no summary"
perf annotate --stdio --print-line -i "$T/p.data" -s "$sym" 2>/dev/null |
	sed -n '/^Sorted summary/,/^ Percent/p' | grep -E '^ +[0-9]' >"$T/p.sum"
if [ -s "$T/p.sum" ]; then
	cmp -s "$T/k.sum" "$T/p.sum" || fail "line summary differs: $(diff "$T/p.sum" "$T/k.sum" | head -5)"
fi
# --sort-by-lines: the hottest line of the summary first, the shares add up to 100.
"$KILN" annotate --sort-by-lines -i "$T/p.data" "$sym" >"$T/bylines.txt" ||
	fail "kiln annotate --sort-by-lines failed"
first=$(awk '/^ +[0-9.]+ : [^ ]+:[0-9]+/ { print $3; exit }' "$T/bylines.txt")
[ "$first" = "$(awk '{ print $2; exit }' "$T/k.sum")" ] ||
	fail "--sort-by-lines starts with $first, the summary with $(head -1 "$T/k.sum")"
awk '/^ +[0-9.]+ : / { s += $1 } END { exit !(s > 99.5 && s < 100.5) }' "$T/bylines.txt" ||
	fail "--sort-by-lines shares do not add up to 100"
# No objdump (nor any other program) is started. (LeakSanitizer cannot
# run under ptrace: a sanitized build checks leaks in the runs above.)
if command -v strace >/dev/null; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=execve \
		-o "$T/trace" "$KILN" annotate -l -i "$T/p.data" >/dev/null 2>&1 ||
		fail "kiln annotate failed under strace"
	[ "$(grep -c 'execve(' "$T/trace")" = 1 ] || fail "programs started: $(grep execve "$T/trace")"
fi
echo "ok: $sym, $(wc -l <"$T/p.rows") instructions"
