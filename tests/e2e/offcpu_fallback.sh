#!/bin/sh
# kiln record --off-cpu (no method) where the BPF method cannot load but the
# sched_switch tracepoint is allowed: root without CAP_BPF and CAP_SYS_ADMIN
# (capsh --drop; CAP_PERFMON kept), so the kernel itself refuses the BPF
# maps and program (EPERM). --off-cpu=bpf is then refused in one error line
# (exit 1, no file left); --off-cpu falls back to the sched method, says
# why, and what it records passes offcpu.sh's checks.
. "$(dirname "$0")/lib.sh"
need_perf_events
[ "$(id -u)" = 0 ] || skip "needs root (to drop capabilities from)"
command -v capsh >/dev/null || skip "no capsh (libcap2-bin)"
drop=cap_bpf,cap_sys_admin
"$KILN" record -q --off-cpu=bpf -o "$T/b.data" -- true 2>"$T/b.err" ||
	skip "the BPF method does not load here even with every capability: $(head -1 "$T/b.err")"
capsh --drop=$drop -- -c 'exec "$@"' sh "$KILN" record -q --off-cpu=sched -o "$T/s.data" -- true \
	2>"$T/s.err" || skip "without $drop this machine refuses the sched method too: $(head -1 "$T/s.err")"

# Forced, the BPF method is refused: one error line naming the cause.
capsh --drop=$drop -- -c 'exec "$@"' sh "$KILN" record -q --off-cpu=bpf -o "$T/f.data" -- true \
	2>"$T/f.err"
rc=$?
[ $rc -eq 1 ] || fail "--off-cpu=bpf without $drop exited $rc, not 1: $(cat "$T/f.err")"
[ "$(grep -c '^error:' "$T/f.err")" -eq 1 ] || fail "not one error line: $(cat "$T/f.err")"
grep -q '^error: BPF is not allowed here (.*: Operation not permitted; it needs root, or CAP_BPF and CAP_PERFMON)' "$T/f.err" ||
	fail "the refusal does not name why: $(cat "$T/f.err")"
[ -e "$T/f.data" ] && fail "--off-cpu=bpf refused left a file behind"

# Without a method: the sched method, with a note saying why not BPF.
capsh --drop=$drop -- -c 'exec "$@"' sh "$KILN" record --off-cpu -o "$T/a.data" -- sleep 0.2 \
	2>"$T/a.err" || fail "--off-cpu without $drop failed: $(cat "$T/a.err")"
grep -q '^note: off-CPU: recording sched_switch: the BPF method is not usable: BPF is not allowed here' "$T/a.err" ||
	fail "no note of the fallback: $(cat "$T/a.err")"
grep -q 'off-CPU (sched): .* s blocked' "$T/a.err" || fail "the summary names no sched method: $(cat "$T/a.err")"
"$KILN" collapse --off-cpu "$T/a.data" >"$T/a.folded" || fail "collapse --off-cpu of the fallback's file failed"
grep -q '^sleep;.*nanosleep' "$T/a.folded" || fail "no sleep in the fallback's file: $(cat "$T/a.folded")"
# -q: the note goes, the recording is the same
capsh --drop=$drop -- -c 'exec "$@"' sh "$KILN" record -q --off-cpu -o "$T/q.data" -- true \
	2>"$T/q.err" || fail "--off-cpu -q without $drop failed: $(cat "$T/q.err")"
[ -s "$T/q.err" ] && fail "-q printed: $(cat "$T/q.err")"

# The accuracy checks, on what the fallback records.
rm -rf "$T"
OFFCPU_METHOD=sched
OFFCPU_FLAG=--off-cpu
OFFCPU_DROP=$drop
. "$(dirname "$0")/offcpu.sh"
