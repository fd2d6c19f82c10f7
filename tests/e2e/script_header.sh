#!/bin/sh
# kiln script --header / --header-only list the perf.data header as perf
# script (6.1) does, byte for byte:
#  (a) every zoo perf.data perf reads: --header-only, and --header followed
#      by the samples (-F comm,pid,tid,time,ip,event);
#  (b) fresh files from perf record (file mode: groups, -k clock data, -z;
#      pipe mode, whose features print as their records arrive) and from
#      kiln record;
#  (c) the event lines' attr fields: perf's file with the attr of its
#      EVENT_DESC section patched (every flag, sample_type, read_format and
#      branch bit, every other field; reserved bits make perf refuse it).
# Lines kiln cannot produce, dropped from both sides before comparing:
#  - "# bpf_prog_info ..." (and its "# \tsub_prog ..." lines): the BPF
#    programs loaded while recording; kiln does not decode bpf_prog_info.
# (perf -I's full topology, cache and memory listings are not offered.)
. "$(dirname "$0")/lib.sh"
need_perf

supported() {
	grep -v -e '^# bpf_prog_info' -e '^# 	sub_prog' "$1"
}

# $1 name, $2 perf's text, $3 kiln's: equal (supported lines), or fail showing the differences.
same() {
	supported "$2" >"$T/p.cmp"
	supported "$3" >"$T/k.cmp"
	same_script "$T/p.cmp" "$T/k.cmp" && return 0
	echo "$1: kiln differs from perf:" >&2
	diff "$T/p.cmp" "$T/k.cmp" | head -20 >&2
	fail "$1"
}

# $1 name, then the arguments both tools get.
compare() {
	name=$1
	shift
	perf script "$@" >"$T/p.txt" 2>"$T/p.err" || return 1
	"$KILN" script "$@" >"$T/k.txt" 2>"$T/k.err"
	st=$?
	[ $st = 0 ] || fail "$name: kiln script $* exit $st: $(head -2 "$T/k.err")"
	same "$name: $*" "$T/p.txt" "$T/k.txt"
}

zoo="$KILN_SHARED/testdata/perf-data-zoo"
checked=0
if [ -d "$zoo" ]; then
	for f in "$zoo"/*data*; do
		name=$(basename "$f")
		compare "$name" --header-only -i "$f" || continue
		compare "$name" --header -F comm,pid,tid,time,ip,event -i "$f"
		checked=$((checked + 1))
	done
	[ $checked -ge 18 ] || fail "only $checked zoo files compared"
	echo "ok: $checked zoo files"
else
	echo "no zoo at $zoo: part (a) not run"
fi

# (b) Fresh recordings.
need_perf_events
"$KILN" record -q -g -o "$T/kiln.data" -- "$BURN" 0.3 || fail "kiln record failed"
perf record -q -g -o "$T/perf.data" -- "$BURN" 0.3 >/dev/null 2>"$T/rec.err" ||
	skip "perf record cannot run here: $(head -1 "$T/rec.err")"
perf record -q -e '{cpu-clock,task-clock},page-faults' -k mono -z -o "$T/feat.data" \
	-- "$BURN" 0.2 >/dev/null 2>&1 || fail "perf record -k mono -z failed"
perf record -q -e '{cpu-clock,task-clock}' -k mono -o - -- "$BURN" 0.2 \
	>"$T/pipe.data" 2>/dev/null || fail "perf record -o - failed"
for f in kiln perf pipe feat; do
	compare "$f.data" --header-only -i "$T/$f.data" ||
		fail "perf script --header-only on $f.data"
done
grep -q '^# group: {cpu-clock,task-clock}$' "$T/k.txt" || fail "no group line"
compare pipe.data --header -F comm,tid,time,ip,event -i "$T/pipe.data" || fail "perf on pipe.data"
grep -q '^# reference time: ' "$T/k.txt" || fail "pipe.data: no clock data printed"
"$KILN" script --header -F comm,tid,time,ip,event -i - <"$T/pipe.data" >"$T/k2.txt" ||
	fail "pipe.data on stdin"
cmp -s "$T/k.txt" "$T/k2.txt" || fail "pipe.data: stdin and file differ"

# --header then the samples, as without it: the header part equals perf's.
for f in kiln perf feat; do
	"$KILN" script -i "$T/$f.data" >"$T/plain.txt" || fail "kiln script on $f.data"
	"$KILN" script --header -i "$T/$f.data" >"$T/k.txt" ||
		fail "kiln script --header on $f.data"
	perf script --header -i "$T/$f.data" >"$T/p.txt" 2>/dev/null ||
		fail "perf script --header on $f.data"
	sed -n '/^[^#]/q;p' "$T/k.txt" >"$T/k.head"
	sed -n '/^[^#]/q;p' "$T/p.txt" >"$T/p.head"
	same "$f.data --header (header part)" "$T/p.head" "$T/k.head"
	tail -n +"$(($(wc -l <"$T/k.head") + 1))" "$T/k.txt" >"$T/k.rest"
	cmp -s "$T/plain.txt" "$T/k.rest" ||
		fail "$f.data: samples after --header differ from plain script"
	[ -s "$T/k.rest" ] || fail "$f.data: no samples after the header"
done
"$KILN" script --header -i "$T/perf.data" | head -40 >"$T/head.txt"
grep -q '^# ========$' "$T/head.txt" && grep -q '^ *burn ' "$T/head.txt" ||
	fail "kiln script --header | head: no header or no samples"
echo "ok: fresh kiln, perf (file, groups, -k, -z) and pipe recordings"

# (c) Attr fields: patch the first EVENT_DESC attr of perf's file.
u64() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
u32() { od -An -t u4 -j "$2" -N 4 "$1" | tr -d ' '; }
put() { # file offset value bytes (sh has no locals: own names)
	_v=$3 _i=0 _s=''
	while [ $_i -lt "$4" ]; do
		_s="$_s\\$(printf %03o $((_v & 255)))"
		_v=$((_v >> 8))
		_i=$((_i + 1))
	done
	printf "$_s" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
src="$T/perf.data"
feats=$(u64 "$src" 72)
bit=1 k=0
while [ $bit -lt 12 ]; do # sections before EVENT_DESC (12)
	[ $(((feats >> bit) & 1)) = 1 ] && k=$((k + 1))
	bit=$((bit + 1))
done
[ $(((feats >> 12) & 1)) = 1 ] || fail "perf.data has no EVENT_DESC"
idx=$(($(u64 "$src" 40) + $(u64 "$src" 48) + 16 * k))
attr=$(($(u64 "$src" $idx) + 8))
[ "$(u32 "$src" $((attr + 4)))" = 128 ] || fail "unexpected attr size in EVENT_DESC"
"$KILN" script --header-only -i "$src" >"$T/base.txt" || fail "kiln on perf.data"
n=0
# Each case: offset:value:bytes ... applied to a fresh copy.
for c in "40:274877906943:8" \
	"24:$(((1 << 25) - 1 - (1 << 17))):8 72:$(((1 << 19) - 1)):8 32:31:8" \
	"0:4:4 8:3735928559:8 48:5:4 52:3:4 56:4660:8 64:2748:8 80:255:8 88:8192:4 92:4294967295:4" \
	"96:3:8 104:9:4 108:33:2 112:77:4 120:123456789012:8 24:$((1 << 17)):8" \
	"40:$((1 << 40)):8" "110:1:2" "116:1:4" "72:$((1 << 19)):8 24:$((1 << 11)):8"; do
	cp "$src" "$T/t.data"
	for p in $c; do
		put "$T/t.data" $((attr + ${p%%:*})) "$(echo "$p" | cut -d: -f2)" "${p##*:}"
	done
	compare "attr case $c" --header-only -i "$T/t.data" || fail "perf refuses attr case $c"
	cmp -s "$T/base.txt" "$T/k.txt" && fail "attr case $c changed nothing"
	n=$((n + 1))
done
grep -q 'event desc: not available' "$T/k.txt" || fail "the last attr case should be refused"
echo "ok: $n attr cases"
