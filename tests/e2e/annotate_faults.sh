#!/bin/sh
# kiln annotate on inputs that are broken or lack what it reads:
#  - a binary that is gone: a note naming it on stderr, exit 0;
#  - a binary replaced by a debug-only copy (no code): a note, exit 0;
#  - a truncated recording: the annotation of what was read, then the
#    message and exit code (4) kiln script gives;
#  - a file that is not a perf.data, an empty one, a missing one: kiln
#    script's message and exit code;
#  - a kernel function: a note in its block; left out with --skip-missing
#    (exit 0, not "no such symbol");
#  - a symbol without samples: exit 3; a usage error: exit 2;
#  - Capstone's library not loadable: a note in the block, exit 0;
#  - a recording on standard input (a file, and perf's pipe mode).
. "$(dirname "$0")/lib.sh"
need_perf_events
: "${INLINES:?}"
mkdir -p "$T/home" "$T/bin"
cp "$INLINES" "$T/bin/prog"
HOME="$T/home" "$KILN" record -q -F 999 -o "$T/p.data" -- "$T/bin/prog" 1 ||
	fail "kiln record failed"
export HOME="$T/home"

# The program is there: it is annotated.
"$KILN" annotate -i "$T/p.data" outer >"$T/ok.txt" 2>"$T/err" ||
	fail "kiln annotate failed: $(cat "$T/err")"
grep -q '^ Percent |.* of prog for ' "$T/ok.txt" || fail "no annotation of prog: $(head -3 "$T/ok.txt")"
grep -Eq '^ +[0-9]+\.[0-9]+ : +[0-9a-f]+:   ' "$T/ok.txt" || fail "no instruction rows"

# Capstone is loaded when annotate first disassembles: a library of that
# name that does not load gives a note naming it in the block, exit 0.
mkdir -p "$T/badlib"
: >"$T/badlib/libcapstone.so.4"
: >"$T/badlib/libcapstone.so.5"
LD_LIBRARY_PATH="$T/badlib" "$KILN" annotate -i "$T/p.data" outer >"$T/nocs.txt" 2>"$T/err" ||
	fail "capstone not loadable: exit $?: $(cat "$T/err")"
grep -Eq 'note: cannot load libcapstone\.so\.[0-9]+ \(Capstone [0-9]+\): ' "$T/nocs.txt" ||
	fail "capstone not loadable: no note: $(head -5 "$T/nocs.txt")"

# A kernel function (when one was sampled and named): its block holds a
# note instead of code; --skip-missing leaves it out, exit 0.
"$KILN" annotate -i "$T/p.data" >"$T/all.txt" 2>"$T/err" || fail "kiln annotate failed: $(cat "$T/err")"
ksym=$(awk '/note: no code bytes for \[kernel.kallsyms\]/ { k = 1; next }
	k && /^ +: [0-9a-f]+ <.*>:$/ { sub(/^ +: [0-9a-f]+ </, ""); sub(/>:$/, ""); print; exit }' "$T/all.txt")
if [ -n "$ksym" ]; then
	"$KILN" annotate -i "$T/p.data" --skip-missing "$ksym" >"$T/k.txt" 2>"$T/err" ||
		fail "--skip-missing $ksym: exit $?: $(cat "$T/err")"
	[ ! -s "$T/k.txt" ] || fail "--skip-missing printed $ksym: $(head -3 "$T/k.txt")"
fi

# Standard input: the file, and perf's pipe mode when perf is here.
"$KILN" annotate -i - outer <"$T/p.data" >"$T/stdin.txt" 2>"$T/err" ||
	fail "kiln annotate -i - failed: $(cat "$T/err")"
cmp -s "$T/ok.txt" "$T/stdin.txt" || fail "the annotation read from stdin differs"
if command -v perf >/dev/null; then
	if perf record -q -F 999 -o - -- "$T/bin/prog" 1 2>/dev/null >"$T/pipe.data" &&
		[ -s "$T/pipe.data" ]; then
		cat "$T/pipe.data" | "$KILN" annotate -i - outer >"$T/pipe.txt" 2>"$T/err" ||
			fail "kiln annotate of a pipe-mode stream failed: $(cat "$T/err")"
		grep -q '^ Percent |.* of prog for ' "$T/pipe.txt" || fail "no annotation from the pipe"
	fi
fi

# Truncated: what was read, then kiln script's warning and exit code 4.
size=$(wc -c <"$T/p.data")
head -c $((size * 3 / 4)) "$T/p.data" >"$T/trunc.data"
"$KILN" script -i "$T/trunc.data" >/dev/null 2>"$T/script.err"
src=$?
"$KILN" annotate -i "$T/trunc.data" >"$T/trunc.txt" 2>"$T/annotate.err"
arc=$?
[ $src = 4 ] || skip "kiln script gives $src for the truncated file (not cut inside the data)"
[ $arc = 4 ] || fail "truncated input: exit $arc, kiln script $src: $(cat "$T/annotate.err")"
[ "$(cat "$T/annotate.err")" = "$(cat "$T/script.err")" ] ||
	fail "truncated input: '$(cat "$T/annotate.err")', kiln script: '$(cat "$T/script.err")'"

# Not a perf.data, empty, missing: kiln script's message and code.
printf 'not a profile\n' >"$T/text.data"
: >"$T/empty.data"
for f in text.data empty.data missing.data; do
	"$KILN" script -i "$T/$f" >/dev/null 2>"$T/script.err"
	src=$?
	"$KILN" annotate -i "$T/$f" >"$T/out.txt" 2>"$T/annotate.err"
	arc=$?
	[ $arc = $src ] || fail "$f: exit $arc, kiln script $src"
	[ $arc != 0 ] || fail "$f: exit 0"
	[ ! -s "$T/out.txt" ] || fail "$f: output: $(head -2 "$T/out.txt")"
	[ "$(cat "$T/annotate.err")" = "$(cat "$T/script.err")" ] ||
		fail "$f: '$(cat "$T/annotate.err")', kiln script: '$(cat "$T/script.err")'"
done

# No such symbol: exit 3; bad options: exit 2.
"$KILN" annotate -i "$T/p.data" no_such_symbol >/dev/null 2>"$T/err"
[ $? = 3 ] || fail "a symbol without samples: exit $?"
grep -q "no_such_symbol" "$T/err" || fail "the message does not name the symbol: $(cat "$T/err")"
"$KILN" annotate -i "$T/p.data" --prefix-strip 2 >/dev/null 2>&1
[ $? = 2 ] || fail "--prefix-strip without --prefix: not a usage error"

# A debug-only copy in place of the program: no code, a note, exit 0.
if command -v objcopy >/dev/null; then
	objcopy --only-keep-debug "$INLINES" "$T/bin/prog" || fail "objcopy failed"
	"$KILN" annotate -i "$T/p.data" >"$T/dbg.txt" 2>"$T/err" ||
		fail "debug-only binary: exit $?: $(cat "$T/err")"
	grep -q "note: .*prog" "$T/err" "$T/dbg.txt" || fail "debug-only binary: no note: $(cat "$T/err")"
fi

# The program is gone (and no build-id cache has it): a note naming it, exit 0.
rm -f "$T/bin/prog"
"$KILN" annotate -i "$T/p.data" >"$T/gone.txt" 2>"$T/err" ||
	fail "missing binary: exit $?: $(cat "$T/err")"
grep -q "note: $T/bin/prog: binary not found" "$T/err" ||
	fail "missing binary: no note naming it: $(cat "$T/err")"
echo ok
