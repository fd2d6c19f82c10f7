#!/bin/sh
# C++ names read as perf shows them: demangled without parameter lists
# (render::Shader<unsigned long>::operator(), render::(anonymous
# namespace)::blend, ...), in DWARF stacks; the same stacks as perf's
# (both without inline frames: inline_srcline.sh covers those).
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf
: "${CXXPROG:?}"
"$KILN" record -q --call-graph dwarf -F 499 -o "$T/c.data" -- "$CXXPROG" 1 2>/dev/null || fail "record failed"
"$KILN" collapse --no-inline "$T/c.data" >"$T/kiln.folded" 2>/dev/null || fail "collapse failed"
grep -q ';main;render::draw_frame;render::(anonymous namespace)::blend;render::Shader<unsigned long>::operator() ' "$T/kiln.folded" ||
	fail "demangled chain missing: $(sort -t' ' -k2 -nr "$T/kiln.folded" | head -3)"
perf script --no-inline --max-stack 1024 -i "$T/c.data" 2>/dev/null | python3 "$TESTLIB/perf_fold.py" >"$T/perf.folded"
python3 "$TESTLIB/fold_compare.py" "$T/kiln.folded" "$T/perf.folded" 0.98 || fail "kiln and perf disagree"
echo ok
