#!/bin/sh
# A recording that hits the file size limit (ulimit -f) or a full disk
# (a small tmpfs) stops cleanly: exit 1, a message naming the file and the
# cause, and the file keeps every whole record written before, readable by
# kiln and by perf. Output to a full device fails with exit 1. The workload
# runs 4 s so that a loaded machine still reaches the limits.
. "$(dirname "$0")/lib.sh"
need_perf_events
(ulimit -f 200; "$KILN" record -g -F 4000 -o "$T/big.data" -- "$BURN" 4) 2>"$T/err"
st=$?
[ $st = 1 ] || fail "ulimit -f: exit $st, want 1: $(cat "$T/err")"
grep -q "File too large" "$T/err" || fail "no cause in: $(cat "$T/err")"
grep -q "keeps the" "$T/err" || fail "no word about the kept file: $(cat "$T/err")"
[ -s "$T/big.data" ] || fail "nothing kept"
k=$("$KILN" collapse "$T/big.data" 2>/dev/null | awk '{s += $NF} END {print s + 0}')
[ "$k" -gt 0 ] || fail "kept file has no samples"
if command -v perf >/dev/null; then
	p=$(perf script -i "$T/big.data" -F comm,tid,time 2>/dev/null | grep -c .)
	[ "$p" = "$k" ] || fail "perf reads $p samples from the kept file, kiln $k"
fi
ls -A "$T" | grep -q kiln-tmp && fail "temporary file left behind"

if [ "$(id -u)" = 0 ] && mkdir "$T/small" && mount -t tmpfs -o size=96k tmpfs "$T/small" 2>/dev/null; then
	"$KILN" record -g -F 4000 -o "$T/small/p.data" -- "$BURN" 4 2>"$T/err2"
	st=$?
	"$KILN" collapse "$T/small/p.data" >/dev/null 2>&1
	st2=$?
	umount "$T/small"
	[ $st = 1 ] || fail "full tmpfs: exit $st, want 1: $(cat "$T/err2")"
	grep -q "No space left on device" "$T/err2" || fail "no ENOSPC message: $(cat "$T/err2")"
	[ $st2 = 0 ] || fail "the file kept on the full tmpfs is not readable (exit $st2)"
else
	echo "note: no tmpfs test (needs root and mount)"
fi

"$KILN" collapse "$T/big.data" >/dev/full 2>"$T/err3"
st=$?
[ $st = 1 ] || fail "writing to /dev/full: exit $st, want 1"
grep -q "cannot write" "$T/err3" || fail "no message for /dev/full: $(cat "$T/err3")"
echo "ok: $k samples kept under ulimit -f"
