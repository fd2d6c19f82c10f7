#!/bin/sh
# Hostile names on the terminal: a program whose path holds an ESC
# sequence, a bidi override (U+202E) and an invalid UTF-8 byte is recorded
# (its comm gets them too), then deleted, so reading the profile warns
# about it by name. stderr must carry no raw control byte, C1 or bidi
# character, only their visible \xNN form; stdout (perf script text,
# folded stacks) stays byte-compatible with perf script, which prints
# names raw.
. "$(dirname "$0")/lib.sh"
need_perf_events
evil=$(printf 'ev\033[2J\342\200\256il\377')
cp "$BURN" "$T/$evil"
"$KILN" record -q -o "$T/h.data" -- "$T/$evil" 0.3 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
rm "$T/$evil"
# The recording lists the binary's build-id: a build-id cache holding a
# copy of burn (perf record keeps one in ~/.debug) would stand in for the
# deleted file. An empty HOME keeps the file missing, as this test needs.
HOME=$T
export HOME

# Bytes that must not reach a terminal raw: C0 but TAB/LF, DEL, the
# U+202E encoding, and 0xff.
raw_bad() {
	LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177\377]')" "$1" ||
		LC_ALL=C grep -q "$(printf '\342\200\256')" "$1"
}

"$KILN" script -i "$T/h.data" >"$T/script.out" 2>"$T/script.err"
st=$?
[ $st = 0 ] || fail "script: exit $st: $(cat "$T/script.err")"
"$KILN" collapse "$T/h.data" >"$T/folded" 2>"$T/collapse.err" || fail "collapse failed"
for e in script.err collapse.err rec.err; do
	raw_bad "$T/$e" && fail "$e holds raw control bytes: $(od -c "$T/$e" | head)"
done
grep -qF 'ev\x1b[2J\xe2\x80\xaeil\xff' "$T/script.err" ||
	fail "the deleted binary is not named, escaped, in a warning: $(cat "$T/script.err")"

# stdout keeps the raw bytes, as perf prints them.
LC_ALL=C grep -q "$(printf '\033')" "$T/folded" || fail "collapse lost the raw comm"
if command -v perf >/dev/null; then
	perf script -i "$T/h.data" 2>/dev/null >"$T/perf.out"
	LC_ALL=C grep -c "$(printf '\033\\[2J')" "$T/perf.out" >"$T/perf.n"
	LC_ALL=C grep -c "$(printf '\033\\[2J')" "$T/script.out" >"$T/kiln.n"
	cmp -s "$T/perf.n" "$T/kiln.n" ||
		fail "lines with the raw name: perf $(cat "$T/perf.n"), kiln $(cat "$T/kiln.n")"
fi
echo "ok: hostile names escaped on stderr ($(wc -l <"$T/script.err") warning lines), raw on stdout as perf"
