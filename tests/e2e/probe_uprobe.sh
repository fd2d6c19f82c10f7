#!/bin/sh
# kiln probe -x: uprobes on a user function of a test program called a
# known number of times (tests/progs/probe_work.c), with arguments named
# from DWARF: a register argument, a member through a pointer, a string;
# %return with $retval; the unoptimized build (frame base + CFA from CFI,
# the prologue skipped) and a line probe. Every call is recorded with its
# values by kiln record, read back by kiln script and by perf script (the
# same lines), counted by kiln stat; -l lists, -V/-L/-F show, -d removes
# (from tracefs too). The probes' group is the binary's name, unique to the
# run, and the trap removes whatever is left.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_probe.sh"
need_perf_events
need_uprobes
B=kp$$x
G=probe_$B
build_work $B -O2 -g
build_work kq$$x -O0 -g
N=6

"$KILN" probe -x "$T/$B" 'work n p->x msg:string' 2>"$T/add.err" || fail "probe: $(cat "$T/add.err")"
grep -q "$G:work .*(on work in .*/$B with n x msg_string)" "$T/add.err" || fail "add message: $(cat "$T/add.err")"
grep -q "^p:$G/work .*/$B:0x[0-9a-f]* n=%di:x64 x=+0(%si):s32 msg_string=+0(%dx):string\$" \
	$TRACEFS/uprobe_events || fail "uprobe_events: $(grep "$G" $TRACEFS/uprobe_events)"
"$KILN" probe -q -x "$T/$B" 'work%return $retval' || fail "probe %return"
"$KILN" probe -l >"$T/list" || fail "probe -l"
grep -q "^  $G:work  *(on work@.*probe_work.c in .*/$B with n x msg_string)\$" "$T/list" || fail "-l: $(cat "$T/list")"
grep -q "^  $G:work__return (on work%return@.*probe_work.c in .*/$B with arg1)\$" "$T/list" || fail "-l: $(cat "$T/list")"
# perf probe -l lists kiln's probe the same way (perf's own line for it, when it lists it;
# the source path aside: perf shortens it by rules of its own)
if command -v perf >/dev/null && perf probe -l >"$T/perf.list" 2>/dev/null &&
	grep -q "^  $G:work " "$T/perf.list"; then
	nopath() { grep "^  $G:work " "$1" | sed 's/@[^ ]* in / in /'; }
	[ "$(nopath "$T/perf.list")" = "$(nopath "$T/list")" ] ||
		fail "-l differs from perf probe -l: $(grep "$G:work " "$T/perf.list" "$T/list")"
fi
"$KILN" probe -l "$G:*return" >"$T/list2" || fail "probe -l GLOB"
[ "$(wc -l <"$T/list2")" = 1 ] || fail "-l GLOB: $(cat "$T/list2")"
# an existing name is refused
"$KILN" probe -x "$T/$B" 'work' 2>"$T/dup.err" && fail "a second $G:work was added"
grep -q "exists already" "$T/dup.err" || fail "duplicate: $(cat "$T/dup.err")"

# record every call; kiln script and perf script agree, with the values
"$KILN" record -q -e "$G:work" -e "$G:work__return" -o "$T/p.data" -- "$T/$B" $N >/dev/null ||
	fail "record"
"$KILN" script -i "$T/p.data" >"$T/kiln.txt" 2>"$T/script.err" || fail "script: $(cat "$T/script.err")"
[ "$(grep -c " $G:work: " "$T/kiln.txt")" = $N ] || fail "$N calls expected: $(cat "$T/kiln.txt")"
[ "$(grep -c " $G:work__return: " "$T/kiln.txt")" = $N ] || fail "$N returns expected: $(cat "$T/kiln.txt")"
i=0
while [ $i -lt $N ]; do
	n=$(printf '0x%x' $((1000000 + i)))
	grep -q " $G:work: ([0-9a-f]*) n=$n x=$i msg_string=\"call-$i\"\$" "$T/kiln.txt" ||
		fail "call $i: $(grep " $G:work: " "$T/kiln.txt")"
	i=$((i + 1))
done
# work(1000000 + i) returns sum(k * i, k < (1000000 + i) % 7) + strlen("call-i")
i=0
while [ $i -lt $N ]; do
	m=$(((1000000 + i) % 7)) k=0 s=0
	while [ $k -lt $m ]; do s=$((s + k * i)); k=$((k + 1)); done
	s=$((s + 6))
	grep -q " $G:work__return: ([0-9a-f]* <- [0-9a-f]*) arg1=$(printf '0x%x' $s)\$" "$T/kiln.txt" ||
		fail "return $i ($(printf '0x%x' $s)): $(grep return: "$T/kiln.txt")"
	i=$((i + 1))
done
if command -v perf >/dev/null; then
	if perf script -i "$T/p.data" >"$T/perf.txt" 2>"$T/perf.err" && [ -s "$T/perf.txt" ]; then
		cmp -s "$T/kiln.txt" "$T/perf.txt" || fail "kiln script and perf script differ: $(diff "$T/kiln.txt" "$T/perf.txt" | head)"
	else
		echo "note: perf script could not read the file: $(head -1 "$T/perf.err")"
	fi
fi

# kiln stat counts the calls
"$KILN" stat -x, -e "$G:work" -- "$T/$B" $N >/dev/null 2>"$T/stat.err" || fail "stat: $(cat "$T/stat.err")"
grep -q "^$N,,$G:work," "$T/stat.err" || fail "stat count: $(cat "$T/stat.err")"

# unoptimized: arguments on the stack frame (DW_OP_fbreg, the CFA from CFI), prologue skipped
Q=probe_kq$$x
"$KILN" probe -x "$T/kq$$x" 'work n p->y p->name:string' 2>"$T/q.err" || fail "probe -O0: $(cat "$T/q.err")"
grep -q "prologue is skipped" "$T/q.err" || fail "no prologue note: $(cat "$T/q.err")"
grep -q "^p:$Q/work .* n=-[0-9]*(%bp):x64 y=+8(-[0-9]*(%bp)):s64 name=+0(+16(-[0-9]*(%bp))):string\$" \
	$TRACEFS/uprobe_events || fail "-O0 uprobe_events: $(grep "$Q" $TRACEFS/uprobe_events)"
"$KILN" probe -q -x "$T/kq$$x" 'work:4 s i' || fail "line probe"
[ "$(grep -c "^p:$Q/work_L4 " $TRACEFS/uprobe_events)" -ge 1 ] || fail "line probe not in tracefs"
"$KILN" record -q -e "$Q:work" -e "$Q:work_L4" -o "$T/q.data" -- "$T/kq$$x" 3 >/dev/null || fail "record -O0"
"$KILN" script -i "$T/q.data" >"$T/q.txt" || fail "script -O0"
[ "$(grep -c " $Q:work: ([0-9a-f]*) n=0xf424[0-2] y=4 name=\"pt\"\$" "$T/q.txt")" = 3 ] ||
	fail "-O0 values: $(cat "$T/q.txt")"
grep -q " $Q:work_L4: ([0-9a-f]*) s=0x[0-9a-f]* i=0x[0-9a-f]*\$" "$T/q.txt" || fail "line probe: $(cat "$T/q.txt")"

# what can be read, where a probe can go, the functions
"$KILN" probe -x "$T/$B" -V work >"$T/vars" || fail "-V"
printf 'Available variables at work\n\t@<work+0>\n\t\tchar*\tmsg\n\t\tlong unsigned int\tn\n\t\tstruct pt*\tp\n' |
	cmp -s - "$T/vars" || fail "-V: $(cat "$T/vars")"
"$KILN" probe -x "$T/kq$$x" -L work >"$T/lines" || fail "-L"
grep -q "^<work@.*probe_work.c:0>\$" "$T/lines" || fail "-L head: $(cat "$T/lines")"
grep -q "^      4  		s += i \* (unsigned long)p->x;\$" "$T/lines" || fail "-L: $(cat "$T/lines")"
"$KILN" probe -x "$T/$B" -F 'w*' >"$T/funcs" || fail "-F"
[ "$(cat "$T/funcs")" = work ] || fail "-F: $(cat "$T/funcs")"

# -d with a glob removes them from tracefs
"$KILN" probe -d "$G:*" 2>"$T/del.err" || fail "-d: $(cat "$T/del.err")"
grep -q "^Removed event: $G:work\$" "$T/del.err" || fail "-d message: $(cat "$T/del.err")"
grep -q "^Removed event: $G:work__return\$" "$T/del.err" || fail "-d message: $(cat "$T/del.err")"
grep -q "$G/" $TRACEFS/uprobe_events && fail "-d left $(grep "$G/" $TRACEFS/uprobe_events)"
[ -d $TRACEFS/events/$G ] && fail "-d left events/$G"
"$KILN" probe -l | grep -q "$G:" && fail "-l still lists $G"
"$KILN" probe -d "$Q:work*" 2>/dev/null || fail "-d $Q"
grep -q "$Q/" $TRACEFS/uprobe_events && fail "-d left $Q"
"$KILN" probe -d "$G:*" 2>"$T/none.err"
[ $? = 1 ] || fail "-d of nothing: exit 1 expected"
grep -q "no probe event matches" "$T/none.err" || fail "-d of nothing: $(cat "$T/none.err")"
exit 0
