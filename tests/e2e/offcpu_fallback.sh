#!/bin/sh
# kiln record --off-cpu (no method) where the BPF method cannot be used but
# the sched_switch tracepoint is allowed: --off-cpu=bpf is refused in one
# error line (exit 1, no file left); --off-cpu falls back to the sched
# method, says why, and what it records passes offcpu.sh's checks.
# With BPF built in: root without CAP_BPF and CAP_SYS_ADMIN (capsh --drop;
# CAP_PERFMON kept), so the kernel itself refuses the BPF maps and program
# (EPERM). In a kiln built without BPF (cmake -DKILN_BPF=OFF, or no clang,
# bpftool or libbpf): as it is.
. "$(dirname "$0")/lib.sh"
need_perf_events
"$KILN" record -q --off-cpu=bpf -o "$T/b.data" -- true 2>"$T/b.err"
rc=$?
# run ARGS: kiln record, without $drop's capabilities when set
drop=
run() {
	if [ -n "$drop" ]; then
		capsh --drop="$drop" -- -c 'exec "$@"' sh "$KILN" record "$@"
	else
		"$KILN" record "$@"
	fi
}
if grep -q 'built without BPF' "$T/b.err"; then
	why='this kiln was built without BPF (building it needs clang, bpftool, libbpf-dev'
	run -q --off-cpu=sched -o "$T/s.data" -- true 2>"$T/s.err" ||
		skip "the sched method is refused here: $(head -1 "$T/s.err")"
else
	[ $rc -eq 0 ] || skip "the BPF method does not load here: $(head -1 "$T/b.err")"
	[ "$(id -u)" = 0 ] || skip "needs root (to drop capabilities from)"
	command -v capsh >/dev/null || skip "no capsh (libcap2-bin)"
	drop=cap_bpf,cap_sys_admin
	why='BPF is not allowed here (.*: Operation not permitted; it needs root, or CAP_BPF and CAP_PERFMON)'
	run -q --off-cpu=sched -o "$T/s.data" -- true 2>"$T/s.err" ||
		skip "without $drop this machine refuses the sched method too: $(head -1 "$T/s.err")"
fi

# Forced, the BPF method is refused: one error line naming the cause.
run -q --off-cpu=bpf -o "$T/f.data" -- true 2>"$T/f.err"
rc=$?
[ $rc -eq 1 ] || fail "--off-cpu=bpf exited $rc, not 1: $(cat "$T/f.err")"
[ "$(grep -c '^error:' "$T/f.err")" -eq 1 ] || fail "not one error line: $(cat "$T/f.err")"
grep -q "^error: $why" "$T/f.err" || fail "the refusal does not name why: $(cat "$T/f.err")"
[ -e "$T/f.data" ] && fail "--off-cpu=bpf refused left a file behind"
if [ -z "$drop" ]; then
	[ "$(wc -l <"$T/f.err")" -eq 1 ] || fail "more than the error line: $(cat "$T/f.err")"
fi

# Without a method: the sched method, with a note saying why not BPF.
run --off-cpu -o "$T/a.data" -- sleep 0.2 2>"$T/a.err" ||
	fail "--off-cpu failed: $(cat "$T/a.err")"
grep -q "^note: off-CPU: recording sched_switch: the BPF method is not usable: $why" "$T/a.err" ||
	fail "no note of the fallback: $(cat "$T/a.err")"
grep -q 'off-CPU (sched): .* s blocked' "$T/a.err" || fail "the summary names no sched method: $(cat "$T/a.err")"
"$KILN" collapse --off-cpu "$T/a.data" >"$T/a.folded" || fail "collapse --off-cpu of the fallback's file failed"
grep -q '^sleep;.*nanosleep' "$T/a.folded" || fail "no sleep in the fallback's file: $(cat "$T/a.folded")"
# -q: the note goes, the recording is the same
run -q --off-cpu -o "$T/q.data" -- true 2>"$T/q.err" || fail "--off-cpu -q failed: $(cat "$T/q.err")"
[ -s "$T/q.err" ] && fail "-q printed: $(cat "$T/q.err")"

# The accuracy checks, on what the fallback records.
rm -rf "$T"
OFFCPU_METHOD=sched
OFFCPU_FLAG=--off-cpu
OFFCPU_DROP=$drop
. "$(dirname "$0")/offcpu.sh"
