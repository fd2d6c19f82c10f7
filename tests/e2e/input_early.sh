#!/bin/sh
# Inputs are judged by their first bytes: an endless stream on standard
# input that is not a perf.data nor text the command reads fails at once,
# exit 3, with a message naming standard input, in bounded memory (an
# address-space cap far below the stream's size) and time.
. "$(dirname "$0")/lib.sh"
# An address-space cap, where the build allows one (sanitizers reserve
# terabytes of address space and cannot run under it).
cap=
if (ulimit -v 1000000 && "$KILN" --help >/dev/null 2>&1); then
	cap="ulimit -v 1000000;"
fi
# run NAME STREAM ARGS...: kiln ARGS reading STREAM (a shell pipeline) on stdin.
run() {
	name=$1 stream=$2
	shift 2
	sh -c "$stream | ( $cap exec timeout 60 \"\$@\" ) >/dev/null 2>\"$T/$name.err\"; echo \$? >\"$T/$name.rc\"" \
		sh "$KILN" "$@"
	rc=$(cat "$T/$name.rc")
	[ "$rc" = 3 ] || fail "$name: exit $rc, expected 3: $(cat "$T/$name.err")"
	[ "$(wc -l <"$T/$name.err")" -eq 1 ] || fail "$name: not one line: $(cat "$T/$name.err")"
	grep -Eq '^error: (-|<stdin>): ' "$T/$name.err" || fail "$name: stdin not named: $(cat "$T/$name.err")"
}
zero="head -c 4G /dev/zero"
run script_zero "$zero" script -i -
grep -q 'not a perf.data file' "$T/script_zero.err" || fail "script: $(cat "$T/script_zero.err")"
run collapse_zero "$zero" collapse -
run flame_zero "$zero" flame -o "$T/z.svg" -
# Text that is not perf script output, nor folded stacks: refused after
# its first lines, not after 4 GiB.
junk="yes aaaa | head -c 4G"
run collapse_junk "$junk" collapse -
grep -q 'not a perf.data file, nor perf script output' "$T/collapse_junk.err" || fail "$(cat "$T/collapse_junk.err")"
run flame_junk "$junk" flame -o "$T/j.svg" -
grep -q 'nor folded stacks' "$T/flame_junk.err" || fail "$(cat "$T/flame_junk.err")"
# One endless line.
run flame_line "head -c 4G /dev/zero | tr '\\\\0' a" flame -o "$T/l.svg" -
# A perf.data header that promises a file-mode perf.data and is cut: the
# header's own error, on 16 bytes.
printf 'PERFILE2\150\0\0\0\0\0\0\0' >"$T/hdr"
run script_hdr "cat $T/hdr" script -i -
grep -q 'header truncated' "$T/script_hdr.err" || fail "$(cat "$T/script_hdr.err")"
[ -e "$T/z.svg" ] || [ -e "$T/j.svg" ] || [ -e "$T/l.svg" ] && fail "an output was written"
# Text that is folded stacks still reads from a pipe, and perf script
# text after comment lines too.
printf 'a;b 1\n' | "$KILN" flame -o "$T/ok.svg" - 2>"$T/ok.err" || fail "folded on a pipe: $(cat "$T/ok.err")"
echo ok
