#!/bin/sh
# kiln record -g -p PID -- sleep 1: profiles a running process for as long
# as the command runs, then stops while the target keeps running.
. "$(dirname "$0")/lib.sh"
need_perf_events
start_busy
pid=$busy
start=$(date +%s)
"$KILN" record -q -g -p "$pid" -o "$T/p.data" -- sleep 1 || fail "record -p failed"
end=$(date +%s)
[ $((end - start)) -le 10 ] || fail "record -p did not stop when the command ended"
kill -0 "$pid" || fail "the target died"
"$KILN" collapse "$T/p.data" >"$T/p.folded" || fail "collapse failed"
grep -q '^burn;.*main;render_frame;shade_pixels' "$T/p.folded" || fail "no stacks of the target"
n=$(awk '{s+=$NF} END {print s+0}' "$T/p.folded")
[ "$n" -gt 100 ] || fail "only $n samples in 1 s"
if command -v perf >/dev/null; then
	perf script -i "$T/p.data" >/dev/null 2>&1 || fail "perf cannot read the -p recording"
fi
# Without a command: record until the target exits.
"$BURN" 3 &
pid2=$!
"$KILN" record -q -p "$pid2" -o "$T/p2.data" || fail "record -p (until exit) failed"
"$KILN" collapse "$T/p2.data" | grep -q '^burn;' || fail "no samples until the target exited"
echo "ok: $n samples from pid $pid"
