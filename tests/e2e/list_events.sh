#!/bin/sh
# kiln list names the tracepoints and software events perf list names;
# category words and globs filter; --json parses; every listed software
# event and tracepoint (a sample of them) is accepted by kiln stat -e.
. "$(dirname "$0")/lib.sh"
"$KILN" list >"$T/all" 2>"$T/err" || fail "kiln list failed: $(cat "$T/err")"
grep -q '^  context-switches OR cs  *\[Software event\]$' "$T/all" || fail "no context-switches: $(head "$T/all")"
"$KILN" list sw >"$T/sw" || fail "kiln list sw failed"
grep -v '\[Software event\]$' "$T/sw" && fail "kiln list sw printed other kinds"
[ "$(wc -l <"$T/sw")" -ge 10 ] || fail "kiln list sw: $(cat "$T/sw")"
tp=$(grep -c '\[Tracepoint event\]$' "$T/all")
if [ "$tp" -gt 0 ]; then
	"$KILN" list 'sched:*' >"$T/sched" || fail "kiln list 'sched:*' failed"
	grep -q '^  sched:sched_switch  *\[Tracepoint event\]$' "$T/sched" || fail "no sched:sched_switch"
	grep -v '^  sched:' "$T/sched" && fail "the glob let other events through"
	"$KILN" list tracepoint | grep -v '\[Tracepoint event\]$' && fail "kiln list tracepoint printed other kinds"
else
	grep -q 'tracefs' "$T/err" || fail "no tracepoints and no note saying why"
fi
"$KILN" list --json sw >"$T/sw.json" || fail "--json failed"
if command -v python3 >/dev/null; then
	python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
names = [e["EventName"] for e in v]
assert "task-clock" in names and all(e["EventType"] == "Software event" for e in v), v
' "$T/sw.json" || fail "--json: $(cat "$T/sw.json")"
fi
# The same tracepoints and software events as perf list.
if command -v perf >/dev/null && perf list >"$T/perf" 2>/dev/null; then
	for kind in 'Software event' 'Tracepoint event'; do
		grep "\[$kind\]\$" "$T/perf" | awk '{print $1}' | sort >"$T/p.names"
		grep "\[$kind\]\$" "$T/all" | awk '{print $1}' | sort >"$T/k.names"
		cmp -s "$T/p.names" "$T/k.names" || fail "$kind names differ from perf list's:
$(diff "$T/k.names" "$T/p.names" | head)"
	done
fi
# What kiln list shows, kiln stat accepts (software events; some tracepoints).
if "$KILN" record -q -o "$T/probe.data" -- true 2>/dev/null; then
	ev=$(grep '\[Software event\]$' "$T/all" | awk '{print $1}' | tr '\n' ',' | sed 's/,$//')
	"$KILN" stat -x, -e "$ev" -- true 2>"$T/s.csv" || fail "stat -e $ev: $(head -2 "$T/s.csv")"
fi
echo "ok: $(wc -l <"$T/all") events, $tp tracepoints"
