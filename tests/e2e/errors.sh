#!/bin/sh
# The exit-code contract and messages for bad input and bad use; no broken
# files left behind.
. "$(dirname "$0")/lib.sh"
code() { "$@" >"$T/out" 2>"$T/err"; echo $?; }

[ "$(code "$KILN" frobnicate)" = 2 ] || fail "unknown command is not exit 2"
[ "$(code "$KILN" record --no-such-flag)" = 2 ] || fail "bad flag is not exit 2"
[ "$(code "$KILN" record)" = 2 ] || fail "record with no target is not exit 2"
[ "$(code "$KILN" record -F 0 -- true)" = 2 ] || fail "-F 0 is not exit 2"

: >"$T/empty"
[ "$(code "$KILN" collapse "$T/empty")" = 3 ] || fail "empty file is not exit 3"
grep -q "empty file" "$T/err" || fail "no 'empty file' message: $(cat "$T/err")"
[ "$(code "$KILN" collapse /etc/passwd)" = 3 ] || fail "text file is not exit 3"
grep -q "not a perf.data file" "$T/err" || fail "no magic message: $(cat "$T/err")"
[ "$(code "$KILN" collapse "$T/missing.data")" = 1 ] || fail "missing file is not exit 1"
grep -q "missing.data" "$T/err" || fail "message does not name the file"
printf 'PERFILE2\150\0\0\0\0\0\0\0' >"$T/short"
[ "$(code "$KILN" collapse "$T/short")" = 3 ] || fail "short header is not exit 3"
grep -q "header truncated" "$T/err" || fail "no truncation message: $(cat "$T/err")"

need_perf_events
"$KILN" record -q -g -o "$T/k.data" -- "$BURN" 0.5 || fail "record failed"
size=$(stat -c %s "$T/k.data")
head -c $((size * 3 / 4)) "$T/k.data" >"$T/cut.data"
[ "$(code "$KILN" collapse "$T/cut.data")" = 4 ] || fail "truncated file is not exit 4 (partial): $(cat "$T/err")"
grep -q "offset 0x" "$T/err" || fail "partial message names no offset: $(cat "$T/err")"
grep -q "^burn;" "$T/out" || fail "no results from the valid prefix"

[ "$(code "$KILN" record -o "$T/x.data" -- /nonexistent/command)" = 127 ] || fail "missing command is not exit 127"
grep -q "cannot run" "$T/err" || fail "no 'cannot run' message"
[ ! -e "$T/x.data" ] || fail "a file was left behind for a failed run"
ls -A "$T" | grep -q 'kiln-tmp' && fail "temporary file left behind"
[ "$(code "$KILN" record -q -o "$T/y.data" -- sh -c 'exit 3')" = 3 ] || fail "command status not mirrored"
[ -s "$T/y.data" ] || fail "no file for a command that exited 3"
echo ok
