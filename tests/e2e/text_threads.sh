#!/bin/sh
# perf script text parsed on several threads (aggregate/textpar) gives the
# bytes one thread gives: a large text (the shared stackcollapse-perf
# inputs, events mixed, repeated with varied process names, 16 MB)
# collapsed with KILN_THREADS=1, =2 and unset (threads by size and CPUs),
# with each text option, and drawn as a reversed flame graph; warnings and
# exit codes the same too.
. "$(dirname "$0")/lib.sh"
export LC_ALL=C
data="${KILN_SHARED:-}/testdata/stackcollapse-perf"
[ -d "$data/results" ] || skip "no $data"

# The inputs, each ended by a blank line, 16 MB in all; every third copy's
# process names changed (more distinct stacks; headers start at column 0).
for f in "$data"/*.txt; do cat "$f"; echo; done >"$T/one.txt"
[ -s "$T/one.txt" ] || fail "no perf script inputs in $data"
rep=0
: >"$T/big.txt"
while [ "$(wc -c <"$T/big.txt")" -lt 16000000 ]; do
	awk -v r=$rep '/^[^ \t#]/ && r % 3 == 0 { $0 = "p" (r % 7) $0 } { print }' \
		"$T/one.txt" >>"$T/big.txt"
	rep=$((rep + 1))
done
# The last sample without its blank line (left out, with a warning).
printf 'sh 1/1 [000] 1.0: 1 instructions:\n\t1 main (/bin/sh)\n' >>"$T/big.txt"

# run NAME THREADS ARGS...: kiln's output and messages into $T/NAME.THREADS.*
run() {
	name=$1 th=$2
	shift 2
	if [ "$th" = auto ]; then
		env -u KILN_THREADS "$KILN" "$@" >"$T/$name.$th.out" 2>"$T/$name.$th.err"
	else
		KILN_THREADS=$th "$KILN" "$@" >"$T/$name.$th.out" 2>"$T/$name.$th.err"
	fi
	echo "exit $?" >>"$T/$name.$th.err"
}

# same NAME ARGS...: one thread, two and the default give the same bytes.
same() {
	name=$1
	shift
	for th in 1 2 auto; do run "$name" $th "$@"; done
	[ -s "$T/$name.1.out" ] || fail "$name: no output ($(cat "$T/$name.1.err"))"
	for th in 2 auto; do
		cmp "$T/$name.1.out" "$T/$name.$th.out" ||
			fail "$name: KILN_THREADS=$th output differs from one thread's"
		cmp "$T/$name.1.err" "$T/$name.$th.err" ||
			fail "$name: KILN_THREADS=$th messages differ: $(cat "$T/$name.$th.err")"
	done
}

same plain collapse "$T/big.txt"
grep -q "last sample has no blank line" "$T/plain.1.err" || fail "no unterminated warning"
grep -q "samples of other events skipped" "$T/plain.1.err" || fail "no event note"
same pid collapse --pid "$T/big.txt"
same tid collapse --tid "$T/big.txt"
same all collapse --all "$T/big.txt"
same addrs collapse --addrs "$T/big.txt"
same flame_text flame --reverse -o - "$T/big.txt"
same cycles collapse --event-filter cycles "$T/big.txt"

echo ok
