#!/bin/sh
# perf's ownership rule: root refuses a perf.data owned by another user
# (not root, not itself) unless -f/--force; exit 1 with a one-line
# message. perf script is run on the same file to show it refuses too.
# The same file owned by the caller, or with -f, reads normally.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (chown)"
src=$(dirname "$0")/../../fuzz/corpus/perfdata/kiln-g-sleep.data
cp "$src" "$T/own.data"
"$KILN" script -i "$T/own.data" >"$T/mine.txt" 2>"$T/err" || fail "own file: $(cat "$T/err")"
chown 65534:65534 "$T/own.data"

if command -v perf >/dev/null; then
	perf script -i "$T/own.data" >/dev/null 2>"$T/perf.err" && fail "perf read another user's file"
	grep -q "not owned by current user or root (use -f to override)" "$T/perf.err" ||
		fail "perf's message changed: $(cat "$T/perf.err")"
fi

for cmd in "script -i" "collapse" "flame -o $T/f.svg -i"; do
	# shellcheck disable=SC2086
	"$KILN" $cmd "$T/own.data" >"$T/out" 2>"$T/err"
	st=$?
	[ $st = 1 ] || fail "kiln $cmd on another user's file: exit $st, want 1"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "kiln $cmd: not one line: $(cat "$T/err")"
	grep -q "^error: $T/own.data: not owned by current user or root (use -f to override)$" "$T/err" ||
		fail "kiln $cmd: message: $(cat "$T/err")"
	[ -s "$T/out" ] && fail "kiln $cmd wrote output"
	[ -e "$T/f.svg" ] && fail "kiln $cmd wrote an SVG"
	# shellcheck disable=SC2086
	"$KILN" $cmd "$T/own.data" -f >"$T/out" 2>"$T/err" || fail "kiln $cmd -f: $(cat "$T/err")"
done
"$KILN" script --force -i "$T/own.data" >"$T/forced.txt" 2>"$T/err" || fail "--force: $(cat "$T/err")"
cmp -s "$T/mine.txt" "$T/forced.txt" || fail "forced read differs from the owner's"
[ -s "$T/f.svg" ] || fail "flame -f wrote no SVG"

# Root's own files pass without -f; standard input has no owner to check.
chown 0:0 "$T/own.data"
"$KILN" collapse "$T/own.data" >/dev/null 2>"$T/err" || fail "root-owned: $(cat "$T/err")"
chown 65534:65534 "$T/own.data"
"$KILN" collapse - <"$T/own.data" >/dev/null 2>"$T/err" || fail "stdin: $(cat "$T/err")"
echo "ok: another user's perf.data refused without -f by script, collapse, flame"
