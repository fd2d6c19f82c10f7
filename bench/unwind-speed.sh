#!/bin/sh
# DWARF unwinding + symbolization, side by side on the same recording:
# kiln collapse, hotspot's perfparser (apt-get install hotspot), and, with
# --with-perf, perf script once. Prints wall time and peak RSS of each and
# kiln's ratios. Usage: unwind-speed.sh [--with-perf] [FILE]
set -e
here=$(cd "$(dirname "$0")" && pwd)
kiln=${KILN:-$here/../build/kiln}
pp=/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser
with_perf=0
[ "${1:-}" = --with-perf ] && { with_perf=1; shift; }
f=${1:-$here/out/compile.data}
[ -f "$f" ] || { mkdir -p "$(dirname "$f")"; "$here/record-compile.sh" "$f"; }
measure() { # prints "SECONDS MAXRSS_KB"
	/usr/bin/time -f "%e %M" -o "$here/out/.time" "$@" >/dev/null 2>&1 || true
	cat "$here/out/.time"
}
cat "$f" >/dev/null # warm the page cache
set -- $(measure "$kiln" collapse "$f"); kt=$1; km=$2
echo "input: $f ($(du -m "$f" | cut -f1) MB)"
echo "kiln collapse:   ${kt} s, peak RSS $((km / 1024)) MB"
if [ -x "$pp" ]; then
	set -- $(measure "$pp" --input "$f" --output /dev/null); pt=$1; pm=$2
	echo "perfparser:      ${pt} s, peak RSS $((pm / 1024)) MB"
	echo "kiln/perfparser: time $(echo "scale=3; $kt / $pt" | bc), memory $(echo "scale=3; $km / $pm" | bc)"
else
	echo "perfparser: not installed (apt-get install hotspot)"
fi
if [ $with_perf = 1 ]; then
	set -- $(measure perf script --no-inline -i "$f"); st=$1; sm=$2
	echo "perf script --no-inline: ${st} s, peak RSS $((sm / 1024)) MB"
	echo "kiln/perf: time $(echo "scale=4; $kt / $st" | bc)"
fi
