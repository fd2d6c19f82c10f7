# Helpers for the probe tests (sourced after lib.sh): tracefs mounted as perf
# mounts it, root, and a trap that removes every probe event of the test's
# own groups, whatever happens.
[ "$(id -u)" = 0 ] || skip "probes need root (tracefs)"
TRACEFS=/sys/kernel/tracing
if [ ! -d $TRACEFS/events ]; then
	mount -t tracefs nodev $TRACEFS 2>/dev/null || TRACEFS=/sys/kernel/debug/tracing
fi
[ -d $TRACEFS/events ] || skip "tracefs is not mounted and cannot be"
PROBE_GROUPS=""
# Remove every probe event of the groups in $PROBE_GROUPS (uprobes and kprobes).
probe_cleanup() {
	for f in uprobe_events kprobe_events; do
		[ -w $TRACEFS/$f ] || continue
		for g in $PROBE_GROUPS; do
			sed -n "s|^[pr]:\($g/[^ ]*\) .*|\1|p" $TRACEFS/$f | sort -u | while read -r ev; do
				echo "-:$ev" >>$TRACEFS/$f 2>/dev/null
			done
		done
	done
}
trap 'probe_cleanup; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
PROBE_SRC="$(dirname "$0")/../progs/probe_work.c"
need_uprobes() {
	[ -e $TRACEFS/uprobe_events ] || skip "this kernel has no uprobe events"
}
# build_work NAME CC-FLAGS...: tests/progs/probe_work.c built as $T/NAME; its
# probe group (probe_NAME: NAME is to be unique to the run) is cleaned up.
build_work() {
	bw_name=$1
	shift
	command -v cc >/dev/null || skip "no C compiler"
	cc "$@" -o "$T/$bw_name" "$PROBE_SRC" || fail "cannot compile $PROBE_SRC $*"
	PROBE_GROUPS="$PROBE_GROUPS probe_$bw_name"
}
