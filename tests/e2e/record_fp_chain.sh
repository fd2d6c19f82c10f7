#!/bin/sh
# kiln record -g of a program with a known call chain: kiln's folded stacks
# show the chain, perf script and perf report read kiln's file and show the
# same stacks.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf
"$KILN" record -q -g -F 999 -o "$T/k.data" -- "$BURN" 1 || fail "record failed"
"$KILN" collapse "$T/k.data" >"$T/kiln.folded" || fail "collapse failed"
grep -q '^burn;.*main;render_frame;shade_pixels [0-9]' "$T/kiln.folded" || fail "chain main;render_frame;shade_pixels missing"
grep -q '^burn;.*main;parse_input;tokenize [0-9]' "$T/kiln.folded" || fail "chain main;parse_input;tokenize missing"
perf script -i "$T/k.data" >"$T/perf.txt" 2>"$T/perf.err" || fail "perf script cannot read kiln's file: $(cat "$T/perf.err")"
python3 "$TESTLIB/perf_fold.py" "$T/perf.txt" >"$T/perf.folded"
grep -q 'main;render_frame;shade_pixels' "$T/perf.folded" || fail "perf does not see the chain"
python3 "$TESTLIB/fold_compare.py" "$T/kiln.folded" "$T/perf.folded" 0.99 || fail "kiln and perf disagree"
perf report -i "$T/k.data" --stdio --no-children 2>/dev/null >"$T/report.txt" || fail "perf report failed"
grep -q shade_pixels "$T/report.txt" || fail "perf report does not show shade_pixels"
echo "ok: kiln and perf agree on kiln's recording"
