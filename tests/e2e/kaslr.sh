#!/bin/sh
# A recording of a kernel loaded at another address (KASLR, another boot
# of the same kernel): kernel frames are named by relocating /proc/kallsyms
# by the difference between the running and the recorded address of the
# kernel MMAP's reference symbol, as perf does, in every command (one rule,
# pipeline/session). The recording is rewritten as if its kernel had been
# loaded 16 MiB higher (tests/lib/kaslr_shift.py): collapse and flame must
# name its kernel frames as for the original, script print the same
# symbols.
. "$(dirname "$0")/lib.sh"
need_perf_events
lib=$(dirname "$0")/../lib
"$KILN" record -q -g -o "$T/orig.data" -- "$BURN" 1 2>"$T/rec.err" ||
	fail "kiln record failed: $(cat "$T/rec.err")"
python3 "$lib/kaslr_shift.py" "$T/orig.data" "$T/moved.data" 0x1000000
st=$?
[ $st = 77 ] && skip "recording layout not handled by kaslr_shift.py"
[ $st = 0 ] || fail "kaslr_shift.py failed"

"$KILN" collapse --kernel "$T/orig.data" >"$T/orig.folded" 2>/dev/null || fail "collapse of the recording failed"
# Kernel symbols known here at all (kallsyms readable, the kernel's frames sampled)?
grep -q ';[a-zA-Z_][a-zA-Z0-9_.]*_\[k\]' "$T/orig.folded" ||
	skip "no named kernel frames in the recording (kallsyms hidden, or no kernel samples)"
"$KILN" collapse --kernel "$T/moved.data" >"$T/moved.folded" 2>"$T/err" || fail "collapse of the moved recording failed"
cmp -s "$T/orig.folded" "$T/moved.folded" ||
	fail "collapse names kernel frames differently after the move: $(diff "$T/orig.folded" "$T/moved.folded" | head -5)"
# (the profile is named after the file: the same name in two directories)
mkdir "$T/a" "$T/b"
cp "$T/orig.data" "$T/a/p.data"
cp "$T/moved.data" "$T/b/p.data"
"$KILN" export -f speedscope -o "$T/orig.json" "$T/a/p.data" 2>/dev/null
"$KILN" export -f speedscope -o "$T/moved.json" "$T/b/p.data" 2>/dev/null
cmp -s "$T/orig.json" "$T/moved.json" || fail "speedscope export differs after the move"
"$KILN" script -F comm,tid,time,sym -i "$T/orig.data" >"$T/orig.txt" 2>/dev/null
"$KILN" script -F comm,tid,time,sym -i "$T/moved.data" >"$T/moved.txt" 2>/dev/null
cmp -s "$T/orig.txt" "$T/moved.txt" || fail "script symbols differ after the move"
echo "ok: kernel frames named alike after a 16 MiB move"
