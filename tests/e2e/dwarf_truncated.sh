#!/bin/sh
# Stacks deeper than the recorded stack copy: the recursion shape (200
# frames) recorded with --call-graph dwarf,1024 by perf and by kiln. kiln
# keeps the frames it found and marks the cut: collapse puts [truncated]
# right under the process frame and warns with the count; script ends the
# stack as perf does (a last frame at address ffffffffffffffff). On perf's
# recording, kiln's frames agree with perf's sample by sample (kiln has
# every frame perf found; where a return address is the last word of the
# copy kiln keeps that frame and perf does not, so a few of kiln's cut
# stacks are one frame longer; perf is held as far as it got: down to its
# first [unknown] frame, less the frame above it), kiln marks >= 80% of
# the samples cut and >= 90% of those perf marked (with perf's frames
# starting its stack), and kiln's folded stacks are its script text folded as
# stackcollapse folds perf's (a cut stack shows [unknown] there).
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf
: "${SHAPES:?}"
perf record -q --call-graph dwarf,1024 -F 499 -o "$T/p.data" -- "$SHAPES" recurse 1 2>"$T/err" ||
	fail "perf record failed: $(cat "$T/err")"
"$KILN" record -q --call-graph dwarf,1024 -F 499 -o "$T/k.data" -- "$SHAPES" recurse 1 2>"$T/err" ||
	fail "kiln record failed: $(cat "$T/err")"
for f in p k; do
	"$KILN" collapse --no-inline "$T/$f.data" >"$T/$f.folded" 2>"$T/$f.err" || fail "$f: collapse failed"
	# Nearly every sample is deep in the recursion, so nearly all are cut.
	awk -v f=$f '
		{ total += $NF }
		/^shapes;\[truncated\];/ { cut += $NF }
		/\[truncated\]/ && !/^shapes;\[truncated\];/ { print f ": misplaced mark: " $0; exit 1 }
		/^shapes;\[truncated\];.*;recurse;spin( |;)/ { deep += $NF }
		END {
			printf "%s: %d of %d stacks cut, %d of them in spin under recurse\n", f, cut, total, deep
			if (cut < 0.8 * total || deep < 0.8 * cut) exit 1
		}' "$T/$f.folded" >"$T/$f.cut" || fail "$(cat "$T/$f.cut")"
	cat "$T/$f.cut"
	n=$(awk '/^shapes;\[truncated\];/ { s += $NF } END { print s + 0 }' "$T/$f.folded")
	grep -q "warning: .*: $n of [0-9]* stacks were cut short" "$T/$f.err" ||
		fail "$f: no warning counting $n cut stacks: $(cat "$T/$f.err")"
done
# Against perf's own unwinding of its recording.
stacks_vs_perf p "$T/p.data"
awk '/^identical/ { id = $2 } /^samples:/ { m = $NF }
	/^marked cut/ { pc = $6 + 0; kc = $8 + 0; both = $12 + 0 }
	END { if (kc < 0.8 * m || both < 0.9 * pc || kc < pc - 0.02 * m - 1) exit 1 }' "$T/p.cmp" ||
	fail "kiln's cut marks differ from perf's: $(cat "$T/p.cmp")"
head -8 "$T/p.cmp"
"$KILN" script --no-inline -i "$T/p.data" 2>/dev/null | python3 "$TESTLIB/perf_fold.py" >"$T/kiln.text.folded"
sed 's/^shapes;\[truncated\];/shapes;[unknown];/' "$T/p.folded" >"$T/p.asperf"
python3 "$TESTLIB/fold_compare.py" "$T/p.asperf" "$T/kiln.text.folded" 1 >"$T/fcmp" ||
	fail "collapse and script disagree: $(cat "$T/fcmp")"
head -1 "$T/fcmp"
echo ok
