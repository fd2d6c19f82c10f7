#!/bin/sh
# The running kernel's symbols through the BPF symbol iterator (iter/ksym:
# binary records, no /proc/kallsyms text) against /proc/kallsyms
# (KILN_KALLSYMS=proc): a system-wide recording with kernel stacks must
# come out byte for byte alike in collapse, script and report, with the
# table read on the second thread and on one (KILN_THREADS=1). strace
# shows which way kiln read the symbols: the iterator where it is usable
# (root, the kernel's BTF, Linux 6.0+, a kiln built with BPF), never with
# KILN_KALLSYMS=proc.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v strace >/dev/null || skip "no strace (it shows which way the symbols were read)"
start_busy
if ! "$KILN" record -q -a -g -o "$T/k.data" -- sleep 1 2>"$T/rec.err"; then
	[ "$(id -u)" = 0 ] && fail "kiln record -a failed: $(cat "$T/rec.err")"
	skip "cannot record system-wide here: $(head -1 "$T/rec.err")"
fi
"$KILN" collapse --kernel "$T/k.data" >"$T/probe.folded" 2>/dev/null || fail "collapse failed"
grep -q '[a-zA-Z_][a-zA-Z0-9_.]*_\[k\]' "$T/probe.folded" ||
	skip "no named kernel frames in the recording (kallsyms hidden, or no kernel samples)"

# Which way did this kiln read the symbols? (LeakSanitizer cannot run
# under ptrace: a sanitized build checks leaks in the runs below.)
noleaks="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
ASAN_OPTIONS=$noleaks strace -f -qq -e trace=bpf -o "$T/strace.txt" "$KILN" collapse "$T/k.data" \
	>/dev/null 2>"$T/strace.err" || fail "collapse under strace failed: $(head -3 "$T/strace.err")"
if ! grep -q BPF_ITER_CREATE "$T/strace.txt"; then
	# Expected where BPF is refused; not where everything it needs is here.
	major=$(uname -r | cut -d. -f1)
	minor=$(uname -r | cut -d. -f2)
	if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] &&
		{ [ "$major" -gt 6 ] || [ "$major" = 6 ]; } &&
		"$KILN" record -q --off-cpu=bpf -o "$T/bpf.data" -- true 2>/dev/null; then
		fail "kiln read /proc/kallsyms although the BPF symbol iterator is usable here (Linux $major.$minor, root, BTF, BPF built)"
	fi
	skip "the BPF symbol iterator is not usable here (needs root, BTF, Linux 6.0+, a kiln built with BPF)"
fi
ASAN_OPTIONS=$noleaks KILN_KALLSYMS=proc strace -f -qq -e trace=bpf -o "$T/strace2.txt" \
	"$KILN" collapse "$T/k.data" >/dev/null 2>&1 || fail "collapse with KILN_KALLSYMS=proc failed"
grep -q BPF_ "$T/strace2.txt" && fail "KILN_KALLSYMS=proc still loaded a BPF program"

# The same bytes both ways, for each command, on two threads and on one.
n=0
for threads in 2 1; do
	for cmd in "collapse" "collapse --kernel --addrs" "script" "report --stdio" "report --stdio --sort dso,sym"; do
		n=$((n + 1))
		# shellcheck disable=SC2086 # the command's words
		KILN_THREADS=$threads "$KILN" $cmd -i "$T/k.data" >"$T/bpf.$n" 2>"$T/bpf.err.$n" ||
			fail "KILN_THREADS=$threads kiln $cmd failed: $(head -3 "$T/bpf.err.$n")"
		# shellcheck disable=SC2086
		KILN_THREADS=$threads KILN_KALLSYMS=proc "$KILN" $cmd -i "$T/k.data" >"$T/proc.$n" \
			2>"$T/proc.err.$n" || fail "KILN_KALLSYMS=proc kiln $cmd failed"
		cmp -s "$T/bpf.$n" "$T/proc.$n" ||
			fail "kiln $cmd (KILN_THREADS=$threads) differs between the BPF iterator and /proc/kallsyms: $(diff "$T/proc.$n" "$T/bpf.$n" | head -6)"
		cmp -s "$T/bpf.err.$n" "$T/proc.err.$n" ||
			fail "kiln $cmd (KILN_THREADS=$threads) warns differently: $(diff "$T/proc.err.$n" "$T/bpf.err.$n" | head -4)"
	done
done
grep -q '\[kernel\.kallsyms\]' "$T/bpf.3" || fail "script shows no kernel frames"

# Where BPF is refused (user nobody), kiln falls back to /proc/kallsyms
# without a word more than KILN_KALLSYMS=proc gives.
nobody="not checked as nobody (needs root and setpriv)"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	nobody="the same as nobody, where BPF is refused"
	chmod 755 "$T"
	chmod 644 "$T/k.data"
	for threads in 2 1; do
		KILN_THREADS=$threads asnobody "$KILN" script -i "$T/k.data" >"$T/nb.out" 2>"$T/nb.err" ||
			fail "kiln script as nobody failed: $(head -3 "$T/nb.err")"
		KILN_THREADS=$threads KILN_KALLSYMS=proc asnobody "$KILN" script -i "$T/k.data" \
			>"$T/np.out" 2>"$T/np.err" || fail "kiln script as nobody (KILN_KALLSYMS=proc) failed"
		cmp -s "$T/nb.out" "$T/np.out" && cmp -s "$T/nb.err" "$T/np.err" ||
			fail "as nobody (BPF refused), script differs from KILN_KALLSYMS=proc: $(diff "$T/np.err" "$T/nb.err" | head -4)"
	done
fi
echo "ok: $n outputs alike through the BPF symbol iterator and /proc/kallsyms; $nobody"
