#!/bin/sh
# kiln script prints tracepoint payloads (the trace field) as perf script
# 6.1 does, byte for byte, with perf's default fields and with
# -F comm,pid,tid,time,event,trace:
#  (a) perf record -a of tracepoints from many systems (sched, irq, timer,
#      syscalls, signal, workqueue, block, writeback, net...) in file mode,
#      pipe mode (from a file and from stdin) and zstd-compressed (-z);
#  (b) perf record -g of a workload's tracepoints (trace text, then the
#      callchain; kernel callchains only, so the test is about tracepoints,
#      not user symbol tables);
#  (c) kiln record -e tracepoints: perf reads kiln's file (its
#      TRACING_DATA feature) and prints what kiln script prints.
# The zoo holds no tracepoint events (its only RAW samples belong to a
# hardware event), so it is not used here.
. "$(dirname "$0")/lib.sh"
need_perf
tracefs=/sys/kernel/tracing
[ -r $tracefs/events/header_page ] || tracefs=/sys/kernel/debug/tracing
[ -r $tracefs/events/header_page ] || skip "no tracefs"
perf record -q -o "$T/probe.data" -e sched:sched_switch -a -- true 2>"$T/probe.err" ||
	skip "perf cannot record tracepoints here: $(head -1 "$T/probe.err")"

# -e options for the events of this list that this kernel has.
events() {
	for e in "$@"; do
		sys=${e%%:*}
		name=${e#*:}
		if [ "$name" = "*" ]; then
			[ -d "$tracefs/events/$sys" ] && printf -- '-e %s ' "$e"
		else
			[ -d "$tracefs/events/$sys/$name" ] && printf -- '-e %s ' "$e"
		fi
	done
}

# Some file system, process and signal activity while recording.
cat >"$T/work.sh" <<EOF
ls /usr/lib >/dev/null 2>&1
dd if=/dev/zero of="$T/zz" bs=64k count=16 conv=fsync 2>/dev/null
rm -f "$T/zz"
sh -c 'kill -USR1 \$\$' 2>/dev/null
sleep 0.2
EOF

# $1 name, $2 perf.data (or - with $3 a file for stdin): compare both field sets.
compare() {
	name=$1
	in=$2
	src=${3:-}
	for F in "" "comm,pid,tid,time,event,trace"; do
		set -- -i "$in"
		[ -n "$F" ] && set -- "$@" -F "$F"
		if [ "$in" = - ]; then
			perf script "$@" <"$src" >"$T/p.txt" 2>"$T/p.err"
			"$KILN" script "$@" <"$src" >"$T/k.txt" 2>"$T/k.err"
		else
			perf script "$@" >"$T/p.txt" 2>"$T/p.err"
			"$KILN" script "$@" >"$T/k.txt" 2>"$T/k.err"
		fi
		st=$?
		[ $st = 0 ] || fail "$name: kiln script $* exit $st: $(head -2 "$T/k.err")"
		if ! cmp -s "$T/p.txt" "$T/k.txt"; then
			echo "$name ($*): kiln differs from perf:" >&2
			diff "$T/p.txt" "$T/k.txt" | head -20 >&2
			fail "$name: $*"
		fi
		[ -s "$T/p.txt" ] || fail "$name: perf printed nothing"
		lines=$(wc -l <"$T/p.txt")
		echo "ok: $name ${F:+-F $F }($lines lines)"
	done
}

# Distinct events whose samples printed trace text, in perf's default output.
events_with_text() {
	perf script -i "$1" -F event,trace 2>/dev/null |
		awk '{ e = $1; sub(/^ */, ""); if (NF > 1) print e }' | sort -u | wc -l
}

# (a) System wide, many systems.
set -- $(events sched:sched_switch sched:sched_wakeup sched:sched_process_fork \
	sched:sched_process_exec sched:sched_process_exit 'irq:*' 'timer:*' \
	syscalls:sys_enter_openat syscalls:sys_exit_openat 'signal:*' 'workqueue:*' \
	'block:*' 'writeback:*' 'task:*' 'net:*' 'skb:*' 'sock:*' 'tcp:*')
[ $# -gt 10 ] || skip "too few of the tracepoints exist here"
perf record -q -o "$T/a.data" "$@" -a -- sh "$T/work.sh" 2>"$T/rec.err" ||
	fail "perf record: $(head -2 "$T/rec.err")"
n=$(events_with_text "$T/a.data")
[ "$n" -ge 8 ] || fail "only $n events printed trace text"
echo "ok: $n distinct events with trace text"
compare "file mode" "$T/a.data"

perf record -q -o - "$@" -a -- sleep 0.2 >"$T/pipe.data" 2>"$T/rec.err" ||
	fail "perf record -o -: $(head -2 "$T/rec.err")"
compare "pipe mode" "$T/pipe.data"
compare "pipe mode on stdin" - "$T/pipe.data"

perf record -q -z -o "$T/z.data" "$@" -a -- sleep 0.2 2>"$T/rec.err" ||
	fail "perf record -z: $(head -2 "$T/rec.err")"
compare "compressed" "$T/z.data"

# (b) Callchains of a workload's tracepoints.
set -- $(events sched:sched_switch raw_syscalls:sys_exit syscalls:sys_enter_openat \
	'exceptions:*' 'timer:*')
perf record -q -g --kernel-callchains -o "$T/g.data" "$@" -- "$BURN" 0.2 2>"$T/rec.err" ||
	fail "perf record -g: $(head -2 "$T/rec.err")"
compare "callchains" "$T/g.data"

# (c) kiln's own recording, read by perf.
need_perf_events
set -- $(events sched:sched_switch sched:sched_wakeup irq:softirq_entry irq:softirq_exit \
	timer:hrtimer_start timer:hrtimer_expire_entry syscalls:sys_enter_openat)
"$KILN" record -q -o "$T/k.data" "$@" -a -- sh -c 'ls /usr/lib >/dev/null; sleep 0.3' \
	2>"$T/rec.err" || fail "kiln record: $(head -2 "$T/rec.err")"
n=$(events_with_text "$T/k.data")
[ "$n" -ge 3 ] || fail "perf found trace text for only $n events in kiln's file"
compare "kiln record" "$T/k.data"
echo "ok: all"
