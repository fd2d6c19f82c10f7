#!/bin/sh
# One exit code per kind of bad input, whichever command reads it
# (README "Exit codes"): script, collapse, flame, export and diff give the
# same code for a FIFO without a writer, a directory, a missing file, an
# empty file, a text that is neither perf script output nor folded stacks
# (a config file), a perf.data cut inside its header (3, or 1 for a missing
# file) and one cut inside its data (4, partial). A missing ./perf.data
# (the default input) gets a hint to record one. A perf.data recorded
# without callchains draws a flat graph with a warning saying so.
. "$(dirname "$0")/lib.sh"
data=$(dirname "$0")/../../fuzz/corpus/perfdata/kiln-g-dash.data
flat=$(dirname "$0")/../../fuzz/corpus/perfdata/perf-true.data
data=$(cd "$(dirname "$data")" && pwd)/$(basename "$data")

mkfifo "$T/fifo"
mkdir "$T/dir"
: >"$T/empty"
# Text of another kind: a services-like table (one line even looks like a
# sample header to stackcollapse-perf.pl's rules).
{
	printf '# Network services, Internet style\n#\n'
	printf 'tcpmux\t\t1/tcp\t\t\t\t# TCP port service multiplexer\n'
	printf 'echo\t\t7/tcp\n'
	printf 'echo\t\t7/udp\n'
	printf 'discard\t\t9/tcp\t\tsink null\n'
	printf 'systat\t\t11/tcp\t\tusers\n'
	printf 'daytime\t\t13/tcp\n'
	printf 'netstat\t\t15/tcp\n'
	printf 'qotd\t\t17/tcp\t\tquote\n'
	printf 'ftp 21/tcp: 1 cycles:\n'
	printf 'ssh\t\t22/tcp\t\t\t\t# SSH Remote Login Protocol\n'
	printf 'telnet\t\t23/tcp\n'
	printf 'smtp\t\t25/tcp\t\tmail\n'
} >"$T/services"
head -c 50 "$data" >"$T/header.data"
size=$(stat -c %s "$data")
head -c $((size / 2)) "$data" >"$T/cut.data"

code() { timeout 20 "$@" >/dev/null 2>"$T/err"; echo $?; }
for input in fifo:3 dir:3 missing:1 empty:3 services:3 header.data:3 cut.data:4; do
	f=$T/${input%%:*}
	want=${input##*:}
	for cmd in "script -i" collapse "flame -o $T/o.svg" "export -f pprof -o $T/o.pb -i" \
		"diff -o $T/d.svg $data" "report --stdio -i" "diff --stdio $data"; do
		# shellcheck disable=SC2086
		got=$(code "$KILN" $cmd "$f")
		[ "$got" = "$want" ] || fail "kiln $cmd $(basename "$f"): exit $got, want $want: $(cat "$T/err")"
		grep -q "$(basename "$f")" "$T/err" || fail "kiln $cmd $(basename "$f"): message does not name it: $(cat "$T/err")"
	done
done
"$KILN" collapse "$T/services" >/dev/null 2>"$T/err"
grep -q "^error: $T/services: not a perf.data file, nor perf script output, nor folded stacks$" "$T/err" ||
	fail "config text: $(cat "$T/err")"

# The default input missing: a hint to record one.
mkdir "$T/cwd"
for cmd in script collapse flame export; do
	extra=
	[ "$cmd" = export ] && extra="-f folded"
	# shellcheck disable=SC2086
	st=$(cd "$T/cwd" && timeout 20 "$KILN" $cmd $extra >/dev/null 2>"$T/err"; echo $?)
	[ "$st" = 1 ] || fail "kiln $cmd without ./perf.data: exit $st, want 1: $(cat "$T/err")"
	grep -q "^hint: .*kiln record -g" "$T/err" || fail "kiln $cmd without ./perf.data: no hint: $(cat "$T/err")"
done

# No callchains: a warning naming the way to record them; exit 0.
st=$(code "$KILN" flame -o "$T/flat.svg" "$flat")
[ "$st" = 0 ] || fail "flame of a recording without callchains: exit $st: $(cat "$T/err")"
grep -q "^warning: .*perf-true.data: the samples have no callchains.*kiln record -g" "$T/err" ||
	fail "flame of a recording without callchains: no warning: $(cat "$T/err")"
"$KILN" flame -o "$T/deep.svg" "$data" 2>"$T/err" || fail "flame of a -g recording failed"
grep -q "no callchains" "$T/err" && fail "a -g recording warned of no callchains: $(cat "$T/err")"
echo "ok: same exit codes from script, collapse, flame, export, diff, report; hint; no-callchain warning"
