# Shared helpers for end-to-end tests (sourced). Each test is one CTest
# test: exit 0 pass, 77 skip, anything else fail. KILN, BURN and TESTLIB
# come from CTest's environment.
set -u
: "${KILN:?}" "${BURN:?}" "${TESTLIB:?}"
T=$(mktemp -d)
busy=
trap '[ -n "$busy" ] && kill $busy 2>/dev/null; rm -rf "$T"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
skip() {
	echo "SKIP: $*"
	exit 77
}
# Skip when this machine refuses perf_event_open to us.
need_perf_events() {
	"$KILN" record -q -o "$T/probe.data" -- true 2>"$T/probe.err" ||
		skip "cannot record here: $(head -1 "$T/probe.err")"
	rm -f "$T/probe.data"
}
need_perf() {
	command -v perf >/dev/null || skip "perf is not installed"
}
# Wait (up to 20 s) until the workload kiln record started (pid $1 is
# kiln) has exec'd burn, then let it run 0.5 s more: on a loaded machine,
# or under ASan, kiln's setup alone can take over a second. Sets $wl to the
# workload's pid.
wait_workload() {
	i=0
	while [ $i -lt 200 ]; do
		wl=$(pgrep -P "$1" | head -1)
		[ -n "$wl" ] && readlink /proc/"$wl"/exe 2>/dev/null | grep -q burn && { sleep 0.5; return; }
		sleep 0.1
		i=$((i + 1))
	done
	fail "the workload never started"
}
# Start the example workload busy in the background for a while; its pid
# goes to $busy, and it is killed when the test exits.
start_busy() {
	"$BURN" 30 &
	busy=$!
	sleep 0.3
}
