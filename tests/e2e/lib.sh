# Shared helpers for end-to-end tests (sourced). Each test is one CTest
# test: exit 0 pass, 77 skip, anything else fail. KILN, BURN and TESTLIB
# come from CTest's environment.
set -u
: "${KILN:?}" "${BURN:?}" "${TESTLIB:?}"
T=$(mktemp -d)
busy=
trap '[ -n "$busy" ] && kill $busy 2>/dev/null; rm -rf "$T"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
skip() {
	echo "SKIP: $*"
	exit 77
}
# Skip when this machine refuses perf_event_open to us.
need_perf_events() {
	"$KILN" record -q -o "$T/probe.data" -- true 2>"$T/probe.err" ||
		skip "cannot record here: $(head -1 "$T/probe.err")"
	rm -f "$T/probe.data"
}
# Run one command as user nobody (root only; setpriv).
asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# For tests that drop privileges: skip unless root with setpriv, then set
# kernel.perf_event_paranoid to 2 ($f names it), restored on exit.
paranoid_setup() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	command -v setpriv >/dev/null || skip "no setpriv"
	f=/proc/sys/kernel/perf_event_paranoid
	old=$(cat $f)
	trap 'echo $old >$f; rm -rf "$T"' EXIT
	echo 2 >$f || skip "cannot change perf_event_paranoid"
}
need_perf() {
	command -v perf >/dev/null || skip "perf is not installed"
}
# Wait (up to 20 s) until the workload kiln record started (pid $1 is
# kiln) has exec'd burn, then let it run 0.5 s more: on a loaded machine,
# or under ASan, kiln's setup alone can take over a second. Sets $wl to the
# workload's pid.
wait_workload() {
	i=0
	while [ $i -lt 200 ]; do
		wl=$(pgrep -P "$1" | head -1)
		[ -n "$wl" ] && readlink /proc/"$wl"/exe 2>/dev/null | grep -q burn && { sleep 0.5; return; }
		sleep 0.1
		i=$((i + 1))
	done
	fail "the workload never started"
}
# Start the example workload busy in the background for a while; its pid
# goes to $busy, and it is killed when the test exits. Returns once the
# process runs burn (up to 20 s: on a busy machine the fork can take a
# while to exec), and 0.3 s more.
start_busy() {
	"$BURN" 30 &
	busy=$!
	i=0
	until readlink /proc/$busy/exe 2>/dev/null | grep -q burn; do
		[ $i -lt 200 ] || fail "the busy workload never started"
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.3
}
# Write to $1 a C program that spins in NAME (compile with -DNAME=...)
# for argv[1] seconds (default 0.5), calling it in 100000-step rounds.
write_spin_c() {
	cat >"$1" <<'SPIN'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void NAME(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.5;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		NAME(100000);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return 0;
}
SPIN
}

# mask_libc_plt FILE: the text with every frame line at an address inside
# libc's .plt printed as "PLT <libc>". perf 6.1 names libc's stubs in
# relocation-table order, which libc's IRELATIVE relocations shuffle; kiln
# names them by their GOT slot, as later perf versions do. A sample there
# is rare (startup), so byte-for-byte comparisons mask these frames only.
mask_libc_plt() {
	_libc=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null)
	set -- "$1" $(readelf -SW "$_libc" 2>/dev/null |
		awk '{ for (i = 1; i < NF; i++) if ($i == ".plt") print $(i + 2), $(i + 4) }')
	[ $# -eq 3 ] || { cat "$1"; return; }
	awk -v lo=$((0x$2)) -v hi=$((0x$2 + 0x$3)) '
		/\(\/usr\/lib\/x86_64-linux-gnu\/libc\.so\.6\)$/ {
			a = 0; h = $1
			for (i = 1; i <= length(h); i++)
				a = a * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			if (a >= lo && a < hi) { print "\tPLT <libc>"; next }
		}
		{ print }' "$1"
}

# plt_masked FILE: report text with PLT stub rows named alike and spaces
# squeezed. perf 6.1 names an address in a binary's .plt.sec after the
# symbol before it (_init), and one in libc's .plt "@plt" with no name,
# where kiln names the stub (name@plt); a sample lands there now and then.
plt_masked() {
	sed -E 's/\[\.\] (_init|[^ ]*@plt)( |$)/[.] <plt>\2/; s/  */ /g; s/ *$//' "$1"
}

# same_plt WHAT PERF KILN: 0 when two report texts differ only in PLT
# stub names (said).
same_plt() {
	plt_masked "$2" >"$2.plt"
	plt_masked "$3" >"$3.plt"
	cmp -s "$2.plt" "$3.plt" || return 1
	echo "$1: equal but for perf's name of a PLT stub (tolerated)"
}

# same_script A B: two perf-script texts equal, libc's PLT frames masked
# and a program's PLT stub that one side (perf) did not name as a stub.
same_script() {
	cmp -s "$1" "$2" && return 0
	mask_libc_plt "$1" >"$1.m"
	mask_libc_plt "$2" >"$2.m"
	cmp -s "$1.m" "$2.m" && return 0
	# perf 6.1 does not make PLT symbols for every binary (a program's
	# stub then goes by the symbol before it, "_init+0x40"); kiln names
	# it "clock_gettime@plt+0x0". Lines may differ there alone: the same
	# address and object, one side's symbol a stub's.
	python3 - "$1.m" "$2.m" <<'PY'
import re, sys
a = open(sys.argv[1]).read().split("\n")
b = open(sys.argv[2]).read().split("\n")
frame = re.compile(r"^\s+([0-9a-f]+) (.*) \((.*)\)$")
if len(a) != len(b):
    sys.exit(1)
for x, y in zip(a, b):
    if x == y:
        continue
    fx, fy = frame.match(x), frame.match(y)
    if not (fx and fy and fx.group(1) == fy.group(1) and fx.group(3) == fy.group(3)
            and ("@plt+0x" in fx.group(2)) != ("@plt+0x" in fy.group(2))):
        sys.exit(1)
PY
}

# stacks_vs_perf NAME DATA [MIN]: DWARF stacks of DATA, kiln's against
# perf's, sample by sample: `kiln script` and `perf script --no-inline`
# (-F comm,pid,tid,time,ip,sym,dso) go to $T/NAME.ktxt and $T/NAME.ptxt,
# tests/lib/sample_compare.py's report to $T/NAME.cmp. perf is a reference
# only as far as it got (its DWARF unwinding stops early on some
# kernels): down to its first [unknown] frame, less the frame above it.
# Fails unless kiln's stack starts with those frames in MIN (default
# 0.98) of the samples and kiln stops before perf in at most 1 - MIN.
stacks_vs_perf() {
	_f=comm,pid,tid,time,ip,sym,dso
	"$KILN" script --no-inline -F $_f -i "$2" >"$T/$1.ktxt" 2>"$T/$1.kerr" ||
		fail "$1: kiln script failed: $(cat "$T/$1.kerr")"
	perf script --no-inline -F $_f -i "$2" >"$T/$1.ptxt" 2>/dev/null || fail "$1: perf script failed"
	python3 "$TESTLIB/sample_compare.py" "$T/$1.ktxt" "$T/$1.ptxt" "${3:-0.98}" >"$T/$1.cmp" ||
		fail "$1: kiln's stacks disagree with perf's: $(cat "$T/$1.cmp")"
}
# Wait (up to 20 s) until kiln ($1, a kiln trace or record in the
# background) has its events open (perf_event or BPF link fds), then
# 0.5 s more: on a loaded machine, or under ASan, its setup alone can take
# seconds. Returns at once if kiln has ended.
wait_trace_ready() {
	i=0
	until ls -l /proc/"$1"/fd 2>/dev/null | grep -qE 'perf_event|bpf_link'; do
		[ $i -lt 200 ] || fail "kiln never opened its events"
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.5
}
