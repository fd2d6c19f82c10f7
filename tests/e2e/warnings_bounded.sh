#!/bin/sh
# A perf.data whose every sample is corrupt (its fields past the header
# filled with 0xff: each sample is skipped with a warning) keeps stderr
# small: the first LOG_REPEAT_SHOWN (10) "record skipped" warnings, then
# one line counting the rest, for collapse and script alike.
. "$(dirname "$0")/lib.sh"
: "${KILN_SHARED:?}"
src="$KILN_SHARED/testdata/perf-data-zoo/perf.data.callgraph-3.8"
[ -f "$src" ] || skip "no $src"
n=$(python3 - "$src" "$T/spoiled.data" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
pos, size = struct.unpack_from("<QQ", d, 40)
end = min(len(d), pos + size)
n = 0
while pos + 8 <= end:
    typ, misc, sz = struct.unpack_from("<IHH", d, pos)
    if sz < 8:
        break
    if typ == 9 and sz >= 16:  # PERF_RECORD_SAMPLE
        d[pos + 8:pos + sz] = b"\xff" * (sz - 8)
        n += 1
    pos += sz
open(sys.argv[2], "wb").write(d)
print(n)
PY
)
[ "$n" -gt 100 ] || fail "only $n samples spoiled"
for cmd in "collapse" "script -i"; do
	$KILN $cmd "$T/spoiled.data" >/dev/null 2>"$T/err"
	st=$?
	case $st in 0 | 3 | 4) ;; *) fail "$cmd: exit $st" ;; esac
	skipped=$(grep -c 'record skipped$' "$T/err")
	[ "$skipped" = 10 ] || fail "$cmd: $skipped 'record skipped' lines, want 10"
	grep -q "^warning: \.\.\. and $((n - 10)) more records skipped (not shown)$" "$T/err" ||
		fail "$cmd: no count of the rest: $(tail -2 "$T/err")"
	[ "$(wc -l <"$T/err")" -le 14 ] || fail "$cmd: stderr has $(wc -l <"$T/err") lines"
done
echo ok
