#!/bin/sh
# SIGINT and SIGTERM while recording: the file is finished and readable,
# the workload is stopped, and kiln dies of the same signal afterwards.
. "$(dirname "$0")/lib.sh"
need_perf_events
for sig in INT TERM HUP; do
	"$KILN" record -q -g -o "$T/$sig.data" -- "$BURN" 30 &
	k=$!
	wait_workload $k
	kill -$sig $k
	wait $k
	st=$?
	case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
	[ "$st" = "$want" ] || fail "SIG$sig: exit status $st, want $want"
	"$KILN" collapse "$T/$sig.data" >"$T/$sig.folded" || fail "SIG$sig: file not readable"
	grep -q '^burn;' "$T/$sig.folded" || fail "SIG$sig: no samples"
	pgrep -f "$BURN 30" >/dev/null && fail "SIG$sig: the workload is still running"
done
echo ok
