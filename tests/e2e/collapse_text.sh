#!/bin/sh
# kiln collapse on `perf script` text: every stackcollapse-perf.pl reference
# case in the shared data (input x --pid --tid --kernel --jit --all --addrs)
# gives the recorded result (sorted, or the newer .alt result), in Perl's
# own line order; standard input (file or pipe) gives the same; the event
# filter and sort order behave as the Perl script's; and live `perf script`
# output piped in folds into the known chain.
. "$(dirname "$0")/lib.sh"
export LC_ALL=C
data="${KILN_SHARED:-}/testdata/stackcollapse-perf"
[ -d "$data/results" ] || skip "no $data"

# same_sorted A B: A and B hold the same lines.
same_sorted() {
	sort "$1" >"$T/a.sorted"
	sort "$2" >"$T/b.sorted"
	cmp -s "$T/a.sorted" "$T/b.sorted"
}

cases=0
for in in "$data"/*.txt; do
	name=$(basename "$in" .txt)
	for opt in pid tid kernel jit all addrs; do
		want="$data/results/$name-collapsed-$opt.txt"
		alt="$data/results/$name-collapsed-$opt.alt.txt"
		[ -f "$want" ] || fail "no result file $want"
		"$KILN" collapse --$opt "$in" >"$T/out" 2>"$T/err" ||
			fail "$name --$opt: exit $?: $(cat "$T/err")"
		if same_sorted "$T/out" "$want"; then
			exact="$want"
		elif [ -f "$alt" ] && same_sorted "$T/out" "$alt"; then
			exact="$alt"
		else
			diff "$T/a.sorted" "$T/b.sorted" | head -20 >&2
			fail "$name --$opt differs from $(basename "$want")"
		fi
		cmp -s "$T/out" "$exact" || fail "$name --$opt: right lines, not in Perl's order"
		# Standard input, as a pipe and as a file, gives the same bytes.
		cat "$in" | "$KILN" collapse --$opt - >"$T/pipe" 2>/dev/null ||
			fail "$name --$opt: piped stdin failed"
		cmp -s "$T/out" "$T/pipe" || fail "$name --$opt: piped stdin differs"
		"$KILN" collapse --$opt - <"$in" >"$T/redir" 2>/dev/null ||
			fail "$name --$opt: stdin from a file failed"
		cmp -s "$T/out" "$T/redir" || fail "$name --$opt: stdin from a file differs"
		cases=$((cases + 1))
	done
	# No option: --kernel's result less its "_[k]" suffixes.
	"$KILN" collapse "$in" >"$T/plain" 2>/dev/null || fail "$name: no-option run failed"
	sed 's/_\[k\]//g' "$data/results/$name-collapsed-kernel.txt" >"$T/derived"
	same_sorted "$T/plain" "$T/derived" || fail "$name: no-option run is not --kernel less _[k]"
	cases=$((cases + 1))
done
[ $cases -ge 49 ] || fail "only $cases cases found"

# Event filter: the first event by default (with a note), else the named one.
ci="$data/perf-cycles-instructions-01.txt"
"$KILN" collapse "$ci" 2>"$T/err" >/dev/null || fail "cycles-instructions failed"
grep -q "only 'instructions' samples" "$T/err" || fail "no note on the default event: $(cat "$T/err")"
for ev in cycles instructions; do
	"$KILN" collapse --event-filter=$ev "$ci" >"$T/ev" 2>"$T/err" || fail "--event-filter=$ev failed"
	got=$(awk '{s += $NF} END {print s}' "$T/ev")
	want=$(grep -c " $ev: *\$" "$ci")
	[ "$got" = "$want" ] || fail "--event-filter=$ev folds $got samples, the text has $want"
	[ -s "$T/err" ] && fail "--event-filter=$ev: unexpected messages: $(cat "$T/err")"
done
"$KILN" collapse --event-filter=nope "$ci" >/dev/null 2>"$T/err"
[ $? = 3 ] || fail "an event with no samples is not exit 3"
grep -q "no samples of event 'nope'" "$T/err" || fail "no message for a missing event"

# Perl sorts the stacks before appending counts: "main" before "main<TAB>".
printf 'cc 1 [000] 1.0: 5 ev:\n\t1 main\t (x)\n\ncc 1 [000] 1.0: 7 ev:\n\t1 main (x)\n\n' |
	"$KILN" collapse - >"$T/order" || fail "order input failed"
printf 'cc;main 7\ncc;main\t 5\n' | cmp -s - "$T/order" || fail "not in Perl's order: $(cat -A "$T/order")"

# Not text, not perf.data; empty.
"$KILN" collapse /etc/passwd >/dev/null 2>"$T/err"
[ $? = 3 ] || fail "/etc/passwd is not exit 3"
grep -q "nor perf script output" "$T/err" || fail "no message for a non-profile file"

# Live: perf script text of a fresh recording, on a pipe.
if command -v perf >/dev/null && perf record -q -g -o "$T/p.data" -- "$BURN" 0.3 >/dev/null 2>&1; then
	perf script -i "$T/p.data" 2>/dev/null | "$KILN" collapse - >"$T/live" 2>"$T/err" ||
		fail "perf script | kiln collapse - failed: $(cat "$T/err")"
	grep -q 'main;render_frame;shade_pixels' "$T/live" || fail "no known chain from perf script text"
	"$KILN" collapse --event-filter=cycles "$T/p.data" >/dev/null 2>&1
	[ $? = 2 ] || fail "--event-filter on a perf.data is not a usage error"
	echo "ok: $cases shared cases; perf script text on a pipe"
else
	echo "ok: $cases shared cases (perf cannot record here: live part not run)"
fi
