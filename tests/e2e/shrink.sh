#!/bin/sh
# A perf.data that shrinks while kiln reads it (another process truncates
# it): kiln must not die of SIGBUS but stop where the file now ends, say
# "file shrank while being read (at offset N)" with N the new size, exit 4
# (partial) and keep what it read before. Deterministic: kiln script writes
# into a FIFO nobody reads yet, so it stops early (a full pipe) with the
# file mapped; the file is cut to half, then the output is drained. The
# recording is over 32 MiB (--call-graph dwarf, 64 KiB stacks), so the
# reading and unwinding run on kiln's second thread (pipeline/readahead).
. "$(dirname "$0")/lib.sh"
need_perf_events
f=$T/big.data
# Longer each time if a loaded machine gave too few samples.
for secs in 2 4 8; do
	"$KILN" record -q --call-graph dwarf,65528 -F 999 -o "$f" -- "$BURN" $secs 2>"$T/rec.err" ||
		fail "kiln record failed: $(cat "$T/rec.err")"
	size=$(stat -c %s "$f")
	[ "$size" -ge 33554432 ] && break
done
[ "$size" -ge 33554432 ] || skip "recording of $size bytes is under 32 MiB (too few samples here)"
"$KILN" script -i "$f" >"$T/full.txt" 2>"$T/full.err" || fail "kiln script of the whole file failed"

mkfifo "$T/out"
"$KILN" script -i "$f" >"$T/out" 2>"$T/err" &
pid=$!
exec 3<"$T/out"
# Wait (up to 60 s) until kiln has the file mapped and waits on the full pipe.
i=0
while [ $i -lt 600 ]; do
	# Blocked: in pipe_write (wchan), or, where wchan is hidden, in write(1, ...).
	grep -q "$f" /proc/$pid/maps 2>/dev/null &&
		{ cat /proc/$pid/task/*/wchan 2>/dev/null | grep -q pipe_write ||
			grep -q '^1 0x1 ' /proc/$pid/task/*/syscall 2>/dev/null; } && break
	sleep 0.1
	i=$((i + 1))
done
[ $i -lt 600 ] || fail "kiln script never blocked on its output"
cut=$((size / 2 / 4096 * 4096))
truncate -s "$cut" "$f"
cat <&3 >"$T/part.txt"
exec 3<&-
wait $pid
rc=$?
[ $rc -eq 4 ] || fail "exit $rc after the file shrank, want 4: $(cat "$T/err")"
hex=$(printf '0x%x' "$cut")
grep -q "^warning: $f: input ended early: file shrank while being read (at offset $hex); results are partial$" "$T/err" ||
	fail "no shrink message at offset $hex: $(cat "$T/err")"
# What was read before is kept: samples, each one of the whole file's.
grep -v '^[[:space:]]' "$T/part.txt" | grep -v '^$' | sort >"$T/part.heads"
grep -v '^[[:space:]]' "$T/full.txt" | grep -v '^$' | sort >"$T/full.heads"
np=$(wc -l <"$T/part.heads")
nf=$(wc -l <"$T/full.heads")
[ "$np" -gt 0 ] && [ "$np" -lt "$nf" ] || fail "$np samples kept of $nf"
[ -z "$(comm -23 "$T/part.heads" "$T/full.heads")" ] ||
	fail "samples not in the whole file's output: $(comm -23 "$T/part.heads" "$T/full.heads" | head -3)"
echo "file of $size bytes cut to $cut while read: exit 4, $np of $nf samples kept"
