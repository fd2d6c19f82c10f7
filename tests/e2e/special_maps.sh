#!/bin/sh
# Mappings without a normal file, shown as perf shows them: a program run
# from a memfd ("/memfd:NAME (deleted)"), a binary deleted while it runs
# ("PATH (deleted)"), executable anonymous memory without a JIT map
# ("/tmp/perf-PID.map", absolute addresses) and the vDSO. For each
# recording: `kiln script` equals `perf script` byte for byte, and `kiln
# collapse` (plain and --addrs, where frames without a symbol become
# "[dso <ADDR>]") folds the same stacks as stackcollapse's rules applied
# to perf script's text.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf
: "${JITPROG:?}"

cat >"$T/memfd.c" <<'EOF2'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int in = open(argv[1], O_RDONLY), fd = memfd_create("kiln-memfd-prog", MFD_CLOEXEC);
	char buf[65536];
	ssize_t n;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			return 1;
	char *args[] = { "memprog", argv[2], NULL }, *env[] = { NULL };
	fexecve(fd, args, env);
	perror("fexecve");
	return 1;
}
EOF2
write_spin_c "$T/spin.c"
cc -O1 -o "$T/memfd" "$T/memfd.c" && cc -O1 -fno-omit-frame-pointer -DNAME=spin -o "$T/spin" "$T/spin.c" || fail "cannot compile"

# compare NAME: kiln and perf agree on $T/NAME.data.
compare() {
	d="$T/$1.data"
	"$KILN" script -i "$d" >"$T/$1.kiln" 2>/dev/null || fail "$1: kiln script failed"
	perf script -i "$d" >"$T/$1.perf" 2>/dev/null || fail "$1: perf script failed"
	same_script "$T/$1.kiln" "$T/$1.perf" ||
		fail "$1: kiln script differs from perf script: $(diff "$T/$1.kiln" "$T/$1.perf" | head -4)"
	# Text input weighs stacks by period: compare which stacks, by samples.
	# (A sample taken inside execve can differ: collapse drops the old
	# image's maps at exec, perf keeps them; up to 2% or 3 samples.)
	for opt in "" --addrs; do
		"$KILN" collapse $opt "$d" >"$T/$1.folded" 2>/dev/null || fail "$1: collapse $opt failed"
		"$KILN" collapse $opt "$T/$1.perf" 2>/dev/null | sed 's/ [0-9]*$//' >"$T/$1.textstacks"
		python3 - "$T/$1.folded" "$T/$1.textstacks" <<'PY' || fail "$1: collapse $opt differs from the text's: $(sed 's/ [0-9]*$//' "$T/$1.folded" | diff - "$T/$1.textstacks" | head -4)"
import sys
text = set(open(sys.argv[2]).read().splitlines())
same = total = 0
for line in open(sys.argv[1]):
    stack, n = line.rstrip('\n').rsplit(' ', 1)
    total += int(n)
    same += int(n) if stack in text else 0
print(f"  {same} of {total} samples in stacks the text also has")
sys.exit(0 if total and total - same <= max(3, 0.02 * total) else 1)
PY
	done
	grep -F "$2" "$T/$1.kiln" >/dev/null || fail "$1: no '$2' frame in the output"
	echo "$1: $(grep -cF "$2" "$T/$1.kiln") '$2' frames, script and collapse as perf's"
}

"$KILN" record -q -g -F 999 -o "$T/memfd.data" -- "$T/memfd" "$T/spin" 0.3 2>/dev/null || fail "record memfd"
compare memfd "(/memfd:kiln-memfd-prog (deleted))"
"$KILN" collapse --addrs "$T/memfd.data" 2>/dev/null | grep -q ';\[unknown\] ' ||
	fail "memfd: frames not folded as stackcollapse folds '(deleted)' lines"

cp "$T/spin" "$T/gone"
"$T/gone" 3 &
busy=$!
sleep 0.2
rm "$T/gone"
"$KILN" record -q -g -F 999 -p $busy -o "$T/deleted.data" -- sleep 0.3 2>/dev/null || fail "record deleted"
kill $busy
busy=
compare deleted "($T/gone (deleted))"

"$KILN" record -q -g -F 999 -o "$T/anon.data" -- "$JITPROG" 0.3 --no-map >"$T/pid" 2>/dev/null || fail "record anon"
compare anon "[unknown] (/tmp/perf-$(cat "$T/pid").map)"
"$KILN" collapse --addrs "$T/anon.data" 2>/dev/null | grep -q "\[perf-$(cat "$T/pid").map <[0-9a-f]\{6,\}>\]" ||
	fail "anon: no [perf-PID.map <ADDR>] frame under --addrs"
"$KILN" record -q -g -F 999 -o "$T/vdso.data" -- "$T/spin" 0.3 2>/dev/null || fail "record vdso"
"$KILN" script -i "$T/vdso.data" 2>/dev/null | grep -q '(\[vdso\])' || echo "note: no [vdso] frame sampled"
compare vdso "spin+0x"
echo ok
