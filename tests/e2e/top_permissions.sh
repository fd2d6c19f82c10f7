#!/bin/sh
# kiln top refused by perf_event_open: record's guidance (the reason
# naming kernel.perf_event_paranoid, the -a hint, CAP_PERFMON) and exit
# 1, before any table or terminal change. Needs root (to change the
# sysctl and drop privileges).
. "$(dirname "$0")/lib.sh"
paranoid_setup
asnobody "$KILN" top --stdio -d 1 >"$T/out" 2>"$T/err"
st=$?
[ $st = 1 ] || fail "top (the machine) as nobody at paranoid 2: exit $st, want 1"
grep -q "perf_event_paranoid is 2" "$T/err" || fail "message does not name paranoid: $(cat "$T/err")"
grep -q -- "-a needs" "$T/err" || fail "no -a hint: $(cat "$T/err")"
grep -q "^hint:.*CAP_PERFMON" "$T/err" || fail "no CAP_PERFMON hint: $(cat "$T/err")"
[ -s "$T/out" ] && fail "a table was printed: $(head -2 "$T/out")"
# Another user's process: the ptrace rule's hint.
asnobody "$KILN" top --stdio -d 1 -p 1 >"$T/out" 2>"$T/err"
st=$?
[ $st = 1 ] || fail "top -p 1 as nobody: exit $st, want 1"
grep -q "process 1 belongs to another user" "$T/err" || fail "no other-user hint: $(cat "$T/err")"
echo "ok"
