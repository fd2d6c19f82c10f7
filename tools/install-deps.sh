#!/bin/sh
# Installs the Debian packages kiln needs to build and test, if any is
# missing. Run as root on a fresh Debian 12 machine (apt-get update first).
# Arguments name extra packages (`make fuzz` adds clang and libFuzzer).
# libbz2-dev: libbz2.a, which libdw.a needs when kiln links the libraries
# statically (cmake/Static.cmake).
set -e
PKGS="build-essential cmake pkg-config libelf-dev libdw-dev libzstd-dev libcmocka-dev libiberty-dev \
libncurses-dev zlib1g-dev libdeflate-dev liblzma-dev libbz2-dev libcapstone-dev xz-utils binutils golang-go chromium \
linux-perf tmux libxml2-utils python3 util-linux procps bc man-db groff-base zsh \
libc6-dbg binutils-x86-64-linux-gnu-dbg libbinutils-dbg clang libbpf-dev bpftool libcap2-bin $*"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "error: missing packages:$missing" >&2
	echo "hint: run as root, or: sudo apt-get update && sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "installing:$missing"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
