#!/bin/sh
# kiln script prints what perf script (6.1) prints, byte for byte:
#  (a) every zoo perf.data perf reads, with -F comm,pid,tid,time,ip,event;
#  (b) burn recorded with -g by kiln and by perf, in perf's default format
#      (user and kernel callchains, symbols, dsos) and with -F lists,
#      including perf's refusal of fields the samples lack.
. "$(dirname "$0")/lib.sh"
need_perf

# $1 name, $2 perf's text, $3 kiln's: equal, or fail showing the first differences.
same() {
	same_script "$2" "$3" && return 0
	echo "$1: kiln differs from perf:" >&2
	diff "$2" "$3" | head -20 >&2
	fail "$1"
}

zoo="$KILN_SHARED/testdata/perf-data-zoo"
checked=0
if [ -d "$zoo" ]; then
	for f in "$zoo"/*data*; do
		name=$(basename "$f")
		perf script -i "$f" -F comm,pid,tid,time,ip,event >"$T/p.txt" 2>/dev/null || continue
		"$KILN" script -i "$f" -F comm,pid,tid,time,ip,event >"$T/k.txt" 2>"$T/k.err"
		st=$?
		[ $st = 0 ] || fail "$name: kiln script exit $st: $(head -2 "$T/k.err")"
		same "$name" "$T/p.txt" "$T/k.txt"
		checked=$((checked + 1))
	done
	[ $checked -ge 18 ] || fail "only $checked zoo files compared"
	echo "ok: $checked zoo files, -F comm,pid,tid,time,ip,event"
else
	echo "no zoo at $zoo: part (a) not run"
fi

# (b) Fresh recordings of burn, one by kiln and one by perf.
need_perf_events
"$KILN" record -q -g -o "$T/kiln.data" -- "$BURN" 1 || fail "kiln record failed"
perf record -q -g -o "$T/perf.data" -- "$BURN" 1 >/dev/null 2>"$T/rec.err" ||
	skip "perf record cannot run here: $(head -1 "$T/rec.err")"

# Equal, or (tolerated, never expected) at least 99% of the lines equal,
# with the differing ones shown.
close() {
	same_script "$2" "$3" && return 0
	total=$(wc -l <"$2")
	bad=$(diff "$2" "$3" | grep -c '^<')
	echo "$1: $bad of $total lines differ:"
	diff "$2" "$3" | head -40
	[ $((bad * 100)) -le "$total" ] || fail "$1: more than 1% of the lines differ"
}

for rec in kiln perf; do
	data="$T/$rec.data"
	perf script -i "$data" >"$T/p.txt" 2>"$T/p.err" || fail "perf script on $rec.data: $(head -1 "$T/p.err")"
	"$KILN" script -i "$data" >"$T/k.txt" 2>"$T/k.err" || fail "kiln script on $rec.data: $(head -1 "$T/k.err")"
	grep -q '^	' "$T/p.txt" || fail "$rec.data: perf shows no callchain"
	close "$rec.data, default fields" "$T/p.txt" "$T/k.txt"
	samples=$(grep -c '^[^	]' "$T/k.txt")
	frames=$(grep -c '^	' "$T/k.txt")
	for fl in comm,pid,tid,time,ip,event comm,tid,time,period,event,ip,sym,dso -period +symoff \
		comm,tid,cpu,time,period,event,ip,sym,dso +addr; do
		perf script -i "$data" -F "$fl" >"$T/p.txt" 2>"$T/p.err"
		pst=$?
		"$KILN" script -i "$data" -F "$fl" >"$T/k.txt" 2>"$T/k.err"
		kst=$?
		if [ $pst != 0 ]; then
			# perf refuses (cpu and addr are not sampled): so must kiln, in perf's words.
			[ $kst != 0 ] || fail "$rec.data -F $fl: perf refuses, kiln does not"
			grep -v '^warning:' "$T/k.err" | head -1 >"$T/k1.err"
			head -1 "$T/p.err" >"$T/p1.err"
			same "$rec.data -F $fl (message)" "$T/p1.err" "$T/k1.err"
			continue
		fi
		[ $kst = 0 ] || fail "$rec.data -F $fl: kiln exit $kst: $(head -1 "$T/k.err")"
		close "$rec.data -F $fl" "$T/p.txt" "$T/k.txt"
	done
	echo "ok: $rec.data: $samples samples, $frames frames; default and -F lists"
done
