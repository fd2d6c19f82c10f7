/*
 * ktext: what a recording needs from the running kernel's symbols, read
 * from /proc/kallsyms in one pass (source/live, L2): the kernel's text
 * (from _text to _etext) for its MMAP record, the text of __schedule to
 * start off-CPU stacks at the scheduler, and the names kallsyms gives the
 * code of loaded BPF programs for their KSYMBOL records.
 *
 * One read per recording: the kernel formats the file's ~120k lines
 * slowly (tens of milliseconds), and a line is taken apart by hand here
 * (a scanf per line cost as much again).
 */
#ifndef KILN_SOURCE_LIVE_KTEXT_H
#define KILN_SOURCE_LIVE_KTEXT_H

#include <stddef.h>
#include <stdint.h>

/* A BPF program's code as kallsyms names it ("bpf_prog_TAG_NAME [bpf]"). */
struct ktext_bpf {
	uint64_t addr;
	char *name;
};

struct ktext {
	/* The kernel's text: [_text, _etext), or to the highest address of a
	 * core kernel symbol without _etext; 0s without _text (hidden by
	 * kptr_restrict, or no file). */
	uint64_t text, end;
	/* __schedule's text, up to the next symbol's address in the file; 0s
	 * when either is missing or hidden. */
	uint64_t sched_lo, sched_hi;
	/* The [bpf] symbols named "bpf_prog_...", in the file's order. */
	struct ktext_bpf *bpf;
	size_t nbpf;
};

/* Read /proc/kallsyms into *k (zeros when it cannot be read). */
void ktext_read(struct ktext *k);
/* The same from 'len' bytes of kallsyms text (bad lines skipped). */
void ktext_parse(struct ktext *k, const char *text, size_t len);
void ktext_release(struct ktext *k);

#endif
