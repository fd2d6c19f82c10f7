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
