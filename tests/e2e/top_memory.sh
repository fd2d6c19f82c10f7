#!/bin/sh
# kiln top's memory stays flat over a minute of short-lived processes:
# `kiln top --stdio -d 1 -s sym -- sh churn` follows a shell that starts
# about a hundred processes a second (true, sh, a spinning program), each
# gone within milliseconds; the spinning program is a new binary each
# time (a copy at a new path, removed a few seconds later, as a build
# makes and runs test programs). top's RSS (from /proc, every 2 s) in the
# second half of the run may not exceed the first half's by more than 2
# MB or 10%: exited processes are forgotten, decayed entries dropped and
# the symbols of binaries no process maps any longer unloaded. Also every
# table names the spinning program's function (they are resolved although
# the processes are gone).
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v cc >/dev/null || skip "no C compiler for the spinning program"
write_spin_c "$T/spin.c"
cc -O1 -DNAME=kiln_churn_fn -o "$T/spin" "$T/spin.c" || fail "cannot build the spinning program"
secs=${KILN_TOP_MEMORY_SECS:-60}
cat >"$T/churn.sh" <<'EOF'
end=$(($(date +%s) + $1))
n=0
while [ "$(date +%s)" -lt $end ]; do
	for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; sh -c 'exit 0'; done
	n=$((n + 1))
	cp "$2" "$2.$n"
	"$2.$n" 0.05
	rm -f "$2.$((n - 20))"
done
EOF
# Under AddressSanitizer freed memory waits in a quarantine (256 MB):
# keep it small, or every free would look like growth.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1
export ASAN_OPTIONS
sh -c 'echo $$ >"$0"; exec "$@"' "$T/kpid" "$KILN" top --stdio -d 1 -E 5 -s sym -- sh "$T/churn.sh" "$secs" "$T/spin" \
	>"$T/out" 2>"$T/err" &
k=$!
sleep 0.5
kp=$(cat "$T/kpid")
: >"$T/rss"
while kill -0 "$kp" 2>/dev/null; do
	sleep 2
	awk '/^VmRSS:/ { print $2 }' /proc/"$kp"/status 2>/dev/null >>"$T/rss"
done
wait $k
rc=$?
[ $rc = 0 ] || fail "top -- churn ended with $rc: $(cat "$T/err")"
n=$(wc -l <"$T/rss")
[ "$n" -ge 10 ] || fail "only $n RSS samples"
tables=$(grep -c '^   PerfTop: ' "$T/out")
[ "$tables" -ge $((secs / 3)) ] || fail "only $tables tables in $secs s"
named=$(grep -c ' kiln_churn_fn$' "$T/out")
[ "$named" -ge $((tables * 3 / 4)) ] || fail "kiln_churn_fn named in $named of $tables tables"
awk -v n="$n" '
	{ v[NR] = $1 }
	END {
		h = int(n / 2)
		for (i = 1; i <= h; i++) a += v[i]
		for (i = n - h + 1; i <= n; i++) b += v[i]
		a /= h; b /= h
		printf "RSS first half %.0f KB, second half %.0f KB\n", a, b
		lim = a * 1.10; if (lim < a + 2048) lim = a + 2048
		exit !(b <= lim)
	}' "$T/rss" >"$T/verdict" || fail "memory grows: $(cat "$T/verdict"); samples: $(tr '\n' ' ' <"$T/rss")"
echo "ok: $(cat "$T/verdict"); $tables tables"
