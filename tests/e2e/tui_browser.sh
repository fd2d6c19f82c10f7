#!/bin/sh
# The terminal browser (src/tui) in an 80x24 tmux pane through tui-demo
# (a synthetic profile): it opens on the hottest entry, selected; Enter
# expands its callchain; '/' filters (substring and regex) and shows
# names' escape sequences as text; 't' zooms to a thread; 'a' opens a
# text page (lines coloured by their share) with search, and 'q' comes
# back; 'h' shows help; resizing to 20 columns, 3 rows and 1x1 and back
# redraws it; --refresh-ms refreshes it. After q, SIGTERM, SIGHUP, Ctrl-C
# and an exit() from inside, the shell gets the exit status it expects
# and the terminal its modes back (stty -g unchanged, icanon and echo
# on, the alternate screen left). Without a terminal, or on a dumb one,
# it says so and exits 1.
. "$(dirname "$0")/lib.sh"
: "${TUI_DEMO:?}"
. "$TESTLIB/tmux.sh"
tmux_server tui

# Each run: the demo (its pid in $T/pid), then its exit status and whether
# the terminal's modes are the ones it found.
cat >"$T/run.sh" <<'EOF'
trap 'true' INT # Ctrl-C ends the demo, not this script (the demo gets the default back)
before=$(stty -g)
sh -c 'echo $$ >"$0"; exec "$@"' "$T/pid" "$TUI_DEMO" "$@"
rc=$?
[ "$before" = "$(stty -g)" ] && same=same || same=changed
modes=$(stty -a | tr ' ;' '\n\n' | grep -E '^-?(icanon|echo)$' | tr '\n' ' ')
echo "rc=$rc tty=$same modes=$modes"
EOF
run() {
	: >"$T/pid"
	tm send-keys -t k "clear; sh \"\$T/run.sh\" $*" Enter
	wait_for 'hottest_function' "start of the demo"
}
# after RC: the run ended with status RC and left the terminal clean.
after() {
	wait_for "rc=[0-9]+ tty" "end of the demo ($1)"
	screen | grep -q "rc=$1 tty=same modes=icanon echo\$" || {
		screen >&2
		fail "after exit status $1 the terminal is not as it was"
	}
	[ "$(tm display -p -t k '#{alternate_on}')" = 0 ] || fail "the alternate screen is still on ($1)"
	wait_for '^[$]$' "the shell's prompt after exit status $1"
}

tm new-session -d -s k -x 80 -y 24 "env T='$T' TUI_DEMO='$TUI_DEMO' TERM=screen PS1='$ ' sh" ||
	skip "tmux cannot start a server here"

# 1. Opens on the hottest entry, selected (reverse video), the next one not.
run
[ "$(line 1 | cut -c1-8)" = "Samples:" ] || fail "no title line: $(line 1)"
expect 3 '^\+  20\.50%  cc1 .*hottest_function$' "first row"
tm capture-pane -p -e -t k | sed -n 3p | grep -Eq '\[([0-9]+;)*7m' || fail "first row not selected"
tm capture-pane -p -e -t k | sed -n 4p | grep -Eq '\[([0-9]+;)*7m' && fail "second row selected too"
expect 24 '1/300  \? help' "status line"

# 2. Enter expands the callchain: child rows appear under it, indented.
keys Enter
expect 3 '^-  20\.50%' "the entry is not marked expanded"
expect 4 '^   [-+ ] [0-9]+\.[0-9]+% [a-z_]+_0$' "no callchain row"
keys Enter
expect 4 '^\+  16\.11%' "Enter did not fold the callchain"

# 3. '/' filters by symbol: a substring, then a regex; the hostile name shows as text.
keys / evil Enter
expect 24 'filter: evil  1/1' "filter status"
expect 3 '\[\.\] evil\\x1b\[31m_name$' "filter 'evil'"
[ -z "$(line 4)" ] || fail "filter 'evil' left other rows: $(line 4)"
keys Escape
expect 24 '^3/300  \? help$' "Esc did not clear the filter (the selection stays on its entry)"
keys / '^(hottest|evil)' Enter
expect 24 'filter: .* 1/2  ' "regex filter"
keys Escape Home

# 4. 't' zooms to the selected entry's thread (cc1), 't' again zooms out.
keys t
expect 24 'Thread: cc1' "zoom status"
screen | sed -n '3,23p' | grep -v '^$' | grep -vq '^+ .*%  cc1 ' && fail "zoom kept other threads"
keys t
expect 24 '^1/300' "zoom out"

# 5. 'a' annotates the selected entry in a text page; '/' searches it; q comes back.
keys a
wait_for '^Annotate: hottest_function' "the annotate page"
expect 2 'Disassembly of hottest_function' "page text"
# The 42.50% line is coloured hot (red), a 0.10% line is not.
tm capture-pane -p -e -t k | grep ' 42\.50 :' | grep -q '\[31m' || fail "hot line not red"
tm capture-pane -p -e -t k | grep ' 0\.10 :' | grep -q '\[3[12]m' && fail "cold line coloured"
keys / end_of Enter
expect 24 'line 152 of 152' "search selection"
screen | grep -q 'end_of_annotation' || fail "search in the page did not scroll to the match"
keys q
wait_for '^\+  20\.50%  cc1 ' "back from the annotate page"

# 6. 'h' shows help; q comes back.
keys h
expect 1 '^Help' "help page"
screen | grep -q 'expand/fold the selected callchain' || fail "help text"
keys q
expect 3 'hottest_function' "back from help"

# 7. Resizes: 20 columns (rows cut, not wrapped), 3 rows, 1x1, and back.
tm resize-window -t k -x 20 -y 24
expect 1 '^Samples: 12K of even$' "title at 20 columns"
expect 3 '^\+  20\.50%  cc1 *$' "row at 20 columns"
[ "$(screen | awk 'length > 20' | wc -l)" = 0 ] || fail "lines wider than 20 columns"
tm resize-window -t k -x 20 -y 3
sleep 0.3
tm resize-window -t k -x 1 -y 1
sleep 0.3
tm resize-window -t k -x 80 -y 24
wait_for 'Overhead  Command   Shared Object' "redraw at 80x24"
keys Home
expect 3 'hottest_function' "after the resizes"

# 8. q quits: status 0, the terminal as it was.
keys q
after 0

# 9. Signals and an exit() from inside restore the terminal and keep the status.
run
keys Enter
kill -TERM "$(cat "$T/pid")"
after 143
run
kill -HUP "$(cat "$T/pid")"
after 129
run
keys C-c
after 130
run
keys X
after 3

# 10. --refresh-ms calls the model's refresh while waiting for keys.
run --refresh-ms 50
wait_for 'refresh ([3-9]|[1-9][0-9]+)$' "periodic refresh"
keys q
after 0
# 11. No terminal, or one that cannot address the cursor: a message and exit 1, so a
# command can print text instead; the terminal untouched.
"$TUI_DEMO" </dev/null >"$T/out" 2>"$T/err" && fail "ran without a terminal"
grep -q 'cannot use the terminal' "$T/err" || fail "no message without a terminal: $(cat "$T/err")"
tm send-keys -t k "clear; b=\$(stty -g); TERM=dumb \"\$TUI_DEMO\"; echo rc=\$? \$(stty -g | grep -c \"^\$b\$\")" Enter
wait_for '^rc=[0-9]+ [01]$' "TERM=dumb"
screen | grep -q 'cannot use the terminal' || fail "no message for TERM=dumb"
screen | grep -q '^rc=1 1$' || fail "TERM=dumb: $(screen | grep '^rc=')"
echo "ok"
