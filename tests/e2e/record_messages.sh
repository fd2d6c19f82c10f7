#!/bin/sh
# What record says when it cannot start, and what -q keeps quiet:
# -e cycles on a machine without a hardware PMU names the missing PMU and
# suggests -e cpu-clock; -q silences the note that the default event fell
# back to cpu-clock; a full disk at the start is reported as such, naming
# the output file (a 64 KiB tmpfs, filled; needs root); -p of another
# user's process says what would allow it (root, CAP_PERFMON or
# CAP_SYS_PTRACE, not perf_event_paranoid and not :u; needs root and
# setpriv, restores kernel.perf_event_paranoid); ring buffers beyond the
# locked-memory limit are named as such, with a hint about -m.
. "$(dirname "$0")/lib.sh"
need_perf_events
f=/proc/sys/kernel/perf_event_paranoid
old=$(cat $f)
small=
trap '[ -n "$busy" ] && kill $busy 2>/dev/null; [ -n "$small" ] && umount "$small"; echo $old >$f 2>/dev/null; rm -rf "$T"' EXIT
tested=

# -e cycles without a PMU (where there is one, cycles records: nothing to check).
if ! "$KILN" record -q -e cycles -o "$T/c.data" -- true 2>"$T/c.err"; then
	grep -q "cannot sample 'cycles': this machine has no hardware PMU" "$T/c.err" ||
		fail "-e cycles: $(cat "$T/c.err")"
	grep -q "^hint:.*-e cpu-clock" "$T/c.err" || fail "-e cycles: no cpu-clock hint: $(cat "$T/c.err")"
	[ -e "$T/c.data" ] && fail "-e cycles: file left behind"
	tested="$tested -e-cycles"

	# The default event falls back to cpu-clock: a note, silenced by -q.
	"$KILN" record -o "$T/d.data" -- true 2>"$T/d.err" || fail "default event: $(cat "$T/d.err")"
	grep -q "no hardware PMU: sampling cpu-clock" "$T/d.err" || fail "no fallback note: $(cat "$T/d.err")"
	"$KILN" record -q -o "$T/d.data" -- true 2>"$T/q.err" || fail "default event -q: $(cat "$T/q.err")"
	[ -s "$T/q.err" ] && fail "-q printed: $(cat "$T/q.err")"
	tested="$tested -q"
fi

# A full file system at the start.
if [ "$(id -u)" = 0 ] && mkdir "$T/small" && mount -t tmpfs -o size=64k tmpfs "$T/small" 2>/dev/null; then
	small=$T/small
	dd if=/dev/zero of="$small/fill" bs=4096 count=64 2>/dev/null
	"$KILN" record -q -o "$small/p.data" -- "$BURN" 0.1 2>"$T/full.err"
	st=$?
	ls -A "$small" >"$T/full.ls"
	umount "$small"
	small=
	[ $st = 1 ] || fail "full disk: exit $st, want 1"
	grep -q "^error: cannot write '$T/small/p.data': No space left on device (the file system holding it is full)" \
		"$T/full.err" || fail "full disk: $(cat "$T/full.err")"
	grep -q "perf_event_open" "$T/full.err" && fail "full disk blamed on perf_event_open: $(cat "$T/full.err")"
	[ "$(cat "$T/full.ls")" = fill ] || fail "full disk: left $(cat "$T/full.ls")"
	tested="$tested full-disk"
fi

# Another user's process.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && echo 2 >$f 2>/dev/null; then
	chmod 777 "$T"
	start_busy
	for p in 2 -1; do
		echo $p >$f
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$KILN" record -o "$T/n.data" -p "$busy" -- sleep 0.2 2>"$T/n.err"
		st=$?
		[ $st = 1 ] || fail "another user's -p at paranoid $p: exit $st, want 1: $(cat "$T/n.err")"
		grep -q "^hint: process $busy belongs to another user (uid 0): sampling it needs root, CAP_PERFMON or CAP_SYS_PTRACE" \
			"$T/n.err" || fail "paranoid $p: no right hint: $(cat "$T/n.err")"
		grep -q ":u\|sysctl" "$T/n.err" && fail "paranoid $p: a hint that cannot help: $(cat "$T/n.err")"
		[ -e "$T/n.data" ] && fail "paranoid $p: file left behind"
	done
	echo $old >$f
	tested="$tested foreign-pid"

	# Ring buffers past the locked-memory allowance (kernel.perf_event_mlock_kb
	# beyond which RLIMIT_MEMLOCK counts): not a perf_event_paranoid matter.
	if ! (ulimit -l 64 && setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$KILN" record -q -m 1024 -o "$T/m.data" -- true) 2>"$T/m.err"; then
		grep -q "^error: cannot map a 1024-page ring buffer" "$T/m.err" || fail "-m 1024: $(cat "$T/m.err")"
		grep -q "^hint:.*smaller -m" "$T/m.err" || fail "-m 1024: no -m hint: $(cat "$T/m.err")"
		grep -q "paranoid" "$T/m.err" && fail "-m 1024 blamed on perf_event_paranoid: $(cat "$T/m.err")"
		tested="$tested ring-limit"
	fi
fi
[ -n "$tested" ] || skip "nothing applies here (a PMU, not root)"
echo "ok:$tested"
