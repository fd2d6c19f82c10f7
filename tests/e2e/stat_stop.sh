#!/bin/sh
# How kiln stat stops: SIGTERM to kiln alone reaches the command, the
# counts are printed and the exit status is the command's (128+15); without
# a command (-a) SIGTERM ends counting with exit 0; -p stops by itself once
# its target has exited, or when a command given with it exits. (SIGTERM, not SIGINT: a background job of a
# non-interactive shell has SIGINT ignored.)
. "$(dirname "$0")/lib.sh"
need_perf_events
# 1. A command interrupted.
"$KILN" stat -e task-clock -- sleep 30 2>"$T/a.txt" &
k=$!
i=0
while [ $i -lt 100 ] && ! pgrep -P $k sleep >/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.2
kill -TERM $k
wait $k
st=$?
[ $st = 143 ] || fail "SIGTERM: exit $st, want 143 (the command's)"
grep -q "Performance counter stats for 'sleep 30':" "$T/a.txt" || fail "no report: $(cat "$T/a.txt")"
grep -q 'msec task-clock' "$T/a.txt" || fail "no task-clock: $(cat "$T/a.txt")"

# 2. No command: -a until SIGTERM.
if "$KILN" stat -a -e cs -- true 2>/dev/null; then
	"$KILN" stat -a -x, -e cs 2>"$T/b.csv" &
	k=$!
	sleep 0.5
	kill -TERM $k
	wait $k
	st=$?
	[ $st = 0 ] || fail "-a then SIGTERM: exit $st, want 0"
	grep -q '^[0-9]*,,cs,' "$T/b.csv" || fail "-a: $(cat "$T/b.csv")"
fi

# 3. -p ends when its target does.
sleep 1 &
p=$!
start=$(date +%s)
"$KILN" stat -p $p -e task-clock 2>"$T/c.txt" || fail "-p: $(cat "$T/c.txt")"
end=$(date +%s)
[ $((end - start)) -le 10 ] || fail "-p did not stop when its target exited"
grep -q "Performance counter stats for process id '$p':" "$T/c.txt" || fail "-p: $(cat "$T/c.txt")"
# 4. -p with a command: counted for as long as the command runs.
start_busy
"$KILN" stat -p $busy -x, -e task-clock -- sleep 0.3 2>"$T/d.csv" || fail "-p with a command: $(cat "$T/d.csv")"
grep -q '^[0-9.]*,msec,task-clock,' "$T/d.csv" || fail "-p with a command: $(cat "$T/d.csv")"
"$KILN" stat -p 999999 -e task-clock 2>"$T/err"
st=$?
[ $st = 1 ] || fail "-p 999999: exit $st, want 1"
grep -q "no such process" "$T/err" || fail "-p 999999: $(cat "$T/err")"
echo "ok"
