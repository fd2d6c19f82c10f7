#!/bin/sh
# kiln trace ends with its target: a command that dies of a signal (its
# status passed on as 128+N, every event printed: the kill call is the
# last line), and Ctrl-C on a command that ignores SIGINT/SIGTERM (kiln
# prints the lines and the summary so far, the command is killed, kiln
# dies of the SIGINT it got); unprivileged, a message naming what is
# needed.
. "$(dirname "$0")/lib.sh"
"$KILN" trace -o "$T/probe.txt" -- true 2>"$T/probe.err" ||
	skip "cannot trace here: $(head -1 "$T/probe.err")"

"$KILN" trace -o "$T/die" -- sh -c 'kill -9 $$' 2>"$T/die.err"
rc=$?
[ $rc = 137 ] || fail "a command killed by SIGKILL: status $rc, not 137 ($(cat "$T/die.err"))"
# The signal is delivered as the call returns: it returns 0, the last line.
tail -1 "$T/die" | grep -qE '/[0-9]+ kill\(pid: [0-9]+, sig: SIGKILL\) += 0$' ||
	fail "no kill(SIGKILL) line: $(tail -3 "$T/die")"

"$KILN" trace -S -o "$T/int" -- sh -c 'trap "" INT TERM; while :; do sleep 0.1; done' 2>"$T/int.err" &
k=$!
i=0
while [ $i -lt 100 ] && ! pgrep -P $k >/dev/null; do sleep 0.1; i=$((i + 1)); done
sleep 1
kill -INT $k
i=0
while [ $i -lt 100 ] && kill -0 $k 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
kill -0 $k 2>/dev/null && { kill -9 $k; fail "kiln trace still runs 10 s after SIGINT"; }
wait $k
rc=$?
[ $rc = 130 ] || fail "kiln after SIGINT: status $rc, not 130 ($(cat "$T/int.err"))"
grep -q '^ Summary of events:$' "$T/int" || fail "no summary after SIGINT"
grep -qE '/[0-9]+ (clone|clone3|wait4)\(' "$T/int" || fail "no lines before the summary"

# Without privileges: traced (the machine allows it), or one error line
# and a hint naming what is needed, status 1.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	cp "$KILN" "$T/kiln-copy" && chmod 755 "$T" "$T/kiln-copy"
	(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$T/kiln-copy" trace -o /dev/null -- true) \
		2>"$T/nobody.err"
	rc=$?
	if [ $rc != 0 ]; then
		[ $rc = 1 ] || fail "unprivileged: status $rc ($(cat "$T/nobody.err"))"
		grep -q '^error: kiln trace: ' "$T/nobody.err" || fail "unprivileged: $(cat "$T/nobody.err")"
		grep -qE '^hint: .*(root|CAP_PERFMON|perf_event_paranoid)' "$T/nobody.err" ||
			fail "unprivileged: no hint naming what is needed: $(cat "$T/nobody.err")"
	fi
fi
exit 0
