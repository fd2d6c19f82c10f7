// SPDX-License-Identifier: GPL-2.0
/*
 * offcpu.bpf.c: off-CPU time of followed threads summed in the kernel
 * (source/live/bpf; built with clang -target bpf, CO-RE against the
 * running kernel's BTF). See offcpu_bpf.h for the maps.
 *
 * sched_switch (tp_btf): the thread switched out (prev) gets its start
 * time, state and stacks (the user stack only with user_only) noted in its
 * task storage; the thread switched in (next), if it has a start, gets the
 * time since added to its sum. A thread's last switch (it is exiting)
 * notes nothing and closes its start. dump_open (iter/task, run by kiln at
 * the end) hands over the starts still open. sched_process_fork
 * follows the children of followed processes and makes the storage of
 * their new threads; sched_process_exec turns a
 * held command (OB_HOLD, kiln's child before its exec) into a followed one.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "offcpu_bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 follow_all = 0; /* every thread of the machine but kiln's */
const volatile __u32 self_tgid = 0;  /* kiln's own, never followed */
const volatile __u64 thresh_ns = 0;  /* shorter intervals are left out */
const volatile __u32 user_only = 0;  /* user stacks only (not --off-cpu-kernel): no kernel walk */

/* Stacks by ob_stack_key (offcpu_bpf.h says why not a stack trace map).
 * Preallocated, as the stack trace map was: an element is taken from a
 * free list in the scheduler's path, never allocated there. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OB_STACKS);
	__type(key, __u64);
	__type(value, struct ob_frames);
} stacks SEC(".maps");

/* Where a stack is read before it is hashed and kept: one per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ob_frames);
} scratch SEC(".maps");

/* Task storage, not a hash by tid: found from the task pointer the
 * tracepoint hands over, without hashing, and as many entries as there
 * are threads (freed with them), no cap. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ob_start);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OB_MAX_SUMS);
	__type(key, struct ob_key);
	__type(value, __u64);
} sums SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OB_MAX_FOLLOW);
	__type(key, __u32);
	__type(value, __u8);
} follow SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OB_NCOUNTS);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

/* Kernels before 5.14 call task_struct's state 'state'. */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

static __always_inline void count(__u32 k, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&counts, &k);
	if (v)
		*v += n;
}

static __always_inline int followed(__u32 tgid)
{
	if (tgid == self_tgid)
		return 0;
	if (follow_all)
		return 1;
	__u8 *m = bpf_map_lookup_elem(&follow, &tgid);
	return m && *m == OB_FOLLOW;
}

/* The current stack (BPF_F_USER_STACK in flags: the user one, asked only
 * of a user thread) kept in 'stacks': its key, or 0 with nothing kept. A
 * stack the kernel could not walk (no frames, or an error: -EFAULT when
 * its callchain buffer for this context is in use) is counted in
 * OB_STACK_UNREAD, one that cannot be kept in 'lost'. */
static __always_inline __u64 keep_stack(void *ctx, __u64 flags, __u32 lost)
{
	__u32 z = 0;
	struct ob_frames *f = bpf_map_lookup_elem(&scratch, &z);
	if (!f)
		return 0;
	/* Zero-fills the buffer after the last frame (and all of it on error). */
	long n = bpf_get_stack(ctx, f->ip, sizeof(f->ip), flags);
	if (n <= 0) {
		count(OB_STACK_UNREAD, 1);
		return 0;
	}
	__u64 key = ob_stack_key(f->ip);
	if (bpf_map_lookup_elem(&stacks, &key))
		return key;
	long err = bpf_map_update_elem(&stacks, &key, f, BPF_NOEXIST);
	if (err && err != -17 /* EEXIST: another CPU kept it meanwhile */) {
		count(lost, 1);
		return 0;
	}
	return key;
}

/* Read directly (tp_btf arguments are BTF pointers): no helper call. */
static __always_inline __u32 task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return t->__state;
	return (__u32)((struct task_struct___old *)t)->state;
}

/* The state letter as sched_switch's prev_state prints it; 0: exiting. */
static __always_inline __u32 state_letter(int preempt, struct task_struct *t)
{
	__u32 s = task_state(t);
	if (t->exit_state || (s & 0x80 /* TASK_DEAD */))
		return 0;
	if (preempt)
		return 'R';
	if ((s & 0x7f) == 0x2 && (s & 0x400 /* TASK_NOLOAD */))
		return 'I';
	if (s & 0x1000 /* TASK_RTLOCK_WAIT */)
		return 'D';
	s &= 0x7f;
	if (!s)
		return 'R';
	if (s & 0x1)
		return 'S';
	if (s & 0x2)
		return 'D';
	if (s & 0x4)
		return 'T';
	if (s & 0x8)
		return 't';
	if (s & 0x40)
		return 'P';
	return '?';
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 ptid = prev->pid;
	if (ptid && followed(prev->tgid)) {
		__u32 st = state_letter(preempt, prev);
		if (!st) {
			struct ob_start *o = bpf_task_storage_get(&start, prev, NULL, 0);
			if (o)
				o->time = 0; /* freed with the task */
		} else {
			__u64 kst = 0, ust = 0;
			if (!user_only)
				kst = keep_stack(ctx, 0, OB_KSTACK_LOST);
			if (prev->mm && !(prev->flags & 0x00200000 /* PF_KTHREAD */))
				ust = keep_stack(ctx, BPF_F_USER_STACK, OB_USTACK_LOST);
			count(OB_SWITCHES, 1);
			/* A thread keeps its entry between intervals (time 0 when
			 * closed). NULL: no memory, or the storage busy on this CPU
			 * (a task storage operation preempted here). */
			struct ob_start *o = bpf_task_storage_get(&start, prev, NULL,
								  BPF_LOCAL_STORAGE_GET_F_CREATE);
			if (o) {
				o->tgid = prev->tgid;
				o->kstack = kst;
				o->ustack = ust;
				o->state = st;
				o->time = now;
			} else {
				count(OB_THREADS_OVER, 1);
			}
		}
	}
	__u32 ntid = next->pid;
	if (!ntid)
		return 0; /* the idle task: never followed */
	struct ob_start *s = bpf_task_storage_get(&start, next, NULL, 0);
	if (!s || !s->time)
		return 0;
	__u64 dt = now > s->time ? now - s->time : 0;
	struct ob_key k;
	__builtin_memset(&k, 0, sizeof(k));
	k.tgid = s->tgid;
	k.tid = ntid;
	k.kstack = s->kstack;
	k.ustack = s->ustack;
	k.state = s->state;
	s->time = 0;
	count(OB_INTERVALS, 1);
	if (!dt || dt < thresh_ns) {
		count(OB_BELOW, 1);
		return 0;
	}
	__u64 *v = bpf_map_lookup_elem(&sums, &k);
	if (v) {
		__sync_fetch_and_add(v, dt);
		return 0;
	}
	if (bpf_map_update_elem(&sums, &k, &dt, BPF_NOEXIST) == 0)
		return 0;
	v = bpf_map_lookup_elem(&sums, &k); /* another CPU made it meanwhile */
	if (v) {
		__sync_fetch_and_add(v, dt);
		return 0;
	}
	count(OB_OVER_CAP, 1);
	count(OB_OVER_CAP_NS, dt);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 pt = parent->tgid, ct = child->tgid;
	if (!follow_all && pt != ct) {
		__u8 *m = bpf_map_lookup_elem(&follow, &pt);
		if (!m)
			return 0;
		__u8 v = *m;
		if (bpf_map_update_elem(&follow, &ct, &v, BPF_ANY))
			count(OB_FOLLOW_OVER, 1);
	}
	/* A followed thread's entry made now, so that its first switch-out
	 * (often its first block) only finds it: the kernel refuses to make
	 * an entry while another task storage operation is under way on this
	 * CPU (such as an exiting thread's entry being freed), and a thread
	 * whose switch-out found none loses that interval. A miss here is
	 * tried again at the switch-out. */
	if (followed(ct))
		bpf_task_storage_get(&start, child, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p)
{
	__u32 tgid = p->tgid;
	__u8 *m = bpf_map_lookup_elem(&follow, &tgid);
	if (m && *m == OB_HOLD)
		*m = OB_FOLLOW;
	return 0;
}

/* The starts still open (threads off the CPU when the recording ends), one
 * struct ob_open each; kiln reads them through a bpf_iter. */
SEC("iter/task")
int dump_open(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	if (!t)
		return 0;
	struct ob_start *s = bpf_task_storage_get(&start, t, NULL, 0);
	if (!s || !s->time)
		return 0;
	struct ob_open o = { .tid = t->pid, .s = *s };
	bpf_seq_write(ctx->meta->seq, &o, sizeof(o));
	return 0;
}
