#!/usr/bin/env python3
"""Write the seed inputs of fuzz_event to fuzz/corpus/event/.

Each seed is fuzz_event's 48-byte prefix (sample_type, read_format,
branch_sample_type, sample_regs_user, sample_regs_intr, flags; see
fuzz_event.c) followed by one well-formed record, so the fuzzer starts
from every decoder path: samples with each field, sideband records with
and without the sample_id_all trailer, a two-attr set keyed by id.
Run it from anywhere; it overwrites the seeds it owns.
"""
import os
import struct

S = {n: 1 << i for i, n in enumerate(
    "IP TID TIME ADDR READ CALLCHAIN ID CPU PERIOD STREAM_ID RAW BRANCH_STACK "
    "REGS_USER STACK_USER WEIGHT DATA_SRC IDENTIFIER TRANSACTION REGS_INTR "
    "PHYS_ADDR AUX CGROUP DATA_PAGE_SIZE CODE_PAGE_SIZE WEIGHT_STRUCT".split())}
RF_ENABLED, RF_RUNNING, RF_ID, RF_GROUP, RF_LOST = 1, 2, 4, 8, 16
BRANCH_HW_INDEX = 1 << 17
SID_ALL, TWO_ATTRS, KEEP_REFUSED = 1, 2, 8


def u64(*v):
    return struct.pack("<%dQ" % len(v), *v)


def u32(*v):
    return struct.pack("<%dI" % len(v), *v)


def st(*names):
    m = 0
    for n in names:
        m |= S[n]
    return m


def record(rtype, body, misc=0):
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def seed(sample_type, rec, read_format=0, branch=0, regs_user=0, regs_intr=0, flags=0):
    return u64(sample_type, read_format, branch, regs_user, regs_intr, flags) + rec


def cstr(s, align=8):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % align)


SAMPLE, MMAP, LOST, COMM, EXIT, FORK, MMAP2, LOST_SAMPLES = 9, 1, 2, 3, 4, 7, 10, 13
TRAILER = st("TID", "TIME", "ID", "CPU")


def trailer(pid=42, tid=43, time=1000, ident=1, cpu=1):
    return u32(pid, tid) + u64(time, ident) + u32(cpu, 0)


seeds = {}

# A typical `perf record -g` sample.
t = st("IP", "TID", "TIME", "ID", "CPU", "PERIOD", "CALLCHAIN")
seeds["sample-callchain"] = seed(t, record(SAMPLE, u64(0x401000) + u32(42, 43) + u64(1000, 1)
                                          + u32(1, 0) + u64(1) + u64(3, (1 << 64) - 512,
                                                                     0x401000, 0x401234)),
                                 flags=SID_ALL)

# Every field this decoder knows, in kernel order.
t = st("IDENTIFIER", "IP", "TID", "TIME", "ADDR", "ID", "STREAM_ID", "CPU", "PERIOD", "READ",
       "CALLCHAIN", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT", "DATA_SRC",
       "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE",
       "CODE_PAGE_SIZE")
body = (u64(1, 0x401000) + u32(42, 43) + u64(1000, 0xdead, 1, 7) + u32(1, 0) + u64(1)
        + u64(2, 100, 10, 1, 20, 2)              # read: nr, enabled, {value, id} x 2
        + u64(2, 0x401000, 0x400000)             # callchain
        + u32(4) + b"rawd"                       # raw (4 + 4 bytes)
        + u64(1, 0) + u64(0x401000, 0x402000, 0)  # branch stack: nr, hw_idx, 1 entry
        + u64(2, 0x7ffc0000, 0x7ffc0008)         # user regs: abi 64, 2 regs
        + u64(16) + b"S" * 16 + u64(8)           # user stack: size, bytes, dyn_size
        + u64(5, 6, 7)                           # weight, data_src, transaction
        + u64(2, 0xffffffff81000000)             # intr regs: abi 64, 1 reg
        + u64(0x1000, 9, 4096, 4096)             # phys_addr, cgroup, page sizes
        + u64(8) + b"A" * 8)                     # aux: size, bytes
seeds["sample-every-field"] = seed(t, record(SAMPLE, body),
                                   read_format=RF_GROUP | RF_ID | RF_ENABLED,
                                   branch=BRANCH_HW_INDEX, regs_user=0x3, regs_intr=0x1,
                                   flags=SID_ALL)

# Non-group read values, weight as a struct, a kernel-only user-regs abi 0.
t = st("IP", "TID", "READ", "REGS_USER", "STACK_USER", "WEIGHT_STRUCT")
seeds["sample-read-noregs"] = seed(t, record(SAMPLE, u64(0x401000) + u32(1, 1)
                                             + u64(5, 100, 90, 3, 0) + u64(0) + u64(0) + u64(9)),
                                   read_format=RF_ENABLED | RF_RUNNING | RF_ID | RF_LOST,
                                   regs_user=0xff)

# Two attrs: the id (after IP and TID) picks the second one.
t = st("IP", "TID", "ID", "PERIOD")
seeds["sample-two-attrs"] = seed(t, record(SAMPLE, u64(0x401000) + u32(5, 5) + u64(2, 1)),
                                 flags=TWO_ATTRS)

# Two attrs whose samples carry no id: the set is refused, but the reader
# still decodes records queued before such an ATTR record arrived.
seeds["sample-two-attrs-no-id"] = seed(st("IP", "TID"), record(SAMPLE, u64(0x401000) + u32(5, 5)),
                                       flags=TWO_ATTRS | KEEP_REFUSED)

# Sideband records with the sample_id_all trailer.
seeds["mmap2-trailer"] = seed(TRAILER, record(MMAP2, u32(42, 43) + u64(0x400000, 0x1000, 0)
                                              + u32(8, 1) + u64(1234, 0) + u32(5, 2)
                                              + cstr("/usr/bin/true") + trailer(),
                                              misc=2), flags=SID_ALL)
seeds["mmap2-build-id"] = seed(TRAILER, record(MMAP2, u32(42, 43) + u64(0x400000, 0x1000, 0)
                                               + bytes([20, 0, 0, 0]) + bytes(range(1, 21))
                                               + u32(5, 2) + cstr("/lib/libc.so.6")
                                               + trailer(), misc=2 | 0x4000), flags=SID_ALL)
seeds["mmap-old"] = seed(0, record(MMAP, u32(1, 1) + u64(0x400000, 0x2000, 0x1000)
                                   + cstr("[vdso]")))
seeds["comm-exec"] = seed(TRAILER, record(COMM, u32(42, 42) + cstr("burn") + trailer(),
                                          misc=0x2000), flags=SID_ALL)
seeds["fork"] = seed(TRAILER, record(FORK, u32(43, 42, 43, 42) + u64(999) + trailer()),
                     flags=SID_ALL)
seeds["exit-no-trailer"] = seed(st("TID", "TIME"), record(EXIT, u32(43, 42, 43, 42) + u64(999)))
seeds["lost"] = seed(st("IDENTIFIER"), record(LOST, u64(1, 17) + u64(1)), flags=SID_ALL)
seeds["lost-samples"] = seed(TRAILER, record(LOST_SAMPLES, u64(3) + trailer()), flags=SID_ALL)
seeds["finished-round"] = seed(TRAILER, record(68, b""), flags=SID_ALL)
seeds["unknown-type"] = seed(0, record(200, u64(1, 2)))

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "event")
os.makedirs(out, exist_ok=True)
for name, data in sorted(seeds.items()):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print("wrote %d seeds to %s" % (len(seeds), out))
