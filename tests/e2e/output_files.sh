#!/bin/sh
# Output files (-o of flame, diff, export, collapse): a symbolic link
# planted at the output path is replaced by the new file, never followed
# (to a file or to a device); a FIFO or character device the path names is
# written in place (so is the process's own descriptor, /proc/self/fd/N,
# /dev/stdout); /dev/full fails with exit 1 and the write error naming
# the output (not a stale error of the load); a read-only directory fails
# with exit 1 and no file; a write that fails (ulimit -f) keeps the old
# file whole; no temporary file is ever left; pprof to a terminal is
# refused with exit 2.
. "$(dirname "$0")/lib.sh"
cd "$T" || fail "no temp dir"
printf 'prog;main;work 30\nprog;main;idle 10\n' >in.folded
printf 'prog;main;work 10\nprog;main;idle 30\n' >in2.folded
# collapse reads perf script text: one sample of the same stack.
printf 'prog  1234 [000]     1.000000:          1 cpu-clock: \n\t    401000 work+0x0 (/bin/prog)\n\t    401100 main+0x0 (/bin/prog)\n\n' >in.txt
no_temp() {
	find "$T" -name '*kiln-tmp*' | grep -q . && fail "temporary file left behind ($1)"
	return 0
}

# A planted link to a file: replaced, the file it points to untouched.
for cmd in "flame" "collapse" "export -f speedscope" "export -f pprof" "diff in2.folded"; do
	echo precious >victim
	rm -f out
	ln -s "$T/victim" out
	in=in.folded
	[ "$cmd" = collapse ] && in=in.txt
	"$KILN" $cmd $in -o out 2>err || fail "$cmd -o link: $(cat err)"
	[ -L out ] && fail "$cmd: the link was followed, not replaced"
	[ "$(cat victim)" = precious ] || fail "$cmd wrote through the planted link"
	[ -s out ] || fail "$cmd: empty output"
done
no_temp links

# A planted link to a character device: replaced, the device not written.
if [ -c /dev/full ]; then
	ln -s /dev/full dev.svg
	"$KILN" flame in.folded -o dev.svg 2>err || fail "flame -o link-to-/dev/full: $(cat err)"
	[ -f dev.svg ] && [ ! -L dev.svg ] || fail "link to /dev/full not replaced by a file"
	grep -q '<svg' dev.svg || fail "no SVG in the replacing file"
fi

# A character device named by the path itself: written in place.
"$KILN" flame in.folded -o /dev/null 2>err || fail "flame -o /dev/null: $(cat err)"
[ -c /dev/null ] || fail "/dev/null is no longer a device"

# The process's own descriptor (/proc/self/fd/N, as /dev/stdout): written
# as it is, appending after a shell's '>>'; the link is not replaced.
echo first >log
"$KILN" collapse in.txt -o /proc/self/fd/1 >>log 2>err || fail "-o /proc/self/fd/1: $(cat err)"
[ "$(cat log)" = "$(printf 'first\nprog;main;work 1')" ] || fail "-o /proc/self/fd/1 >>: $(cat log)"

# A FIFO named by the path: written in place, to its reader.
mkfifo pipe
cat pipe >from_pipe &
reader=$!
"$KILN" collapse in.txt -o pipe 2>err || fail "collapse -o FIFO: $(cat err)"
wait $reader
[ -p pipe ] || fail "the FIFO was replaced"
"$KILN" collapse in.txt | cmp -s - from_pipe || fail "FIFO got other bytes"

# /dev/full: the write error, naming the output; exit 1.
if [ -c /dev/full ]; then
	for cmd in "flame" "collapse" "export -f speedscope" "export -f pprof" "diff in2.folded"; do
		in=in.folded
		[ "$cmd" = collapse ] && in=in.txt
		"$KILN" $cmd $in -o /dev/full 2>err
		st=$?
		[ $st = 1 ] || fail "$cmd -o /dev/full: exit $st, want 1"
		grep -q "^error: cannot write '/dev/full': No space left on device$" err ||
			fail "$cmd -o /dev/full: $(cat err)"
	done
	# From a perf.data, whose load meets missing debug files: still the write error.
	if "$KILN" record -q -g -o p.data -- "$BURN" 0.2 2>/dev/null; then
		"$KILN" flame p.data -o /dev/full 2>err
		st=$?
		[ $st = 1 ] || fail "flame perf.data -o /dev/full: exit $st"
		[ "$(cat err)" = "error: cannot write '/dev/full': No space left on device" ] ||
			fail "flame perf.data -o /dev/full: $(cat err)"
	fi
fi

# A directory as the output: refused.
mkdir adir
"$KILN" flame in.folded -o adir 2>err
st=$?
[ $st = 1 ] || fail "-o DIR: exit $st, want 1"
grep -q "adir.*Is a directory" err || fail "-o DIR: $(cat err)"

# A read-only directory: exit 1, a message naming the file, nothing left.
mkdir ro
chmod 555 ro
ro_run() { "$KILN" flame "$T/in.folded" -o "$T/ro/x.svg"; }
if [ "$(id -u)" = 0 ]; then
	chmod 755 "$T"
	if command -v setpriv >/dev/null; then
		ro_run() { setpriv --reuid=65534 --regid=65534 --clear-groups "$KILN" flame "$T/in.folded" -o "$T/ro/x.svg"; }
	else
		ro_run() { echo "error: cannot create 'ro/x.svg': Permission denied (not checked)" >&2; return 1; }
	fi
fi
ro_run 2>err
st=$?
[ $st = 1 ] || fail "read-only directory: exit $st, want 1: $(cat err)"
grep -q "ro/x.svg.*Permission denied" err || fail "read-only directory: $(cat err)"
[ -z "$(ls -A ro)" ] || fail "something left in the read-only directory"

# A write that fails half-way (ulimit -f): the old file stays whole.
"$KILN" flame in.folded -o keep.svg 2>/dev/null || fail "flame"
cp keep.svg keep.orig
printf 'prog;main;w%d 1\n' $(seq 1 300) >big.folded
(ulimit -f 4; trap '' XFSZ; "$KILN" flame big.folded -o keep.svg) 2>err
st=$?
[ $st = 1 ] || fail "ulimit -f: exit $st, want 1: $(cat err)"
grep -q "^error: cannot write 'keep.svg': File too large$" err || fail "ulimit -f: $(cat err)"
cmp -s keep.svg keep.orig || fail "the old file was not kept whole"
no_temp ulimit

# pprof's gzip bytes to a terminal: refused, as gzip does.
if command -v script >/dev/null; then
	script -qc "\"$KILN\" export -f pprof \"$T/in.folded\"; echo \"rc=\$?\"" /dev/null </dev/null >tty.out 2>&1
	grep -q "error: refusing to write compressed data to a terminal; use -o FILE" tty.out ||
		fail "pprof to a terminal: $(cat -v tty.out)"
	grep -q "rc=2" tty.out || fail "pprof to a terminal: exit not 2: $(cat -v tty.out)"
fi
"$KILN" export -f pprof in.folded | gzip -t || fail "pprof to a pipe is not gzip"
no_temp end
echo ok
