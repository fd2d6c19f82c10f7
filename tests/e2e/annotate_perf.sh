#!/bin/sh
# kiln annotate against perf annotate --stdio on the hottest symbol of
# recordings of tests/progs/inlines.c (-O2 -g, a known inline chain): by
# perf without stacks, by perf with --call-graph dwarf, by kiln record -g.
# Checked on each:
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

# The checks below on one recording ($1), named $2 in messages.
compare() {
	data=$1
	# The hottest user symbol by kiln's count; perf report's first row.
	"$KILN" annotate -i "$data" --top 1 >"$T/top.txt" 2>"$T/err" ||
		fail "$2: kiln annotate --top 1 failed: $(cat "$T/err")"
	[ "$(grep -c '^ Percent |' "$T/top.txt")" = 1 ] || fail "$2: --top 1 printed $(grep -c '^ Percent |' "$T/top.txt") annotations"
	sym=$(sed -n 's/^ *: [0-9a-f]\{16\} <\(.*\)>:$/\1/p' "$T/top.txt" | head -1)
	[ -n "$sym" ] || fail "$2: no symbol in kiln's --top 1 text"
	psym=$(perf report --stdio --no-children -i "$data" 2>/dev/null |
		awk '!/^#/ && /%/ { sub(/.*\] /, ""); sub(/ +$/, ""); print; exit }')
	if [ -n "$psym" ]; then
		[ "$sym" = "$psym" ] || fail "$2: --top 1 annotates $sym, perf report's first row is $psym"
	fi
	"$KILN" annotate --stdio -i "$data" "$sym" >"$T/kiln.txt" 2>"$T/err" ||
		fail "$2: kiln annotate $sym failed: $(cat "$T/err")"
	perf annotate --stdio -i "$data" -s "$sym" >"$T/perf.txt" 2>/dev/null ||
		{ echo "$2: perf annotate failed"; return 2; }
	grep -q '^ Percent |' "$T/perf.txt" || { echo "$2: perf annotate printed no annotation"; return 2; }

	# Header and dashes.
	[ "$(head -2 "$T/kiln.txt")" = "$(head -2 "$T/perf.txt")" ] ||
		fail "$2: header differs: kiln: $(head -1 "$T/kiln.txt") perf: $(head -1 "$T/perf.txt")"
	rows "$T/kiln.txt" >"$T/k.rows"
	rows "$T/perf.txt" >"$T/p.rows"
	[ -s "$T/p.rows" ] || fail "$2: no instruction rows in perf's text"
	cut -f1,3 "$T/p.rows" >"$T/p.text"
	cut -f1,3 "$T/k.rows" >"$T/k.text"
	cmp -s "$T/p.text" "$T/k.text" ||
		fail "$2: instructions differ: $(diff "$T/p.text" "$T/k.text" | head -5)"
	# Top five by perf's share: kiln's within 1 point.
	sort -t'	' -k2,2nr "$T/p.rows" | head -5 | while IFS='	' read -r a p _; do
		k=$(awk -F'\t' -v a="$a" '$1 == a { print $2 }' "$T/k.rows")
		awk -v k="$k" -v p="$p" 'BEGIN { d = k - p; exit !(d <= 1 && d >= -1) }' ||
			fail "$2: $sym+$a: kiln $k%, perf $p%"
		echo "$a: kiln $k% perf $p%"
	done || exit 1
	awk -F'\t' '{ s += $2 } END { exit !(s > 99.5 && s < 100.5) }' "$T/k.rows" ||
		fail "$2: kiln's shares do not add up to 100"
	# Per-line summary: perf annotate --print-line's.
	"$KILN" annotate -l -i "$data" "$sym" |
		sed -n '/^Sorted summary/,/^ Percent/p' | grep -E '^ +[0-9]' >"$T/k.sum"
	[ -s "$T/k.sum" ] || fail "$2: kiln annotate -l printed no summary"
	perf annotate --stdio --print-line -i "$data" -s "$sym" 2>/dev/null |
		sed -n '/^Sorted summary/,/^ Percent/p' | grep -E '^ +[0-9]' >"$T/p.sum"
	if [ -s "$T/p.sum" ]; then
		cmp -s "$T/k.sum" "$T/p.sum" || fail "$2: line summary differs: $(diff "$T/p.sum" "$T/k.sum" | head -5)"
	fi
	# --sort-by-lines: the hottest line of the summary first, the shares add up to 100.
	"$KILN" annotate --sort-by-lines -i "$data" "$sym" >"$T/bylines.txt" ||
		fail "$2: kiln annotate --sort-by-lines failed"
	first=$(awk '/^ +[0-9.]+ : [^ ]+:[0-9]+/ { print $3; exit }' "$T/bylines.txt")
	[ "$first" = "$(awk '{ print $2; exit }' "$T/k.sum")" ] ||
		fail "$2: --sort-by-lines starts with $first, the summary with $(head -1 "$T/k.sum")"
	awk '/^ +[0-9.]+ : / { s += $1 } END { exit !(s > 99.5 && s < 100.5) }' "$T/bylines.txt" ||
		fail "$2: --sort-by-lines shares do not add up to 100"
}
compare "$T/p.data" "perf record" || skip "perf could not annotate its own recording"
perf record -q -F 999 --call-graph dwarf -o "$T/d.data" -- "$INLINES" 1 2>/dev/null &&
	compare "$T/d.data" "perf record --call-graph dwarf"
"$KILN" record -q -g -F 999 -o "$T/k.data" -- "$INLINES" 1 2>/dev/null &&
	compare "$T/k.data" "kiln record -g"
# No objdump (nor any other program) is started. (LeakSanitizer cannot
# run under ptrace: a sanitized build checks leaks in the runs above.)
if command -v strace >/dev/null; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=execve \
		-o "$T/trace" "$KILN" annotate -l -i "$T/p.data" >/dev/null 2>&1 ||
		fail "kiln annotate failed under strace"
	[ "$(grep -c 'execve(' "$T/trace")" = 1 ] || fail "programs started: $(grep execve "$T/trace")"
fi
echo "ok: $sym, $(wc -l <"$T/p.rows") instructions"
