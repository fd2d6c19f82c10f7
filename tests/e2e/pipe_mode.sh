#!/bin/sh
# Pipe mode: perf record -o - streamed into kiln on stdin (plain and
# zstd-compressed) gives the same stacks as the saved stream read as a
# file, and as perf's own view; a cut stream is partial (exit 4).
. "$(dirname "$0")/lib.sh"
need_perf
perf record -q -g -o - -- "$BURN" 0.5 2>/dev/null >"$T/pipe.data" || skip "perf record failed here"
"$KILN" collapse "$T/pipe.data" >"$T/file.folded" || fail "pipe-mode file not read"
"$KILN" collapse - <"$T/pipe.data" >"$T/stdin.folded" || fail "stdin stream not read"
cmp -s "$T/file.folded" "$T/stdin.folded" || fail "stdin and file differ"
grep -q 'main;render_frame;shade_pixels' "$T/stdin.folded" || fail "no known chain from the stream"
perf script -i "$T/pipe.data" 2>/dev/null | python3 "$TESTLIB/perf_fold.py" >"$T/perf.folded"
python3 "$TESTLIB/fold_compare.py" "$T/stdin.folded" "$T/perf.folded" 0.99 || fail "kiln and perf disagree on the stream"
# Through a real pipe, compressed.
perf record -q -z -g -o - -- "$BURN" 0.3 2>/dev/null | "$KILN" collapse - >"$T/z.folded" || fail "compressed stream on a pipe failed"
grep -q 'main;render_frame;shade_pixels' "$T/z.folded" || fail "no known chain from the compressed stream"
# Cut short. A stream has no length, so a cut that falls on a record
# boundary looks complete; of three consecutive cuts, at most one can.
# The cuts fall in the middle of the stream, whose length depends on how
# much CPU the workload got (under 20 KB on a busy machine).
size=$(wc -c <"$T/pipe.data")
[ "$size" -ge 4096 ] || fail "the stream is only $size bytes"
partial=0
for cut in $((size / 2)) $((size / 2 + 1)) $((size / 2 + 2)); do
	head -c $cut "$T/pipe.data" | "$KILN" collapse - >"$T/cut.folded" 2>"$T/cut.err"
	st=$?
	case $st in
	0) ;;
	4)
		grep -q "offset 0x" "$T/cut.err" || fail "no offset in: $(cat "$T/cut.err")"
		partial=$((partial + 1))
		;;
	*) fail "cut stream at $cut: exit $st" ;;
	esac
done
[ $partial -ge 2 ] || fail "cut streams not reported as partial ($partial of 3)"
echo ok
