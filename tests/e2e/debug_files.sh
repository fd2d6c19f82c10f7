#!/bin/sh
# Separate debug files found as gdb and perf find them. One stripped
# binary with a .gnu_debuglink is recorded once; its static functions
# (hidden_spin, hidden_outer) must be named when the debug file sits
# beside it, in .debug/, under the debug directory (--debug-dir, and
# SYMFS/usr/lib/debug/DIR with --symfs), by build-id in the debug
# directory and in perf's ~/.debug cache, compressed with zlib or zstd,
# and from MiniDebugInfo made the way Fedora makes it. A debug file whose
# CRC differs from the link's is never used, and a warning says so.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v objcopy >/dev/null && command -v xz >/dev/null || skip "needs objcopy and xz"

B="$T/bin"
mkdir -p "$B"
cat >"$T/p.c" <<'EOF'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void hidden_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}
__attribute__((noinline)) static void hidden_outer(unsigned long n)
{
	hidden_spin(n);
	sink++;
}
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.5;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		hidden_outer(100000);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return 0;
}
EOF
cc -O1 -g -fno-omit-frame-pointer -o "$T/p" "$T/p.c" || fail "cannot compile"
objcopy --only-keep-debug "$T/p" "$T/p.debug" || fail "objcopy --only-keep-debug"
strip --strip-all -o "$T/p.stripped" "$T/p" || fail strip
objcopy --add-gnu-debuglink="$T/p.debug" "$T/p.stripped" "$B/prog" || fail "add-gnu-debuglink"
chmod +x "$B/prog"
id=$(readelf -n "$B/prog" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || fail "no build-id"
idd=$(echo "$id" | cut -c1-2)
idr=$(echo "$id" | cut -c3-)

"$KILN" record -q -g -F 999 -o "$T/p.data" -- "$B/prog" 0.5 2>/dev/null || fail "record failed"
export HOME="$T/home"
mkdir -p "$HOME"

# check WHAT [kiln collapse options]: the static functions are named.
check() {
	what=$1
	shift
	"$KILN" collapse "$@" "$T/p.data" >"$T/out" 2>"$T/err" || fail "$what: collapse failed: $(cat "$T/err")"
	grep -q ';hidden_spin' "$T/out" ||
		fail "$what: hidden_spin not named: $(sort -t' ' -k2 -nr "$T/out" | head -2)"
}
# absent WHAT: nothing names them (the layout was cleaned up).
absent() {
	"$KILN" collapse "$T/p.data" >"$T/out" 2>"$T/err" || fail "$1: collapse failed"
	! grep -q 'hidden_spin' "$T/out" || fail "$1: hidden_spin named without a debug file"
}
absent "stripped alone"

cp "$T/p.debug" "$B/p.debug"
check "beside the binary"
rm "$B/p.debug"

mkdir -p "$B/.debug"
cp "$T/p.debug" "$B/.debug/p.debug"
check "in .debug/"
rm -r "$B/.debug"

mkdir -p "$T/dbg$B"
cp "$T/p.debug" "$T/dbg$B/p.debug"
check "--debug-dir DIR/path" --debug-dir "$T/dbg"
rm -r "$T/dbg"

mkdir -p "$T/dbg/.build-id/$idd"
cp "$T/p.debug" "$T/dbg/.build-id/$idd/$idr.debug"
check "--debug-dir build-id" --debug-dir "$T/dbg"
rm -r "$T/dbg"

mkdir -p "$HOME/.debug/.build-id/$idd/$idr"
cp "$T/p.debug" "$HOME/.debug/.build-id/$idd/$idr/debug"
check "~/.debug build-id cache"
rm -r "$HOME/.debug"

# --symfs: the binary and its debug file both under a copied root.
S="$T/symfs"
mkdir -p "$S$B" "$S/usr/lib/debug$B"
cp "$B/prog" "$S$B/prog"
cp "$T/p.debug" "$S/usr/lib/debug$B/p.debug"
mv "$B/prog" "$T/prog.away"
check "--symfs" --symfs "$S"
mv "$T/prog.away" "$B/prog"

# Compressed debug sections: a binary without .eh_frame or frame pointers
# unwinds (--call-graph dwarf) only through the .debug_frame of its debug
# file, so the whole chain shows only if that section decompresses.
# (The C runtime's objects bring an .eh_frame of their own: removed.)
cc -O1 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-o "$T/q0" "$T/p.c" || fail "cannot compile q"
objcopy -R .eh_frame -R .eh_frame_hdr "$T/q0" "$T/q" || fail "cannot remove .eh_frame"
objcopy --only-keep-debug "$T/q" "$T/q.debug" 2>/dev/null && strip --strip-all -o "$B/q" "$T/q" || fail "split q"
qid=$(readelf -n "$B/q" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
qdir="$T/qdbg/.build-id/$(echo "$qid" | cut -c1-2)"
qfile="$qdir/$(echo "$qid" | cut -c3-).debug"
mkdir -p "$qdir"
"$KILN" record -q --call-graph dwarf -F 999 -o "$T/q.data" -- "$B/q" 0.5 2>/dev/null || fail "record q failed"
chain() {
	"$KILN" collapse --debug-dir "$T/qdbg" "$T/q.data" 2>"$T/err" >"$T/out" || fail "$1: collapse failed"
	awk '/;main;hidden_outer;hidden_spin( |$)/ { n += $NF } { t += $NF } END { print n + 0, t + 0 }' "$T/out"
}
set -- $(chain "no debug file")
[ "$1" = 0 ] || fail "the chain unwound without .debug_frame ($1 of $2)"
for z in none zlib zstd; do
	if [ $z = none ]; then
		cp "$T/q.debug" "$qfile"
	elif objcopy --compress-debug-sections=$z "$T/q.debug" "$qfile" 2>/dev/null; then
		readelf -SW "$qfile" | grep -q '\.debug_frame .* C ' || fail "$z: .debug_frame not compressed"
	else
		echo "note: objcopy cannot write $z sections"
		continue
	fi
	set -- $(chain "$z")
	# Most samples are in hidden_spin, under hidden_outer and main.
	[ "$1" -gt 0 ] && [ $(( $1 * 2 )) -gt "$2" ] ||
		fail "$z: main;hidden_outer;hidden_spin in $1 of $2 samples"
	echo "$z: main;hidden_outer;hidden_spin in $1 of $2 samples"
done

# MiniDebugInfo, made as Fedora makes it: the function symbols .dynsym
# lacks, in a symbol-only ELF, xz-compressed into .gnu_debugdata.
nm -D "$T/p" --format=posix --defined-only | awk '{print $1}' | sort >"$T/dyn"
nm "$T/p" --format=posix --defined-only | awk '$2 == "T" || $2 == "t" {print $1}' | sort >"$T/funcs"
comm -13 "$T/dyn" "$T/funcs" >"$T/keep"
objcopy --only-keep-debug "$T/p" "$T/mini" &&
	objcopy -S --remove-section .gdb_index --remove-section .comment \
		--keep-symbols="$T/keep" "$T/mini" "$T/mini2" &&
	xz -c "$T/mini2" >"$T/mini.xz" &&
	strip --strip-all -R .comment -o "$T/m" "$T/p" &&
	objcopy --add-section .gnu_debugdata="$T/mini.xz" "$T/m" "$B/mini" || fail "MiniDebugInfo"
chmod +x "$B/mini"
"$KILN" record -q -g -F 999 -o "$T/m.data" -- "$B/mini" 0.3 2>/dev/null || fail "record mini failed"
"$KILN" collapse "$T/m.data" >"$T/out" 2>"$T/err" || fail "mini: collapse failed"
grep -q ';hidden_spin' "$T/out" || fail "MiniDebugInfo: hidden_spin not named: $(head -3 "$T/out")"
"$KILN" script -i "$T/m.data" 2>/dev/null | grep -q "hidden_spin+0x[0-9a-f]* ($B/mini)" ||
	fail "MiniDebugInfo: kiln script does not name hidden_spin"

# A debug file whose CRC is not the link's: never used, one warning.
cp "$T/p.debug" "$B/p.debug"
printf 'X' | dd of="$B/p.debug" bs=1 seek=100 conv=notrunc 2>/dev/null
"$KILN" collapse "$T/p.data" >"$T/out" 2>"$T/err" || fail "bad CRC: collapse failed"
! grep -q 'hidden_spin' "$T/out" || fail "a debug file with the wrong CRC was used"
[ "$(grep -c 'p.debug.*CRC' "$T/err")" = 1 ] || fail "bad CRC: expected one warning, got: $(cat "$T/err")"
rm "$B/p.debug"

echo ok
