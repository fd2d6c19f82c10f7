#!/bin/sh
# The command line generated from the option tables (cli/opts.h): every
# command's --help lists every option in its table, `kiln help CMD` is
# CMD's help, usage errors point at 'kiln CMD --help', an unopenable file
# is named once, the man pages format without warnings, the bash
# completion completes commands and options (zsh's parses, where zsh is
# installed), the version is CMake's project version, docs/cmd/CMD.md
# opens with the help, and `make install` installs the binary, the man
# pages and the completion.
. "$(dirname "$0")/lib.sh"
src=$(cd "$TESTLIB/../.." && pwd)
cmds=$("$KILN" --list-commands) || fail "--list-commands failed"
[ -n "$cmds" ] || fail "no commands listed"

for c in $cmds; do
	"$KILN" "$c" --help >"$T/help" 2>"$T/err" || fail "kiln $c --help: exit $?"
	[ -s "$T/err" ] && fail "kiln $c --help wrote to stderr: $(cat "$T/err")"
	head -1 "$T/help" | grep -q "^usage: kiln $c " || fail "kiln $c --help: $(head -1 "$T/help")"
	grep -q '^EXAMPLES$' "$T/help" || fail "kiln $c --help has no EXAMPLES"
	"$KILN" --list-options "$c" >"$T/opts" || fail "--list-options $c failed"
	[ "$(wc -l <"$T/opts")" -ge 2 ] || fail "kiln $c lists no options"
	while read -r o; do
		# "  -o, --output FILE", "      --pid", "  -g   ..."
		grep -qE "^  (-., |    )?$o([ ,=[]|$)|^  $o, --" "$T/help" ||
			fail "kiln $c --help does not list $o"
	done <"$T/opts"
	# docs/cmd/CMD.md opens with the help, verbatim.
	awk '/^```/ { n++; next } n == 1' "$src/docs/cmd/$c.md" >"$T/doc"
	cmp -s "$T/doc" "$T/help" || fail "docs/cmd/$c.md does not open with kiln $c --help"
	# kiln help CMD is the command's help, as in git.
	"$KILN" help "$c" >"$T/help2" || fail "kiln help $c: exit $?"
	cmp -s "$T/help" "$T/help2" || fail "kiln help $c differs from kiln $c --help"
	# A usage error names the command as the user types it.
	"$KILN" "$c" --no-such-option >/dev/null 2>"$T/err"
	st=$?
	[ $st = 2 ] || fail "kiln $c --no-such-option: exit $st, want 2"
	grep -qx "error: unknown option '--no-such-option'" "$T/err" || fail "kiln $c: $(cat "$T/err")"
	grep -qx "See 'kiln $c --help'." "$T/err" || fail "kiln $c: no hint: $(cat "$T/err")"
done
"$KILN" help >"$T/top" || fail "kiln help: exit $?"
grep -q "^usage: kiln \[--version\]" "$T/top" || fail "kiln help is not the top-level help"
"$KILN" help frobnicate >/dev/null 2>&1 && fail "kiln help of no command succeeded"

# Long options abbreviate when unambiguous, as getopt_long allowed.
"$KILN" script --he >/dev/null 2>"$T/err" && fail "an ambiguous abbreviation was taken"
grep -q "ambiguous (--header, --header-only, --help)" "$T/err" || fail "ambiguity: $(cat "$T/err")"
"$KILN" collapse --hel >/dev/null || fail "--hel is not --help"

# A file that cannot be opened is named once, in one line.
for c in collapse "script -i" "flame -o $T/x.svg" "export -f folded"; do
	# shellcheck disable=SC2086
	"$KILN" $c "$T/missing.data" >/dev/null 2>"$T/err" && fail "kiln $c of a missing file succeeded"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "kiln $c: not one line: $(cat "$T/err")"
	[ "$(grep -o "missing.data" "$T/err" | wc -l)" = 1 ] || fail "kiln $c names the file twice: $(cat "$T/err")"
	grep -q "^error: cannot open '.*missing.data': No such file or directory$" "$T/err" ||
		fail "kiln $c: $(cat "$T/err")"
done

# Option errors carrying hostile bytes reach the terminal escaped.
"$KILN" collapse "--$(printf 'x\033[2J\342\200\256')" 2>"$T/err"
LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$T/err" && fail "raw control bytes: $(od -c "$T/err" | head -3)"
grep -qF 'x\x1b[2J\xe2\x80\xae' "$T/err" || fail "option not shown escaped: $(cat "$T/err")"

# One version: CMake's project(VERSION).
v=$(sed -n 's/^project(kiln VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[ -n "$v" ] || fail "CMakeLists.txt declares no project VERSION"
[ "$("$KILN" --version)" = "kiln $v" ] || fail "kiln --version: $("$KILN" --version), want kiln $v"

# Man pages: troff that man (or groff) formats without a warning.
mkdir "$T/man"
"$KILN" --man kiln >"$T/man/kiln.1" || fail "--man kiln failed"
for c in $cmds; do
	"$KILN" --man "$c" >"$T/man/kiln-$c.1" || fail "--man $c failed"
	grep -q "^\\.SH OPTIONS" "$T/man/kiln-$c.1" || fail "kiln-$c.1 has no OPTIONS"
	while read -r o; do
		grep -qF "\\fB$(printf '%s' "$o" | sed 's/-/\\-/g')\\fR" "$T/man/kiln-$c.1" ||
			fail "kiln-$c.1 does not list $o"
	done <<EOF
$("$KILN" --list-options "$c")
EOF
done
for f in "$T"/man/*.1; do
	if command -v man >/dev/null; then
		LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$f" 2>"$T/warn" >/dev/null ||
			fail "man -l $f failed: $(cat "$T/warn")"
	elif command -v groff >/dev/null; then
		groff -man -ww -z "$f" 2>"$T/warn" || fail "groff $f failed"
	else
		continue
	fi
	[ -s "$T/warn" ] && fail "$(basename "$f"): $(cat "$T/warn")"
done

# Completion: bash (a syntax check, then completions), zsh (syntax).
"$KILN" --completion bash >"$T/kiln.bash" || fail "--completion bash failed"
bash -n "$T/kiln.bash" || fail "the bash completion does not parse"
cat >"$T/complete.bash" <<'EOF'
. "$1"
reply() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kiln; printf '%s\n' "${COMPREPLY[@]}"; }
reply kiln "" | grep -qx collapse || { echo "no commands"; exit 1; }
reply kiln rec | grep -qx record || { echo "rec is not record"; exit 1; }
reply kiln help fl | grep -qx flame || { echo "help fl"; exit 1; }
reply kiln record --fr | grep -qx -- --freq || { echo "record --fr"; exit 1; }
reply kiln flame --ti | grep -qx -- --title || { echo "flame --ti"; exit 1; }
reply kiln collapse -- | grep -qx -- --event-filter || { echo "collapse --"; exit 1; }
reply kiln export - | grep -qx -- -f || { echo "export -"; exit 1; }
[ -z "$(reply kiln record -F "")" ] || { echo "a value of -F completes"; exit 1; }
cd "$2" && reply kiln collapse -o perf | grep -qx perf.data || { echo "no file after -o"; exit 1; }
EOF
: >"$T/perf.data"
bash "$T/complete.bash" "$T/kiln.bash" "$T" >"$T/cerr" 2>&1 || fail "bash completion: $(cat "$T/cerr")"
"$KILN" --completion zsh >"$T/_kiln" || fail "--completion zsh failed"
head -1 "$T/_kiln" | grep -q '^#compdef kiln' || fail "zsh completion has no #compdef"
if command -v zsh >/dev/null; then
	zsh -n "$T/_kiln" || fail "the zsh completion does not parse"
fi
"$KILN" --completion fish >/dev/null 2>&1 && fail "--completion fish succeeded"

# make install DESTDIR=...: the files listed, under PREFIX.
if command -v make >/dev/null && [ -f "$(dirname "$KILN")/CMakeCache.txt" ]; then
	make -s -C "$src" install BUILD="$(dirname "$KILN")" DESTDIR="$T/root" PREFIX=/usr \
		>"$T/install.log" 2>&1 || fail "make install: $(tail -5 "$T/install.log")"
	for f in bin/kiln share/man/man1/kiln.1 share/bash-completion/completions/kiln \
		share/zsh/site-functions/_kiln; do
		[ -s "$T/root/usr/$f" ] || fail "make install did not install $f"
	done
	for c in $cmds; do
		[ -s "$T/root/usr/share/man/man1/kiln-$c.1" ] || fail "no kiln-$c.1 installed"
	done
	cmp -s "$T/root/usr/share/bash-completion/completions/kiln" "$T/kiln.bash" ||
		fail "the installed bash completion differs from kiln --completion bash"
fi
echo ok
