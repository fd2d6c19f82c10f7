#!/bin/sh
# kiln annotate names C++ functions as the other commands do: demangled
# (perf's way, no parameter lists) in the function line, the inline
# function rows and branch targets; as the binary spells them with
# --no-demangle. A symbol is found by either spelling.
. "$(dirname "$0")/lib.sh"
need_perf_events
: "${CXXPROG:?}"
"$KILN" record -q -F 499 -o "$T/c.data" -- "$CXXPROG" 1 || fail "record failed"
op='render::Shader<unsigned long>::operator()'
"$KILN" annotate -i "$T/c.data" --top 1 >"$T/d.txt" 2>"$T/err" || fail "annotate failed: $(cat "$T/err")"
grep -qF " <$op>:" "$T/d.txt" || fail "no demangled function line: $(grep '<' "$T/d.txt" | head -3)"
grep -qF " <$op+0x" "$T/d.txt" || fail "no demangled branch target: $(grep 'j' "$T/d.txt" | head -3)"
! grep -q '_ZN' "$T/d.txt" || fail "a mangled name: $(grep '_ZN' "$T/d.txt" | head -2)"
"$KILN" annotate -i "$T/c.data" --top 1 --no-demangle >"$T/m.txt" 2>"$T/err" ||
	fail "annotate --no-demangle failed: $(cat "$T/err")"
grep -qF ' <_ZNK6render6ShaderImEclEm>:' "$T/m.txt" || fail "--no-demangle: no mangled function line"
grep -qF ' <_ZNK6render6ShaderImEclEm+0x' "$T/m.txt" || fail "--no-demangle: no mangled branch target"
! grep -qF 'render::' "$T/m.txt" || fail "--no-demangle: a demangled name"
# Either spelling names the symbol: the same annotation.
"$KILN" annotate -i "$T/c.data" "$op" >"$T/s1.txt" || fail "annotate '$op' failed"
"$KILN" annotate -i "$T/c.data" -s _ZNK6render6ShaderImEclEm >"$T/s2.txt" || fail "annotate -s MANGLED failed"
[ "$(grep -c '^ Percent' "$T/s1.txt")" = 1 ] || fail "'$op': $(grep -c '^ Percent' "$T/s1.txt") annotations"
cmp -s "$T/s1.txt" "$T/s2.txt" || fail "the two spellings give different annotations"
cmp -s "$T/s1.txt" "$T/d.txt" || fail "the named symbol differs from --top 1's"
echo ok
