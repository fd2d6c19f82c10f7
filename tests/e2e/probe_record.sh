#!/bin/sh
# kiln record --probe: a probe made for one recording (a uprobe in the
# --probe-exec binary), recorded with its arguments (and a --filter), and
# removed when the recording ends: when the command exits, and when Ctrl-C
# (SIGINT) ends a system-wide recording; probes made by kiln probe stay. An
# existing event of the same name is refused, not taken over and removed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_probe.sh"
need_perf_events
need_uprobes
B=kr$$x
G=probe_$B
build_work $B -O2 -g

"$KILN" record -q --probe-exec "$T/$B" --probe 'work n msg:string' --filter 'n >= 1000002' \
	-o "$T/p.data" -- "$T/$B" 5 >/dev/null 2>"$T/rec.err" || fail "record --probe: $(cat "$T/rec.err")"
grep -q "$G/" $TRACEFS/uprobe_events && fail "the probe was left after the recording"
"$KILN" script -i "$T/p.data" >"$T/p.txt" || fail "script"
[ "$(grep -c " $G:work: ([0-9a-f]*) n=0xf424[234] msg_string=\"call-[234]\"\$" "$T/p.txt")" = 3 ] ||
	fail "recorded: $(cat "$T/p.txt")"

# Ctrl-C: the file is finished, the probe removed, kiln dies of the signal. The
# command (started once the events are enabled) calls work 3 times, then sends
# kiln SIGINT as a user's Ctrl-C would, and waits to be stopped.
"$KILN" record -q -a --probe-exec "$T/$B" --probe 'work n' -o "$T/int.data" -- \
	sh -c '"$1" 3 >/dev/null; kill -INT $PPID; exec sleep 30' sh "$T/$B" 2>"$T/int.err"
rc=$?
[ $rc = 130 ] || fail "kiln record after SIGINT: exit $rc, 130 expected: $(cat "$T/int.err")"
grep -q "$G/" $TRACEFS/uprobe_events && fail "the probe was left after Ctrl-C"
"$KILN" script -i "$T/int.data" >"$T/int.txt" || fail "script after Ctrl-C"
[ "$(grep -c " $G:work: " "$T/int.txt")" = 3 ] || fail "after Ctrl-C: $(cat "$T/int.txt")"

# a probe made by kiln probe is not touched: --probe refuses its name, -e records it, it stays
"$KILN" probe -q -x "$T/$B" work || fail "kiln probe"
"$KILN" record -q --probe-exec "$T/$B" --probe 'work n' -o "$T/x.data" -- "$T/$B" 1 >/dev/null 2>"$T/x.err"
[ $? = 1 ] || fail "--probe over an existing event: exit 1 expected"
grep -q "exists already: record it with -e $G:work" "$T/x.err" || fail "$(cat "$T/x.err")"
"$KILN" record -q -e "$G:work" -o "$T/x.data" -- "$T/$B" 2 >/dev/null || fail "record -e"
grep -q "^p:$G/work " $TRACEFS/uprobe_events || fail "kiln probe's probe was removed by a recording"
"$KILN" probe -q -d "$G:work" || fail "-d"
exit 0
