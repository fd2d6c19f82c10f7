#!/bin/sh
# kiln record --filter (and kiln stat --filter): the kernel's filter on a
# syscall tracepoint keeps
# exactly the matching calls of a program whose writes are known (5 of 7
# bytes to fd 1, 5 of 2 bytes to fd 2, 1 of 1 byte to fd 1), and on a probe
# event the calls whose argument matches; a filter the kernel refuses is
# one error line and exit 2, as is --filter on an event that is no
# tracepoint.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_probe.sh"
need_perf_events
command -v cc >/dev/null || skip "no C compiler"
[ -d $TRACEFS/events/syscalls/sys_enter_write ] || skip "no syscalls:sys_enter_write tracepoint"
cat >"$T/w.c" <<'C'
#include <unistd.h>
int main(void)
{
	for (int i = 0; i < 5; i++) {
		if (write(1, "1234567", 7) != 7 || write(2, "ab", 2) != 2)
			return 1;
	}
	return write(1, "\n", 1) != 1;
}
C
cc -o "$T/w" "$T/w.c" || fail "cannot compile"
count() { # count FILTER: the recorded sys_enter_write calls of w
	"$KILN" record -q -e syscalls:sys_enter_write --filter "$1" -o "$T/f.data" -- "$T/w" \
		>/dev/null 2>"$T/w.err" || fail "record --filter '$1': $(cat "$T/w.err")"
	"$KILN" script -i "$T/f.data" | grep -c "^ *w .* syscalls:sys_enter_write: "
}
[ "$(count 'count == 7')" = 5 ] || fail "count == 7: $(count 'count == 7')"
[ "$(count 'fd == 1')" = 6 ] || fail "fd == 1: $(count 'fd == 1')"
[ "$(count 'fd == 2 && count == 2')" = 5 ] || fail "fd == 2 && count == 2"
[ "$(count 'count < 3 || fd > 5')" = 6 ] || fail "count < 3 || fd > 5"
"$KILN" script -i "$T/f.data" | grep -v "count: 0x0000000[12]\$" | grep -q . &&
	fail "a call outside the filter was kept"
# the filter applies to every event of the -e argument before it
"$KILN" record -q -e syscalls:sys_enter_write,syscalls:sys_enter_close --filter 'fd == 2' \
	-o "$T/f.data" -- "$T/w" >/dev/null 2>&1 || fail "record of a list with --filter"
"$KILN" script -i "$T/f.data" | grep "^ *w " >"$T/two.txt"
[ "$(grep -c sys_enter_write "$T/two.txt")" = 5 ] || fail "list filter: $(cat "$T/two.txt")"
grep -q sys_enter_close "$T/two.txt" && fail "close(2) passed fd == 2: $(cat "$T/two.txt")"
# kiln stat --filter counts the same calls
"$KILN" stat -x, -o "$T/stat.txt" -e syscalls:sys_enter_write --filter 'count == 7' -- "$T/w" >/dev/null 2>&1 ||
	fail "stat --filter: $(cat "$T/stat.txt")"
grep -q '^5,,syscalls:sys_enter_write,' "$T/stat.txt" || fail "stat --filter: $(cat "$T/stat.txt")"
"$KILN" stat -e syscalls:sys_enter_write --filter 'nofield == 7' -- "$T/w" >/dev/null 2>"$T/bad.err"
[ $? = 2 ] || fail "stat: a refused filter: exit 2 expected"
grep -q "^error: the kernel refused the filter 'nofield == 7': syscalls:sys_enter_write has no field 'nofield'" "$T/bad.err" ||
	fail "stat: $(cat "$T/bad.err")"
# refused filters
"$KILN" record -q -e syscalls:sys_enter_write --filter 'nofield == 7' -o "$T/bad.data" -- "$T/w" \
	>/dev/null 2>"$T/bad.err"
[ $? = 2 ] || fail "a refused filter: exit 2 expected"
[ "$(cat "$T/bad.err")" = "error: the kernel refused the filter 'nofield == 7': syscalls:sys_enter_write has no field 'nofield' (its fields: __syscall_nr, fd, buf, count)" ] ||
	fail "refused filter: $(cat "$T/bad.err")"
"$KILN" record -q -e syscalls:sys_enter_write --filter 'fd == = 1' -o "$T/bad.data" -- "$T/w" \
	>/dev/null 2>"$T/bad.err"
[ $? = 2 ] || fail "a filter with a syntax error: exit 2 expected"
grep -q "^error: the kernel refused the filter 'fd == = 1': Invalid argument (the syntax: FIELD OP VALUE" "$T/bad.err" ||
	fail "syntax error: $(cat "$T/bad.err")"
[ -e "$T/bad.data" ] && fail "a refused filter left a file"
"$KILN" record -q -e cpu-clock --filter 'fd == 1' -o "$T/bad.data" -- "$T/w" >/dev/null 2>"$T/bad.err"
[ $? = 2 ] || fail "--filter on cpu-clock: exit 2 expected"
grep -q "is not a tracepoint or probe event" "$T/bad.err" || fail "cpu-clock: $(cat "$T/bad.err")"
"$KILN" record -q --filter 'fd == 1' -e syscalls:sys_enter_write -- "$T/w" >/dev/null 2>"$T/bad.err"
[ $? = 2 ] || fail "--filter before -e: exit 2 expected"

# on a probe event: the calls whose argument matches
[ -e $TRACEFS/uprobe_events ] || { echo "note: no uprobe events: probe filter not tested"; exit 0; }
build_work kf$$x -O2 -g
G=probe_kf$$x
"$KILN" probe -q -x "$T/kf$$x" 'work n msg:string' || fail "probe"
"$KILN" record -q -e "$G:work" --filter 'n >= 1000003' -o "$T/p.data" -- "$T/kf$$x" 8 >/dev/null ||
	fail "record probe --filter"
"$KILN" script -i "$T/p.data" >"$T/p.txt" || fail "script"
[ "$(grep -c " $G:work: " "$T/p.txt")" = 5 ] || fail "n >= 1000003: $(cat "$T/p.txt")"
grep -q 'msg_string="call-[012]"' "$T/p.txt" && fail "calls 0-2 kept: $(cat "$T/p.txt")"
"$KILN" record -q -e "$G:work" --filter 'msg_string == "call-4"' -o "$T/p.data" -- "$T/kf$$x" 8 >/dev/null ||
	fail "record probe --filter string"
[ "$("$KILN" script -i "$T/p.data" | grep -c 'msg_string="call-4"$')" = 1 ] || fail "string filter"
[ "$("$KILN" script -i "$T/p.data" | grep -c " $G:work: ")" = 1 ] || fail "string filter kept others"
# a probe's fields are its arguments
"$KILN" record -q -e "$G:work" --filter 'msg == "x"' -o "$T/p.data" -- "$T/kf$$x" 1 >/dev/null 2>"$T/bad.err"
[ $? = 2 ] || fail "an unknown probe field: exit 2 expected"
grep -q "$G:work has no field 'msg' (its fields: __probe_ip, n, msg_string)" "$T/bad.err" || fail "$(cat "$T/bad.err")"
exit 0
