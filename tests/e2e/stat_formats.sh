#!/bin/sh
# kiln stat's layouts against perf stat's: the text table's columns, hardware
# rows <not supported> exactly where perf's are, -x, with perf's fields,
# --json lines that parse with perf's keys, -I 100 giving about ten rows a
# second, -r 5 printing a spread, -o/--append, and usage errors.
. "$(dirname "$0")/lib.sh"
need_perf_events
have_perf=
command -v perf >/dev/null && perf stat -e task-clock -- true 2>/dev/null && have_perf=1

# 1. The default set: the same events in the same order as perf's, and the
#    same rows <not supported> (a machine without a PMU has them all).
"$KILN" stat -x, -- true 2>"$T/k.csv" || fail "stat -x, failed: $(cat "$T/k.csv")"
awk -F, 'NF != 7 {bad=1} END {exit bad}' "$T/k.csv" || fail "-x, rows without 7 fields: $(cat "$T/k.csv")"
cut -d, -f3 "$T/k.csv" | tr '\n' ' ' >"$T/k.ev"
[ "$(cat "$T/k.ev")" = "task-clock context-switches cpu-migrations page-faults cycles instructions branches branch-misses " ] ||
	fail "default set: $(cat "$T/k.ev")"
grep -q '^[0-9.]*,msec,task-clock,[0-9]*,100.00,[0-9.]*,CPUs utilized$' "$T/k.csv" ||
	fail "task-clock row: $(grep task-clock "$T/k.csv")"
if [ -n "$have_perf" ]; then
	perf stat -x, -- true 2>"$T/p.csv"
	awk -F, '{print $3, ($1 == "<not supported>")}' "$T/k.csv" >"$T/k.sup"
	awk -F, '{print $3, ($1 == "<not supported>")}' "$T/p.csv" >"$T/p.sup"
	cmp -s "$T/k.sup" "$T/p.sup" || fail "supported events differ from perf's: $(diff "$T/k.sup" "$T/p.sup")"
	# Text: the same lines once every digit is the same digit (the columns).
	"$KILN" stat -e cycles,instructions,sched:sched_process_fork -- true 2>"$T/k.txt" ||
		"$KILN" stat -e cycles,instructions -- true 2>"$T/k.txt"
	ev=$(grep -q sched_process_fork "$T/k.txt" && echo cycles,instructions,sched:sched_process_fork || echo cycles,instructions)
	perf stat -e "$ev" -- true 2>"$T/p.txt"
	sed 's/[0-9]/9/g' "$T/k.txt" >"$T/k.mask"
	sed 's/[0-9]/9/g' "$T/p.txt" >"$T/p.mask"
	cmp -s "$T/k.mask" "$T/p.mask" || fail "text layout differs from perf's:
$(diff "$T/k.mask" "$T/p.mask")"
fi

# The default set of -a names cpu-clock, as perf's.
"$KILN" stat -a -x, -- sleep 0.1 2>"$T/a.csv" &&
	{ head -1 "$T/a.csv" | grep -q '^[0-9.]*,msec,cpu-clock,' || fail "-a default set: $(head -1 "$T/a.csv")"; }

# Tool events: duration_time is the wall time, in ns.
"$KILN" stat -x, -e duration_time -- sleep 0.2 2>"$T/d.csv" || fail "duration_time failed"
d=$(cut -d, -f1 "$T/d.csv")
[ "$(cut -d, -f2,3 "$T/d.csv")" = "ns,duration_time" ] || fail "duration_time: $(cat "$T/d.csv")"
[ "$d" -ge 200000000 ] && [ "$d" -lt 5000000000 ] || fail "duration_time $d for sleep 0.2"

# 2. JSON lines with perf's keys.
"$KILN" stat -j -e page-faults,task-clock,cycles -- true 2>"$T/k.json" || fail "--json failed"
[ "$(wc -l <"$T/k.json")" = 3 ] || fail "--json: $(cat "$T/k.json")"
for key in counter-value unit event event-runtime pcnt-running metric-value metric-unit; do
	[ "$(grep -c "\"$key\" : " "$T/k.json")" = 3 ] || fail "--json: no \"$key\" on every line"
done
if command -v python3 >/dev/null; then
	python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["event"] for r in rows] == ["page-faults", "task-clock", "cycles"], rows
assert rows[1]["unit"] == "msec" and rows[1]["metric-unit"] == "CPUs utilized", rows[1]
assert float(rows[0]["counter-value"]) > 0, rows[0]
' "$T/k.json" || fail "--json does not parse as perf's: $(cat "$T/k.json")"
fi

# 3. -I 100 over one second: about ten rows of the one event.
"$KILN" stat -I 100 -x, -e task-clock -- sleep 1 2>"$T/i.csv" || fail "-I failed"
n=$(grep -c task-clock "$T/i.csv")
[ "$n" -ge 8 ] && [ "$n" -le 12 ] || fail "-I 100 for 1 s: $n rows, want about 10"
"$KILN" stat -I 100 -e task-clock -- sleep 0.3 2>"$T/i.txt" || fail "-I (text) failed"
head -1 "$T/i.txt" | grep -q '^#           time             counts unit events$' ||
	fail "-I header: $(head -1 "$T/i.txt")"

# 4. -r 5: the mean with its spread, and "(5 runs)".
"$KILN" stat -r 5 -e task-clock -- true 2>"$T/r.txt" || fail "-r failed"
grep -q "Performance counter stats for 'true' (5 runs):" "$T/r.txt" || fail "-r header: $(cat "$T/r.txt")"
grep -q 'seconds time elapsed  ( +- *[0-9.]*% )$' "$T/r.txt" || fail "-r spread: $(cat "$T/r.txt")"
grep -q 'task-clock .*( +- *[0-9.]*% )$' "$T/r.txt" || fail "-r task-clock spread: $(cat "$T/r.txt")"

# 5. -o writes the file (stderr stays quiet); --append adds to it.
"$KILN" stat -o "$T/out.txt" -e page-faults -- true 2>"$T/err" || fail "-o failed"
[ -s "$T/err" ] && fail "-o wrote to stderr: $(cat "$T/err")"
grep -q 'page-faults' "$T/out.txt" || fail "-o: $(cat "$T/out.txt")"
"$KILN" stat -o "$T/out.txt" --append -x, -e page-faults -- true 2>/dev/null || fail "--append failed"
grep -q 'Performance counter stats' "$T/out.txt" && grep -q ',page-faults,' "$T/out.txt" ||
	fail "--append lost the first report: $(cat "$T/out.txt")"

# 6. Usage errors: exit 2 with a reason.
for args in "-x, -j -- true" "--append -- true" "-I 5 -- true" "-r 3" "--per-thread -- true"; do
	# shellcheck disable=SC2086
	"$KILN" stat $args 2>"$T/err" >/dev/null
	st=$?
	[ $st = 2 ] || fail "kiln stat $args: exit $st, want 2"
	grep -q '^error: ' "$T/err" || fail "kiln stat $args: $(cat "$T/err")"
done
# 7. As an unprivileged user (root runs this part as nobody): the events
#    perf names, perf's :u fallback included where kernel counting is refused.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$T"
	cp "$KILN" "$T/kiln-copy" && chmod 755 "$T/kiln-copy"
	if asnobody "$T/kiln-copy" stat -x, -- true 2>"$T/u.csv" >/dev/null; then
		cut -d, -f3 "$T/u.csv" >"$T/u.k"
		if [ -n "$have_perf" ] && asnobody perf stat -x, -- true 2>"$T/u.perf" >/dev/null; then
			cut -d, -f3 "$T/u.perf" >"$T/u.p"
			cmp -s "$T/u.k" "$T/u.p" || fail "unprivileged event names differ from perf's:
$(diff "$T/u.k" "$T/u.p")"
		fi
	else
		grep -q '^error: ' "$T/u.csv" || fail "unprivileged stat failed without a reason: $(cat "$T/u.csv")"
	fi
fi
long=$(printf '%0300d' 0 | tr 0 a)
"$KILN" stat -e "$long" -- true 2>"$T/err"
st=$?
[ $st = 2 ] || fail "a 300-byte event name: exit $st, want 2"
grep -q '^error: ' "$T/err" || fail "a 300-byte event name: $(cat "$T/err")"
echo "ok"
