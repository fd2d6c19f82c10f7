#!/bin/sh
# Checks every #include "mod/..." in src/ against the layer table in
# docs/ARCHITECTURE.md: a module may include only itself and the modules
# listed for it. Also rejects banned libc functions and assignments to the
# stdio streams. Exit 1 on a violation.
root=${1:-.}
cd "$root/src" || exit 1
allowed() {
	case "$1" in
	base) echo "base" ;;
	event) echo "event base" ;;
	tracefmt) echo "tracefmt base" ;;
	source/perffile) echo "source/perffile event base" ;;
	source/live) echo "source/live source/live/bpf event base" ;;
	source/live/bpf) echo "source/live/bpf" ;;
	dso) echo "dso base" ;;
	proc) echo "proc event dso base" ;;
	unwind) echo "unwind proc dso event base" ;;
	symbolize) echo "symbolize proc dso base" ;;
	aggregate) echo "aggregate symbolize base" ;;
	annotate) echo "annotate symbolize dso base" ;;
	output) echo "output annotate aggregate symbolize base" ;;
	tui) echo "tui output annotate aggregate symbolize base" ;;
	trace) echo "trace trace/bpf symbolize unwind proc dso source/live tracefmt event base" ;;
	trace/bpf) echo "trace/bpf" ;;
	probe) echo "probe base" ;;
	pipeline) echo "pipeline probe trace tui output annotate aggregate symbolize unwind proc dso source/perffile source/live tracefmt event base" ;;
	cli) echo "cli probe trace pipeline tui output annotate aggregate symbolize unwind proc dso source/perffile source/live tracefmt event base" ;;
	*) echo "" ;;
	esac
}
fail=0
for f in $(find . -name '*.[ch]' | sed 's|^\./||' | sort); do
	mod=$(dirname "$f")
	ok=$(allowed "$mod")
	if [ -z "$ok" ]; then
		echo "layers: $f: directory '$mod' is not in the layer table"
		fail=1
		continue
	fi
	for inc in $(sed -n 's/^#include "\([^"]*\)\/[^/"]*".*/\1/p' "$f"); do
		hit=0
		for a in $ok; do [ "$inc" = "$a" ] && hit=1; done
		if [ $hit = 0 ]; then
			echo "layers: $f includes $inc/, which layer '$mod' may not use"
			fail=1
		fi
	done
	case "$f" in *_test.c) continue ;; esac
	if grep -nE '(^|[^_a-z])(strcpy|strcat|sprintf|vsprintf|strtok|gets|localtime)[[:space:]]*\(' "$f" \
		| grep -v 'snprintf' >/dev/null; then
		echo "layers: $f uses a banned function (strcpy strcat sprintf vsprintf strtok gets localtime)"
		fail=1
	fi
	# The stdio streams are not reassigned (stderr goes through cli_err).
	if grep -nE '(^|[^_a-zA-Z0-9.>])(stdin|stdout|stderr)[[:space:]]*=[^=]' "$f" >/dev/null; then
		echo "layers: $f assigns a stdio stream (stdin, stdout, stderr)"
		fail=1
	fi
done
[ $fail = 0 ] && echo "layers: ok"
exit $fail
