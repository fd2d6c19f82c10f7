#!/bin/sh
# The previous output is kept as FILE.old, as perf record keeps it: by
# record and by flame -- CMD (which records to its -i file). Only a whole
# new file replaces it: a recording that fails leaves FILE and FILE.old
# alone. An empty file is not kept (as perf); a symlink at the output path
# is replaced, never followed; a directory at FILE.old is refused before
# recording starts.
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$T" || fail "cd"
"$KILN" record -q -o a.data -- "$BURN" 0.2 || fail "first recording"
cp a.data first.data
[ -e a.data.old ] && fail "a.data.old made when there was nothing to keep"
"$KILN" record -q -o a.data -- "$BURN" 0.2 || fail "second recording"
cmp -s first.data a.data.old || fail "a.data.old is not the previous recording"
cmp -s first.data a.data && fail "a.data was not replaced"
"$KILN" collapse a.data | grep -q '^burn;' || fail "the new a.data has no samples"
cp a.data second.data
# A third keeps the second (the old .old goes).
"$KILN" record -q -o a.data -- "$BURN" 0.2 || fail "third recording"
cmp -s second.data a.data.old || fail "a.data.old is not the second recording"

# A failed recording (command not found) changes nothing.
cp a.data third.data
cp a.data.old third.old
"$KILN" record -q -o a.data -- ./no-such-command 2>/dev/null && fail "a missing command recorded"
cmp -s third.data a.data || fail "a failed recording changed a.data"
cmp -s third.old a.data.old || fail "a failed recording changed a.data.old"

# flame -- CMD records to its -i file and keeps the previous one too.
"$KILN" flame -q -i f.data -o f.svg -- "$BURN" 0.2 || fail "first flame"
cp f.data f1.data
"$KILN" flame -q -i f.data -o f.svg -- "$BURN" 0.2 || fail "second flame"
cmp -s f1.data f.data.old || fail "flame -- CMD did not keep f.data.old"

# An empty file is not kept.
: >e.data
"$KILN" record -q -o e.data -- "$BURN" 0.1 || fail "record over an empty file"
[ -e e.data.old ] && fail "an empty file was kept as e.data.old"

# A symlink is replaced, not followed, and not kept pointing at its target.
echo precious >victim
ln -s victim l.data
"$KILN" record -q -o l.data -- "$BURN" 0.1 || fail "record over a symlink"
[ "$(cat victim)" = precious ] || fail "the symlink's target was written"
[ -L l.data ] && fail "l.data is still a symlink"
[ -e l.data.old ] && [ ! -L l.data.old ] && fail "l.data.old holds a copy of the target"

# A directory at FILE.old: refused before recording, FILE untouched.
mkdir d.data.old
cp first.data d.data
"$KILN" record -q -o d.data -- "$BURN" 0.1 2>d.err && fail "recorded though d.data.old is a directory"
grep -q "d.data.old" d.err || fail "the message does not name d.data.old: $(cat d.err)"
cmp -s first.data d.data || fail "d.data was changed"
ls -A | grep -q kiln-tmp && fail "temporary file left behind"
echo "ok: FILE.old kept by record and flame, failed recordings change nothing"
