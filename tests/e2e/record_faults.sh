#!/bin/sh
# Recording faults beyond signals.sh (RELIABILITY.md b-R): a second
# Ctrl-C right after the first; Ctrl-C to the whole process group, as a
# terminal sends it; the workload killed by SIGKILL (kiln finishes the
# file and exits 128+9, as the workload did); a -p target killed by
# SIGKILL (kiln drains and exits 0 within 5 s); kiln itself killed by
# SIGKILL (the previous file at the path is untouched, the workload is not
# left stopped); a symlink planted at the output path (never followed:
# the target file keeps its bytes, the path becomes a regular 0600 file).
. "$(dirname "$0")/lib.sh"
need_perf_events
readable() { # FILE WHAT: kiln reads it with samples of burn
	"$KILN" collapse "$1" >"$T/c.folded" 2>"$T/c.err" || fail "$2: file not readable: $(cat "$T/c.err")"
	grep -q '^burn;' "$T/c.folded" || fail "$2: no samples of burn"
}
# 0. -p of a process that does not exist: exit 1, named, no file.
"$KILN" record -q -p 999999 -o "$T/none.data" -- sleep 0.1 2>"$T/err"
st=$?
[ $st = 1 ] || fail "-p 999999: exit $st, want 1"
grep -q "no such process: 999999" "$T/err" || fail "-p 999999: $(cat "$T/err")"
[ -e "$T/none.data" ] && fail "-p 999999 left a file"

# 1. Two SIGINTs 50 ms apart.
"$KILN" record -q -g -o "$T/int2.data" -- "$BURN" 30 &
k=$!
wait_workload $k
c=$wl
kill -INT $k
sleep 0.05
kill -INT $k 2>/dev/null
wait $k
st=$?
[ $st = 130 ] || fail "double SIGINT: exit $st, want 130"
readable "$T/int2.data" "double SIGINT"
kill -0 "$c" 2>/dev/null && fail "double SIGINT: the workload is still running"

# 2. SIGINT to the process group (kiln and the workload both get it).
setsid "$KILN" record -q -g -o "$T/pg.data" -- "$BURN" 30 &
k=$!
wait_workload $k
c=$wl
/bin/kill -INT -- -$k
wait $k
st=$?
[ $st = 130 ] || fail "group SIGINT: exit $st, want 130"
readable "$T/pg.data" "group SIGINT"

# 3. The workload killed by SIGKILL.
"$KILN" record -q -g -o "$T/kill.data" -- "$BURN" 30 &
k=$!
wait_workload $k
c=$wl
[ -n "$c" ] || fail "no workload process under kiln"
kill -KILL "$c"
wait $k
st=$?
[ $st = 137 ] || fail "workload SIGKILLed: kiln exit $st, want 137 (128+9)"
readable "$T/kill.data" "workload SIGKILLed"

# 4. A -p target killed by SIGKILL.
start_busy
"$KILN" record -q -g -p "$busy" -o "$T/p.data" &
k=$!
# Attaching can take over a second (ASan, a loaded machine): wait for
# kiln's perf_event fds, then let it sample for a second.
i=0
until ls -l /proc/$k/fd 2>/dev/null | grep -q 'perf_event' || [ $i -ge 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 1
kill -KILL "$busy"
t0=$(date +%s)
wait $k
st=$?
busy=
[ $st = 0 ] || fail "-p target SIGKILLed: exit $st, want 0"
[ $(($(date +%s) - t0)) -le 5 ] || fail "-p target SIGKILLed: kiln took over 5 s to stop"
readable "$T/p.data" "-p target SIGKILLed"

# 5. kiln SIGKILLed: the previous file is kept, the workload not stopped.
cp "$T/p.data" "$T/prev.data"
"$KILN" record -q -g -o "$T/prev.data" -- "$BURN" 30 &
k=$!
wait_workload $k
c=$wl
kill -KILL $k
wait $k 2>/dev/null
cmp -s "$T/p.data" "$T/prev.data" || fail "kiln SIGKILLed: the previous file was changed"
if [ -n "$c" ] && [ -d /proc/"$c" ]; then
	state=$(awk '{print $3}' /proc/"$c"/stat)
	[ "$state" != T ] && [ "$state" != t ] || fail "kiln SIGKILLed: the workload is left stopped"
	kill -KILL "$c"
fi

# 6. A symlink planted at the output path.
echo "precious" >"$T/victim"
ln -s "$T/victim" "$T/link.data"
"$KILN" record -q -o "$T/link.data" -- "$BURN" 0.3 || fail "record to a planted symlink failed"
[ "$(cat "$T/victim")" = precious ] || fail "the symlink's target was written"
[ -L "$T/link.data" ] && fail "the output path is still a symlink"
[ "$(stat -c %a "$T/link.data")" = 600 ] || fail "mode $(stat -c %a "$T/link.data"), want 600"
readable "$T/link.data" "planted symlink"
ls -A "$T" | grep -q 'link.data.kiln-tmp' && fail "temporary file left behind"
echo "ok: double SIGINT, group SIGINT, workload and -p target SIGKILLed, kiln SIGKILLed, planted symlink"
