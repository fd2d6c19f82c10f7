#!/bin/sh
# Ending a recording whose command will not end by itself (docs/cmd/record.md
# "Stopping"): a command that ignores SIGTERM, or one that is stopped
# (SIGSTOP). After SIGINT/SIGTERM to kiln the file is finished, the command
# gets SIGTERM and SIGCONT, then SIGKILL after the 2 s grace or at a second
# signal; kiln dies of the first signal (130, 143), prints its summary, and
# leaves no temporary file. A second SIGTERM while the command is still
# ending must not cost the summary.
. "$(dirname "$0")/lib.sh"
need_perf_events
# A command that ignores SIGTERM and spins until killed.
cat >"$T/deaf.sh" <<'SH'
trap '' TERM
while :; do :; done
SH
# A command that takes 1 s to exit after SIGTERM.
cat >"$T/slow.sh" <<'SH'
trap 'sleep 1; exit 0' TERM
while :; do :; done
SH
# start_rec NAME ARGS...: kiln record in the background; $k is kiln, $c
# the command (once it runs), $t0 is set when the caller signals.
start_rec() {
	name=$1
	shift
	"$KILN" record -o "$T/$name.data" -- "$@" 2>"$T/$name.err" &
	k=$!
	i=0
	c=
	while [ $i -lt 200 ] && [ -z "$c" ]; do
		c=$(pgrep -P $k | head -1)
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$c" ] || fail "$name: the command never started"
	# Let it be sampled (kiln's setup may be slow under ASan or load).
	sleep 1
	# A kiln that never ends is killed after 15 s (and fails below); the
	# watchdog itself ends with kiln.
	(
		i=0
		while [ $i -lt 150 ] && kill -0 $k 2>/dev/null; do
			sleep 0.1
			i=$((i + 1))
		done
		[ $i -ge 150 ] && kill -KILL $k $c
	) >/dev/null 2>&1 &
	dog=$!
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
check() { # NAME STATUS WANT_STATUS MAX_MS
	kill $dog 2>/dev/null
	[ "$2" = "$3" ] || fail "$1: exit $2, want $3: $(cat "$T/$1.err")"
	el=$(($(now_ms) - t0))
	[ $el -le "$4" ] || fail "$1: kiln took $el ms to end, want <= $4"
	grep -q '^\[ kiln record: wrote [0-9]* samples' "$T/$1.err" || fail "$1: no summary: $(cat "$T/$1.err")"
	"$KILN" collapse "$T/$1.data" >/dev/null 2>"$T/c.err" || fail "$1: file not readable: $(cat "$T/c.err")"
	[ -d /proc/"$c" ] && [ "$(awk '{print $3}' /proc/"$c"/stat)" != Z ] && fail "$1: the command is still there"
	ls -A "$T" | grep -q kiln-tmp && fail "$1: temporary file left behind"
	return 0
}

# 1. Ignores SIGTERM; one SIGINT: SIGKILL after the grace (2 s).
start_rec deaf sh "$T/deaf.sh"
t0=$(now_ms)
kill -INT $k
wait $k
st=$?
check deaf $st 130 8000
el=$(($(now_ms) - t0))
[ $el -ge 1900 ] || fail "deaf: ended after $el ms, before the 2 s grace"

# 2. Ignores SIGTERM; a second SIGINT ends the grace at once.
start_rec deaf2 sh "$T/deaf.sh"
t0=$(now_ms)
kill -INT $k
sleep 0.3
kill -INT $k
wait $k
st=$?
check deaf2 $st 130 1500

# 3. Stopped (SIGSTOP); SIGTERM to kiln: SIGCONT lets the SIGTERM act.
start_rec stopped "$BURN" 30
kill -STOP "$c"
sleep 0.2
t0=$(now_ms)
kill -TERM $k
wait $k
st=$?
check stopped $st 143 1500

# 4. Two SIGTERMs 100 ms apart while the command takes 1 s to exit: the
#    summary is printed (before, the second signal killed kiln first).
start_rec twice sh "$T/slow.sh"
t0=$(now_ms)
kill -TERM $k
sleep 0.1
kill -TERM $k 2>/dev/null
wait $k
st=$?
check twice $st 143 1500
echo "ok: deaf command killed after the grace or a second signal, stopped command ended, summary kept"
