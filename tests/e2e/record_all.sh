#!/bin/sh
# kiln record -a -g -- sleep: the whole machine, including a busy process
# that was already running (its state is synthesized from /proc).
. "$(dirname "$0")/lib.sh"
need_perf_events
start_busy
"$KILN" record -q -a -g -o "$T/a.data" -- sleep 1 || fail "record -a failed"
"$KILN" collapse "$T/a.data" >"$T/a.folded" || fail "collapse failed"
grep -q '^burn;.*main;render_frame;shade_pixels' "$T/a.folded" || fail "the running burn was not seen with symbols"
if command -v perf >/dev/null; then
	perf script -i "$T/a.data" >"$T/perf.txt" 2>/dev/null || fail "perf cannot read the -a recording"
	python3 "$TESTLIB/perf_fold.py" "$T/perf.txt" >"$T/perf.folded"
	grep -q '^burn;.*main;render_frame;shade_pixels' "$T/perf.folded" ||
		fail "perf does not see burn: $(grep '^burn' "$T/perf.folded" | sort -k2 -n | tail -3)"
fi
echo ok
