#!/usr/bin/env python3
"""Check a speedscope JSON file against the structure speedscope's file
format schema (https://www.speedscope.app/file-format-schema.json) requires:
FileFormat.File needs "$schema" (that exact URL), "shared" ({"frames": [Frame]})
and "profiles"; a Frame needs a string "name" (optional string "file", numbers
"line", "col"); a SampledProfile needs type "sampled", string "name", a
ValueUnit "unit", numbers "startValue"/"endValue", "samples" (arrays of frame
indexes) and "weights" (numbers). Beyond the schema: every index names a
frame, samples and weights pair up, and the weights add up to
endValue - startValue. --expect-source NAME FILE LINE: a frame NAME has
that file and line. Exit 0 if valid, 1 with a message otherwise.
Usage: speedscope_check.py FILE [--expect-frame NAME] [--profiles N]
                            [--expect-source NAME FILE LINE]..."""
import json
import sys

SCHEMA = "https://www.speedscope.app/file-format-schema.json"
UNITS = {"none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes"}


def fail(msg):
    print("speedscope_check: " + msg, file=sys.stderr)
    sys.exit(1)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def main():
    args = sys.argv[1:]
    if not args:
        fail("usage: speedscope_check.py FILE [--expect-frame NAME] [--profiles N]")
    path, expect, nprof, sources = args[0], [], None, []
    i = 1
    while i < len(args):
        if args[i] == "--expect-frame":
            expect.append(args[i + 1])
        elif args[i] == "--profiles":
            nprof = int(args[i + 1])
        elif args[i] == "--expect-source":
            sources.append((args[i + 1], args[i + 2], int(args[i + 3])))
            i += 2
        i += 2
    with open(path, "rb") as f:
        raw = f.read()
    try:
        doc = json.loads(raw.decode("utf-8", errors="strict"))
    except (UnicodeDecodeError, ValueError) as e:
        fail("not valid UTF-8 JSON: %s" % e)
    if b"</script" in raw.lower():
        fail("'</script' in the JSON text")
    if not isinstance(doc, dict):
        fail("top level is not an object")
    for k in ("$schema", "shared", "profiles"):
        if k not in doc:
            fail("missing required '%s'" % k)
    if doc["$schema"] != SCHEMA:
        fail("$schema is %r" % doc["$schema"])
    for k, t in (("name", str), ("exporter", str)):
        if k in doc and not isinstance(doc[k], t):
            fail("'%s' is not a string" % k)
    if "activeProfileIndex" in doc and not is_num(doc["activeProfileIndex"]):
        fail("activeProfileIndex is not a number")
    frames = doc["shared"].get("frames") if isinstance(doc["shared"], dict) else None
    if not isinstance(frames, list):
        fail("shared.frames is not an array")
    for j, fr in enumerate(frames):
        if not isinstance(fr, dict) or not isinstance(fr.get("name"), str):
            fail("frame %d has no string name" % j)
        if "file" in fr and not isinstance(fr["file"], str):
            fail("frame %d: file is not a string" % j)
        for k in ("line", "col"):
            if k in fr and not is_num(fr[k]):
                fail("frame %d: %s is not a number" % (j, k))
    profiles = doc["profiles"]
    if not isinstance(profiles, list) or not profiles:
        fail("profiles is not a non-empty array")
    if nprof is not None and len(profiles) != nprof:
        fail("%d profiles, expected %d" % (len(profiles), nprof))
    for p in profiles:
        for k in ("type", "name", "unit", "startValue", "endValue", "samples", "weights"):
            if k not in p:
                fail("sampled profile misses '%s'" % k)
        if p["type"] != "sampled":
            fail("profile type %r" % p["type"])
        if not isinstance(p["name"], str) or p["unit"] not in UNITS:
            fail("profile name or unit invalid")
        if not is_num(p["startValue"]) or not is_num(p["endValue"]):
            fail("startValue/endValue not numbers")
        if len(p["samples"]) != len(p["weights"]):
            fail("samples and weights differ in length")
        for s in p["samples"]:
            if not isinstance(s, list) or not s:
                fail("a sample is not a non-empty array")
            for ix in s:
                if not isinstance(ix, int) or ix < 0 or ix >= len(frames):
                    fail("frame index %r out of range" % (ix,))
        if not all(is_num(w) for w in p["weights"]):
            fail("a weight is not a number")
        if sum(p["weights"]) != p["endValue"] - p["startValue"]:
            fail("weights add up to %s, not endValue - startValue" % sum(p["weights"]))
    names = {f["name"] for f in frames}
    for e in expect:
        if e not in names:
            fail("no frame named %r" % e)
    for name, file, line in sources:
        got = [(f.get("file"), f.get("line")) for f in frames if f["name"] == name]
        if not got:
            fail("no frame named %r" % name)
        if (file, line) not in got:
            fail("frame %r has file/line %r, not %s:%d" % (name, got, file, line))
    print("speedscope_check: ok (%d frames, %d profiles)" % (len(frames), len(profiles)))


main()
