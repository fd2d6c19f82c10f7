#!/bin/sh
# kiln top -a while a CPU goes offline and comes back: top keeps running
# and printing tables, says once on stderr that CPU 1 went offline (its
# events are gone: the kernel drops them at hotplug), shows it in the
# header while it is offline ("[offline: CPU 1]"), says once that it is
# online again, and ends at SIGTERM with 143. CPU 1 is put back online
# whatever happens (a trap); two runs of this test take turns (flock).
# Skipped where CPU 1 cannot be taken offline (no hotplug, a container, a
# single CPU).
. "$(dirname "$0")/lib.sh"
need_perf_events
cpu=/sys/devices/system/cpu/cpu1/online
[ -w "$cpu" ] || skip "CPU 1 cannot be taken offline here (no writable $cpu)"
[ "$(cat "$cpu")" = 1 ] || skip "CPU 1 is offline already"
command -v flock >/dev/null || skip "no flock(1) to take CPU 1 alone"
exec 9>"${TMPDIR:-/tmp}/kiln-cpu-hotplug.lock"
flock -w 100 9 || skip "another run holds CPU 1 (the hotplug lock)"
trap 'echo 1 >"$cpu" 2>/dev/null; rm -rf "$T"' EXIT

tables() { grep -c '^   PerfTop: ' "$T/out"; }
# wait_tables N WHAT: until N tables were printed (60 s at most), top alive
wait_tables() {
	i=0
	while [ "$(tables)" -lt "$1" ]; do
		kill -0 "$k" 2>/dev/null || fail "kiln top ended $2: $(cat "$T/err")"
		[ $i -lt 600 ] || fail "only $(tables) tables $2"
		sleep 0.1
		i=$((i + 1))
	done
}

"$KILN" top -a --stdio -d 0.5 -s cpu -E 4 >"$T/out" 2>"$T/err" &
k=$!
wait_tables 2 "before CPU 1 went offline"
echo 0 >"$cpu" 2>"$T/off.err" || skip "the kernel refused to take CPU 1 offline: $(cat "$T/off.err")"
n=$(tables)
wait_tables $((n + 4)) "while CPU 1 was offline"
echo 1 >"$cpu" || fail "cannot put CPU 1 back online"
n=$(tables)
wait_tables $((n + 4)) "after CPU 1 came back"
kill -TERM "$k"
wait "$k"
rc=$?
[ $rc = 143 ] || fail "SIGTERM: status $rc: $(cat "$T/err")"
[ "$(grep -c 'CPU 1 went offline' "$T/err")" = 1 ] ||
	fail "not said once that CPU 1 went offline: $(cat "$T/err")"
[ "$(grep -c 'CPU 1 is online again' "$T/err")" = 1 ] ||
	fail "not said once that CPU 1 came back: $(cat "$T/err")"
off=$(grep -c '^   PerfTop: .*\[offline: CPU 1\]$' "$T/out")
[ "$off" -ge 2 ] || fail "$off headers said CPU 1 was offline"
grep '^   PerfTop: ' "$T/out" | tail -1 | grep -q 'offline' && fail "the last header still says offline"
echo "ok: $(tables) tables, $off with CPU 1 offline"
