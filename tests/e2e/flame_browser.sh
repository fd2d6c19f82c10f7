#!/bin/sh
# The SVG's script in a real browser (headless Chromium): the URL state
# ?s=REGEX makes the page search, and the "Matched: x%" it computes equals
# the share of samples of the matching frames read from the SVG itself;
# ?ic=1 makes the search ignore case; ?x=&y= zooms, and the zoomed frame
# then spans the full width while frames outside it are hidden. A
# screenshot of the searched graph is kept in $KILN_ARTIFACTS.
. "$(dirname "$0")/lib.sh"
command -v chromium >/dev/null || skip "chromium is not installed"
need_perf_events
"$KILN" flame -q -F 999 -i "$T/r.data" -o "$T/f.svg" -- "$BURN" 0.5 2>/dev/null || fail "flame failed"

browse() { # URL-QUERY OUT [extra chromium flags]
	q=$1 out=$2
	shift 2
	prof=$(mktemp -d "$T/chrome.XXXXXX")
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$prof" --virtual-time-budget=5000 "$@" "file://$T/f.svg$q" \
		>"$out" 2>"$T/chrome.err" || fail "chromium failed: $(tail -3 "$T/chrome.err")"
}

# What the search must find, worked out from the SVG: the samples of the
# shade_pixels frames (they do not nest) over the root's.
total=$(grep -o 'k:n="[0-9]*"><title>all (' "$T/f.svg" | sed 's/k:n="//;s/".*//')
hits=$(grep -o 'k:n="[0-9]*"><title>shade_pixels (' "$T/f.svg" | sed 's/k:n="//;s/".*//' |
	awk '{ s += $1 } END { print s + 0 }')
[ "$hits" -gt 0 ] || fail "no shade_pixels frame in the SVG"
want=$(awk -v h="$hits" -v t="$total" 'BEGIN { printf "%.1f", 100 * h / t }')

browse "?s=sha.e_pixels" "$T/search.html" --dump-dom
got=$(sed -n 's/.*id="matched"[^>]*>Matched: \([0-9.]*\)%<.*/\1/p' "$T/search.html")
[ -n "$got" ] || fail "the page shows no 'Matched: x%' for ?s=sha.e_pixels"
[ "$got" = "$want" ] || fail "page says Matched: $got%, the SVG's samples give $want%"
[ "$(grep -o 'fill="rgb(230,0,230)"' "$T/search.html" | wc -l)" -ge 1 ] || fail "no frame highlighted"

browse "?s=SHADE_PIXELS&ic=1" "$T/icase.html" --dump-dom
got=$(sed -n 's/.*id="matched"[^>]*>Matched: \([0-9.]*\)%<.*/\1/p' "$T/icase.html")
[ "$got" = "$want" ] || fail "ignore-case search gives '$got', want $want"
browse "?s=SHADE_PIXELS" "$T/case.html" --dump-dom
grep -q 'Matched: 0.0%' "$T/case.html" || fail "case-sensitive search matched"

# Zoom on the widest shade_pixels frame via the URL (x = first sample, y = depth).
line=$(grep -o '<g class="f" k:s="[0-9]*" k:n="[0-9]*"><title>shade_pixels ([^<]*</title><rect x="[0-9.]*" y="[0-9.]*" width="[0-9.]*"' "$T/f.svg" |
	sort -t'"' -k6,6nr | head -1)
s=$(echo "$line" | sed 's/.*k:s="\([0-9]*\)".*/\1/')
y=$(echo "$line" | sed 's/.*y="\([0-9.]*\)".*/\1/')
w0=$(echo "$line" | sed 's/.*width="\([0-9.]*\)".*/\1/')
root_y=$(grep -o '<title>all ([^<]*</title><rect x="[0-9.]*" y="[0-9.]*"' "$T/f.svg" | sed 's/.*y="//;s/"//')
d=$(awk -v r="$root_y" -v y="$y" 'BEGIN { printf "%d", (r - y) / 16 + 0.5 }')
browse "?x=$s&y=$d" "$T/zoom.html" --dump-dom
zl=$(grep -o "<g class=\"f[^\"]*\" k:s=\"$s\" k:n=\"[0-9]*\"><title>shade_pixels ([^<]*</title><rect x=\"[0-9.]*\" y=\"$y\" width=\"[0-9.]*\"" "$T/zoom.html" | head -1)
[ -n "$zl" ] || fail "zoomed frame not found in the DOM"
zw=$(echo "$zl" | sed 's/.*width="\([0-9.]*\)".*/\1/')
zx=$(echo "$zl" | sed 's/.*rect x="\([0-9.]*\)".*/\1/')
[ "$zw" = "1180.0" ] && [ "$zx" = "10.0" ] ||
	fail "zoomed frame is x=$zx width=$zw (was $w0), not the full width"
grep -q 'class="f hide"' "$T/zoom.html" || fail "no frame hidden by the zoom"
grep -q 'id="unzoom" class="ctl"' "$T/zoom.html" || fail "Reset Zoom not shown"

# The searched graph, for a person to look at.
art=${KILN_ARTIFACTS:-$T}
mkdir -p "$art"
browse "?s=shade_pixels" "$T/shot.out" --screenshot="$art/flame_browser.png" --window-size=1200,700
[ -s "$art/flame_browser.png" ] || fail "no screenshot"
echo "screenshot: $art/flame_browser.png"
echo ok
