#!/bin/sh
# Run each libFuzzer binary of a KILN_FUZZ=ON build (see `make fuzz`) for
# FUZZ_SECONDS (default 60) seconds, one after another, and print how many
# inputs each executed. New inputs go to BUILD/fuzz-corpus/<target>/ (the
# committed seeds in fuzz/corpus/<target>/ are read, never written), crash
# inputs to BUILD/fuzz-artifacts/<target>/, the log to BUILD/fuzz-<target>.log.
# Exit 1 if any target found a crash, leak, timeout or failed property.
#
#   fuzz/run.sh BUILD [TARGET...]
#   FUZZ_SECONDS=300 fuzz/run.sh build-fuzz elf
set -u
build=${1:?usage: fuzz/run.sh BUILD [TARGET...]}
shift
[ $# -gt 0 ] || set -- perfdata elf kallsyms event cfi dwarf_expr unwind maps scripttext sanitize folded perfmap jitdump unpack tracefmt dwarf_line dwarf_die disasm
secs=${FUZZ_SECONDS:-60}
src=$(cd "$(dirname "$0")" && pwd)

# Inputs a little above the largest real ones each parser sees in tests.
max_len() {
	case $1 in
	perfdata) echo 262144 ;;
	elf) echo 1048576 ;;
	event) echo 65584 ;; # 48-byte prefix + the largest record
	cfi | unwind) echo 262144 ;; # a real .eh_frame (+ registers and a stack copy)
	scripttext) echo 131073 ;; # two lines at the 64 KiB cap
	*) echo 65536 ;;
	esac
}

status=0
for t in "$@"; do
	bin=$build/fuzz/fuzz_$t
	[ -x "$bin" ] || { echo "fuzz: no $bin (configure with -DKILN_FUZZ=ON)" >&2; exit 1; }
	work=$build/fuzz-corpus/$t
	art=$build/fuzz-artifacts/$t
	log=$build/fuzz-$t.log
	mkdir -p "$work" "$art"
	dict=
	[ -f "$src/dict/$t.dict" ] && dict=-dict=$src/dict/$t.dict
	t0=$(date +%s)
	"$bin" -max_total_time="$secs" -max_len="$(max_len "$t")" -rss_limit_mb=2048 \
		-timeout=25 -print_final_stats=1 -artifact_prefix="$art/" $dict \
		"$work" "$src/corpus/$t" >"$log" 2>&1
	rc=$?
	took=$(($(date +%s) - t0))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	echo "fuzz_$t: ${execs:-?} executions in ${took}s (${cov:-cov: ?}), exit $rc"
	if [ "$rc" -ne 0 ]; then
		grep -E -A30 '^==[0-9]+==|fuzz property failed|runtime error' "$log" | head -60
		echo "fuzz_$t: FOUND A PROBLEM: input in $art/, log in $log"
		status=1
	fi
done
exit $status
