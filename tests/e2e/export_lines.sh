#!/bin/sh
# kiln export keeps addresses, source lines and inline frames, checked on
# real --call-graph dwarf recordings (one by perf, one by kiln) of
# tests/progs/inlines (leaf_mix and middle always_inline into outer), read
# back by the real `go tool pprof`:
#  - pprof: the program's mapping has the start, limit and file offset of
#    its executable MMAP2 (as perf script --show-mmap-events prints it),
#    its path and build-id (readelf's); the kernel's mapping has the
#    build-id perf's header lists; every location in the program's mapping
#    has the lines `addr2line -a -f -i` gives for its address (function,
#    file:line, inlined calls innermost first); leaf_mix, middle and outer
#    start at the lines that define them in inlines.c; the samples' stacks
#    are kiln script's (same addresses, same counts), their leaf addresses
#    perf script's, and they carry comm/pid/tid labels; libc's locations
#    have addr2line's functions and lines too (when its debug file is here);
#  - pprof --no-inline: one line per location;
#  - speedscope: leaf_mix, middle and outer are frames of their own with
#    inlines.c as file and their definition lines.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf
: "${INLINES:?}"
command -v go >/dev/null || skip "go (go tool pprof) is not installed"
command -v addr2line >/dev/null || skip "addr2line is not installed"
src=$(cd "$(dirname "$0")/../progs" && pwd)/inlines.c
[ -f "$src" ] || fail "no $src"
pp() { HOME=$T GOCACHE=$T/gocache GOFLAGS= go tool pprof "$@"; }
defline() { grep -n "^[A-Za-z_].* $1(" "$src" | head -1 | cut -d: -f1; }

perf record -q --call-graph dwarf -F 499 -o "$T/p.data" -- "$INLINES" 0.6 2>/dev/null ||
	fail "perf record failed"
"$KILN" record -q --call-graph dwarf -F 499 -o "$T/k.data" -- "$INLINES" 0.6 2>"$T/err" ||
	fail "kiln record failed: $(cat "$T/err")"
bid=$(readelf -n "$INLINES" | sed -n 's/.*Build ID: *//p')
[ -n "$bid" ] || fail "no build-id in $INLINES"

for f in p k; do
	d="$T/$f.data"
	"$KILN" export -f pprof -i "$d" -o "$T/$f.pb.gz" 2>"$T/err" || fail "$f: export pprof: $(cat "$T/err")"
	"$KILN" export -f pprof -i "$d" -o "$T/$f.2.pb.gz" 2>/dev/null || fail "$f: export pprof again"
	cmp -s "$T/$f.pb.gz" "$T/$f.2.pb.gz" || fail "$f: pprof output is not deterministic"
	pp -raw "$T/$f.pb.gz" >"$T/$f.raw" 2>"$T/err" || fail "$f: go tool pprof -raw: $(cat "$T/err")"

	# The program's mapping: its executable MMAP2, path and build-id.
	python3 "$TESTLIB/pprof_raw.py" "$T/$f.raw" mapping "$INLINES" >"$T/$f.map" || fail "$f: no mapping"
	read -r mstart mlimit moff mbid mflags <"$T/$f.map"
	[ "$mbid" = "$bid" ] || fail "$f: mapping build-id $mbid, readelf says $bid"
	case $mflags in *FN*FL*LN*IN*) ;; *) fail "$f: mapping flags '$mflags' lack functions/files/lines/inline" ;; esac
	perf script --show-mmap-events -i "$d" 2>/dev/null |
		sed -n "s|.*PERF_RECORD_MMAP2 [0-9/]*: \[0x\([0-9a-f]*\)(0x\([0-9a-f]*\)) @ 0x\{0,1\}\([0-9a-f]*\) .*r-xp $INLINES\$|\1 \2 \3|p" |
		head -1 >"$T/$f.mmap"
	read -r pstart plen poff <"$T/$f.mmap" || fail "$f: no executable MMAP2 of $INLINES in perf script"
	[ "$mstart" = "$pstart" ] || fail "$f: mapping start 0x$mstart, MMAP2 0x$pstart"
	[ "$(printf '%x' $((0x$pstart + 0x$plen)))" = "$mlimit" ] || fail "$f: mapping limit 0x$mlimit, MMAP2 0x$pstart+0x$plen"
	[ "$(printf '%x' $((0x$poff)))" = "$moff" ] || fail "$f: mapping offset 0x$moff, MMAP2 0x$poff"
	echo "$f: mapping 0x$mstart-0x$mlimit @0x$moff $mbid $mflags"

	# Every location in it against addr2line -a -f -i on its address.
	python3 "$TESTLIB/pprof_raw.py" "$T/$f.raw" locations "$INLINES" >"$T/$f.locs"
	[ -s "$T/$f.locs" ] || fail "$f: no locations in the program's mapping"
	python3 "$TESTLIB/pprof_a2l.py" "$T/$f.locs" "$INLINES" >"$T/$f.cmp" ||
		fail "$f: locations differ from addr2line: $(cat "$T/$f.cmp")"
	echo "$f: $(tail -1 "$T/$f.cmp")"
	# libc's locations too (function and line: a function's file in pprof is
	# its declaration's, which addr2line does not give), when addr2line
	# finds libc's debug file.
	libc=$(sed -n 's/^[0-9]*: 0x[0-9a-f]*\/0x[0-9a-f]*\/0x[0-9a-f]* \(\/[^ ]*\/libc\.so\.6\) .*/\1/p' "$T/$f.raw" | head -1)
	if [ -n "$libc" ] && addr2line -f -e "$libc" 0x$(nm -D "$libc" | awk '$3 ~ /^malloc(@|$)/ { print $1; exit }') | tail -1 | grep -qv '^??'; then
		python3 "$TESTLIB/pprof_raw.py" "$T/$f.raw" locations "$libc" >"$T/$f.libc"
		python3 "$TESTLIB/pprof_a2l.py" "$T/$f.libc" "$libc" --no-file >"$T/$f.cmp" ||
			fail "$f: libc locations differ from addr2line: $(cat "$T/$f.cmp")"
		echo "$f: libc: $(tail -1 "$T/$f.cmp")"
	fi
	grep -q ' leaf_mix [^ ]*/inlines.c:[0-9]* s=[0-9]* | middle [^ ]*/inlines.c:[0-9]* s=[0-9]* | outer [^ ]*/inlines.c:[0-9]* s=' "$T/$f.locs" ||
		fail "$f: no location with the chain leaf_mix, middle, outer"
	for fn in leaf_mix middle outer main; do
		want=$(defline "$fn")
		got=$(grep -o " $fn [^ ]* s=[0-9]*" "$T/$f.locs" | sed 's/.*s=//' | sort -u)
		[ "$got" = "$want" ] || fail "$f: $fn starts at line '$got', inlines.c defines it at $want"
		grep -q " $fn $src:" "$T/$f.locs" || fail "$f: $fn's file is not $src"
	done

	# Samples: kiln script's stacks (its own unwinding) with the same
	# counts; leaf addresses as perf script has them; labels.
	python3 "$TESTLIB/pprof_raw.py" "$T/$f.raw" stacks >"$T/$f.pstacks"
	"$KILN" script -F ip --no-inline -i "$d" 2>/dev/null | awk '
		/^\t/ { s = s (s == "" ? "" : " ") $1; next }
		{ if (s != "") n[s]++; s = "" }
		END { if (s != "") n[s]++; for (k in n) print n[k], k }' | sort >"$T/$f.kstacks"
	sort "$T/$f.pstacks" | cmp -s - "$T/$f.kstacks" ||
		fail "$f: pprof stacks differ from kiln script's: $(sort "$T/$f.pstacks" | diff - "$T/$f.kstacks" | head -5)"
	echo "$f: $(wc -l <"$T/$f.kstacks") distinct stacks as kiln script's"
	perf script -F ip -i "$d" 2>/dev/null | awk '
		/^\t/ { if (first) { n[$1]++; first = 0 }; next }
		{ first = 1 }
		END { for (k in n) print k, n[k] }' | sort >"$T/$f.pleaf"
	python3 "$TESTLIB/pprof_raw.py" "$T/$f.raw" stacks |
		awk '{ n[$2] += $1 } END { for (k in n) print k, n[k] }' | sort >"$T/$f.kleaf"
	cmp -s "$T/$f.pleaf" "$T/$f.kleaf" ||
		fail "$f: leaf addresses differ from perf script's: $(diff "$T/$f.kleaf" "$T/$f.pleaf" | head -5)"
	pid=$("$KILN" script -F pid -i "$d" 2>/dev/null | head -1 | tr -d ' ')
	python3 "$TESTLIB/pprof_raw.py" "$T/$f.raw" labels | grep -qx "inlines $pid $pid" ||
		fail "$f: no sample labelled comm=inlines pid=tid=$pid: $(python3 "$TESTLIB/pprof_raw.py" "$T/$f.raw" labels)"
	pp -traces "$T/$f.pb.gz" 2>/dev/null | grep -A2 'leaf_mix (inline)' | grep -q 'middle (inline)' ||
		fail "$f: go tool pprof -traces does not show leaf_mix and middle inlined"

	# speedscope: the inline frames as frames, with file and line.
	"$KILN" export -f speedscope -i "$d" -o "$T/$f.json" 2>/dev/null || fail "$f: export speedscope"
	python3 "$TESTLIB/speedscope_check.py" "$T/$f.json" \
		--expect-source leaf_mix "$src" "$(defline leaf_mix)" \
		--expect-source middle "$src" "$(defline middle)" \
		--expect-source outer "$src" "$(defline outer)" \
		--expect-source main "$src" "$(defline main)" || fail "$f: speedscope frames"
done

# --no-inline: one line per location, the function that holds the address.
"$KILN" export -f pprof --no-inline -i "$T/k.data" -o "$T/n.pb.gz" 2>/dev/null || fail "export pprof --no-inline"
pp -raw "$T/n.pb.gz" >"$T/n.raw" 2>/dev/null || fail "go tool pprof -raw of the --no-inline pprof"
python3 "$TESTLIB/pprof_raw.py" "$T/n.raw" locations "$INLINES" >"$T/n.locs"
grep -q ' | ' "$T/n.locs" && fail "--no-inline: a location has several lines"
grep -q ' leaf_mix \| middle ' "$T/n.locs" && fail "--no-inline: inlined functions as lines"
grep -q ' outer [^ ]*/inlines.c:[0-9]* s=' "$T/n.locs" || fail "--no-inline: no location in outer"

# The kernel's mapping (perf's recording: its header lists the kernel's build-id).
kbid=$(perf buildid-list -i "$T/p.data" 2>/dev/null | awk '$2 == "[kernel.kallsyms]" { print $1 }')
if [ -n "$kbid" ] && grep -q '\[kernel.kallsyms\]' "$T/p.raw"; then
	python3 "$TESTLIB/pprof_raw.py" "$T/p.raw" mapping '[kernel.kallsyms]' | grep -q " $kbid " ||
		fail "kernel mapping without the build-id $kbid"
	echo "kernel mapping: build-id $kbid"
fi
echo ok
