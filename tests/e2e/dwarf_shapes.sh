#!/bin/sh
# DWARF unwinding of code built -O2 -fomit-frame-pointer, in several shapes
# (deep recursion, PLT and callbacks, a signal handler, threads, tail
# calls, a noreturn call): recorded with --call-graph dwarf by kiln (and by
# perf, for two shapes), kiln's stacks agree with perf's own DWARF
# unwinding sample by sample (kiln script and perf script --no-inline,
# tests/lib/sample_compare.py: perf's frames as far as perf got, down to
# its first [unknown] frame less the frame above it, start kiln's stack in
# >= 98% of the samples), and the program's stacks (kiln collapse
# --no-inline) reach main or start_thread.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf
: "${SHAPES:?}"
for m in recurse plt signal threads tail noreturn; do
	"$KILN" record -q --call-graph dwarf -F 499 -o "$T/$m.data" -- "$SHAPES" $m 1 2>"$T/err" ||
		fail "$m: record failed: $(cat "$T/err")"
	"$KILN" collapse --no-inline "$T/$m.data" >"$T/$m.kiln" 2>/dev/null || fail "$m: collapse failed"
	stacks_vs_perf $m "$T/$m.data"
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
	echo "$m: $(grep '^kiln has every frame' "$T/$m.cmp")"
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
	stacks_vs_perf p$m "$T/p$m.data"
	echo "perf-recorded $m: $(grep '^kiln has every frame' "$T/p$m.cmp")"
done
echo ok
