# Helpers for e2e tests that drive a terminal program in a tmux pane
# (sourced after lib.sh). A tmux server of the test's own (socket
# kiln-NAME-PID, killed on exit), a session 'k' started by the test:
#   tmux_server NAME     set it up (skip when tmux is not installed);
#   tm ARGS              tmux on that server;
#   screen               the pane's text;  line N: its line N (1-based);
#   wait_for RE WHAT     until the pane shows the extended regex RE;
#   expect N RE WHAT     until line N matches RE (20 s at most each: a
#                        loaded machine may take its time to redraw);
#   keys KEYS...         send keys, then let the program draw.
tmux_server() {
	command -v tmux >/dev/null || skip "tmux is not installed"
	unset TMUX # a server of our own, also when the tests run inside tmux
	sock="kiln-$1-$$"
	trap 'tm kill-server 2>/dev/null; rm -rf "$T"' EXIT
}
tm() { tmux -L "$sock" -f /dev/null "$@"; }
screen() { tm capture-pane -p -t k; }
line() { screen | sed -n "${1}p"; }
wait_for() {
	i=0
	while [ $i -lt 200 ]; do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	screen >&2
	fail "$2: the screen never showed '$1'"
}
expect() {
	i=0
	while [ $i -lt 200 ]; do
		line "$1" | grep -Eq -- "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	screen >&2
	fail "$3: line $1 is '$(line "$1")'"
}
keys() {
	tm send-keys -t k "$@"
	sleep 0.3
}
# A kiln command run in the pane on $T/p.data (the test's recording):
#   tty_runner CMD       write $T/run.sh: "$KILN" CMD -i "$T/p.data" ARGS,
#                        stderr to $T/run.err, then "rc=N tty=same|changed"
#                        (the terminal's modes compared with stty -g);
#                        kiln's pid in $T/pid; Ctrl-C ends kiln, not the script;
#   run ARGS             start it in the pane (session 'k', which has $T and $KILN);
#   after                wait for its end: status 0, the modes as they were,
#                        the alternate screen off, nothing on stderr.
tty_runner() {
	cat >"$T/run.sh" <<EOS
trap 'true' INT
before=\$(stty -g)
sh -c 'echo \$\$ >"\$T/pid"; exec "\$@"' sh "\$KILN" $1 -i "\$T/p.data" "\$@" 2>"\$T/run.err"
rc=\$?
[ "\$before" = "\$(stty -g)" ] && same=same || same=changed
echo "rc=\$rc tty=\$same"
EOS
	runner_cmd=$1
}
run() {
	tm send-keys -t k "clear; sh \"\$T/run.sh\" $*" Enter
}
after() {
	wait_for "rc=[0-9]+ tty" "end of kiln $runner_cmd"
	screen | grep -q "rc=0 tty=same\$" || { screen >&2; fail "exit status or terminal modes"; }
	[ "$(tm display -p -t k '#{alternate_on}')" = 0 ] || fail "the alternate screen is still on"
	[ ! -s "$T/run.err" ] || fail "stderr: $(cat "$T/run.err")"
}
