/*
 * offcpu_bpf: what the off-CPU BPF program keeps (source/live/bpf, shared
 * by offcpu.bpf.c and source/live/offcpubpf.c).
 *
 * At each switch-out of a followed thread the program notes, in 'start'
 * (task storage; time 0 while the thread is on a CPU), the time, the thread's state letter and the ids of its kernel
 * and user stacks in 'stacks' (BPF_MAP_TYPE_STACK_TRACE); at the thread's
 * next switch-in it adds the time since to 'sums' under (tgid, tid, kernel
 * stack id, user stack id, state). A stack id < 0 is a stack not kept (a
 * bucket of 'stacks' taken by another stack, or no user stack).
 * 'counts' (per CPU) counts what was left out, by OB_* index.
 */
#ifndef KILN_SOURCE_LIVE_BPF_OFFCPU_BPF_H
#define KILN_SOURCE_LIVE_BPF_OFFCPU_BPF_H

#define OB_MAX_SUMS 32768     /* distinct (thread, stacks, state): OFFCPU_MAX_STACKS */
#define OB_MAX_FOLLOW 65536   /* followed processes */
#define OB_STACKS 16384       /* buckets of the stack map */
#define OB_DEPTH 127          /* frames per stack (PERF_MAX_STACK_DEPTH) */

/* follow's values: followed, or the command before its exec. */
#define OB_FOLLOW 1
#define OB_HOLD 2

enum {
	OB_SWITCHES,     /* switch-outs of followed threads */
	OB_INTERVALS,    /* switch-ins that closed one */
	OB_BELOW,        /* intervals under the threshold */
	OB_OVER_CAP,     /* intervals not kept: 'sums' full */
	OB_OVER_CAP_NS,  /* their time */
	OB_THREADS_OVER, /* switch-outs not kept: no task storage for the thread */
	OB_KSTACK_LOST,  /* kernel stacks not kept (stack map bucket taken) */
	OB_USTACK_LOST,  /* user stacks not kept */
	OB_FOLLOW_OVER,  /* child processes not followed: 'follow' full */
	OB_NCOUNTS
};

struct ob_start {
	__u64 time;
	__u32 tgid;
	__s32 kstack, ustack;
	__u32 state;
};

/* What dump_open writes for each thread off the CPU. */
struct ob_open {
	__u32 tid, pad;
	struct ob_start s;
};

struct ob_key {
	__u32 tgid, tid;
	__s32 kstack, ustack;
	__u32 state;
};

#endif
