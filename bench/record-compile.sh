#!/bin/sh
# Records the benchmark input: g++ -O2 compiles of bench/heavy.cpp under
# `perf record --call-graph dwarf -F 2000` (perf's DWARF mode, the slow case
# for perf script). Usage: record-compile.sh OUT.data [COMPILES]
# Four compiles give about 250-350 MB on a 2-core machine.
set -e
out=${1:?usage: record-compile.sh OUT.data [COMPILES]}
n=${2:-4}
here=$(cd "$(dirname "$0")" && pwd)
perf record -q --call-graph dwarf -F 2000 -o "$out" -- sh -c "
	i=0
	while [ \$i -lt $n ]; do
		g++ -O2 -std=c++17 -c '$here/heavy.cpp' -o /dev/null
		i=\$((i + 1))
	done"
ls -l "$out"
