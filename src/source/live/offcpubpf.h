/*
 * offcpubpf: off-CPU time summed in the kernel by a BPF program, for
 * `record --off-cpu=bpf` (source/live, L2).
 *
 * Loads source/live/bpf/offcpu.bpf.c (a CO-RE skeleton built by
 * cmake/Bpf.cmake when clang, bpftool, libbpf and BTF are present; see
 * bpf/offcpu_bpf.h for its maps), follows the given processes and their
 * children (or every thread but kiln's), and at the end reads the sums
 * with their stacks, each as a perf callchain (PERF_CONTEXT_KERNEL and the
 * kernel frames from the scheduler out, unless user_only; PERF_CONTEXT_USER
 * and the user frames). Threads still off the CPU at the end are closed then. Built
 * without BPF, or where loading is refused (no root, CAP_BPF and
 * CAP_PERFMON; no BTF), opening fails with a message naming why.
 */
#ifndef KILN_SOURCE_LIVE_OFFCPUBPF_H
#define KILN_SOURCE_LIVE_OFFCPUBPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Processes followed at once (bpf/offcpu_bpf.h's OB_MAX_FOLLOW). */
#define OFFCPUBPF_MAX_FOLLOW 65536u
#define OFFCPUBPF_MAX_STACKS 16384u /* distinct stacks the BPF map keeps (OB_STACKS) */

struct offcpubpf_opts {
	bool system_wide;   /* every thread but kiln's */
	uint64_t thresh_ns; /* intervals shorter than this are left out */
	bool user_only;     /* user stacks only (perf's choice; record's default): no
			     * kernel stack walk per switch */
};

struct offcpubpf_stats {
	uint64_t switches;     /* switch-outs of followed threads */
	uint64_t intervals;    /* closed by a switch-in or by the end */
	uint64_t below_thresh; /* left out by the threshold */
	uint64_t at_end;       /* closed at the end (still off the CPU) */
	uint64_t over_cap, over_cap_ns; /* intervals not kept: over the distinct-stack cap */
	uint64_t threads_over; /* switch-outs not kept: no task storage for the thread */
	uint64_t stacks_lost;  /* kernel or user stacks not kept (the stack map full) */
	uint64_t stacks_unread; /* stacks the kernel could not walk */
	uint64_t follow_over;  /* child processes not followed: too many processes */
};

/* One sum: a thread, its state letter, its stack and the time. 0 to go on. */
typedef int (*offcpubpf_fn)(void *arg, uint32_t pid, uint32_t tid, char state,
			    const uint64_t *chain, size_t n, uint64_t ns);

struct offcpubpf;

/* Whether this kiln was built with the BPF program (else open fails). */
bool offcpubpf_built(void);
/* Load the program (not yet attached). -errno with err_last() naming why. */
int offcpubpf_open(struct offcpubpf **out, const struct offcpubpf_opts *o);
/* Follow a process and its children; 'hold': only from its next exec. */
int offcpubpf_follow(struct offcpubpf *b, int pid, bool hold);
/* __schedule's text (source/live/ktext.h; 0s, the default: unknown): the
 * kernel stacks read start there. */
void offcpubpf_set_sched(struct offcpubpf *b, uint64_t lo, uint64_t hi);
int offcpubpf_attach(struct offcpubpf *b);
void offcpubpf_detach(struct offcpubpf *b);
/* After detach: hand every sum (and each interval still open, closed
 * now) to fn; 0 or fn's first non-zero result. */
int offcpubpf_read(struct offcpubpf *b, offcpubpf_fn fn, void *arg, struct offcpubpf_stats *st);
void offcpubpf_close(struct offcpubpf *b);

/*
 * A callchain in perf's layout from a kernel and a user stack as the
 * stack map keeps them (zero-terminated when shorter than their array;
 * NULL/0 when not kept). The kernel stack starts inside the BPF program
 * and the tracepoint that ran it: its frames before the first one in
 * [sched_lo, sched_hi) (the scheduler function, when known) are dropped.
 * Returns the length written (at most max).
 */
size_t offcpubpf_chain(uint64_t *out, size_t max, const uint64_t *k, size_t nk,
		       const uint64_t *u, size_t nu, uint64_t sched_lo, uint64_t sched_hi);

#endif
