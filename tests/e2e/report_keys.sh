#!/bin/sh
# kiln report --stdio's other sort keys against perf report (6.1) on FP
# recordings of burn (built -O0 -g) made by kiln and by perf:
#  - -s srcline, -s srcfile (from kiln's DWARF readers), -s sym,srcline,
#    -s parent with -p, -F overhead,srcline,sym: the whole table byte for
#    byte, with and without children (perf's inclusive entries of user
#    frames fail their lookup and show "name+offset": so do kiln's);
#  - --percentage relative and absolute with --comm: perf's sample count,
#    event count and shares;
#  - -s tid is -s pid; -s symoff (perf 6.1 has none): per symbol, its
#    offsets' shares add up to -s sym's.
# Rows in PLT stubs are left out of both texts: perf 6.1 names an address
# in .plt.sec after the symbol before it (_init), kiln the stub (name@plt).
# So are rows of libc's clock_gettime (burn's clock): perf 6.1 has shown a
# sample at its first byte as "clock_gettime@@GLIBC_2.17+0" (its lookup
# failed) where kiln's DWARF reader names clock_gettime.c:38. And rows of
# the dynamic loader (startup samples): perf sizes Source File by the
# entries whose file it had looked up when it sized the column (a rare
# entry's may not be) and cuts longer names to that width.
. "$(dirname "$0")/lib.sh"
need_perf
need_perf_events

"$KILN" record -q -g -o "$T/kiln.data" -- "$BURN" 0.6 || fail "kiln record failed"
perf record -q -g -o "$T/perf.data" -- "$BURN" 0.6 >/dev/null 2>"$T/rec.err" ||
	skip "perf record cannot run here: $(head -1 "$T/rec.err")"

# perf's text without its tip block and blank lines; PLT rows and
# callchain lines through PLT stubs left out.
clean() {
	awk '/^# \(Tip:/ { tip = 1; next } tip && /^#$/ { tip = 0; next } { print }' |
		grep -v -e '^$' -e '^#$' -e '@plt' -e '_init' -e 'bpf_prog_' -e 'clock_getti' -e 'ld-linux'
}

# close WHAT: the rows of 0.5% or more of p.txt and k.txt, names equal and
# shares within 0.25 points, rows of perf's failed lookups (blank or
# "name+offset" in a user dso) left out.
close() {
	for f in p k; do
		awk '!/^#/ && $1 + 0 >= 0.5 && NF > 2 && $NF !~ /\+[0-9]+$/' "$T/$f.txt" >"$T/$f.rows"
	done
	paste -d '|' "$T/p.rows" "$T/k.rows" | awk -F'|' '
		{ split($1, p, " "); split($2, k, " "); d = p[1] - k[1]; if (d < 0) d = -d
		  pn = $1; kn = $2; sub(/^ *[^ ]+ +[^ ]+/, "", pn); sub(/^ *[^ ]+ +[^ ]+/, "", kn)
		  if (pn != kn || d > 0.25) { print "row " NR ": perf " $1 ", kiln " $2; bad = 1 } }
		END { exit bad }' || fail "$1: rows differ"
	[ -s "$T/p.rows" ] || fail "$1: perf shows no row"
}

# same: p.txt and k.txt equal; or but for the column widths (the longest
# value sets them: a masked row can widen them); or but for entries of one
# sample each tying in another order (perf orders some ties by where its
# objects lie in memory): the same lines, those of 0.5% or more in order.
same() {
	cmp -s "$T/p.txt" "$T/k.txt" && return 0
	sed 's/[ .]*$//; s/   */  /g' "$T/p.txt" >"$T/p.sq"
	sed 's/[ .]*$//; s/   */  /g' "$T/k.txt" >"$T/k.sq"
	cmp -s "$T/p.sq" "$T/k.sq" && return 0
	sort "$T/p.sq" >"$T/p.so"
	sort "$T/k.sq" >"$T/k.so"
	awk '/^ +[0-9]+\.[0-9]+%/ && $1 + 0 < 0.5 { exit } { print }' "$T/p.sq" >"$T/p.top"
	awk '/^ +[0-9]+\.[0-9]+%/ && $1 + 0 < 0.5 { exit } { print }' "$T/k.sq" >"$T/k.top"
	cmp -s "$T/p.so" "$T/k.so" && cmp -s "$T/p.top" "$T/k.top"
}

# same_big WHAT: p.txt and k.txt the same but for rows under 0.5%: the
# headers and every row of 0.5% or more equal, in order (columns squeezed).
# perf's source-line lookups fail now and then on a rare address (its
# addr2line gives up, and it shows "name+offset" where kiln's DWARF reader
# names file:line), which also moves that row among the ties; and in ASan
# builds a sample or two of the sanitizer's reads at start-up have other
# kernel callers in perf's children than in kiln's.
same_big() {
	for f in p k; do
		sed 's/[ .]*$//; s/   */  /g' "$T/$f.txt" |
			awk '/^ +[0-9]+\.[0-9]+%/ && $1 + 0 < 0.5 { next } { print }' >"$T/$f.big"
	done
	cmp -s "$T/p.big" "$T/k.big" || return 1
	echo "$1: rows under 0.5% differ (tolerated)"
}

checked=0
for rec in kiln perf; do
	data="$T/$rec.data"
	for opts in "--no-children -s srcline -g none" "--no-children -s dso,srcfile -g none" \
		"-s sym,srcline -g none" "-s parent,sym -p ^render -g none" \
		"--no-children -F overhead,srcline,sym -g none" "--no-children -s srcline" \
		"--no-children -s comm,srcline --comm burn --percentage relative -g none" \
		"-s srcline,comm --comm burn --percentage absolute -g none" \
		"-s srcline -g none" "-s srcfile -g none"; do
		# shellcheck disable=SC2086
		perf report --stdio -i "$data" $opts 2>"$T/p.err" | clean >"$T/p.txt"
		grep -q '%' "$T/p.txt" || fail "perf report $opts on $rec.data: $(head -1 "$T/p.err")"
		# shellcheck disable=SC2086
		"$KILN" report --stdio -i "$data" $opts 2>"$T/k.err" | clean >"$T/k.txt" ||
			fail "kiln report $opts on $rec.data: $(head -1 "$T/k.err")"
		checked=$((checked + 1))
		same && continue
		case "$opts" in
		"-s sym,srcline -g none" | "-s srcline -g none" | "-s srcfile -g none")
			# children: perf looks source lines up once per sample and
			# frame; after 123 failures in a dso before any success
			# it stops looking there (see docs/cmd/report.md)
			close "$rec.data $opts" ;;
		*srcline* | *srcfile* | *parent*)
			same_big "$rec.data $opts" && continue
			diff "$T/p.txt" "$T/k.txt" | head -20
			fail "$rec.data $opts: the table differs from perf's" ;;
		*)
			diff "$T/p.txt" "$T/k.txt" | head -20
			fail "$rec.data $opts: the table differs from perf's" ;;
		esac
	done
	grep -q 'burn\.c' "$T/k.txt" || fail "$rec.data: no source line of burn.c"

	# -s tid: perf's pid key (the thread)
	"$KILN" report --stdio -g none -i "$data" -s tid >"$T/t.txt" || fail "-s tid failed"
	"$KILN" report --stdio -g none -i "$data" -s pid >"$T/pid.txt" || fail "-s pid failed"
	cmp -s "$T/t.txt" "$T/pid.txt" || fail "$rec.data: -s tid differs from -s pid"

	# -s symoff: one row per offset; per symbol the same total as -s sym
	"$KILN" report --stdio --no-children -g none -n -i "$data" -s symoff >"$T/so.txt" ||
		fail "-s symoff failed"
	grep -q '^# Overhead       Samples  Symbol Offset' "$T/so.txt" || fail "symoff: header"
	grep -Eq '\[\.\] shade_pixels\+0x[0-9a-f]+$' "$T/so.txt" || fail "symoff: no shade_pixels+0x..."
	"$KILN" report --stdio --no-children -g none -n -i "$data" -s sym >"$T/sy.txt" ||
		fail "-s sym failed"
	awk '!/^#/ && NF >= 4 { n = $4; sub(/\+0x[0-9a-f]+$/, "", n); s[$3 " " n] += $2 }
		END { for (k in s) print k, s[k] }' "$T/so.txt" | sort >"$T/so.sum"
	awk '!/^#/ && NF >= 4 { print $3, $4, $2 }' "$T/sy.txt" | sort >"$T/sy.sum"
	cmp -s "$T/so.sum" "$T/sy.sum" || {
		diff "$T/sy.sum" "$T/so.sum" | head
		fail "$rec.data: symoff's samples per symbol differ from sym's"
	}
done
echo "ok: $checked tables with srcline, srcfile, parent, -F, --percentage equal to perf's; tid; symoff"

# --percentage with a filter on a recording of two commands: relative
# shares and counts are of the samples shown, absolute of all, as perf's.
cp "$BURN" "$T/burn2"
"$KILN" record -q -g -o "$T/two.data" -- sh -c "'$BURN' 0.4 & '$T/burn2' 0.4; wait" ||
	fail "kiln record of two commands failed"
for opts in "--comm burn2 --percentage relative" "--comm burn2 --percentage absolute" \
	"--comm burn2 --percentage relative --no-children -s dso,sym" "-s pid --comm burn --percentage relative"; do
	# shellcheck disable=SC2086
	perf report --stdio -g none -i "$T/two.data" $opts 2>/dev/null | clean >"$T/p.txt"
	# shellcheck disable=SC2086
	"$KILN" report --stdio -g none -i "$T/two.data" $opts 2>"$T/k.err" | clean >"$T/k.txt" ||
		fail "kiln report $opts: $(cat "$T/k.err")"
	same || same_big "two commands $opts" || {
		diff "$T/p.txt" "$T/k.txt" | head -20
		fail "two commands $opts: the table differs from perf's"
	}
done
rel=$(grep '^# Samples' "$T/k.txt")
all=$("$KILN" report --stdio -g none -i "$T/two.data" -s pid | grep '^# Samples')
[ "$rel" != "$all" ] || fail "--percentage relative: the sample count of all samples"
echo "ok: --percentage relative and absolute equal to perf's"

# parent needs callchains, as perf says
"$KILN" record -q -o "$T/flat.data" -- "$BURN" 0.1 || fail "kiln record without -g failed"
"$KILN" report --stdio -s parent -i "$T/flat.data" >/dev/null 2>"$T/err" &&
	fail "-s parent without callchains succeeded"
grep -q "parent needs callchains" "$T/err" || fail "-s parent without callchains: $(cat "$T/err")"
echo "ok: -s parent without callchains refused"

# -T: perf's per-thread block from the READ records perf record -s writes
# (one per thread and event at its exit), two events; without them
# perf's bare header line (kiln's recordings).
if perf record -q -s -e cpu-clock -e page-faults -o "$T/read.data" -- \
	sh -c "'$BURN' 0.2 & '$BURN' 0.1; wait" >/dev/null 2>&1; then
	for f in read.data kiln.data perf.data; do
		perf report --stdio -T -g none -i "$T/$f" 2>/dev/null | sed -n '/^# *PID/,$p' |
			grep -v -e '^#$' -e '(Tip' >"$T/p.txt"
		"$KILN" report --stdio -T -g none -i "$T/$f" 2>"$T/k.err" | sed -n '/^# *PID/,$p' >"$T/k.txt" ||
			fail "kiln report -T $f: $(cat "$T/k.err")"
		cmp -s "$T/p.txt" "$T/k.txt" || {
			diff "$T/p.txt" "$T/k.txt"
			fail "-T on $f differs from perf's"
		}
	done
	[ "$(wc -l <"$T/k.txt")" = 1 ] || fail "-T without READ records: more than perf's header"
	"$KILN" report --stdio -T -g none -i "$T/read.data" | grep -Eq '^# +PID +TID +cpu-clock +page-faults$' ||
		fail "-T: no per-thread columns for perf record -s"
	echo "ok: -T equal to perf's"
fi
