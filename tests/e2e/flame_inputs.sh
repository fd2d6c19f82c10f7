#!/bin/sh
# kiln flame reads a perf.data, folded stacks (a file or standard input)
# and perf script text; with the annotations on, the folded route gives the
# same SVG bytes as the perf.data. Every flamegraph.pl option, alone, on a
# folded file full of hostile names, gives well-formed XML (xmllint) with
# no name breaking out of its element or into the script; bad option
# values are usage errors; --cp writes a palette.map that the next run
# reads back.
. "$(dirname "$0")/lib.sh"
need_perf_events
"$KILN" record -q -F 999 -g -o "$T/r.data" -- "$BURN" 0.5 || fail "record failed"

# perf.data, folded, folded on stdin, perf script text
"$KILN" flame --all -i "$T/r.data" -o "$T/data.svg" 2>/dev/null || fail "flame of perf.data"
"$KILN" collapse --all "$T/r.data" >"$T/r.folded" || fail "collapse"
"$KILN" flame --all "$T/r.folded" -o "$T/folded.svg" 2>/dev/null || fail "flame of folded"
cmp -s "$T/data.svg" "$T/folded.svg" || fail "folded input renders differently from its perf.data"
"$KILN" flame --all -o "$T/stdin.svg" - <"$T/r.folded" 2>/dev/null || fail "flame of folded on stdin"
cmp -s "$T/data.svg" "$T/stdin.svg" || fail "folded on stdin renders differently"
if command -v perf >/dev/null; then
	perf script -i "$T/r.data" >"$T/r.script" 2>/dev/null || fail "perf script failed"
	"$KILN" flame "$T/r.script" -o "$T/script.svg" 2>/dev/null || fail "flame of perf script text"
	xmllint --noout "$T/script.svg" || fail "script-text SVG not well-formed"
	grep -q 'shade_pixels' "$T/script.svg" || fail "shade_pixels missing (script text)"
fi
for f in data folded; do
	xmllint --noout "$T/$f.svg" || fail "$f.svg not well-formed"
	grep -q 'shade_pixels' "$T/$f.svg" || fail "shade_pixels missing from $f.svg"
done
# --flamechart of a perf.data: time order, so more frames than the merged graph
"$KILN" flame --flamechart -i "$T/r.data" -o "$T/chart.svg" 2>/dev/null || fail "flamechart"
xmllint --noout "$T/chart.svg" || fail "chart not well-formed"
grep -q '>Flame Chart</text>' "$T/chart.svg" || fail "chart title"
[ "$(grep -c '<g class="f"' "$T/chart.svg")" -ge "$(grep -c '<g class="f"' "$T/data.svg")" ] ||
	fail "flame chart has fewer frames than the flame graph"
"$KILN" flame --reverse -i "$T/r.data" -o "$T/rev.svg" 2>/dev/null || fail "reverse"
# reversed: a leaf (shade_pixels) sits on the bottom row, right above "all"
root_y=$(grep -o '<title>all ([^<]*</title><rect x="[0-9.]*" y="[0-9.]*"' "$T/rev.svg" | sed 's/.*y="//;s/"//')
grep -q "<title>shade_pixels ([^<]*</title><rect x=\"[0-9.]*\" y=\"$(echo "$root_y - 16" | bc)\"" "$T/rev.svg" ||
	fail "reversed graph does not start from the leaves"

# Hostile names through every option.
printf '%s\n' \
	'evil</script><script>alert(1)</script>;a&b<c>"d'"'"';x]]>y 5' \
	'evil</script><script>alert(1)</script>;std::vector<int>::operator<<;operator-> 3' \
	'p;--;waker_[w];k_[k] 2' \
	'p;-;java/lang/Thread.run;Lfoo/Bar_[j];inl_[i] 4' \
	'p;ctl	tab 1.5' >"$T/h.folded"
printf 'p;\001\002\177;\377\376bad utf8;\342\200\250sep 2\n' >>"$T/h.folded"
printf 'p;a 1 3\np;b 4 0\n' >"$T/hdiff.folded"
n=0
for opt in "" "--title=<t>&\"'" "--subtitle=</text><x>" "--width=300" "--height=30" \
	"--minwidth=2" "--minwidth=5%" "--fonttype=a\"b<c" "--fontsize=20" "--fontwidth=1.2" \
	"--countname=b(y)t<e>s" "--nametype=N&<>:" "--colors=hot" "--colors=mem" "--colors=io" \
	"--colors=wakeup" "--colors=chain" "--colors=java" "--colors=js" "--colors=perl" \
	"--colors=red" "--colors=green" "--colors=blue" "--colors=aqua" "--colors=yellow" \
	"--colors=purple" "--colors=orange" "--bgcolors=blue" "--bgcolors=#a0b1c2" "--hash" \
	"--random" "--reverse" "--inverted" "--flamechart" "--negate" "--notes=<!-- -->]]>&" \
	"--total=1000" "--factor=2.5"; do
	n=$((n + 1))
	"$KILN" flame ${opt:+"$opt"} "$T/h.folded" -o "$T/h$n.svg" 2>"$T/h$n.err" ||
		fail "flame $opt failed: $(cat "$T/h$n.err")"
	xmllint --noout "$T/h$n.svg" || fail "SVG with hostile names not well-formed: $opt"
	# The script is one CDATA block with no data in it: nothing may close it early.
	[ "$(grep -c ']]>' "$T/h$n.svg")" -eq 1 ] || fail "']]>' outside the script's CDATA: $opt"
	[ "$(grep -c '</script>' "$T/h$n.svg")" -eq 1 ] || fail "a name closed the script: $opt"
	"$KILN" flame ${opt:+"$opt"} "$T/hdiff.folded" -o "$T/hd$n.svg" 2>/dev/null ||
		fail "differential flame $opt failed"
	xmllint --noout "$T/hd$n.svg" || fail "differential SVG not well-formed: $opt"
done
# --random is seeded: the same bytes twice
"$KILN" flame --random "$T/h.folded" -o "$T/r2.svg" 2>/dev/null
cmp -s "$T/r2.svg" "$T/h31.svg" || fail "--random output is not deterministic"
# the differential file: "a" grew (red), "b" shrank (blue)
grep -q '<title>a (3 samples, 100.00%; +66.67%)</title><rect [^>]*fill="rgb(255,105,105)"' "$T/hd1.svg" ||
	fail "grown frame not red"
grep -q '<title>b (0 samples' "$T/hd1.svg" && fail "a frame with no samples in B was drawn"

# --cp: palette.map written, read back, hostile lines skipped
(cd "$T" && "$KILN" flame --cp h.folded -o cp1.svg 2>/dev/null) || fail "--cp failed"
[ -s "$T/palette.map" ] || fail "--cp wrote no palette.map"
grep -q '^p;\|^std::vector<int>::operator<<->rgb(' "$T/palette.map" || fail "palette.map content"
printf 'operator->->rgb(1,2,3)\nx->rgb(1,2,3)" onload="alert(1)\n' >>"$T/palette.map"
(cd "$T" && "$KILN" flame --cp --colors=blue h.folded -o cp2.svg 2>"$T/cp.err") || fail "--cp re-read failed"
grep -q 'skipped 1 lines' "$T/cp.err" || fail "bad palette line not reported"
grep -q '<title>operator-&gt; ([^<]*</title><rect [^>]*fill="rgb(1,2,3)"' "$T/cp2.svg" ||
	fail "palette.map colour not used"
xmllint --noout "$T/cp2.svg" || fail "--cp SVG not well-formed"

# usage errors
for bad in "--colors=rainbow" "--bgcolors=pink" "--width=0" "--minwidth=x" "--factor=-1"; do
	"$KILN" flame "$bad" "$T/h.folded" -o "$T/bad.svg" 2>/dev/null
	[ $? -eq 2 ] || fail "flame $bad: exit code not 2"
done
printf 'not folded at all\n' >"$T/junk.txt"
"$KILN" flame "$T/junk.txt" -o "$T/junk.svg" 2>/dev/null
[ $? -eq 3 ] || fail "junk input: exit code not 3"
echo ok
