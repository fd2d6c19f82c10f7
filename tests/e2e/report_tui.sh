#!/bin/sh
# kiln report in the terminal browser, in an 80x24 tmux pane, on a
# recording with callchains made now: the list opens on the entry --stdio
# prints first (its shares, its symbol), selected; Enter unfolds its
# callchain (rows indented under it, each with its share); 'a' says to use
# kiln annotate; q quits, leaving the terminal's modes as they were and the
# alternate screen off. --no-children: one Overhead column. Standard
# output a pipe: the --stdio text byte for byte. TERM=dumb: a note and
# the text.
. "$(dirname "$0")/lib.sh"
need_perf_events
: "${BURN:?}"
. "$TESTLIB/tmux.sh"
tmux_server report-tui
mkdir -p "$T/home" "$T/bin"
cp "$BURN" "$T/bin/prog"
export HOME="$T/home"
"$KILN" record -q -g -F 999 -o "$T/p.data" -- "$T/bin/prog" || fail "kiln record failed"
"$KILN" report --stdio -i "$T/p.data" >"$T/stdio.txt" 2>"$T/err" ||
	fail "kiln report --stdio failed: $(cat "$T/err")"
# --stdio's first entry: "   100.00%     0.00%  prog  prog  [.] main"
first=$(grep -E '^ +[0-9]+\.[0-9]+% +[0-9]+\.[0-9]+%  ' "$T/stdio.txt" | head -1)
[ -n "$first" ] || fail "no entry in the --stdio text: $(head -15 "$T/stdio.txt")"
children=$(echo "$first" | awk '{print $1}')
self=$(echo "$first" | awk '{print $2}')
comm=$(echo "$first" | awk '{print $3}')
dso=$(echo "$first" | awk '{print $4}')
sym=$(echo "$first" | sed 's/.*\] //')
samples=$(grep -c . "$T/stdio.txt") # nonzero, for the record
[ "$samples" -gt 0 ] || fail "empty --stdio text"

tty_runner report

tm new-session -d -s k -x 80 -y 24 \
	"env T='$T' KILN='$KILN' HOME='$HOME' KILN_CACHE_DIR='${KILN_CACHE_DIR:-}' TERM=screen PS1='$ ' sh" ||
	skip "tmux cannot start a server here"

# 1. The list: title, columns, --stdio's first entry first, foldable and selected.
run
wait_for "^Samples: [0-9]+ of event '[^']+'" "the list"
expect 2 '^  Children +Self  Command +Shared Object +Symbol$' "column header"
re() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'; }
expect 3 "^\\+ +$children +$self  $(re "$comm") +$(re "$dso") +\\[[.k]\\] $(re "$sym")\$" \
	"--stdio's first entry first"
tm capture-pane -p -e -t k | sed -n 3p | grep -Eq '\[([0-9]+;)*7m' || fail "first row not selected"
expect 24 '^1/[0-9]+  \? help' "status line"
rows=$(screen | grep -cE '^[-+ ] +[0-9]+\.[0-9]+%')

# 2. Enter unfolds the entry: callchain rows indented under it, with shares.
keys Enter
expect 3 "^- +$children +$self  $(re "$comm") " "the entry unfolded"
expect 4 '^   [-+ ] *[0-9]+\.[0-9]+% [^ ]' "a callchain row under the entry"
expect 24 '^1/[0-9]+  \? help' "status line after Enter"
n=$(screen | sed -n 24p | sed 's/^1\/\([0-9]*\).*/\1/')
keys Enter
expect 3 "^\\+ +$children" "Enter folds it again"
expect 24 "^1/$((n - 1))  " "one row fewer folded"

# 3. 'a' points at kiln annotate; q quits: status 0, the terminal as it was.
keys a
expect 24 'annotate: use kiln annotate SYM' "the 'a' message"
keys q
after

# 4. --no-children: one Overhead column.
run --no-children
wait_for '^Samples: ' "the --no-children list"
expect 2 '^  Overhead Command +Shared Object +Symbol$' "the --no-children header"
expect 3 '^[-+ ] +[0-9]+\.[0-9]+%  prog ' "an entry with one share"
keys q
after

# 5. Standard output a pipe: the --stdio text, byte for byte.
tm send-keys -t k "clear; \"\$KILN\" report -i \"\$T/p.data\" | cat >\"\$T/pipe.txt\"; echo piped=\$?" Enter
wait_for '^piped=0$' "kiln report | cat"
cmp -s "$T/stdio.txt" "$T/pipe.txt" || fail "kiln report | cat differs from --stdio"
[ "$rows" -gt 1 ] || fail "only $rows entry rows on the list"

# 6. TERM=dumb on a terminal: a one-line note on stderr, the text on the terminal.
tm send-keys -t k "clear; TERM=dumb \"\$KILN\" report -g none --percent-limit 50 -i \"\$T/p.data\" 2>\"\$T/dumb.err\"; echo dumb=\$?" Enter
wait_for '^dumb=0$' "TERM=dumb"
screen | grep -Eq "^ +$children +$self  $(re "$comm") +$(re "$dso") " || { screen >&2; fail "TERM=dumb: no first entry"; }
[ "$(wc -l <"$T/dumb.err")" = 1 ] && grep -q '^note: .*TERM=dumb.* cannot show the browser' "$T/dumb.err" ||
	fail "TERM=dumb: the note is '$(cat "$T/dumb.err")'"
echo ok
