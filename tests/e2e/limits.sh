#!/bin/sh
# Limits on the command line (docs/LIMITS.md): --call-graph dwarf,SIZE
# accepts the kernel's largest stack copy, 65528 bytes, and refuses 65529
# (exit 2, naming the range) without leaving a file.
. "$(dirname "$0")/lib.sh"
"$KILN" record -q --call-graph dwarf,65529 -o "$T/x.data" -- true 2>"$T/err"
st=$?
[ $st = 2 ] || fail "dwarf,65529: exit $st, want 2"
grep -q "65528" "$T/err" || fail "message does not give the limit: $(cat "$T/err")"
[ ! -e "$T/x.data" ] || fail "a file was left for a usage error"
need_perf_events
"$KILN" record -q --call-graph dwarf,65528 -o "$T/y.data" -- "$BURN" 0.2 2>"$T/err" ||
	fail "dwarf,65528 refused: $(cat "$T/err")"
"$KILN" collapse "$T/y.data" | grep -q '^burn;.*main;' || fail "no DWARF stacks with a 65528-byte copy"
echo "ok: dwarf stack copy limit 65528"
