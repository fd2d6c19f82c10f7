#!/bin/sh
# Every perf.data in the shared zoo (perf 3.2 to 6.12, x86_64, i686, armv7,
# file and pipe mode) is read: for each file perf 6.1 reads, kiln counts
# exactly the samples perf script prints. zstd-compressed files are not yet
# decoded and must say so instead of silently giving nothing.
. "$(dirname "$0")/lib.sh"
need_perf
zoo="$KILN_SHARED/testdata/perf-data-zoo"
[ -d "$zoo" ] || skip "no $zoo"
checked=0
for f in "$zoo"/*data*; do
	name=$(basename "$f")
	"$KILN" collapse "$f" >"$T/k.folded" 2>"$T/k.err"
	st=$?
	case $st in 0 | 3 | 4) ;; *) fail "$name: exit $st" ;; esac
	case $name in
	*compressed*)
		grep -q "compressed" "$T/k.err" || fail "$name: no word about compression: $(cat "$T/k.err")"
		continue
		;;
	esac
	p=$(perf script -i "$f" -F comm,tid,time 2>/dev/null | grep -c .)
	[ "$p" -gt 0 ] || continue
	k=$(awk '{s += $NF} END {print s + 0}' "$T/k.folded")
	[ "$k" = "$p" ] || fail "$name: kiln counts $k samples, perf $p"
	checked=$((checked + 1))
done
[ $checked -ge 15 ] || fail "only $checked files compared"
echo "ok: $checked files, sample counts equal to perf's"
