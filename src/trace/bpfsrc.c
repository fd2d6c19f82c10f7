/*
 * bpfsrc: system call events from the BPF program, strings included
 * (trace, L7).
 *
 * Loads trace/bpf/systrace.bpf.c (its skeleton is generated at build
 * time, CO-RE against the kernel's BTF), tells it which arguments of each
 * call are strings (from the tracefs formats) and which processes to
 * follow, and reads its ring buffer. Built only with KILN_HAVE_BPF; else,
 * and where loading is refused (no root, CAP_BPF or CAP_PERFMON), opening
 * fails with a message and trace.c falls back to the raw tracepoints.
 * The command's own events start at its execve (the ones of kiln's child
 * before it are not the command's).
 *
 * With --call-graph the exits carry the user stack (stack_mode), and the
 * sideband records of callchain.c (mappings) must be applied in time
 * order with them: each pass reads the BPF ring, then the sideband rings
 * (so every mapping made before a call read is read too), and hands both
 * to the core sorted by time (one clock: CLOCK_MONOTONIC).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "trace/trace_int.h"

#ifndef KILN_HAVE_BPF

int bpfsrc_open(struct tr_source **out, struct tr_core *c, const struct tr_target *t,
		unsigned pages)
{
	(void)out, (void)c, (void)t, (void)pages;
	return err_set(-ENOTSUP, "this kiln was built without BPF (building it needs clang, "
				 "bpftool, libbpf-dev and the build machine's BTF)");
}

#else

#include <linux/types.h>
#include <bpf/libbpf.h>

#include "systrace.skel.h"
#include "trace/bpf/systrace.h"

struct bpfsrc {
	struct tr_source s;
	struct systrace *skel;
	struct ring_buffer *rb;
	uint32_t hold;     /* the command's pid until its execve, or 0 */
	int64_t execve_nr;
	int err;
	struct tr_cg *cg;  /* --call-graph, or NULL */
	struct tr_queue q; /* this pass's records, with callchain.c's (kind 1) */
	uint64_t chain[1 + SYSTRACE_MAXIPS]; /* a frame-pointer stack as a perf callchain */
};

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

/* The exit's stack as the sample the unwinder reads. */
static bool stack_event(struct bpfsrc *b, const void *data, size_t size, struct event *ev)
{
	const struct systrace_stack *s = data;
	const struct systrace_head *h = data;
	memset(ev, 0, sizeof(*ev));
	ev->type = PERF_RECORD_SAMPLE;
	ev->misc = PERF_RECORD_MISC_USER;
	ev->sid.pid = h->pid;
	ev->sid.tid = h->tid;
	struct ev_sample *smp = &ev->u.sample;
	if (h->stack == SYSTRACE_FP) {
		size_t at = offsetof(struct systrace_stack, ips);
		if (size < at || s->n > sizeof(s->ips) || size - at < s->n)
			return false;
		size_t n = (size_t)s->n / 8;
		b->chain[0] = PERF_CONTEXT_USER;
		memcpy(b->chain + 1, s->ips, n * 8);
		smp->callchain = (const uint8_t *)b->chain;
		smp->callchain_nr = n + 1;
		return true;
	}
	size_t at = offsetof(struct systrace_stack, d.stack);
	if (h->stack != SYSTRACE_DWARF || size < at || s->n > SYSTRACE_STACKMAX ||
	    size - at < s->n)
		return false;
	smp->ip = s->d.regs[8];
	smp->user_abi = PERF_SAMPLE_REGS_ABI_64;
	smp->user_regs_mask = 0xff0fffULL; /* ax..ss, r8..r15: systrace_stack's order */
	smp->user_regs = (const uint8_t *)s->d.regs;
	smp->stack = s->d.stack;
	smp->stack_size = smp->stack_dyn_size = s->n;
	return true;
}

static void exec_args(struct bpfsrc *b, const void *data, size_t size)
{
	const struct systrace_argv *v = data;
	if (size < sizeof(*v))
		return;
	struct tr_exec_args x = { .tid = v->h.tid, .nr = v->h.nr, .more = v->more != 0,
				  .bad = v->bad != 0, .envc = v->envc,
				  .env_more = v->env_more != 0 };
	x.argc = v->argc < TR_ARGMAX ? v->argc : TR_ARGMAX;
	for (unsigned i = 0; i < x.argc && i < SYSTRACE_ARGMAX; i++) {
		x.ptr[i] = v->ptr[i];
		if (v->len[i] <= 0)
			continue; /* unreadable: its pointer */
		x.arg[i] = v->arg[i];
		x.len[i] = (uint16_t)(v->len[i] - 1);
		x.trunc[i] = v->len[i] == SYSTRACE_ARGLEN;
	}
	core_exec_args(b->s.core, &x);
}

static int handle(struct bpfsrc *b, const void *data, size_t size)
{
	const struct systrace_head *h = data;
	if (size < sizeof(*h))
		return 0;
	if (b->hold && h->pid == b->hold) {
		if (!(h->enter && h->nr == b->execve_nr))
			return 0;
		b->hold = 0;
	}
	if (h->enter == SYSTRACE_ARGV) {
		exec_args(b, data, size);
		return 0;
	}
	if (h->enter == SYSTRACE_EXEC) {
		const struct systrace_strs *s = data;
		if (size >= sizeof(*s) && s->slen[0] > 0)
			core_exec_name(b->s.core, h->tid, s->str[0], (size_t)s->slen[0] - 1);
		return 0;
	}
	struct tr_event e = { .time = h->time, .pid = h->pid, .tid = h->tid, .nr = h->nr,
			      .enter = h->enter != 0 };
	char comm[TR_COMM];
	memcpy(comm, h->comm, TR_COMM - 1);
	comm[TR_COMM - 1] = '\0';
	e.comm = comm;
	if (e.enter)
		memcpy(e.args, h->args, sizeof(e.args));
	else
		e.ret = (int64_t)h->args[0];
	struct event sev;
	if (!e.enter && h->stack && b->cg && stack_event(b, data, size, &sev))
		e.stack = &sev;
	if (h->nstr && size >= sizeof(struct systrace_strs)) {
		const struct systrace_strs *s = data;
		for (unsigned i = 0; i < h->nstr && i < SYSTRACE_NSTR; i++) {
			unsigned a = s->sidx[i];
			int r = s->slen[i];
			if (a >= TR_MAXARGS || r <= 0)
				continue; /* unreadable (not paged in, bad pointer): the pointer */
			e.str[a] = s->str[i];
			e.slen[a] = (uint16_t)(r - 1);
			e.strunc[a] = r == SYSTRACE_STRMAX;
		}
	}
	if (h->enter == SYSTRACE_LATE) {
		e.enter = false;
		core_late_strings(b->s.core, &e);
		return 0;
	}
	core_event(b->s.core, &e);
	return 0;
}

static int on_sample(void *ctx, void *data, size_t size)
{
	struct bpfsrc *b = ctx;
	if (!b->cg)
		return handle(b, data, size);
	if (size >= sizeof(struct systrace_head))
		queue_push(&b->q, data, size, ((const struct systrace_head *)data)->time, 0);
	return 0;
}

static int on_sideband(void *arg, const void *rec, size_t len)
{
	struct bpfsrc *b = arg;
	queue_push(&b->q, rec, len, cg_time(b->cg, rec, len), 1);
	return 0;
}

static size_t bs_pollfds(struct tr_source *s, int *fds, size_t max)
{
	struct bpfsrc *b = (struct bpfsrc *)s;
	if (!max)
		return 0;
	fds[0] = ring_buffer__epoll_fd(b->rb);
	return 1;
}

static int bs_drain(struct tr_source *s)
{
	struct bpfsrc *b = (struct bpfsrc *)s;
	queue_reset(&b->q);
	int n = ring_buffer__consume(b->rb);
	int err = n < 0 && n != -EINTR ? n : 0;
	if (!b->cg)
		return err;
	int serr = cg_drain(b->cg, on_sideband, b);
	queue_sort(&b->q);
	for (size_t i = 0; i < b->q.recs.n; i++) {
		const struct tr_qrec *p = &b->q.recs.v[i];
		if (p->kind)
			cg_apply(b->cg, b->s.core, b->q.bytes.v + p->off, p->len);
		else
			handle(b, b->q.bytes.v + p->off, p->len);
	}
	return err ? err : serr;
}

static int bs_enable(struct tr_source *s)
{
	struct bpfsrc *b = (struct bpfsrc *)s;
	int err = b->cg ? cg_enable(b->cg) : 0;
	return err ? err : systrace__attach(b->skel);
}

static void bs_disable(struct tr_source *s)
{
	struct bpfsrc *b = (struct bpfsrc *)s;
	systrace__detach(b->skel);
	if (b->cg)
		cg_disable(b->cg);
}

static uint64_t bs_lost(struct tr_source *s)
{
	struct bpfsrc *b = (struct bpfsrc *)s;
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return b->cg ? b->cg->lost : 0;
	uint64_t *v = xcalloc((size_t)ncpu, sizeof(*v)), sum = 0;
	uint32_t k = 0;
	if (bpf_map__lookup_elem(b->skel->maps.lost, &k, sizeof(k), v,
				 (size_t)ncpu * sizeof(*v), 0) == 0)
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum + (b->cg ? b->cg->lost : 0);
}

static void bs_close(struct tr_source *s)
{
	struct bpfsrc *b = (struct bpfsrc *)s;
	ring_buffer__free(b->rb);
	systrace__destroy(b->skel);
	queue_release(&b->q);
	free(b);
}

static const struct tr_source_ops bpfsrc_ops = {
	.pollfds = bs_pollfds, .drain = bs_drain, .enable = bs_enable,
	.disable = bs_disable, .lost = bs_lost, .close = bs_close,
};

static int fail(struct bpfsrc *b, int err, const char *what)
{
	if (b->skel)
		systrace__destroy(b->skel);
	free(b);
	if (err == -EACCES && geteuid() == 0)
		return err_set(err, "BPF is not usable here (%s: the kernel's verifier refused it)",
			       what);
	if (err == -EPERM || err == -EACCES)
		return err_set(err, "BPF is not allowed here (%s: %s; it needs root, or CAP_BPF "
				    "and CAP_PERFMON)", what, strerror(-err));
	return err_set(err, "BPF is not usable here (%s: %s)", what, strerror(-err));
}

int bpfsrc_open(struct tr_source **out, struct tr_core *c, const struct tr_target *t,
		unsigned pages)
{
	struct bpfsrc *b = xcalloc(1, sizeof(*b));
	b->s.ops = &bpfsrc_ops;
	b->s.core = c;
	b->execve_nr = -1;
	for (size_t i = 0; i < c->tab->n; i++)
		if (c->tab->v[i].name && strcmp(c->tab->v[i].name, "execve") == 0)
			b->execve_nr = (int64_t)i;
	libbpf_set_print(silent);
	b->skel = systrace__open();
	if (!b->skel)
		return fail(b, -errno, "opening the BPF object");
	b->skel->rodata->trace_all = t->system_wide;
	b->skel->rodata->trace_self = (uint32_t)getpid();
	b->skel->rodata->execve_nr = b->execve_nr;
	for (size_t i = 0; i < c->tab->n; i++)
		if (c->tab->v[i].name && strcmp(c->tab->v[i].name, "execveat") == 0)
			b->skel->rodata->execveat_nr = (int64_t)i;
	b->cg = c->cg;
	if (c->cg && c->cg->mode && c->lines) /* -s alone prints no stacks: take none */
		b->skel->rodata->stack_mode = c->cg->mode == TRACE_CG_DWARF ? SYSTRACE_DWARF
									    : SYSTRACE_FP;
	int err = systrace__load(b->skel);
	if (err)
		return fail(b, err, "loading the BPF program");
	for (size_t nr = 0; nr < c->tab->n && nr < SYSTRACE_MAXNR; nr++) {
		uint8_t m = (uint8_t)systab_strmask(c->tab, (int64_t)nr);
		uint32_t k = (uint32_t)nr;
		if (m && (err = bpf_map__update_elem(b->skel->maps.strargs, &k, sizeof(k), &m,
						     sizeof(m), 0)))
			return fail(b, err, "filling the BPF map");
	}
	for (size_t i = 0; !t->system_wide && i < t->npids; i++) {
		uint32_t k = (uint32_t)t->pids[i];
		uint8_t one = 1;
		if ((err = bpf_map__update_elem(b->skel->maps.follow, &k, sizeof(k), &one,
						sizeof(one), 0)))
			return fail(b, err, "filling the BPF map");
	}
	if (t->on_exec && t->npids)
		b->hold = (uint32_t)t->pids[0];
	b->rb = ring_buffer__new(bpf_map__fd(b->skel->maps.events), on_sample, b, NULL);
	if (!b->rb)
		return fail(b, -errno, "the BPF ring buffer");
	if (b->cg && (err = cg_open(b->cg, t, true, pages))) {
		ring_buffer__free(b->rb);
		systrace__destroy(b->skel);
		free(b);
		return err;
	}
	*out = &b->s;
	return 0;
}

#endif
