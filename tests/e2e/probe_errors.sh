#!/bin/sh
# kiln probe's faults, each a one-line error and exit 2: a function not in
# the binary, one inlined everywhere, an argument not there, a binary
# without debug information (a probe without arguments then works, and
# the message says so), a bad spec, $retval without %return; a kernel
# probe where the kernel has no kprobe events.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_probe.sh"
need_uprobes
B=ke$$x
G=probe_$B
build_work $B -O2 -g
build_work kn$$x -O2
G2=probe_kn$$x
expect() { # expect CODE PATTERN kiln-args...
	code=$1 pat=$2
	shift 2
	"$KILN" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = "$code" ] || fail "kiln $*: exit $rc, expected $code: $(cat "$T/err")"
	grep -q -- "$pat" "$T/err" || fail "kiln $*: message: $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "kiln $*: more than one line: $(cat "$T/err")"
}
expect 2 "no function 'nosuch'" probe -x "$T/$B" nosuch
expect 2 "'twice' is inlined everywhere" probe -x "$T/$B" 'twice v'
expect 2 "no variable 'zz' at this place" probe -x "$T/$B" 'work zz'
expect 2 "'n': no structure to take 'x' from" probe -x "$T/$B" 'work n.x'
expect 2 "has no member 'nope'" probe -x "$T/$B" 'work p->nope'
expect 2 "'n' is not a char pointer" probe -x "$T/$B" 'work n:string'
expect 2 "has no debug information (DWARF).*a probe without arguments" probe -x "$T/kn$$x" 'work n'
expect 2 'needs a return probe' probe -x "$T/$B" 'work $retval'
expect 2 'bad line number' probe -x "$T/$B" 'work:x'
expect 2 'No such file' probe -x "$T/missing" work
cp "$T/$B" "$T/with space"
expect 2 "a path with white space cannot be written to uprobe_events" probe -x "$T/with space" work
grep -q "$G/" $TRACEFS/uprobe_events && fail "a failed probe was left in tracefs"
expect 2 "has no debug information (DWARF): no variables to list" probe -x "$T/kn$$x" -V work
# without debug information, the function alone works
"$KILN" probe -q -x "$T/kn$$x" work || fail "probe without debug info"
grep -q "^p:$G2/work " $TRACEFS/uprobe_events || fail "no $G2:work in tracefs"
"$KILN" probe -q -d "$G2:work" || fail "-d $G2:work"
if [ ! -e $TRACEFS/kprobe_events ]; then
	expect 1 "this kernel has no kprobe events (CONFIG_KPROBE_EVENTS): user-space probes with -x work" \
		probe 'vfs_read count'
fi
exit 0
