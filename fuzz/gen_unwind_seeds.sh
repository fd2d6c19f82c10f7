#!/bin/sh
# Write the seeds of fuzz_unwind and fuzz_cfi that come from a real stack:
# fuzz/unwind_snap.c, built static and non-PIE (run-time addresses are
# link-time ones) at -O0 (frame pointers), -O1, -O2 -fomit-frame-pointer
# and with .debug_frame only, captures its registers and 3 KiB of stack six
# calls deep; each capture gets its binary's .eh_frame (or .debug_frame)
# and its link-time address. Also a frame-pointer-only variant (flags bit
# 1) and the sections alone for fuzz_cfi. Needs gcc and binutils.
#
#   fuzz/gen_unwind_seeds.sh [OUTDIR]   (default: fuzz/corpus)
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=${1:-$src/corpus}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out/unwind" "$out/cfi"
build() { # name, section, gcc flags...
	name=$1 sec=$2
	shift 2
	gcc "$@" -static -no-pie -o "$tmp/$name" "$src/unwind_snap.c"
	"$tmp/$name" "$tmp/$name.raw" 6
	objcopy --dump-section "$sec=$tmp/$name.sec" "$tmp/$name" "$tmp/$name.tmp"
	addr=$(readelf -SW "$tmp/$name" | awk -v s="$sec" '$2 == s { print $4 } $3 == s { print $5 }')
	python3 - "$tmp/$name.raw" "$tmp/$name.sec" "$addr" "$sec" "$out" "$name" <<'PY'
import struct, sys
raw, sec, addr, secname, out, name = sys.argv[1:]
r = open(raw, 'rb').read()
c = open(sec, 'rb').read()
vaddr = int(addr, 16)
dbg = 1 if secname == '.debug_frame' else 0
regs, stack = r[17:17 + 136], r[17 + 136:]
valid = struct.unpack_from('<I', r, 1)[0]
def seed(flags, cfi):
    return struct.pack('<BIIQ', flags, valid, len(cfi), vaddr) + regs + cfi + stack
open(f'{out}/unwind/snap-{name}', 'wb').write(seed(dbg, c))
if name == 'O0':
    open(f'{out}/unwind/snap-{name}-fp-only', 'wb').write(seed(2, b''))
open(f'{out}/cfi/snap-{name}', 'wb').write(struct.pack('<BQ', dbg, vaddr) + c)
PY
}
build O0 .eh_frame -O0 -fno-omit-frame-pointer
build O1 .eh_frame -O1
build O2 .eh_frame -O2 -fomit-frame-pointer
build dbg .debug_frame -O2 -g -fno-asynchronous-unwind-tables
