#!/bin/sh
# Refresh the help block that opens each docs/cmd/CMD.md from `kiln CMD
# --help` (the option tables are the source; e2e_cli_opts checks that the
# two agree). Usage: tools/update-cmd-docs.sh [path/to/kiln]
set -e
kiln=${1:-build/kiln}
cd "$(dirname "$0")/.."
for c in $("$kiln" --list-commands); do
	f=docs/cmd/$c.md
	[ -f "$f" ] || { printf '# kiln %s\n\n```\n```\n' "$c" >"$f"; }
	tmp=$(mktemp)
	"$kiln" "$c" --help >"$tmp.help"
	awk -v help="$tmp.help" '
		/^```/ && n == 0 { print; while ((getline l < help) > 0) print l; n = 1; skip = 1; next }
		/^```/ && skip { print; skip = 0; next }
		!skip { print }' "$f" >"$tmp"
	mv "$tmp" "$f"
	rm -f "$tmp.help"
done
