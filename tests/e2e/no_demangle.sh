#!/bin/sh
# --no-demangle: C++ names as the binary spells them. `kiln script
# --no-demangle` prints what `perf script --no-demangle` prints, byte for
# byte; collapse and flame show the mangled names (and only those).
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf
: "${CXXPROG:?}"
"$KILN" record -q -g -F 499 -o "$T/c.data" -- "$CXXPROG" 1 2>/dev/null || fail "record failed"
"$KILN" script --no-demangle -i "$T/c.data" >"$T/kiln.txt" 2>/dev/null || fail "kiln script failed"
perf script --no-demangle -i "$T/c.data" >"$T/perf.txt" 2>/dev/null || fail "perf script failed"
grep -q ' _ZN6render' "$T/kiln.txt" || fail "no mangled render:: name in kiln script --no-demangle"
same_script "$T/kiln.txt" "$T/perf.txt" || fail "kiln script --no-demangle differs from perf's: $(diff "$T/kiln.txt" "$T/perf.txt" | head -4)"
"$KILN" collapse --no-demangle "$T/c.data" >"$T/m.folded" 2>/dev/null || fail "collapse failed"
grep -q ';_ZN6render' "$T/m.folded" || fail "collapse --no-demangle: no mangled name"
! grep -q 'render::' "$T/m.folded" || fail "collapse --no-demangle: a demangled name"
"$KILN" collapse "$T/c.data" 2>/dev/null | grep -q 'render::' || fail "collapse: names not demangled by default"
"$KILN" flame --no-demangle -i "$T/c.data" -o "$T/m.svg" 2>/dev/null || fail "flame failed"
grep -q '_ZN6render' "$T/m.svg" || fail "flame --no-demangle: no mangled name"
echo "ok: $(grep -c ' _ZN' "$T/kiln.txt") mangled frames, as perf prints them"
