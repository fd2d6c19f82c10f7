#!/bin/sh
# Inputs that are not regular files (RELIABILITY.md P22, O11): /dev/zero
# and endless NUL bytes on stdin fail the magic check at once (exit 3),
# never read up to the 4 GiB text cap; a directory is exit 3; a named FIFO
# holding a perf.data is refused with a hint (stdin streams instead); and
# stdout closed early (`kiln script | head -1`) ends quietly, as perf does
# (it says nothing a whole run does not say: the seed's binaries may be
# another build on this machine, which kiln warns about);
# a header with data size 0 is read to the end of the file as partial.
. "$(dirname "$0")/lib.sh"
data=$(dirname "$0")/../../fuzz/corpus/perfdata/kiln-g-dash.data
code() { timeout 20 "$@" >"$T/out" 2>"$T/err"; echo $?; }

for cmd in collapse "flame -o $T/z.svg -i"; do
	# shellcheck disable=SC2086
	[ "$(code "$KILN" $cmd /dev/zero)" = 3 ] || fail "kiln $cmd /dev/zero: not exit 3: $(cat "$T/err")"
	grep -q "/dev/zero" "$T/err" || fail "kiln $cmd /dev/zero: message does not name it"
done
[ "$(code "$KILN" script -i /dev/zero)" = 3 ] || fail "script -i /dev/zero: not exit 3: $(cat "$T/err")"
grep -q "not a regular file" "$T/err" || fail "script -i /dev/zero: $(cat "$T/err")"
[ "$(timeout 20 "$KILN" collapse - </dev/zero >/dev/null 2>"$T/err"; echo $?)" = 3 ] ||
	fail "NUL bytes on stdin: not exit 3: $(cat "$T/err")"
grep -q "not a perf.data file, nor perf script output" "$T/err" || fail "stdin zeros: $(cat "$T/err")"
[ "$(code "$KILN" collapse "$T")" = 3 ] || fail "a directory: not exit 3: $(cat "$T/err")"

mkfifo "$T/fifo"
cat "$data" >"$T/fifo" &
w=$!
st=$(code "$KILN" collapse "$T/fifo")
kill $w 2>/dev/null
[ "$st" = 3 ] || fail "perf.data in a named FIFO: exit $st, want 3: $(cat "$T/err")"
grep -q "pipe it into 'kiln collapse -'" "$T/err" || fail "no hint for the FIFO: $(cat "$T/err")"
"$KILN" collapse - <"$data" >"$T/stdin.folded" || fail "the same perf.data on stdin failed"

# A header whose data size is 0 (a recorder killed before finishing, P5):
# warn as perf does, read to the end of the file, partial (exit 4).
python3 -c "
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[48:56] = bytes(8)
open(sys.argv[2], 'wb').write(b)" "$data" "$T/z0.data"
[ "$(code "$KILN" collapse "$T/z0.data")" = 4 ] || fail "data size 0: not exit 4: $(cat "$T/err")"
grep -q "data size is 0 (was the recording properly finished?)" "$T/err" || fail "data size 0: $(cat "$T/err")"
grep -q "^sh;" "$T/out" || fail "data size 0: no stacks from the data"

# stdout closed early: no message of its own (every line of stderr is one
# a whole run prints too), status 0 or SIGPIPE's 141.
"$KILN" script -i "$data" >/dev/null 2>"$T/whole.err" || fail "script failed: $(cat "$T/whole.err")"
"$KILN" script -i "$data" 2>"$T/err" | head -1 >/dev/null
grep -vxF -f "$T/whole.err" "$T/err" >"$T/extra"
[ -s "$T/extra" ] && fail "stdout closed early: stderr says: $(cat "$T/extra")"
echo "ok: device, NUL stdin, directory, FIFO, closed stdout"
