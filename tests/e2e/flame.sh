#!/bin/sh
# kiln flame: record + render in one go, then render again from the file;
# the SVG is well-formed XML, names the known frames, and is deterministic.
. "$(dirname "$0")/lib.sh"
need_perf_events
"$KILN" flame -q -F 499 -i "$T/f.data" -o "$T/one.svg" -- "$BURN" 0.5 || fail "flame -- CMD failed"
[ -s "$T/f.data" ] || fail "no perf.data kept"
xmllint --noout "$T/one.svg" || fail "SVG is not well-formed"
grep -q 'shade_pixels' "$T/one.svg" || fail "shade_pixels missing from the SVG"
grep -q '<script' "$T/one.svg" || fail "no script: not interactive"
"$KILN" flame -i "$T/f.data" -o "$T/two.svg" 2>/dev/null || fail "flame -i failed"
"$KILN" flame -i "$T/f.data" -o "$T/three.svg" 2>/dev/null || fail "flame -i failed"
cmp -s "$T/two.svg" "$T/three.svg" || fail "flame output is not deterministic"
"$KILN" flame -i "$T/f.data" -o - >"$T/stdout.svg" 2>/dev/null || fail "flame -o - failed"
cmp -s "$T/two.svg" "$T/stdout.svg" || fail "stdout SVG differs from file SVG"
echo ok
