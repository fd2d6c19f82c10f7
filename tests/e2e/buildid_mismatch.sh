#!/bin/sh
# A binary replaced after recording (RELIABILITY.md S2): perf records the
# build-ids of the binaries it sampled; when the file at the path has
# another build-id, kiln warns once naming both ids and does not use it:
# its frames show as [prog], never as symbols of the wrong file. When
# perf's build-id cache (~/.debug, which perf record fills) holds the
# recorded file, that copy is used instead, as perf does.
. "$(dirname "$0")/lib.sh"
need_perf
cp "$BURN" "$T/prog"
mkdir -p "$T/home" "$T/nocache"
HOME="$T/home" perf record -q -g -o "$T/p.data" -- "$T/prog" 0.3 2>/dev/null || skip "perf record failed here"
"$KILN" collapse "$T/p.data" >"$T/before.folded" 2>/dev/null || fail "collapse failed"
grep -q '^prog;.*main;render_frame;shade_pixels' "$T/before.folded" || fail "no symbols before the swap"
# A new file, as a rebuild makes (perf may have hard-linked the old one into its cache).
rm -f "$T/prog"
cp /bin/true "$T/prog"
if ls "$T"/home/.debug/.build-id/*/*/elf >/dev/null 2>&1; then
	HOME="$T/home" "$KILN" collapse "$T/p.data" >"$T/cached.folded" 2>"$T/err" || fail "collapse with the cache failed"
	grep -q '^prog;.*main;render_frame;shade_pixels' "$T/cached.folded" ||
		fail "the build-id cache's copy was not used: $(cat "$T/err")"
	grep -q "build-id mismatch" "$T/err" && fail "mismatch warned although the cache had the file"
	echo "ok: the replaced binary's recorded copy came from the build-id cache"
fi
HOME="$T/nocache" "$KILN" collapse "$T/p.data" >"$T/after.folded" 2>"$T/err" || fail "collapse after the swap failed"
[ "$(grep -c "build-id mismatch" "$T/err")" = 1 ] || fail "want one mismatch warning: $(cat "$T/err")"
grep -q "$T/prog: no symbols: build-id mismatch (recorded [0-9a-f]*, on disk [0-9a-f]*); not used" "$T/err" ||
	fail "warning wording: $(cat "$T/err")"
grep -q ';main;\|render_frame' "$T/after.folded" && fail "symbols came from the replaced file"
grep -q '^prog;.*\[prog\]' "$T/after.folded" || fail "frames are not shown as [prog]"
echo "ok: replaced binary detected and not used"
