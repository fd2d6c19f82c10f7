#!/bin/sh
# Binaries of a process in another mount namespace are read through
# /proc/PID/root while it runs, and symlinks are resolved inside that root
# (openat2 RESOLVE_IN_ROOT), never on the host. A static test binary lives
# only inside a directory used as the new root of `unshare --mount
# --root=DIR`; recorded with `kiln record -p` and `kiln flame -p` while it
# runs, its static functions are named. Then the binary inside the root
# is replaced by an absolute symlink to a decoy binary on the host: the
# decoy's names must never appear (a host-side open would follow it).
# `kiln record` / `kiln flame` of a command that enters the namespace keep
# its binary in the build-id cache while it runs, so it is named after it
# exits.
. "$(dirname "$0")/lib.sh"
need_perf_events
[ "$(id -u)" = 0 ] || skip "unshare --mount needs root"
command -v unshare >/dev/null || skip "no unshare"

write_spin_c "$T/p.c"
R="$T/root"
mkdir -p "$R"
cc -static -O1 -fno-omit-frame-pointer -DNAME=ns_hidden_spin -o "$R/kiln-ns-prog" "$T/p.c" 2>"$T/cc.err" ||
	skip "cannot link statically: $(head -1 "$T/cc.err")"
cc -static -O1 -fno-omit-frame-pointer -DNAME=host_decoy_spin -o "$T/decoy" "$T/p.c" || fail "decoy"
[ ! -e /kiln-ns-prog ] || skip "/kiln-ns-prog exists on the host"

unshare --mount --root="$R" /kiln-ns-prog 20 &
busy=$!
# Wait for it to run (a loaded machine may take a while to exec it).
pid=
for i in $(seq 50); do
	pid=$(pgrep -f '^/kiln-ns-prog' | head -1)
	[ -n "$pid" ] && break
	sleep 0.1
done
[ -n "$pid" ] || fail "the namespaced program did not start"
[ "$(readlink /proc/$pid/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ] || fail "not in another mount namespace"

"$KILN" record -q -g -F 999 -p "$pid" -o "$T/ns.data" -- sleep 0.5 2>/dev/null || fail "record failed"
"$KILN" collapse "$T/ns.data" >"$T/out" 2>"$T/err" || fail "collapse failed"
grep -q ';ns_hidden_spin' "$T/out" || fail "not named through /proc/PID/root: $(head -3 "$T/out") $(cat "$T/err")"
"$KILN" flame -q -p "$pid" -i "$T/nsflame.data" -o "$T/ns.svg" -- sleep 0.5 2>/dev/null || fail "flame failed"
grep -q 'ns_hidden_spin' "$T/ns.svg" || fail "kiln flame -p: not named"

# Recording a command that enters the namespace itself: the process is
# gone when the file is read, so the recorder kept its binary in the
# build-id cache (HOME/.debug) and listed it in the build-id table.
export HOME="$T/home"
mkdir -p "$HOME"
"$KILN" record -q -g -F 999 -o "$T/cmd.data" -- unshare --mount --root="$R" /kiln-ns-prog 0.4 2>/dev/null ||
	fail "record -- unshare failed"
ls "$HOME"/.debug/.build-id/*/*/elf >/dev/null 2>&1 || fail "the recorder kept no binary in $HOME/.debug"
"$KILN" collapse "$T/cmd.data" >"$T/out" 2>"$T/err" || fail "collapse (cmd) failed"
grep -q ';ns_hidden_spin' "$T/out" || fail "record -- CMD: not named after exit: $(head -2 "$T/out") $(cat "$T/err")"
"$KILN" flame -q -i "$T/cmdflame.data" -o "$T/cmd.svg" -- unshare --mount --root="$R" /kiln-ns-prog 0.3 2>/dev/null || fail "flame -- unshare failed"
grep -q 'ns_hidden_spin' "$T/cmd.svg" || fail "flame -- CMD: not named"

# The file inside the root becomes an absolute symlink to a host binary.
rm "$R/kiln-ns-prog"
ln -s "$T/decoy" "$R/kiln-ns-prog"
"$KILN" collapse "$T/ns.data" >"$T/out" 2>"$T/err" || fail "collapse (symlink) failed"
! grep -q 'host_decoy_spin' "$T/out" || fail "followed a symlink out of the process's root"
! grep -q 'ns_hidden_spin' "$T/out" || fail "still named after the binary was replaced"
grep -q 'kiln-ns-prog' "$T/err" || fail "no warning for the unreadable binary"
echo ok
