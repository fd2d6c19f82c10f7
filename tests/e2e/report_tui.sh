#!/bin/sh
# kiln report in the terminal browser, in an 80x24 tmux pane, on a
# recording with callchains made now: the list opens on the entry --stdio
# prints first (its shares, its symbol), selected; Enter unfolds its
# callchain (rows indented under it, each with its share). 'a' on an entry
# without samples of its own says so; on the hottest symbol (--no-children)
# it opens kiln annotate's page, whose instruction rows are those of
# `kiln annotate --stdio SYM`, and q comes back to the list, on the same
# row. 'd', 't', 's' zoom into the row's DSO, thread, symbol: the title and
# status line say so and the rows are those of --stdio --dsos X, --tid T,
# --symbols S (shares of all samples); the same key or Esc zooms out. Two
# events: perf's event menu first, Enter opens one, Esc comes back. A
# resize to 20 columns and back redraws it. q quits, leaving the
# terminal's modes as they were and the alternate screen off; so does
# SIGTERM, SIGHUP and Ctrl-C (exit status 143, 129, 130). A kernel
# symbol's page holds annotate's note. --no-children: one Overhead column. Standard
# output a pipe: the --stdio text byte for byte. TERM=dumb: a note and the
# text.
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
wait_for "^Samples: [0-9]+[KMG]? of event '[^']+'" "the list"
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

# 3. 'a' on an entry without samples of its own (children: a caller) says so.
if [ "$self" = "0.00%" ]; then
	keys a
	expect 24 "no samples of its own to annotate" "'a' on a caller"
fi

# 4. Zooms. Entry rows on screen and in a --stdio text, spaces squeezed; the
# browser cuts rows at 80 columns, so each screen row is a prefix of its
# --stdio row; the status line's count is the number of --stdio rows.
screen_rows() {
	screen | sed -n '3,23p' | grep -E '^[-+ ] +[0-9]+\.[0-9]+% +[0-9]+\.[0-9]+%  ' |
		sed 's/^[-+ ] *//; s/  */ /g; s/ *$//'
}
stdio_rows() { grep -E '^ +[0-9]+\.[0-9]+% +[0-9]+\.[0-9]+%  ' "$1" | sed 's/^ *//; s/  */ /g; s/ *$//'; }
same_rows() { # WHAT STDIO-FILE
	n=$(stdio_rows "$2" | wc -l)
	[ "$n" -gt 0 ] || fail "$1: no rows in the --stdio text: $(cat "$2")"
	expect 24 "(^|  )1/$n  \\? help" "$1: the number of rows"
	screen_rows >"$T/s.rows"
	stdio_rows "$2" | head -n "$(wc -l <"$T/s.rows")" >"$T/t.rows"
	[ -s "$T/s.rows" ] || { screen >&2; fail "$1: no rows on screen"; }
	paste -d '\t' "$T/s.rows" "$T/t.rows" | awk -F '\t' -v what="$1" '
		length($1) < 20 || substr($2, 1, length($1)) != $1 {
			printf "%s: screen row \"%s\" is not --stdio'"'"'s \"%s\"\n", what, $1, $2; bad = 1
		}
		END { exit bad }' >&2 || fail "$1: rows differ"
}
# The first entry with 1% or more of samples of its own (a caller's DSO or
# symbol may have none: zoomed into, it shows nothing; one with a single
# sample of its own, such as main's 0.05%, shows nothing either under
# --symbols with children, in perf as in kiln): its row, DSO and symbol.
k=$(stdio_rows "$T/stdio.txt" | awk '$2 + 0 >= 1 { print NR; exit }')
[ -n "$k" ] || fail "no entry with 1% of samples of its own in the --stdio text"
krow=$(stdio_rows "$T/stdio.txt" | sed -n "${k}p")
kdso=$(echo "$krow" | awk '{print $4}')
ksym=$(echo "$krow" | sed 's/.*\] //')
down() { i=1; while [ $i -lt "$k" ]; do keys Down; i=$((i + 1)); done; }
# d: that entry's DSO, as --stdio --dsos prints it (its column left out).
"$KILN" report --stdio --dsos "$kdso" -i "$T/p.data" >"$T/dso.txt" 2>"$T/err" ||
	fail "kiln report --stdio --dsos failed: $(cat "$T/err")"
down
expect 24 "^$k/[0-9]+  \\? help" "row $k selected"
keys d
expect 1 "^Samples: .*, DSO: " "the title after 'd'"
expect 2 '^  Children +Self  Command +Symbol$' "the header without Shared Object"
expect 24 "^DSO: $(re "$kdso") \\(Esc: zoom out\\)" "the status line after 'd'"
same_rows "d" "$T/dso.txt"
keys d
expect 2 '^  Children +Self  Command +Shared Object +Symbol$' "'d' again: the header back"
same_rows "d again" "$T/stdio.txt"
# t: the first entry's thread, as --stdio --tid prints it.
keys t
expect 24 "^Thread: $(re "$comm")\\([0-9]+\\) \\(Esc: zoom out\\)" "the status line after 't'"
tid=$(line 24 | sed 's/^Thread: [^(]*(\([0-9]*\)).*/\1/')
"$KILN" report --stdio --tid "$tid" -i "$T/p.data" >"$T/tid.txt" 2>"$T/err" ||
	fail "kiln report --stdio --tid failed: $(cat "$T/err")"
same_rows "t" "$T/tid.txt"
# s on top of it (on the entry of row k): both filters, the Symbol column
# left out; Esc takes off the last.
down
keys s
expect 24 "^Thread: $(re "$comm")\\($tid\\), Symbol: $(re "$ksym") \\(Esc" "the status line after 's'"
"$KILN" report --stdio --tid "$tid" --symbols "$ksym" -i "$T/p.data" >"$T/sym.txt" \
	2>"$T/err" || fail "kiln report --stdio --symbols failed: $(cat "$T/err")"
expect 2 '^  Children +Self  Command +Shared Object$' "the header without Symbol"
same_rows "t, s" "$T/sym.txt"
keys Escape
expect 24 "^Thread: $(re "$comm")\\($tid\\) \\(Esc" "Esc: out of the symbol"
keys Escape
expect 24 '^1/[0-9]+  \? help' "Esc: out of the thread"
expect 1 "^Samples: [0-9]+[KMG]? of event '[^']+', Event count \\(approx\\.\\): [0-9]+\$" "the title unzoomed"

# 5. A resize to 20 columns and back redraws it.
tm resize-window -t k -x 20 -y 24
expect 1 '^Samples: [0-9]+[KMG]? of e' "the title in 20 columns"
expect 3 "^\\+ +$children +$self" "the first row in 20 columns"
tm resize-window -t k -x 80 -y 24
expect 3 "^\\+ +$children +$self  $(re "$comm") " "the first row after the resize"

# q quits: status 0, the terminal as it was.
keys q
after

# 6. --no-children: one Overhead column; 'a' on the hottest symbol: kiln
# annotate's page, its instruction rows those of kiln annotate --stdio.
hot=$("$KILN" report --stdio --no-children -g none -i "$T/p.data" | grep -E '^ +[0-9]+\.[0-9]+%  ' | head -1)
hot_sym=$(echo "$hot" | sed 's/.*\] //')
"$KILN" annotate --stdio -i "$T/p.data" "$hot_sym" >"$T/ann.txt" 2>"$T/err" ||
	fail "kiln annotate --stdio $hot_sym failed: $(cat "$T/err")"
run --no-children
wait_for '^Samples: ' "the --no-children list"
expect 2 '^  Overhead Command +Shared Object +Symbol$' "the --no-children header"
expect 3 "^[-+ ] +$(echo "$hot" | awk '{print $1}')  prog .*\\] $(re "$hot_sym")\$" "the hottest symbol first"
keys a
expect 1 "^Annotate: $(re "$hot_sym")  [0-9]+\\.[0-9]+%  " "the annotation's title"
inst='^ +[0-9]+\.[0-9]+ : +[0-9a-f]+:'
screen | grep -E "$inst" | sed 's/ *$//' >"$T/page.rows"
n=$(wc -l <"$T/page.rows")
[ "$n" -ge 3 ] || { screen >&2; fail "only $n instruction rows on the page"; }
grep -E "$inst" "$T/ann.txt" | cut -c1-80 | sed 's/ *$//' | head -n "$n" >"$T/ann.rows"
diff "$T/ann.rows" "$T/page.rows" >&2 || fail "the page's rows are not kiln annotate --stdio's"
keys q
expect 3 "^[-+ ] +$(echo "$hot" | awk '{print $1}')  prog " "back on the list"
tm capture-pane -p -e -t k | sed -n 3p | grep -Eq '\[([0-9]+;)*7m' || fail "the row is not selected after q"
# A kernel symbol (when the recording has one on screen): annotate's note on its page.
kk=$("$KILN" report --stdio --no-children -g none -i "$T/p.data" | grep -E '^ +[0-9]+\.[0-9]+%  ' |
	head -20 | awk '/\[k\] / { print NR; exit }')
if [ -n "$kk" ]; then
	ksym=$("$KILN" report --stdio --no-children -g none -i "$T/p.data" | grep -E '^ +[0-9]+\.[0-9]+%  ' |
		sed -n "${kk}p" | sed 's/.*\] //')
	i=1
	while [ $i -lt "$kk" ]; do keys Down; i=$((i + 1)); done
	keys a
	expect 1 "^Annotate: $(re "$ksym")  [0-9]+\\.[0-9]+%  \\[kernel\\.kallsyms\\]" "a kernel symbol's page"
	wait_for '^ +: note: ' "the note on a kernel symbol's page"
	keys q
	expect 24 "^$kk/[0-9]+  \\? help" "back on the kernel symbol's row"
fi
keys q
after

# 7. Two events: perf's menu ("Available samples", a row per event with its
# sample count as --stdio's header gives it), Enter opens the selected one,
# Esc comes back to the menu, q in an event's list quits.
"$KILN" record -q -g -e cpu-clock,task-clock -F 999 -o "$T/p2.data" -- "$T/bin/prog" ||
	fail "kiln record -e cpu-clock,task-clock failed"
"$KILN" report --stdio -i "$T/p2.data" >"$T/two.txt" 2>"$T/err" ||
	fail "kiln report --stdio on two events failed: $(cat "$T/err")"
grep "^# Samples: " "$T/two.txt" | sed "s/^# Samples: \([0-9]*[KMG]*\) *of event '\(.*\)'\$/\1 \2/" >"$T/two.ev"
[ "$(wc -l <"$T/two.ev")" = 2 ] || fail "two events expected in --stdio: $(cat "$T/two.ev")"
ev2=$(sed -n 2p "$T/two.ev" | cut -d' ' -f2-)
tm send-keys -t k "clear; sh \"\$T/run.sh\" -i \"\$T/p2.data\"" Enter
expect 1 '^Available samples' "the event menu"
expect 2 "^  $(sed -n 1p "$T/two.ev" | sed 's/[][\.*^$+?(){}|]/\\&/g')\$" "the first event's row"
expect 3 "^  $(sed -n 2p "$T/two.ev" | sed 's/[][\.*^$+?(){}|]/\\&/g')\$" "the second event's row"
keys Down Enter
expect 1 "^Samples: [0-9]+[KMG]? of event '$(re "$ev2")'" "the second event's list"
keys h
wait_for '^  /  +filter entries by symbol' "the help page's keys"
keys End
wait_for '^  a +annotate the selected row' "the help page's report keys"
screen | grep -Eq '^  d +only this shared object' || fail "the help page has no 'd'"
keys q
expect 1 "^Samples: [0-9]+[KMG]? of event '$(re "$ev2")'" "back from the help page"
keys Escape
expect 1 '^Available samples' "Esc: back to the menu"
expect 24 '^2/2  \? help' "the menu's selection kept"
keys Enter
expect 1 "^Samples: [0-9]+[KMG]? of event '$(re "$ev2")'" "the second event's list again"
keys q
after

# 8. SIGTERM: the terminal as it was, the death the shell expects.
run
wait_for '^Samples: ' "the list before SIGTERM"
kill -TERM "$(cat "$T/pid")"
wait_for "rc=[0-9]+ tty" "the end after SIGTERM"
screen | grep -q "rc=143 tty=same\$" || { screen >&2; fail "SIGTERM: exit status or terminal modes"; }
[ "$(tm display -p -t k '#{alternate_on}')" = 0 ] || fail "SIGTERM: the alternate screen is still on"
# SIGHUP (129) and Ctrl-C (130) alike.
run
wait_for '^Samples: ' "the list before SIGHUP"
kill -HUP "$(cat "$T/pid")"
wait_for "rc=[0-9]+ tty" "the end after SIGHUP"
screen | grep -q "rc=129 tty=same\$" || { screen >&2; fail "SIGHUP: exit status or terminal modes"; }
run
wait_for '^Samples: ' "the list before Ctrl-C"
keys C-c
wait_for "rc=[0-9]+ tty" "the end after Ctrl-C"
screen | grep -q "rc=130 tty=same\$" || { screen >&2; fail "Ctrl-C: exit status or terminal modes"; }
[ "$(tm display -p -t k '#{alternate_on}')" = 0 ] || fail "Ctrl-C: the alternate screen is still on"

# 9. Standard output a pipe: the --stdio text, byte for byte.
tm send-keys -t k "clear; \"\$KILN\" report -i \"\$T/p.data\" | cat >\"\$T/pipe.txt\"; echo piped=\$?" Enter
wait_for '^piped=0$' "kiln report | cat"
cmp -s "$T/stdio.txt" "$T/pipe.txt" || fail "kiln report | cat differs from --stdio"
[ "$rows" -gt 1 ] || fail "only $rows entry rows on the list"

# 10. TERM=dumb on a terminal: a one-line note on stderr, the text on the terminal.
tm send-keys -t k "clear; TERM=dumb \"\$KILN\" report -g none --percent-limit 50 -i \"\$T/p.data\" 2>\"\$T/dumb.err\"; echo dumb=\$?" Enter
wait_for '^dumb=0$' "TERM=dumb"
screen | grep -Eq "^ +$children +$self  $(re "$comm") +$(re "$dso") " || { screen >&2; fail "TERM=dumb: no first entry"; }
[ "$(wc -l <"$T/dumb.err")" = 1 ] && grep -q '^note: .*TERM=dumb.* cannot show the browser' "$T/dumb.err" ||
	fail "TERM=dumb: the note is '$(cat "$T/dumb.err")'"
echo ok
