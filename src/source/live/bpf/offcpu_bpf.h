/*
 * offcpu_bpf: what the off-CPU BPF program keeps (source/live/bpf, shared
 * by offcpu.bpf.c and source/live/offcpubpf.c).
 *
 * At each switch-out of a followed thread the program notes, in 'start'
 * (task storage; time 0 while the thread is on a CPU), the time, the
 * thread's state letter and the keys of its kernel and user stacks in
 * 'stacks'; at the thread's next switch-in it adds the time since to 'sums'
 * under (tgid, tid, kernel stack key, user stack key, state).
 *
 * 'stacks' is a hash map keyed by a 64-bit hash of the stack's frames
 * (ob_stack_key), not a BPF_MAP_TYPE_STACK_TRACE: a stack trace map keeps
 * one stack per bucket of a hash of its frames and refuses a second stack
 * that falls in a taken bucket, which lost a stack or two in some runs of a
 * few hundred stacks; a hash map chains, so a stack is lost only when the
 * map is full (or two stacks share all 64 bits of their hash, which is
 * left to chance: about n^2 / 2^65 for n stacks). A key of 0 is no stack
 * (none kept, or no user stack). 'counts' (per CPU) counts what was left
 * out, by OB_* index.
 */
#ifndef KILN_SOURCE_LIVE_BPF_OFFCPU_BPF_H
#define KILN_SOURCE_LIVE_BPF_OFFCPU_BPF_H

#define OB_MAX_SUMS 32768     /* distinct (thread, stacks, state): OFFCPU_MAX_STACKS */
#define OB_MAX_FOLLOW 65536   /* followed processes */
#define OB_STACKS 16384       /* distinct stacks kept (entries of 'stacks') */
#define OB_DEPTH 127          /* frames per stack (PERF_MAX_STACK_DEPTH) */

/* follow's values: followed, or the command before its exec. */
#define OB_FOLLOW 1
#define OB_HOLD 2

enum {
	OB_SWITCHES,     /* switch-outs of followed threads */
	OB_INTERVALS,    /* switch-ins that closed one */
	OB_BELOW,        /* intervals under the threshold */
	OB_OVER_CAP,     /* intervals not kept: 'sums' full (or the kernel refused the update) */
	OB_OVER_CAP_NS,  /* their time */
	OB_THREADS_OVER, /* switch-outs not kept: no task storage for the thread */
	OB_KSTACK_LOST,  /* kernel stacks not kept ('stacks' full, or the update refused) */
	OB_USTACK_LOST,  /* user stacks not kept */
	OB_FOLLOW_OVER,  /* child processes not followed: 'follow' full */
	OB_STACK_UNREAD, /* stacks the kernel could not walk (bpf_get_stack failed) */
	OB_NCOUNTS
};

/* A stack: its frames, zero after the last (bpf_get_stack's layout). */
struct ob_frames {
	__u64 ip[OB_DEPTH];
};

struct ob_start {
	__u64 time;
	__u64 kstack, ustack; /* keys in 'stacks', 0: none */
	__u32 tgid;
	__u32 state;
};

/* What dump_open writes for each thread off the CPU. */
struct ob_open {
	__u32 tid, pad;
	struct ob_start s;
};

struct ob_key {
	__u32 tgid, tid;
	__u64 kstack, ustack;
	__u32 state;
	__u32 pad; /* 0: the key is hashed whole */
};

/* A stack's key in 'stacks': a hash of all OB_DEPTH frames (zeros after
 * the last), never 0. Shared by the BPF program and the unit tests. */
static inline __u64 ob_stack_key(const __u64 *ip)
{
	__u64 h = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < OB_DEPTH; i++) {
		h ^= ip[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h ? h : 1;
}

#endif
