#!/bin/sh
# Corruption sweep (RELIABILITY.md c.5): every perf.data in the shared zoo,
# plus one fresh `kiln record` (skipped without perf_event_open), cut at
# fixed lengths and record boundaries and bit-flipped in its first 4 KiB
# (tests/lib/corrupt.py, deterministic), then read by `kiln collapse` and
# `kiln script -i`. Each run must exit 0, 3 or 4 (never a signal, a 20 s
# timeout, 1 or 2), print no sanitizer report, and name an offset when it
# exits 4 (partial). Runs two at a time; prints variant counts and time.
#
# Every cut is run. Flip variants per file: as many of the first 30 as fit
# in SWEEP_FLIP_MS (default 1000) of run time, judged by the time the intact
# file takes, at least 4, so slow builds (ASan) and slow files (those that
# make kiln read /proc/kallsyms) stay near a minute; SWEEP_FLIPS=N fixes N.
# A failing variant is named FILE.cutN or FILE.flipN; remake it with
#   python3 tests/lib/corrupt.py FILE DIR 30
. "$(dirname "$0")/lib.sh"
: "${KILN_SHARED:?}"
MAX_FLIPS=30
MIN_FLIPS=4
FLIP_MS=${SWEEP_FLIP_MS:-1000}
zoo="$KILN_SHARED/testdata/perf-data-zoo"
[ -d "$zoo" ] || skip "no $zoo"
start=$(date +%s)
# In the ASan build, LeakSanitizer's exit scan doubles each run's start-up;
# leaks on corrupt input are the fuzzers' job (libFuzzer checks each input).
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS

mkdir -p "$T/in" "$T/v"
cp "$zoo"/*data* "$T/in/"
fresh=no
if "$KILN" record -q -g -o "$T/in/fresh.kiln.data" -- "$BURN" 0.2 2>"$T/rec.err"; then
	fresh=yes
else
	echo "note: no fresh recording ($(head -1 "$T/rec.err")); zoo files only"
	rm -f "$T/in/fresh.kiln.data"
fi

# check VARIANT: run both readers on it; print one line per violation.
check() {
	v=$1
	for cmd in collapse script; do
		if [ $cmd = collapse ]; then
			timeout 20 "$KILN" collapse "$v" >/dev/null 2>"$v.err"
		else
			timeout 20 "$KILN" script -i "$v" >/dev/null 2>"$v.err"
		fi
		st=$?
		why=
		case $st in
		0 | 3) ;;
		4) grep -q "offset 0x" "$v.err" || why="exit 4 without an offset" ;;
		124) why="timed out (20 s)" ;;
		*) why="exit $st" ;;
		esac
		grep -q -e Sanitizer -e "runtime error" "$v.err" && why="sanitizer report${why:+, $why}"
		if [ -n "$why" ]; then
			msg=$(grep -m1 -e ERROR -e 'runtime error' "$v.err" || head -1 "$v.err")
			echo "$(basename "$v") ($cmd): $why: $msg"
		fi
	done
	rm -f "$v.err"
}

# Variants of each input, in two parallel lanes (odd and even lines).
nvar=0
ncut=0
nflip=0
: >"$T/bad"
ms() { echo $(($(date +%s%N) / 1000000)); }
for f in "$T"/in/*; do
	# The intact file keeps the same contract; its time sets the flip count.
	t0=$(ms)
	check "$f" >>"$T/bad"
	t=$(($(ms) - t0 + 1))
	n=${SWEEP_FLIPS:-$((FLIP_MS / t))}
	[ -n "${SWEEP_FLIPS:-}" ] || { [ "$n" -le $MAX_FLIPS ] || n=$MAX_FLIPS; [ "$n" -ge $MIN_FLIPS ] || n=$MIN_FLIPS; }
	python3 "$TESTLIB/corrupt.py" "$f" "$T/v" "$n" >"$T/list" || fail "corrupt.py failed on $f"
	ncut=$((ncut + $(grep -c ' cut$' "$T/list")))
	nflip=$((nflip + $(grep -c ' flip$' "$T/list")))
	nvar=$((nvar + $(wc -l <"$T/list")))
	for lane in 0 1; do
		awk -v l=$lane 'NR % 2 == l {print $1}' "$T/list" | while read -r v; do
			check "$v"
		done >"$T/bad.$lane" &
	done
	wait
	cat "$T/bad.0" "$T/bad.1" >>"$T/bad"
	rm -f "$T"/v/*
done

secs=$(($(date +%s) - start))
nin=$(ls "$T/in" | wc -l)
echo "sweep: $nin inputs (fresh recording: $fresh), $nvar variants ($ncut cuts, $nflip flips), $((nvar * 2)) runs in ${secs}s"
if [ -s "$T/bad" ]; then
	echo "$(wc -l <"$T/bad") bad runs:" >&2
	head -40 "$T/bad" >&2
	fail "corrupt inputs broke the exit-code contract"
fi
echo ok
