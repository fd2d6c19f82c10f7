#!/bin/sh
# A perf.data recorded on another architecture (RELIABILITY.md P17):
# kiln's DWARF unwinder knows x86_64 registers and CFI only. A
# --call-graph dwarf recording whose HEADER_ARCH is patched to aarch64
# is read with one warning and leaf-only user stacks (never stacks
# unwound with the wrong register numbering); the unpatched file unwinds
# to main and prints no such warning.
. "$(dirname "$0")/lib.sh"
need_perf_events
"$KILN" record -q --call-graph dwarf -o "$T/x.data" -- "$BURN" 0.3 2>/dev/null || fail "record failed"
python3 - "$T/x.data" "$T/a.data" aarch64 <<'PY' || fail "cannot patch HEADER_ARCH"
import struct, sys
src, dst, arch = sys.argv[1], sys.argv[2], sys.argv[3].encode()
b = bytearray(open(src, 'rb').read())
doff, dsize = struct.unpack_from('<QQ', b, 40)
bits = int.from_bytes(b[72:104], 'little')
assert bits >> 6 & 1, 'no HEADER_ARCH feature'
idx = bin(bits & 0x3f).count('1')  # features before ARCH (bit 6)
off, _ = struct.unpack_from('<QQ', b, doff + dsize + 16 * idx)
n = struct.unpack_from('<I', b, off)[0]
assert b[off + 4:off + 11] == b'x86_64\0' and len(arch) < n
b[off + 4:off + 4 + n] = arch + bytes(n - len(arch))
open(dst, 'wb').write(b)
PY
"$KILN" collapse "$T/x.data" >"$T/x.folded" 2>"$T/x.err" || fail "collapse of the x86_64 file failed"
grep -q ';main;render_frame;shade_pixels' "$T/x.folded" || fail "x86_64 file: no unwound stacks"
grep -q "DWARF unwinding is for x86_64 only" "$T/x.err" && fail "x86_64 file: foreign-arch warning"
for cmd in collapse "script -i"; do
	# shellcheck disable=SC2086
	"$KILN" $cmd "$T/a.data" >"$T/a.out" 2>"$T/a.err" || fail "kiln $cmd of the aarch64 file failed"
	[ "$(grep -c "recorded on aarch64: DWARF unwinding is for x86_64 only" "$T/a.err")" = 1 ] ||
		fail "kiln $cmd: want one warning: $(cat "$T/a.err")"
done
"$KILN" collapse "$T/a.data" >"$T/a.folded" 2>/dev/null
grep -q ';main;' "$T/a.folded" && fail "aarch64 file: stacks were unwound"
grep -q '^burn;shade_pixels ' "$T/a.folded" || fail "aarch64 file: no leaf frames: $(head -3 "$T/a.folded")"
echo "ok: foreign-arch DWARF samples kept leaf-only with one warning"
