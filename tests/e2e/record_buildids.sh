#!/bin/sh
# kiln record writes perf's build-id table: the running kernel and every
# binary mapped executable, each with the id its file carries; perf
# buildid-list reads it. A binary replaced after recording is then not
# used for symbols (kiln says so once), and kiln script prints what perf
# script prints for that file, byte for byte.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf
command -v gcc >/dev/null || skip "gcc is not installed"

"$KILN" record -g -o "$T/a.data" -- "$BURN" 0.3 2>"$T/a.err" || fail "record: $(cat "$T/a.err")"
perf buildid-list -i "$T/a.data" >"$T/ids" 2>/dev/null || fail "perf buildid-list cannot read kiln's file"
want=$(readelf -n "$BURN" | awk '/Build ID/ { print $3 }')
[ -n "$want" ] || fail "no build-id in $BURN"
grep -qx "$want $BURN" "$T/ids" || fail "burn's build-id $want not listed: $(cat "$T/ids")"
libc=$(awk '/libc\.so/ { print $2; exit }' "$T/ids")
[ -n "$libc" ] || fail "libc not listed: $(cat "$T/ids")"
libc_id=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
grep -qx "$libc_id $libc" "$T/ids" || fail "libc's build-id differs from readelf's"
kid=$(perf buildid-list -k 2>/dev/null)
if [ -n "$kid" ]; then
	grep -qx "$kid \[kernel.kallsyms\]" "$T/ids" || fail "kernel build-id $kid not listed: $(cat "$T/ids")"
fi

# A program of our own (never in a build-id cache), recorded, then
# replaced by another build: its samples must not take the new file's names.
cat >"$T/spin.c" <<'EOF'
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) void spin_here(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}
int main(int c, char **v)
{
	(void)c;
	spin_here(strtoul(v[1], 0, 10));
	return 0;
}
EOF
gcc -O1 -o "$T/spin" "$T/spin.c" || fail "cannot build the test program"
"$KILN" record -o "$T/b.data" -- "$T/spin" 300000000 2>"$T/b.err" || fail "record: $(cat "$T/b.err")"
"$KILN" script -i "$T/b.data" 2>/dev/null | grep -q spin_here || fail "spin_here not found before the rebuild"
sed 's/i \* 7/i * 9/; s/spin_here/other_name/' "$T/spin.c" >"$T/spin2.c"
gcc -O1 -o "$T/spin" "$T/spin2.c" || fail "cannot rebuild the test program"
"$KILN" script -i "$T/b.data" >"$T/kiln.txt" 2>"$T/kiln.err" || fail "kiln script: $(cat "$T/kiln.err")"
grep -q "other_name" "$T/kiln.txt" && fail "symbols taken from the rebuilt binary"
grep -q "build-id mismatch" "$T/kiln.err" || fail "no build-id mismatch warning: $(cat "$T/kiln.err")"
[ "$(grep -c "build-id mismatch" "$T/kiln.err")" -eq 1 ] || fail "the mismatch was said more than once"
perf script -i "$T/b.data" >"$T/perf.txt" 2>/dev/null || fail "perf script failed"
same_script "$T/kiln.txt" "$T/perf.txt" || fail "kiln script differs from perf script: $(diff "$T/kiln.txt" "$T/perf.txt" | head -5)"
echo "ok: $(wc -l <"$T/ids") build-ids listed; the rebuilt binary was refused, as perf refuses it"
