#!/bin/sh
# Every perf.data in the shared zoo (perf 3.2 to 6.12, x86_64, i686, armv7,
# file and pipe mode) is read: for each file perf 6.1 reads, kiln counts
# exactly the samples perf script prints. Files perf 6.1 cannot read
# (zstd COMPRESSED2 records, newer layouts) must still give samples.
. "$(dirname "$0")/lib.sh"
need_perf
zoo="$KILN_SHARED/testdata/perf-data-zoo"
[ -d "$zoo" ] || skip "no $zoo"
checked=0
beyond=0
for f in "$zoo"/*data*; do
	name=$(basename "$f")
	"$KILN" collapse "$f" >"$T/k.folded" 2>"$T/k.err"
	st=$?
	case $st in 0 | 3 | 4) ;; *) fail "$name: exit $st" ;; esac
	k=$(awk '{s += $NF} END {print s + 0}' "$T/k.folded")
	p=$(perf script -i "$f" -F comm,tid,time 2>/dev/null | grep -c .)
	if [ "$p" = 0 ]; then
		case $name in *corrupted*) continue ;; esac
		[ $st = 0 ] && [ "$k" -gt 0 ] || fail "$name: perf 6.1 cannot read it, but kiln must (exit $st, $k samples)"
		beyond=$((beyond + 1))
		continue
	fi
	[ "$k" = "$p" ] || fail "$name: kiln counts $k samples, perf $p"
	checked=$((checked + 1))
done
[ $checked -ge 16 ] || fail "only $checked files compared"
[ $beyond -ge 2 ] || fail "only $beyond files beyond perf 6.1 read"
echo "ok: $checked files with sample counts equal to perf's; $beyond files perf 6.1 cannot read"
