#!/bin/sh
# kiln trace shows an execve's argv as strings and its envp's size, as
# strace does (["true", "a b"], 0x... /* 2 vars */): the list equals
# strace's for the same exec; past 16 arguments the list ends in "...",
# an argument past 127 bytes is cut with "..." (docs/LIMITS.md). Without
# the BPF program (--no-bpf) argv stays a pointer.
. "$(dirname "$0")/lib.sh"
"$KILN" trace -o "$T/probe.txt" -- true 2>"$T/probe.err" ||
	skip "cannot trace here: $(head -1 "$T/probe.err")"
grep -q 'string arguments are shown as pointers' "$T/probe.err" && skip "BPF is not usable here"
TRUE=
for t in /usr/bin/true /bin/true; do [ -x "$t" ] && TRUE=$t && break; done
[ -n "$TRUE" ] || skip "no true binary"
ENV=
for t in /usr/bin/env /bin/env; do [ -x "$t" ] && ENV=$t && break; done
[ -n "$ENV" ] || skip "no env binary"

# The exec of $TRUE by env: argv and envp.
"$KILN" trace -e execve -o "$T/a.out" -- "$ENV" -i A=1 B=2 "$TRUE" 'a b' '-l' 'q"x' 2>"$T/a.err" ||
	fail "kiln trace failed: $(cat "$T/a.err")"
line=$(grep -F "execve(filename: \"$TRUE\"" "$T/a.out" | tail -1)
[ -n "$line" ] || fail "no execve of $TRUE: $(cat "$T/a.out")"
echo "$line" | grep -qF "argv: [\"$TRUE\", \"a b\", \"-l\", \"q\\\"x\"], envp: 0x" ||
	fail "argv not as strings: $line"
echo "$line" | grep -qE 'envp: 0x[0-9a-f]+ /\* 2 vars \*/\) += 0$' || fail "envp not counted: $line"

if command -v strace >/dev/null; then
	strace -f -e trace=execve -o "$T/s.out" "$ENV" -i A=1 B=2 "$TRUE" 'a b' '-l' 'q"x' ||
		fail "strace failed"
	s=$(grep -F "execve(\"$TRUE\"" "$T/s.out" | sed -E 's/^[0-9]+ +//; s/.*execve\("[^"]*", (\[.*\]), 0x[0-9a-f]+ \/\* ([0-9]+) vars \*\/\) = 0$/\1 \2/')
	k=$(echo "$line" | sed -E 's/.*argv: (\[.*\]), envp: 0x[0-9a-f]+ \/\* ([0-9]+) vars \*\/\) += 0$/\1 \2/')
	[ "$s" = "$k" ] || fail "argv/envp differ from strace's: strace '$s', kiln '$k'"
fi

# Bounds: 20 arguments, one of 200 bytes.
long=$(printf '%0200d' 0)
"$KILN" trace -e execve -o "$T/b.out" -- "$TRUE" 1 2 3 4 5 6 7 8 9 10 11 12 13 "$long" 15 16 17 18 19 \
	2>"$T/b.err" || fail "kiln trace failed: $(cat "$T/b.err")"
line=$(grep -F "execve(filename: \"$TRUE\"" "$T/b.out" | tail -1)
cut=$(printf '%0127d' 0)
echo "$line" | grep -qF "argv: [\"$TRUE\", \"1\", \"2\", \"3\", \"4\", \"5\", \"6\", \"7\", \"8\", \"9\", \"10\", \"11\", \"12\", \"13\", \"$cut\"..., \"15\", ...]" ||
	fail "argv past the bounds: $line"

"$KILN" trace --no-bpf -e execve -o "$T/c.out" -- "$ENV" "$TRUE" x 2>/dev/null
grep -qE "execve\\(filename: 0x[0-9a-f]+, argv: 0x[0-9a-f]+, envp: 0x[0-9a-f]+\\)" "$T/c.out" ||
	fail "--no-bpf: $(cat "$T/c.out")"
exit 0
