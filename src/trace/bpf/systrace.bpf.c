// SPDX-License-Identifier: GPL-2.0
/*
 * systrace.bpf.c: system calls of followed processes, with their string
 * arguments read at entry (trace/bpf; built with clang -target bpf, CO-RE
 * against the running kernel's BTF).
 *
 * raw_syscalls:sys_enter and sys_exit (as BTF raw tracepoints: the
 * user registers and the call number, no tracepoint record) send a
 * struct systrace_head (or
 * systrace_strs when the call has string arguments) to the ring buffer
 * 'events' for processes in 'follow' (or every process but kiln with
 * 'all'); sched_process_fork adds the children of followed processes.
 * A string not readable at entry (its page not faulted in yet) is read
 * again at the exit and sent just before it (SYSTRACE_LATE). With
 * stack_mode (--call-graph) each exit carries the user stack: the
 * frame-pointer walk of bpf_get_stack(), or the user registers and a
 * copy of the stack above sp for kiln to unwind with DWARF CFI.
 * A full ring buffer counts in 'lost'.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h> /* BPF_PROG */

#include "systrace.h"

char LICENSE[] SEC("license") = "GPL";

/* What a tracepoint program (SEC("tracepoint/...")) returns decides
 * whether the perf events other tools opened on the same tracepoint see
 * it (perf_trace_run_bpf_submit): 0 would hide sched_process_fork/exec
 * from a perf record running beside kiln trace. The system call programs
 * are tp_btf (BTF raw tracepoints): they gate nothing, and skip the
 * tracepoint's record, which the perf events' path assembles per call. */
#define KEEP 1

const volatile __u32 trace_all = 0; /* every process */
const volatile __u32 trace_self = 0; /* kiln's own tgid, never traced */
const volatile __s64 execve_nr = -1;   /* argv and envp read at these calls' entry */
const volatile __s64 execveat_nr = -1;
const volatile __u32 stack_mode = 0; /* exits carry the user stack: SYSTRACE_FP, SYSTRACE_DWARF */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

/* Wake kiln only once a quarter of the ring is full (it also reads every
 * 100 ms): a wakeup per event would cost more than the event. */
static __always_inline __u64 wakeup(void)
{
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= (4 << 20) ? BPF_RB_FORCE_WAKEUP
									 : BPF_RB_NO_WAKEUP;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} follow SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SYSTRACE_MAXNR);
	__type(key, __u32);
	__type(value, __u8);
} strargs SEC(".maps");

/* Strings not readable at entry (their page not yet faulted in): read
 * again at exit, after the call itself has touched them. */
struct retry {
	__u64 ptr0, ptr1;
	__u8 idx0, idx1;
	__u8 mask; /* bit s: string slot s failed */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct retry);
} retries SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* An exit with its stack is built here (too big for the BPF stack), then
 * sent with only the bytes it uses. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct systrace_stack);
} scratch SEC(".maps");

static __always_inline int followed(__u32 tgid)
{
	if (tgid == trace_self)
		return 0;
	return trace_all || bpf_map_lookup_elem(&follow, &tgid) != 0;
}

static __always_inline void count_lost(void)
{
	__u32 k = 0;
	__u64 *n = bpf_map_lookup_elem(&lost, &k);
	if (n)
		*n += 1;
}

static __always_inline void fill(struct systrace_head *h, __u64 pt, long nr, int enter)
{
	h->time = bpf_ktime_get_ns();
	h->pid = pt >> 32;
	h->tid = (__u32)pt;
	h->nr = nr;
	h->enter = enter;
	h->nstr = 0;
	h->stack = 0;
	bpf_get_current_comm(h->comm, sizeof(h->comm));
}

/* An exec's argument vector (and its environment's size), sent after
 * its entry as a systrace_argv. */
static __always_inline void send_argv(__u64 pt, long nr, __u64 argv, __u64 envp)
{
	struct systrace_argv *v = bpf_ringbuf_reserve(&events, sizeof(*v), 0);
	if (!v) {
		count_lost();
		return;
	}
	fill(&v->h, pt, nr, SYSTRACE_ARGV);
	v->argc = 0;
	v->more = 0;
	v->bad = 0;
	v->env_more = 0;
	v->envc = 0;
	for (int i = 0; i < SYSTRACE_ARGMAX; i++) {
		__u64 p = 0;
		if (!argv || bpf_probe_read_user(&p, sizeof(p), (const void *)(argv + 8 * i))) {
			v->bad = i == 0 && argv;
			break;
		}
		if (!p)
			break;
		v->ptr[i] = p;
		v->len[i] = (__s16)bpf_probe_read_user_str(v->arg[i], SYSTRACE_ARGLEN, (const void *)p);
		v->argc = i + 1;
	}
	if (v->argc == SYSTRACE_ARGMAX) {
		__u64 p = 0;
		if (!bpf_probe_read_user(&p, sizeof(p), (const void *)(argv + 8 * SYSTRACE_ARGMAX)) && p)
			v->more = 1;
	}
	__u32 n = 0;
	for (int i = 0; i < SYSTRACE_ENVMAX && envp; i++) {
		__u64 p = 0;
		if (bpf_probe_read_user(&p, sizeof(p), (const void *)(envp + 8 * i)) || !p)
			break;
		n = i + 1;
	}
	v->envc = n;
	if (n == SYSTRACE_ENVMAX)
		v->env_more = 1;
	bpf_ringbuf_submit(v, wakeup());
}

/* The six argument registers of a system call (the kernel's ABI). */
static __always_inline void syscall_args(struct pt_regs *r, __u64 *a)
{
#if defined(__TARGET_ARCH_x86)
	a[0] = r->di, a[1] = r->si, a[2] = r->dx, a[3] = r->r10, a[4] = r->r8, a[5] = r->r9;
#elif defined(__TARGET_ARCH_arm64)
	a[0] = r->orig_x0, a[1] = r->regs[1], a[2] = r->regs[2];
	a[3] = r->regs[3], a[4] = r->regs[4], a[5] = r->regs[5];
#else
	a[0] = a[1] = a[2] = a[3] = a[4] = a[5] = 0;
#endif
}

/* The call number at sys_exit (the syscall's, not the result's). */
static __always_inline long exit_nr(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return regs->orig_ax;
#elif defined(__TARGET_ARCH_arm64)
	return regs->syscallno;
#else
	return -1;
#endif
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_enter, struct pt_regs *regs, long id)
{
	__u64 pt = bpf_get_current_pid_tgid();
	if (!followed(pt >> 32))
		return KEEP;
	long nr = id;
	__u64 a[6];
	syscall_args(regs, a);
	__u8 mask = 0;
	if (nr >= 0 && nr < SYSTRACE_MAXNR) {
		__u32 k = nr;
		__u8 *m = bpf_map_lookup_elem(&strargs, &k);
		if (m)
			mask = *m;
	}
	if (!mask) {
		struct systrace_head *h = bpf_ringbuf_reserve(&events, sizeof(*h), 0);
		if (!h) {
			count_lost();
			return KEEP;
		}
		fill(h, pt, nr, 1);
		for (int i = 0; i < 6; i++)
			h->args[i] = a[i];
		bpf_ringbuf_submit(h, wakeup());
		return KEEP;
	}
	struct systrace_strs *s = bpf_ringbuf_reserve(&events, sizeof(*s), 0);
	if (!s) {
		count_lost();
		return KEEP;
	}
	fill(&s->h, pt, nr, 1);
	__u8 n = 0;
	struct retry rt = {};
#pragma unroll
	for (int i = 0; i < 6; i++) {
		s->h.args[i] = a[i];
		if (!(mask & (1u << i)) || n >= SYSTRACE_NSTR)
			continue;
		const void *p = (const void *)a[i];
		long r;
		if (n == 0) {
			r = bpf_probe_read_user_str(s->str[0], SYSTRACE_STRMAX, p);
			s->slen[0] = (__s16)r;
			s->sidx[0] = i;
			if (r < 0 && p) {
				rt.ptr0 = a[i];
				rt.idx0 = i;
				rt.mask |= 1;
			}
		} else {
			r = bpf_probe_read_user_str(s->str[1], SYSTRACE_STRMAX, p);
			s->slen[1] = (__s16)r;
			s->sidx[1] = i;
			if (r < 0 && p) {
				rt.ptr1 = a[i];
				rt.idx1 = i;
				rt.mask |= 2;
			}
		}
		n++;
	}
	s->h.nstr = n;
	bpf_ringbuf_submit(s, wakeup());
	if (rt.mask) {
		__u32 tid = (__u32)pt;
		bpf_map_update_elem(&retries, &tid, &rt, BPF_ANY);
	}
	if (nr == execve_nr)
		send_argv(pt, nr, a[1], a[2]);
	else if (nr == execveat_nr)
		send_argv(pt, nr, a[2], a[3]);
	return KEEP;
}

/* The exit of a call whose strings could not be read at entry: read
 * them now and send them (as SYSTRACE_LATE) just before the exit. */
static __always_inline void exit_retry(long nr, long ret, __u64 pt)
{
	__u32 tid = (__u32)pt;
	struct retry *rt = bpf_map_lookup_elem(&retries, &tid);
	if (!rt)
		return;
	struct retry r = *rt;
	bpf_map_delete_elem(&retries, &tid);
	struct systrace_strs *s = bpf_ringbuf_reserve(&events, sizeof(*s), 0);
	if (!s) {
		count_lost();
		return;
	}
	fill(&s->h, pt, nr, SYSTRACE_LATE);
	s->h.args[0] = ret;
	s->slen[0] = -1;
	s->slen[1] = -1;
	s->sidx[0] = r.idx0;
	s->sidx[1] = r.idx1;
	if (r.mask & 1)
		s->slen[0] = (__s16)bpf_probe_read_user_str(s->str[0], SYSTRACE_STRMAX,
							    (const void *)r.ptr0);
	if (r.mask & 2)
		s->slen[1] = (__s16)bpf_probe_read_user_str(s->str[1], SYSTRACE_STRMAX,
							    (const void *)r.ptr1);
	s->h.nstr = 2;
	bpf_ringbuf_submit(s, wakeup());
}

/* The user registers at the call, for DWARF unwinding (perf's x86_64
 * order), and as much of the stack above sp as can be read, at most
 * SYSTRACE_STACKMAX bytes: the main thread's stack ends a little above
 * its environment strings, so the copy stops at that page's end. */
static __always_inline __u64 dwarf_regs(struct systrace_stack *s)
{
#ifndef __TARGET_ARCH_x86
	/* kiln's DWARF unwinder and this register order are x86_64's (the
	 * command line refuses dwarf elsewhere). */
	(void)s;
	return 0;
#else
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *pr = (struct pt_regs *)bpf_task_pt_regs(task);
	struct pt_regs r;
	if (bpf_probe_read_kernel(&r, sizeof(r), pr))
		return 0;
	__u64 *g = s->d.regs;
	g[0] = r.ax, g[1] = r.bx, g[2] = r.cx, g[3] = r.dx, g[4] = r.si, g[5] = r.di;
	g[6] = r.bp, g[7] = r.sp, g[8] = r.ip, g[9] = r.flags, g[10] = r.cs, g[11] = r.ss;
	g[12] = r.r8, g[13] = r.r9, g[14] = r.r10, g[15] = r.r11;
	g[16] = r.r12, g[17] = r.r13, g[18] = r.r14, g[19] = r.r15;
	__u64 sp = r.sp, size = SYSTRACE_STACKMAX;
	__u64 top = (BPF_CORE_READ(task, mm, env_end) + 4095) & ~4095ull;
	if (sp < top && top - sp < size)
		size = top - sp;
	size &= 2 * SYSTRACE_STACKMAX - 1;
	if (size > SYSTRACE_STACKMAX || size == 0)
		size = SYSTRACE_STACKMAX;
	if (!bpf_probe_read_user(s->d.stack, size, (const void *)sp))
		return size;
	/* Past the end of a mapping: halve until it reads. */
	for (__u64 n = SYSTRACE_STACKMAX / 2; n >= 512; n /= 2)
		if (!bpf_probe_read_user(s->d.stack, n, (const void *)sp))
			return n;
	return 0;
#endif
}

/* An exit with the stack that made the call (stack_mode). */
static __always_inline void exit_stack(void *ctx, long nr, long ret, __u64 pt)
{
	__u32 k = 0;
	struct systrace_stack *s = bpf_map_lookup_elem(&scratch, &k);
	if (!s)
		return;
	fill(&s->h, pt, nr, 0);
	s->h.args[0] = ret;
	__u64 len;
	if (stack_mode == SYSTRACE_FP) {
		long n = bpf_get_stack(ctx, s->ips, sizeof(s->ips), BPF_F_USER_STACK);
		if (n < 0)
			n = 0;
		if (n > (long)sizeof(s->ips))
			n = sizeof(s->ips);
		s->h.stack = SYSTRACE_FP;
		s->n = n;
		len = __builtin_offsetof(struct systrace_stack, ips) + n;
	} else {
		__u64 n = dwarf_regs(s);
		s->h.stack = SYSTRACE_DWARF;
		s->n = n;
		len = __builtin_offsetof(struct systrace_stack, d.stack) + n;
	}
	if (len > sizeof(*s))
		len = sizeof(*s);
	if (bpf_ringbuf_output(&events, s, len, wakeup()))
		count_lost();
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_exit, struct pt_regs *regs, long ret)
{
	__u64 pt = bpf_get_current_pid_tgid();
	if (!followed(pt >> 32))
		return KEEP;
	long nr = exit_nr(regs);
	exit_retry(nr, ret, pt);
	if (stack_mode) {
		exit_stack(ctx, nr, ret, pt);
		return KEEP;
	}
	struct systrace_head *h = bpf_ringbuf_reserve(&events, sizeof(*h), 0);
	if (!h) {
		count_lost();
		return KEEP;
	}
	fill(h, pt, nr, 0);
	h->args[0] = ret;
	bpf_ringbuf_submit(h, wakeup());
	return KEEP;
}

SEC("tracepoint/sched/sched_process_fork")
int on_fork(struct trace_event_raw_sched_process_fork *ctx)
{
	if (trace_all)
		return KEEP;
	__u32 parent = bpf_get_current_pid_tgid() >> 32;
	if (!bpf_map_lookup_elem(&follow, &parent))
		return KEEP;
	__u32 child = ctx->child_pid;
	__u8 one = 1;
	bpf_map_update_elem(&follow, &child, &one, BPF_ANY);
	return KEEP;
}

/* A successful exec: the kernel's copy of the file name, for an execve
 * whose filename could not be read at entry (the old memory is gone by
 * its exit). Sent as an event with enter == SYSTRACE_EXEC. */
SEC("tracepoint/sched/sched_process_exec")
int on_exec(struct trace_event_raw_sched_process_exec *ctx)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pt;
	if (!followed(pt >> 32) || !bpf_map_lookup_elem(&retries, &tid))
		return KEEP;
	bpf_map_delete_elem(&retries, &tid);
	struct systrace_strs *s = bpf_ringbuf_reserve(&events, sizeof(*s), 0);
	if (!s) {
		count_lost();
		return KEEP;
	}
	fill(&s->h, pt, -1, SYSTRACE_EXEC);
	unsigned off = ctx->__data_loc_filename & 0xffff;
	s->slen[0] = (__s16)bpf_probe_read_kernel_str(s->str[0], SYSTRACE_STRMAX,
						      (const char *)ctx + off);
	s->sidx[0] = 0;
	s->slen[1] = -1;
	s->sidx[1] = 0;
	s->h.nstr = 2;
	bpf_ringbuf_submit(s, wakeup());
	return KEEP;
}
