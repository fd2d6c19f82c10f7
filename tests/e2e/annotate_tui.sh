#!/bin/sh
# kiln annotate in the terminal browser, in an 80x24 tmux pane, on a
# recording made now: the list shows the hottest function first; Enter
# opens its page (instruction rows with their shares, the hot one
# coloured); q comes back; q quits, leaving the terminal's modes as they
# were and the alternate screen off. A named symbol opens on its page.
# Standard output a pipe: the --stdio text, no escape sequences. TERM=dumb:
# a note and the text.
. "$(dirname "$0")/lib.sh"
need_perf_events
: "${INLINES:?}"
. "$TESTLIB/tmux.sh"
tmux_server annotate-tui
mkdir -p "$T/home" "$T/bin"
cp "$INLINES" "$T/bin/prog"
export HOME="$T/home"
"$KILN" record -q -F 999 -o "$T/p.data" -- "$T/bin/prog" 1 || fail "kiln record failed"
"$KILN" annotate --stdio -i "$T/p.data" >"$T/stdio.txt" 2>"$T/err" ||
	fail "kiln annotate --stdio failed: $(cat "$T/err")"
# The hottest function: the first block's name.
hot=$(sed -n 's/^ *: [0-9a-f]* <\(.*\)>:$/\1/p' "$T/stdio.txt" | head -1)
[ -n "$hot" ] || fail "no function in the --stdio text: $(head -5 "$T/stdio.txt")"

tty_runner annotate

tm new-session -d -s k -x 80 -y 24 \
	"env T='$T' KILN='$KILN' HOME='$HOME' KILN_CACHE_DIR='${KILN_CACHE_DIR:-}' TERM=screen PS1='$ ' sh" ||
	skip "tmux cannot start a server here"

# 1. The list: title, columns, the hottest function first and selected.
run
wait_for '^Samples: [0-9]+ of event ' "the list"
expect 2 '^  Overhead Shared Object +Symbol$' "column header"
expect 3 "^   ?[0-9]+\\.[0-9]+%  prog +\\[\\.\\] $hot\$" "the hottest function first"
tm capture-pane -p -e -t k | sed -n 3p | grep -Eq '\[([0-9]+;)*7m' || fail "first row not selected"
expect 24 '^1/[0-9]+  \? help' "status line"

# 2. Enter opens its page: the --stdio text, instruction rows with their shares.
keys Enter
expect 1 "^Annotate: $hot " "the page's title"
expect 2 '^ Percent \| Source code & Disassembly of prog for ' "the page's header"
screen | grep -Eq '^ +[0-9]+\.[0-9]+ : +[0-9a-f]+:   ' || fail "no instruction rows on the page"
# The hottest instruction row (well above 5%) is coloured hot (red).
tm capture-pane -p -e -t k | grep -E ' [1-9][0-9]\.[0-9]+ : ' | grep -q '\[31m' ||
	fail "no hot line coloured"

# 3. q comes back to the list, q quits: status 0, the terminal as it was.
keys q
expect 1 '^Samples: ' "back on the list"
expect 3 "\\] $hot\$" "the selection after the page"
keys a
expect 1 "^Annotate: $hot " "'a' opens the page"
keys q
keys q
after

# 4. A named symbol opens on its page; q quits.
run "$hot"
wait_for "^Annotate: $hot " "the named symbol's page"
keys q
after

# 5. Standard output a pipe: the --stdio text, without escape sequences.
tm send-keys -t k "clear; \"\$KILN\" annotate -i \"\$T/p.data\" | cat >\"\$T/pipe.txt\"; echo piped=\$?" Enter
wait_for '^piped=0$' "kiln annotate | cat"
cmp -s "$T/stdio.txt" "$T/pipe.txt" || fail "kiln annotate | cat differs from --stdio"
grep -q "$(printf '\033')" "$T/pipe.txt" && fail "escape sequences in the piped text"

# 6. TERM=dumb on a terminal: a one-line note on stderr, the text on the terminal.
tm send-keys -t k "clear; TERM=dumb \"\$KILN\" annotate -i \"\$T/p.data\" \"$hot\" 2>\"\$T/dumb.err\"; echo dumb=\$?" Enter
wait_for '^dumb=0$' "TERM=dumb"
screen | grep -Eq '^ +[0-9]+\.[0-9]+ : +[0-9a-f]+:   ' || fail "TERM=dumb: no instruction rows"
[ "$(wc -l <"$T/dumb.err")" = 1 ] && grep -q '^note: .*TERM=dumb.* cannot show the browser' "$T/dumb.err" ||
	fail "TERM=dumb: the note is '$(cat "$T/dumb.err")'"
echo ok
