/*
 * ksymbpf: the running kernel's symbols through a BPF iterator
 * (source/live, L2).
 *
 * /proc/kallsyms costs its readers ~50-70 ms of kernel time, over half of
 * it printf formatting 120k lines. The iterator of kernel symbols
 * (iter/ksym, Linux 6.0+) walks the same symbols in the same order and
 * runs bpf/ksym.bpf.c on each, which writes a compact binary record
 * instead (bpf/ksym_bpf.h; dso/kallsyms.h's kallsyms_load_records parses
 * them). The program is a light skeleton: opening it costs a few system
 * calls, its CO-RE relocations are done by the kernel, and no BTF is read
 * in user space. Built without BPF, or where loading is refused (no root,
 * CAP_BPF and CAP_PERFMON; no BTF; an older kernel), opening fails with a
 * message naming why, and the caller reads /proc/kallsyms instead.
 */
#ifndef KILN_SOURCE_LIVE_KSYMBPF_H
#define KILN_SOURCE_LIVE_KSYMBPF_H

#include <stdbool.h>

#include "source/live/bpf/ksym_bpf.h"

struct ksymbpf;

/* Whether this kiln was built with the program (else open fails). */
bool ksymbpf_built(void);
/* Load the program and open an iterator. 0, or -errno with err_last()
 * naming why. */
int ksymbpf_open(struct ksymbpf **out);
/* The iterator: read it to its end for the records, once. */
int ksymbpf_fd(const struct ksymbpf *b);
void ksymbpf_close(struct ksymbpf *b);

#endif
