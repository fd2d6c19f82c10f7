#!/bin/sh
# Kernel probes: arguments named from BTF (/sys/kernel/btf/vmlinux), put in
# argument registers by the x86-64 calling convention (kiln probe -n prints
# the kprobe_events lines it derives), -V and -F from BTF. Where the kernel
# has kprobe events, a probe on do_sys_openat2 with its filename as a string
# records the path a program opens (read back by kiln script); where it has
# none (no CONFIG_KPROBE_EVENTS), adding one is refused with a message that
# says so and points to user-space probes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_probe.sh"
[ -r /sys/kernel/btf/vmlinux ] || skip "no kernel BTF (/sys/kernel/btf/vmlinux)"
[ "$(uname -m)" = x86_64 ] || skip "argument registers are x86-64's"
G=kk$$x
PROBE_GROUPS=$G
"$KILN" probe -n "$G:open=do_sys_openat2 filename:string dfd" >"$T/dry" 2>"$T/dry.err" ||
	fail "-n: $(cat "$T/dry.err")"
grep -q "^p:$G/open do_sys_openat2 filename_string=+0(%si):u\{0,1\}string dfd=%di:s32\$" "$T/dry" ||
	fail "-n: $(cat "$T/dry")"
"$KILN" probe -n 'vfs_read count file->f_pos' >"$T/dry" || fail "-n vfs_read"
grep -q '^p:probe/vfs_read vfs_read count=%dx:u64 f_pos=+[0-9]*(%di):s64$' "$T/dry" || fail "-n: $(cat "$T/dry")"
"$KILN" probe -n 'vfs_read%return $retval' >"$T/dry" || fail "-n %return"
grep -q '^r:probe/vfs_read__return vfs_read arg1=$retval$' "$T/dry" || fail "-n: $(cat "$T/dry")"
"$KILN" probe -V vfs_read >"$T/vars" || fail "-V"
grep -q "^		size_t	count\$" "$T/vars" || fail "-V: $(cat "$T/vars")"
"$KILN" probe -F 'vfs_rea?' >"$T/funcs" || fail "-F"
[ "$(cat "$T/funcs")" = vfs_read ] || fail "-F: $(cat "$T/funcs")"
"$KILN" probe -n 'vfs_read nosuch' 2>"$T/err" && fail "an unknown argument was accepted"
grep -q "vfs_read has no argument 'nosuch' (BTF names its arguments: file, buf, count, pos)" "$T/err" ||
	fail "unknown argument: $(cat "$T/err")"
"$KILN" probe -n 'no_such_function_xyz n' 2>"$T/err" && fail "an unknown function was accepted"
grep -q "no kernel function 'no_such_function_xyz' in BTF" "$T/err" || fail "$(cat "$T/err")"

if [ ! -e $TRACEFS/kprobe_events ]; then
	"$KILN" probe "$G:open=do_sys_openat2 filename:string" 2>"$T/err"
	[ $? = 1 ] || fail "no kprobe events: exit 1 expected"
	[ "$(cat "$T/err")" = "error: this kernel has no kprobe events (CONFIG_KPROBE_EVENTS): user-space probes with -x work" ] ||
		fail "message: $(cat "$T/err")"
	echo "note: kernel probe recording not tested: this kernel has no kprobe_events (CONFIG_KPROBE_EVENTS is not set)"
	exit 0
fi
need_perf_events
echo kiln-probe-test >"$T/opened-file"
"$KILN" probe -q "$G:open=do_sys_openat2 filename:ustring" || fail "adding a kernel probe"
grep -q "^p:$G/open " $TRACEFS/kprobe_events || fail "not in kprobe_events"
"$KILN" probe -l >"$T/list"
grep -q "^  $G:open  *(on do_sys_openat2 with filename_ustring)\$" "$T/list" || fail "-l: $(cat "$T/list")"
"$KILN" record -q -e "$G:open" -o "$T/k.data" -- cat "$T/opened-file" >/dev/null || fail "record"
"$KILN" script -i "$T/k.data" >"$T/k.txt" || fail "script"
grep -q " $G:open: ([0-9a-f]*) filename_ustring=\"$T/opened-file\"\$" "$T/k.txt" ||
	fail "the opened path was not recorded: $(cat "$T/k.txt")"
"$KILN" probe -q -d "$G:*" || fail "-d"
grep -q "^p:$G/" $TRACEFS/kprobe_events && fail "-d left it in kprobe_events"
exit 0
