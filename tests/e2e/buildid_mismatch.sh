#!/bin/sh
# A binary replaced after recording (RELIABILITY.md S2): perf records the
# build-ids of the binaries it sampled; when the file at the path has
# another build-id, kiln warns once naming both ids and does not use it:
# its frames show as [prog], never as symbols of the wrong file.
. "$(dirname "$0")/lib.sh"
need_perf
cp "$BURN" "$T/prog"
perf record -q -g -o "$T/p.data" -- "$T/prog" 0.3 2>/dev/null || skip "perf record failed here"
"$KILN" collapse "$T/p.data" >"$T/before.folded" 2>/dev/null || fail "collapse failed"
grep -q '^prog;.*main;render_frame;shade_pixels' "$T/before.folded" || fail "no symbols before the swap"
cp /bin/true "$T/prog"
"$KILN" collapse "$T/p.data" >"$T/after.folded" 2>"$T/err" || fail "collapse after the swap failed"
[ "$(grep -c "build-id mismatch" "$T/err")" = 1 ] || fail "want one mismatch warning: $(cat "$T/err")"
grep -q "$T/prog: build-id mismatch (recorded [0-9a-f]*, on disk [0-9a-f]*); not used" "$T/err" ||
	fail "warning wording: $(cat "$T/err")"
grep -q ';main;\|render_frame' "$T/after.folded" && fail "symbols came from the replaced file"
grep -q '^prog;.*\[prog\]' "$T/after.folded" || fail "frames are not shown as [prog]"
echo "ok: replaced binary detected and not used"
