#!/bin/sh
# DWARF unwinding of code built -O2 -fomit-frame-pointer, in several shapes
# (deep recursion, PLT and callbacks, a signal handler, threads, tail
# calls, a noreturn call): recorded with --call-graph dwarf by kiln (and by
# perf, for two shapes), kiln's folded stacks agree with perf's own DWARF
# unwinding (both with --no-inline, perf script collapsed the same way) for >= 98%
# of the samples, and the program's stacks reach main or start_thread.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf
: "${SHAPES:?}"
fold_perf() {
	perf script --no-inline --max-stack 1024 -i "$1" 2>/dev/null | python3 "$TESTLIB/perf_fold.py"
}
for m in recurse plt signal threads tail noreturn; do
	"$KILN" record -q --call-graph dwarf -F 499 -o "$T/$m.data" -- "$SHAPES" $m 1 2>"$T/err" ||
		fail "$m: record failed: $(cat "$T/err")"
	"$KILN" collapse --no-inline "$T/$m.data" >"$T/$m.kiln" 2>/dev/null || fail "$m: collapse failed"
	fold_perf "$T/$m.data" >"$T/$m.perf"
	python3 "$TESTLIB/fold_compare.py" "$T/$m.kiln" "$T/$m.perf" 0.98 >"$T/$m.cmp" ||
		fail "$m: kiln and perf disagree: $(cat "$T/$m.cmp")"
	# Samples in the program's own code must have whole stacks.
	awk -v m=$m '
		/;(spin|recurse|cmp|handler_work|worker|spin_tail|work_then_bail)( |;)/ {
			own += $NF
			if ($0 ~ /;main;|;start_thread;/) whole += $NF
		}
		END {
			printf "%s: %d of %d samples reach main\n", m, whole, own
			# At least 20 samples in its own code (the signal shape spends
			# much of its time in the kernel: 40 of ~500 under ASan load).
			if (own < 20 || whole < 0.95 * own)
				exit 1
		}' "$T/$m.kiln" || fail "$m: too few samples in its own code, or stacks stop short"
	echo "$m: $(head -1 "$T/$m.cmp")"
done
grep -q ';recurse;recurse;recurse;' "$T/recurse.kiln" || fail "no deep recursion"
# The default stack copy holds the whole recursion: nothing is cut.
! grep -q "\[truncated\]" "$T/recurse.kiln" || fail "recursion marked [truncated] with a full stack copy"
grep -q ';cmp;spin' "$T/plt.kiln" || fail "no callback from qsort"
grep -q ';on_prof;handler_work;spin' "$T/signal.kiln" || fail "no stacks through the signal frame"
grep -q ';start_thread;worker;spin' "$T/threads.kiln" || fail "no thread stacks"
# perf's own DWARF recordings unwind the same way in kiln.
for m in recurse plt; do
	perf record -q --call-graph dwarf -F 499 -o "$T/p$m.data" -- "$SHAPES" $m 1 2>/dev/null ||
		fail "perf record failed"
	"$KILN" collapse --no-inline "$T/p$m.data" >"$T/p$m.kiln" 2>/dev/null || fail "collapse of perf's file failed"
	fold_perf "$T/p$m.data" >"$T/p$m.perf"
	python3 "$TESTLIB/fold_compare.py" "$T/p$m.kiln" "$T/p$m.perf" 0.98 >"$T/p$m.cmp" ||
		fail "perf's $m recording: kiln and perf disagree: $(cat "$T/p$m.cmp")"
	echo "perf-recorded $m: $(head -1 "$T/p$m.cmp")"
done
echo ok
