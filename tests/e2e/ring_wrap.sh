#!/bin/sh
# A one-page ring buffer at a high rate: records wrap around the end of
# the buffer all the time and some are lost. The file must still be
# exact: perf reads it, counts the same samples kiln counts, and kiln
# reports the loss it saw.
. "$(dirname "$0")/lib.sh"
need_perf_events
"$KILN" record -m 1 -F 20000 -g -o "$T/w.data" -- "$BURN" 1 2>"$T/err" || fail "record failed: $(cat "$T/err")"
k=$("$KILN" collapse "$T/w.data" 2>/dev/null | awk '{s += $NF} END {print s + 0}')
[ "$k" -gt 100 ] || fail "only $k samples"
grep -q "wrote $k samples" "$T/err" || fail "summary does not match the file: $(cat "$T/err")"
if command -v perf >/dev/null; then
	p=$(perf script -i "$T/w.data" -F comm,tid,time 2>/dev/null | grep -c .)
	[ "$p" = "$k" ] || fail "perf counts $p samples, kiln $k"
	lost=$(perf report -i "$T/w.data" --stats 2>/dev/null | awk '/LOST events/ {print $3}')
	if [ -n "$lost" ] && [ "$lost" != 0 ]; then
		grep -q "lost [0-9]* samples" "$T/err" || fail "perf saw LOST records, kiln did not report them"
	fi
fi
echo "ok: $k samples through a 1-page ring"
