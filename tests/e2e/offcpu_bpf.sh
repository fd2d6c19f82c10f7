#!/bin/sh
# kiln record --off-cpu=bpf: offcpu.sh's checks with the BPF method.
OFFCPU_METHOD=bpf
. "$(dirname "$0")/offcpu.sh"
