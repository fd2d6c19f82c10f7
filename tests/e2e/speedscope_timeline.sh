#!/bin/sh
# speedscope from a perf.data keeps time: a program whose worker thread
# runs phase_a for 0.3 s and then phase_b for 0.3 s (its main thread idles
# lightly beside it) exports to profiles whose unit is a time, whose
# samples are in time order (every phase_a sample before every phase_b
# sample), whose startValue/endValue span their weights, and the file
# opens (activeProfileIndex) on the heaviest thread, the worker. The
# JSON has the fields of speedscope's file-format schema.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v cc >/dev/null || skip "no C compiler"
command -v python3 >/dev/null || skip "no python3"
cat >"$T/phases.c" <<'EOF'
#include <pthread.h>
#include <time.h>
static volatile unsigned long sink;
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
__attribute__((noinline)) static void phase_a(double secs)
{
	for (double end = now() + secs; now() < end;)
		for (unsigned long i = 0; i < 20000; i++)
			sink += i * i;
}
__attribute__((noinline)) static void phase_b(double secs)
{
	for (double end = now() + secs; now() < end;)
		for (unsigned long i = 0; i < 20000; i++)
			sink ^= i * 7;
}
static void *worker(void *arg)
{
	(void)arg;
	phase_a(0.3);
	phase_b(0.3);
	return 0;
}
int main(void)
{
	pthread_t th;
	pthread_create(&th, 0, worker, 0);
	/* a light main thread: some samples (tens of ms on the CPU), not the heaviest */
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	for (int i = 0; i < 30; i++) {
		for (unsigned long j = 0; j < 2000000; j++)
			sink += j;
		nanosleep(&nap, 0);
	}
	pthread_join(th, 0);
	return 0;
}
EOF
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$T/phases" "$T/phases.c" || fail "cannot compile"
"$KILN" record -q -g -F 999 -o "$T/p.data" -- "$T/phases" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$KILN" export -f speedscope -o "$T/p.json" "$T/p.data" 2>"$T/err" || fail "export: $(cat "$T/err")"
"$KILN" export -f speedscope --merge -o "$T/m.json" "$T/p.data" 2>"$T/err" || fail "export --merge: $(cat "$T/err")"
python3 - "$T/p.json" "$T/m.json" <<'EOF' || fail "speedscope timeline"
import json, sys

def check(path, merged):
    d = json.load(open(path))
    assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json", d["$schema"]
    frames = d["shared"]["frames"]
    assert all(isinstance(f["name"], str) for f in frames)
    profs = d["profiles"]
    assert profs and (len(profs) == 1 or not merged), len(profs)
    for p in profs:
        assert p["type"] == "sampled", p["type"]
        assert isinstance(p["name"], str)
        assert p["unit"] in ("nanoseconds", "microseconds", "milliseconds", "seconds"), p["unit"]
        s, w = p["samples"], p["weights"]
        assert len(s) == len(w) and s, (len(s), len(w))
        assert all(isinstance(x, int) and 0 <= x < len(frames) for st in s for x in st)
        assert all(isinstance(x, int) and x > 0 for x in w)
        assert p["endValue"] - p["startValue"] == sum(w), (p["startValue"], p["endValue"], sum(w))
        assert p["startValue"] >= 0
    counts = [len(p["samples"]) for p in profs]
    heaviest = counts.index(max(counts))
    assert d["activeProfileIndex"] == heaviest, (d["activeProfileIndex"], counts)
    p = profs[heaviest]
    where = {"phase_a": [], "phase_b": []}
    for i, st in enumerate(p["samples"]):
        names = [frames[x]["name"] for x in st]
        for k in where:
            if k in names:
                where[k].append(i)
    a, b = where["phase_a"], where["phase_b"]
    assert len(a) >= 20 and len(b) >= 20, (len(a), len(b))
    assert max(a) < min(b), "phase_a sample %d after phase_b sample %d" % (max(a), min(b))
    # both phases ran about as long: their weights say so too
    wa = sum(p["weights"][i] for i in a)
    wb = sum(p["weights"][i] for i in b)
    assert 0.33 < wa / wb < 3, (wa, wb)
    return len(profs), heaviest

n, h = check(sys.argv[1], False)
assert n >= 2 and h != 0, "the worker should be a second profile: %d profiles, heaviest %d" % (n, h)
check(sys.argv[2], True)
print("ok: %d profiles, heaviest %d" % (n, h))
EOF
# Without times (folded input): the aggregated form, unit none.
printf 'p;a 3\np;b 1\n' >"$T/in.folded"
"$KILN" export -f speedscope "$T/in.folded" | grep -q '"unit":"none"' || fail "folded input: unit"
