#!/bin/sh
# kiln diff of two real recordings: difffolded's columns add up to each
# recording's own folded totals (and to B's with --normalize), the SVG is
# well-formed with widths from B and coloured titles. kiln export: go tool
# pprof reads the pprof of a recording of the example and shows
# shade_pixels on top; the speedscope JSON passes the file-format schema's
# structure (tests/lib/speedscope_check.py), per thread and merged; the
# folded export equals kiln collapse; every output is deterministic. The
# pprof carries the samples and the event's periods (cpu-clock in ns) and
# maps each function to its binary with the binary's build-id.
. "$(dirname "$0")/lib.sh"
need_perf_events
"$KILN" record -q -F 999 -g -o "$T/a.data" -- "$BURN" 0.3 || fail "record A"
"$KILN" record -q -F 999 -g -o "$T/b.data" -- "$BURN" 0.6 || fail "record B"
"$KILN" collapse "$T/a.data" >"$T/a.folded" || fail "collapse A"
"$KILN" collapse "$T/b.data" >"$T/b.folded" || fail "collapse B"
sum() { awk '{ s += $NF } END { print s + 0 }' "$1"; }
ta=$(sum "$T/a.folded")
tb=$(sum "$T/b.folded")

# difffolded's text, perf.data and folded inputs mixed
"$KILN" diff --folded "$T/a.data" "$T/b.folded" >"$T/d.txt" || fail "diff --folded"
awk 'NF < 3 || $(NF-1) !~ /^[0-9]+$/ || $NF !~ /^[0-9]+$/ { exit 1 }' "$T/d.txt" ||
	fail "diff --folded lines are not STACK A B"
c1=$(awk '{ s += $(NF-1) } END { print s }' "$T/d.txt")
c2=$(awk '{ s += $NF } END { print s }' "$T/d.txt")
[ "$c1" = "$ta" ] || fail "first column adds up to $c1, A has $ta"
[ "$c2" = "$tb" ] || fail "second column adds up to $c2, B has $tb"
"$KILN" diff -n --folded "$T/a.folded" "$T/b.data" >"$T/dn.txt" || fail "diff -n --folded"
n1=$(awk '{ s += $(NF-1) } END { print s }' "$T/dn.txt")
lines=$(wc -l <"$T/dn.txt")
[ "$n1" -le "$tb" ] && [ "$n1" -ge $((tb - lines)) ] || fail "normalized A adds up to $n1, B has $tb"

# the SVG: widths from B, coloured frames with a change in their titles
"$KILN" diff "$T/a.data" "$T/b.data" -o "$T/d.svg" 2>/dev/null || fail "diff svg"
xmllint --noout "$T/d.svg" || fail "diff SVG not well-formed"
grep -q "<title>all ($(printf "%'d" "$tb" 2>/dev/null || echo "$tb") samples" "$T/d.svg" ||
	grep -q "<title>all (" "$T/d.svg" || fail "no root frame"
grep -q '<title>shade_pixels ([^<]*%; [-+]\{0,1\}[0-9.]*%)</title>' "$T/d.svg" ||
	fail "shade_pixels has no change in its title"
"$KILN" diff --negate "$T/b.data" "$T/a.data" -o "$T/d1.svg" 2>/dev/null || fail "diff --negate"
xmllint --noout "$T/d1.svg" || fail "negated diff SVG not well-formed"
"$KILN" diff "$T/a.data" 2>/dev/null
[ $? -eq 2 ] || fail "diff with one input: exit code not 2"

# pprof
"$KILN" export --format pprof -i "$T/b.data" -o "$T/b.pb.gz" || fail "export pprof"
"$KILN" export --format pprof -i "$T/b.data" -o "$T/b2.pb.gz" || fail "export pprof again"
cmp -s "$T/b.pb.gz" "$T/b2.pb.gz" || fail "pprof output is not deterministic"
if command -v go >/dev/null; then
	HOME=$T GOCACHE=$T/gocache GOFLAGS= go tool pprof -top "$T/b.pb.gz" >"$T/top.txt" 2>"$T/top.err" ||
		fail "go tool pprof cannot read kiln's pprof: $(cat "$T/top.err")"
	first=$(awk '/flat%/ { getline; print $NF; exit }' "$T/top.txt")
	second=$(awk '/flat%/ { getline; getline; print $NF; exit }' "$T/top.txt")
	[ "$first" = shade_pixels ] || [ "$second" = shade_pixels ] ||
		fail "go tool pprof -top does not show shade_pixels on top: $(head -12 "$T/top.txt")"
	# the default sample type is the recording's event, weighted by its periods
	type=$(sed -n 's/^Type: //p' "$T/top.txt")
	case $type in cpu-clock | task-clock) grep -q '% of [0-9.]*m\{0,1\}s total' "$T/top.txt" ||
		fail "a clock event's pprof is not in time units" ;;
	samples | "") fail "pprof's default sample type is '$type', not the event" ;;
	esac
	# the mappings: the example binary first (pprof's main binary), with its build-id
	bid=$(readelf -n "$BURN" 2>/dev/null | sed -n 's/.*Build ID: *//p')
	grep -q "^Build ID: $bid" "$T/top.txt" || fail "pprof's main binary is not the example with build-id $bid"
	HOME=$T GOCACHE=$T/gocache go tool pprof -raw "$T/b.pb.gz" >"$T/raw.txt" 2>&1 || fail "pprof -raw"
	grep -q "^1: .* $BURN $bid" "$T/raw.txt" || fail "mapping 1 is not $BURN $bid"
	grep -q ' M=1 shade_pixels ' "$T/raw.txt" || fail "shade_pixels not located in the example's mapping"
	HOME=$T GOCACHE=$T/gocache go tool pprof -sample_index=samples -top "$T/b.pb.gz" >"$T/topn.txt" 2>&1 ||
		fail "go tool pprof -sample_index=samples failed"
	total=$(sed -n 's/.*% of \([0-9]*\) total.*/\1/p' "$T/topn.txt")
	[ "$total" = "$tb" ] || fail "pprof sample count $total, the recording has $tb samples"
else
	echo "note: go is not installed; pprof read by nothing but the unit test"
fi

# speedscope, per thread and merged, and folded
"$KILN" export -f speedscope -i "$T/b.data" -o "$T/b.json" || fail "export speedscope"
# one profile per sampled thread (1 for burn; an ASan build's leak check
# at exit runs in a thread of its own, which may be sampled too)
nthreads=$("$KILN" script -F tid -i "$T/b.data" 2>/dev/null | sort -u | wc -l)
python3 "$TESTLIB/speedscope_check.py" "$T/b.json" --expect-frame shade_pixels --profiles "$nthreads" ||
	fail "speedscope JSON invalid"
grep -q '"type":"sampled","name":"burn-[0-9]*/[0-9]*"' "$T/b.json" || fail "no per-thread profile for burn"
"$KILN" export -f speedscope --merge -i "$T/b.data" -o "$T/bm.json" || fail "export --merge"
python3 "$TESTLIB/speedscope_check.py" "$T/bm.json" --expect-frame burn ||
	fail "merged speedscope JSON invalid"
"$KILN" export -f speedscope "$T/b.folded" -o "$T/bf.json" || fail "export speedscope of folded"
python3 "$TESTLIB/speedscope_check.py" "$T/bf.json" --expect-frame shade_pixels ||
	fail "speedscope JSON of folded input invalid"
"$KILN" export -f folded -i "$T/b.data" -o "$T/b.ex.folded" || fail "export folded"
cmp -s "$T/b.ex.folded" "$T/b.folded" || fail "folded export differs from kiln collapse"

# hostile names in both formats
printf 'evil</script>;a&b<c>"d\\;\001x 5\np;\377\376bad;\342\200\250 2\np;std::map<int, std::string>::operator[] 1\n' >"$T/h.folded"
"$KILN" export -f speedscope "$T/h.folded" -o "$T/h.json" || fail "export hostile speedscope"
python3 "$TESTLIB/speedscope_check.py" "$T/h.json" --expect-frame 'a&b<c>"d\' --profiles 2 ||
	fail "hostile speedscope JSON invalid"
"$KILN" export -f pprof "$T/h.folded" -o "$T/h.pb.gz" || fail "export hostile pprof"
if command -v go >/dev/null; then
	# -raw shows each function's system name as stored (-top simplifies templates)
	HOME=$T GOCACHE=$T/gocache go tool pprof -raw "$T/h.pb.gz" >"$T/hraw.txt" 2>&1 ||
		fail "go tool pprof cannot read the hostile pprof: $(cat "$T/hraw.txt")"
	grep -qF '(std::map<int, std::string>::operator[])' "$T/hraw.txt" || fail "C++ name lost in pprof"
	grep -qF '(evil</script>)' "$T/hraw.txt" || fail "name with </script> lost in pprof"
fi
"$KILN" export -f xml "$T/h.folded" 2>/dev/null
[ $? -eq 2 ] || fail "unknown format: exit code not 2"
echo ok
