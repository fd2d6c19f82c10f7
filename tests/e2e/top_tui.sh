#!/bin/sh
# kiln top in the browser, in a 160x30 tmux pane, with burn busy:
#  1. -g -d 1 -p PID: within a few seconds (20 at most on a loaded
#     machine) the title is perf top's header and burn's hot function is
#     among the first rows, with the Children and Self columns; entries
#     of that process only (-s comm,dso,sym);
#  2. Enter expands the selected entry's callchain (a '-' and an indented
#     row under it), and it stays expanded across refreshes;
#  3. 'd' zooms to the selected entry's DSO and back, 't' to its command;
#  4. 'a' annotates shade_pixels live (shares, refreshed), q goes back;
#  5. a 20-column terminal: drawn again, keys work, and back;
#  6. q quits with status 0; SIGTERM, SIGHUP and Ctrl-C end it with
#     143, 129 and 130; each time the terminal has its modes back (stty -g
#     unchanged) and the alternate screen is off.
. "$(dirname "$0")/lib.sh"
. "$TESTLIB/tmux.sh"
need_perf_events
tmux_server top
start_busy

cat >"$T/run.sh" <<'EOF'
trap 'true' INT
before=$(stty -g)
sh -c 'echo $$ >"$0"; exec "$@"' "$T/pid" "$KILN" top "$@" 2>"$T/run.err"
rc=$?
[ "$before" = "$(stty -g)" ] && same=same || same=changed
echo "rc=$rc tty=$same"
EOF
run() {
	: >"$T/pid"
	tm send-keys -t k "clear; sh \"\$T/run.sh\" $*" Enter
	wait_for 'PerfTop: ' "top's header"
}
after() {
	wait_for "rc=[0-9]+ tty" "end of top ($1)"
	screen | grep -q "rc=$1 tty=same\$" || {
		screen >&2
		cat "$T/run.err" >&2
		fail "after exit status $1 the terminal is not as it was"
	}
	[ "$(tm display -p -t k '#{alternate_on}')" = 0 ] || fail "the alternate screen is still on ($1)"
}

tm new-session -d -s k -x 160 -y 30 "env T='$T' KILN='$KILN' TERM=screen PS1='$ ' sh" ||
	skip "tmux cannot start a server here"

# 1. The hot function among the first rows, this process only.
run -g -d 1 -s comm,dso,sym -p "$busy"
wait_for '^[-+ ] +[0-9.]+% +[0-9.]+%  burn +burn +\[\.\] shade_pixels' "shade_pixels row"
line 1 | grep -q "^   PerfTop: .*(target_pid: $busy" || fail "title: $(line 1)"
line 2 | grep -q 'Children    Self  Command' || fail "columns: $(line 2)"
screen | sed -n '3,12p' | grep -q 'shade_pixels' || fail "shade_pixels not in the first rows"
screen | sed -n '3,29p' | grep -E '%  ' | grep -v '%  burn ' && fail "rows of another process"

# 2. Enter expands the first entry; it stays expanded after a refresh.
expect 3 '^\+ ' "first entry not expandable"
keys Enter
expect 3 '^- ' "Enter did not expand the entry"
expect 4 '^   [-+ ] *[0-9.]+% [A-Za-z_]' "no callchain row under the entry"
sleep 2.2
expect 3 '^- ' "the entry folded at a refresh"

# 3. 'd' zooms to the selected entry's DSO (every row then has it), 'd'
# again shows all; 't' zooms to its command (-s comm,...).
keys Home d
wait_for 'DSO: [^ ]' "the DSO zoom's status"
dso=$(screen | sed -n 's/.*DSO: \([^ ]*\).*/\1/p' | head -1)
screen | sed -n '3,29p' | grep -E '^[-+ ] +[0-9.]+%' | grep -vF " $dso " && fail "the DSO zoom kept rows of other DSOs than $dso"
keys d
sleep 0.5
screen | grep -q 'DSO: ' && fail "'d' again did not zoom out"
keys t
wait_for 'Command: burn' "the command zoom's status"
keys t

# 4. 'a' on shade_pixels (the '/' filter selects it): its annotation,
# live: the instructions with their shares of the function's samples
# (they add up to 100%, its loop's lines hot), the sample count in the
# header grows at the refreshes; q goes back to the list.
keys /
tm send-keys -t k -l shade_pixels
keys Enter Home
tm resize-window -t k -x 160 -y 60 # the whole function on the page (longer under ASan)
keys a
wait_for '^Annotate: shade_pixels +[0-9.]+% +burn +\(live' "the annotation's title"
wait_for '^ +[0-9]+\.[0-9]+ : +[0-9a-f]+: +[a-z]' "instruction lines with shares"
screen | awk '/^ +[0-9]+\.[0-9]+ : +[0-9a-f]+: / { s += $1; if ($1 >= 5) hot++ }
	END { printf "%.2f %d\n", s, hot }' >"$T/ann"
read sum hot <"$T/ann"
awk -v s="$sum" 'BEGIN { exit !(s >= 99 && s <= 101) }' || { screen >&2; fail "the shares add up to $sum%"; }
[ "$hot" -ge 1 ] || { screen >&2; fail "no instruction with 5% or more"; }
n1=$(screen | sed -n 's/.* for cpu-clock (\([0-9]*\) samples.*/\1/p')
[ -n "$n1" ] || { screen >&2; fail "no sample count in the annotation's header"; }
i=0
while [ $i -lt 100 ]; do
	n2=$(screen | sed -n 's/.* for cpu-clock (\([0-9]*\) samples.*/\1/p')
	[ -n "$n2" ] && [ "$n2" != "$n1" ] && break
	sleep 0.2
	i=$((i + 1))
done
[ -n "$n2" ] && [ "$n2" != "$n1" ] || fail "the annotation was not refreshed ($n1 samples)"
keys q
expect 1 '^   PerfTop: ' "q did not go back to the list"
screen | sed -n '3,6p' | grep -q 'shade_pixels' || fail "the list after the annotation"
tm resize-window -t k -x 160 -y 30

# 5. The terminal resized to 20 columns: the list is drawn again (header,
# rows with their shares), keys still work ('a', q), and back at 160
# columns the rows are whole again.
tm resize-window -t k -x 20 -y 10
expect 1 '^   PerfTop: ' "no header at 20 columns"
expect 3 '^[-+ ] +[0-9.]+%' "no row at 20 columns"
keys a
expect 1 '^Annotate: ' "no annotation at 20 columns"
keys q
expect 1 '^   PerfTop: ' "q at 20 columns"
tm resize-window -t k -x 160 -y 30
expect 3 'shade_pixels$' "the rows after the terminal grew again"

# 6. q, SIGTERM, SIGHUP, Ctrl-C: the status and the terminal.
keys q
after 0
run -d 1 -p "$busy"
kill -TERM "$(cat "$T/pid")"
after 143
run -d 1 -p "$busy"
kill -HUP "$(cat "$T/pid")"
after 129
run -d 1 -p "$busy"
keys C-c
after 130
echo "ok"
