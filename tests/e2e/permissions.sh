#!/bin/sh
# perf_event_open refused: a one-line reason naming perf_event_paranoid,
# a hint, exit 1, no file. At paranoid 2 an unprivileged user still gets
# user-space samples. Needs root (to change the sysctl and drop privileges).
. "$(dirname "$0")/lib.sh"
paranoid_setup
chmod 777 "$T"
# -a needs paranoid <= 0: refused at 2 on every kernel.
asnobody "$KILN" record -a -o "$T/a.data" -- true 2>"$T/err"
st=$?
[ $st = 1 ] || fail "-a as nobody at paranoid 2: exit $st, want 1"
grep -q "perf_event_paranoid is 2" "$T/err" || fail "message does not name paranoid: $(cat "$T/err")"
grep -q -- "-a needs" "$T/err" || fail "no -a hint: $(cat "$T/err")"
grep -q "^hint:.*CAP_PERFMON" "$T/err" || fail "no CAP_PERFMON hint"
[ ! -e "$T/a.data" ] || fail "file left behind"
ls -A "$T" | grep -q kiln-tmp && fail "temporary file left behind"

# Level 3 refuses everything on kernels with the distribution patch; on
# others it acts as 2 (user-only still works). Either way: no broken file.
echo 3 >$f
asnobody "$KILN" record -o "$T/n.data" -- "$BURN" 0.2 2>"$T/err"
st=$?
if [ $st = 0 ]; then
	grep -q "user space only" "$T/err" || fail "paranoid 3 succeeded without the user-only warning"
else
	[ $st = 1 ] || fail "refused recording: exit $st, want 1"
	grep -q "perf_event_paranoid is 3" "$T/err" || fail "no paranoid in message: $(cat "$T/err")"
	[ ! -e "$T/n.data" ] || fail "file left behind"
fi

echo 2 >$f
asnobody "$KILN" record -q -o "$T/u.data" -- "$BURN" 0.5 2>"$T/err2" || fail "paranoid 2 user-only recording failed: $(cat "$T/err2")"
grep -q "user space only" "$T/err2" || fail "no user-only warning: $(cat "$T/err2")"
# The file is nobody's: root reads it only with -f (perf's ownership rule).
"$KILN" collapse "$T/u.data" >/dev/null 2>&1 && fail "root read nobody's file without -f"
"$KILN" collapse -f "$T/u.data" | grep -q '^burn;' || fail "no user samples"
echo ok
