#!/bin/sh
# kiln top --stdio with a known busy program (burn: shade_pixels about two
# thirds of its time, tokenize one third):
#  1. -p PID -d 1 for about 4 s prints one table per second (3 to 6 on a
#     loaded machine), each perf top's header line and dashes, no
#     screen-clearing escapes (stdout is a file), rows of that process
#     only (-s comm,dso,sym), its hot function in the first rows of the
#     first table with samples, within the first three; Ctrl-C ends it
#     with 128+2.
#     -t TID names that thread's functions.
#  2. The share top shows for shade_pixels is the one a `kiln record` of
#     the same process over the same seconds gives (within 12 points:
#     two samplings of a loaded machine).
#  3. -o writes what was sampled as a perf.data kiln report and perf
#     report read.
#  4. A program that runs for less than one refresh (0.3 s of a -d 2
#     period, machine-wide) is still named by its symbols.
#  5. JIT code is named from a perf map that grew after top read it.
#  6. Usage errors exit 2.
. "$(dirname "$0")/lib.sh"
need_perf_events
start_busy

# 1. One table per second, for that process only.
"$KILN" top --stdio -d 1 -E 10 -s comm,dso,sym -p "$busy" >"$T/t.out" 2>"$T/t.err" &
k=$!
sleep 4.2
kill -INT $k
wait $k
rc=$?
[ $rc = 130 ] || fail "top ended with $rc after SIGINT, not 130: $(cat "$T/t.err")"
n=$(grep -c '^   PerfTop: ' "$T/t.out")
[ "$n" -ge 3 ] && [ "$n" -le 6 ] || fail "$n tables in about 4 s at -d 1 (expected 3-6)"
head -1 "$T/t.out" | grep -Eq '^   PerfTop: +[0-9]+ irqs/sec  kernel: *[0-9.]+%  exact: +[0-9.]+% lost: [0-9]+/[0-9]+ drop: [0-9]+/[0-9]+ \[[0-9]+Hz [a-z-]+(:u|:ppp)?\],  \(target_pid: '"$busy"', [0-9]+ CPUs?\)$' ||
	fail "not perf top's header: $(head -1 "$T/t.out")"
# Without a PMU perf top names its default event cpu-clock:ppp (the
# precise modifier of cycles:P kept through the fallback).
if grep -q 'no hardware PMU' "$T/t.err"; then
	head -1 "$T/t.out" | grep -q 'Hz cpu-clock:ppp\],' || fail "the event not named as perf top names it: $(head -1 "$T/t.out")"
fi
# The rate is of the samples taken in the period: burn keeps a CPU busy,
# at 4000 Hz a table says at least 50 (a loaded machine gives burn less
# of a CPU, a slow start may leave the first tables empty).
awk '/^   PerfTop:/ { if ($2 + 0 >= 50) ok++ } END { exit !ok }' "$T/t.out" ||
	fail "no table's irqs/sec is 50 or more: $(grep '^   PerfTop:' "$T/t.out")"
[ "$(grep -c '^-\{79\}$' "$T/t.out")" = "$n" ] || fail "not one line of dashes per table"
grep -q "$(printf '\033')" "$T/t.out" && fail "escape sequences in a table written to a file"
rows=$(grep -E '^ +[0-9]+\.[0-9]+%' "$T/t.out")
[ -n "$rows" ] || fail "no rows: $(cat "$T/t.out")"
echo "$rows" | awk '$2 != "burn"' | grep . && fail "-p $busy shows another process's rows"
# The first table with samples (within 3 s: the first three; the first
# may come before a loaded machine ran the target) has it in its first rows.
awk '/PerfTop/ { t++; r = 0; if (!first && $2 + 0 > 0) first = t } first && t == first && t <= 3 && /%$|\] / { r++; if (r <= 3) print }' \
	"$T/t.out" | grep -q ' shade_pixels$' ||
	fail "shade_pixels is not in the first rows within 3 s: $(sed -n 1,16p "$T/t.out")"

# 1b. -t TID: that thread only, its process's maps synthesized (named).
"$KILN" top --stdio -d 1 -E 5 -t "$busy" >"$T/tid.out" 2>"$T/tid.err" &
k=$!
sleep 2.5
kill -INT $k
wait $k
grep -q "(target_tid: $busy)\$" "$T/tid.out" || fail "-t: not perf top's header: $(head -1 "$T/tid.out")"
grep -q ' shade_pixels$' "$T/tid.out" || fail "-t: the thread's function is not named: $(sed -n 1,6p "$T/tid.out")"

# 2. The share top shows against a recording of the same seconds.
"$KILN" top --stdio -z -d 3 -E 5 -p "$busy" >"$T/z.out" 2>"$T/z.err" &
k=$!
"$KILN" record -q -p "$busy" -o "$T/r.data" -- sleep 3 || fail "kiln record -p failed"
kill -INT $k
wait $k
top_pct=$(awk '/PerfTop/ { t++ } t == 1 && / shade_pixels$/ { sub("%", "", $1); print $1; exit }' "$T/z.out")
rec_pct=$("$KILN" report --stdio -s sym -i "$T/r.data" 2>/dev/null |
	awk '/ shade_pixels$/ { sub("%", "", $1); print $1; exit }')
[ -n "$top_pct" ] && [ -n "$rec_pct" ] || fail "no share of shade_pixels (top '$top_pct', record '$rec_pct')"
awk -v a="$top_pct" -v b="$rec_pct" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 12) }' ||
	fail "top shows shade_pixels at $top_pct%, a recording of the same seconds at $rec_pct%"

# 3. -o: the perf.data of what was sampled.
"$KILN" top --stdio -d 1 -p "$busy" -o "$T/o.data" >"$T/o.out" 2>"$T/o.err" &
k=$!
sleep 2.5
kill -TERM $k
wait $k
rc=$?
[ $rc = 143 ] || fail "top -o ended with $rc after SIGTERM, not 143: $(cat "$T/o.err")"
grep -q "wrote [0-9]* samples to $T/o.data" "$T/o.err" || fail "no summary of -o: $(cat "$T/o.err")"
"$KILN" report --stdio -i "$T/o.data" >"$T/o.rep" 2>&1 || fail "kiln report cannot read top's -o: $(head -3 "$T/o.rep")"
grep -q ' shade_pixels$' "$T/o.rep" || fail "kiln report of top's -o has no shade_pixels"
if command -v perf >/dev/null; then
	perf report --stdio -i "$T/o.data" >"$T/o.prep" 2>/dev/null || fail "perf report cannot read top's -o"
	grep -q ' shade_pixels *$' "$T/o.prep" || fail "perf report of top's -o has no shade_pixels"
fi

# 4. A program that lives for less than one refresh is named by its symbols.
kill $busy
busy=
if command -v cc >/dev/null; then
	write_spin_c "$T/short.c"
	cc -O1 -fno-omit-frame-pointer -DNAME=kiln_short_lived_fn -o "$T/short_prog" "$T/short.c" ||
		fail "cannot build the short-lived program"
	"$KILN" top --stdio -a -d 2 -E 300 >"$T/s.out" 2>"$T/s.err" &
	k=$!
	sleep 1.5 # top's start synthesizes every process: the program must come after
	for i in 1 2 3; do
		"$T/short_prog" 0.3
		sleep 0.2
	done
	sleep 2.5
	kill -INT $k
	wait $k
	grep -q ' kiln_short_lived_fn$' "$T/s.out" || fail "a program that ran 0.3 s is not named: $(grep short_prog "$T/s.out" | head -3)"
fi

# 5. JIT code: a perf map that grows while top runs is read again. The
# map is emptied before top starts (its first lookups find nothing) and
# filled 2 s later: later tables name the JIT function.
if [ "$(uname -m)" = x86_64 ] && [ -n "${JITPROG:-}" ]; then
	"$JITPROG" 8 >"$T/jit.pid" &
	jp=$!
	i=0
	while [ ! -s "$T/jit.pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	map=/tmp/perf-$(cat "$T/jit.pid").map
	cp "$map" "$T/jit.map"
	: >"$map"
	"$KILN" top --stdio -d 1 -E 10 -p "$jp" >"$T/j.out" 2>"$T/j.err" &
	k=$!
	sleep 2.5
	cat "$T/jit.map" >"$map"
	sleep 3
	kill -INT $k
	wait $k
	kill $jp 2>/dev/null
	wait $jp
	rm -f "$map"
	grep -q 'hotLoop' "$T/j.out" || fail "the grown perf map's JIT function is not named: $(tail -5 "$T/j.out")"
fi

# 6. Usage errors.
"$KILN" top -K -U --stdio >/dev/null 2>&1
[ $? = 2 ] || fail "-K -U is not a usage error"
"$KILN" top -p 1 -t 1 --stdio >/dev/null 2>&1
[ $? = 2 ] || fail "-p with -t is not a usage error"
"$KILN" top -C 99999 --stdio >/dev/null 2>"$T/c.err"
[ $? = 2 ] || fail "-C 99999 is not a usage error"
"$KILN" top -s nosuchkey --stdio >/dev/null 2>&1
[ $? = 2 ] || fail "-s nosuchkey is not a usage error"
echo "ok: $n tables; shade_pixels at $top_pct% (recording: $rec_pct%)"
