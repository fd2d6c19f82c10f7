#!/bin/sh
# kiln script against perf script on the same perf.data, side by side:
# plain decoding (no symbols: -F comm,pid,tid,time,event) in MB/s and the
# ratio of wall times. Usage: script-speed.sh [FILE] (default: records one
# with record-compile.sh into bench/out/compile.data). FIELDS=... picks
# other fields, e.g. FIELDS=comm,pid,tid,time,event,trace for a recording
# of tracepoints (perf record -e sched:sched_switch ... -a).
set -e
here=$(cd "$(dirname "$0")" && pwd)
kiln=${KILN:-$here/../build/kiln}
f=${1:-$here/out/compile.data}
if [ ! -f "$f" ]; then
	mkdir -p "$(dirname "$f")"
	"$here/record-compile.sh" "$f"
fi
mb=$(du -m "$f" | cut -f1)
t() { # seconds of wall time for a command, output discarded
	s=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || true
	e=$(date +%s.%N)
	echo "$e - $s" | bc
}
fields=${FIELDS:-comm,pid,tid,time,event}
"$kiln" script -F $fields -i "$f" >/dev/null 2>&1 # warm the page cache
tk=$(t "$kiln" script -F $fields -i "$f")
tp=$(t perf script -F $fields -i "$f")
nk=$("$kiln" script -F $fields -i "$f" 2>/dev/null | wc -l)
np=$(perf script -F $fields -i "$f" 2>/dev/null | wc -l)
echo "input: $f ($mb MB, perf $np lines, kiln $nk lines)"
echo "decode ($fields): kiln ${tk}s ($(echo "$mb / $tk" | bc) MB/s), perf ${tp}s ($(echo "$mb / $tp" | bc) MB/s)"
echo "ratio kiln/perf: $(echo "scale=3; $tk / $tp" | bc)"
