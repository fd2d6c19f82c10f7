/*
 * perfsrc: system call events from the raw_syscalls tracepoints through
 * perf_event_open ring buffers (trace, L7).
 *
 * Two tracepoint events (sys_enter, sys_exit), inherited by children,
 * one ring per CPU (source/live); every sample carries tid, time, CPU and
 * the raw payload (the call number and six argument registers, or the
 * result). COMM and FORK records name the tasks. Records drained in one
 * pass are put in time order before the core sees them (each CPU's ring
 * is in order, the rings are not with each other). Strings are not read:
 * their arguments show as pointers. The rings of callchain.c (mappings,
 * page faults: -F) are read in the same pass and sorted with them (one
 * clock, perf's).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/xalloc.h"
#include "source/live/live.h"
#include "trace/trace_int.h"

struct perfsrc {
	struct tr_source s;
	struct live *live;
	struct perf_event_attr attrs[2];
	struct tr_queue q; /* this pass's records, with callchain.c's (kind 1) */
	uint64_t lost;
};

static size_t ps_pollfds(struct tr_source *s, int *fds, size_t max)
{
	return live_pollfds(((struct perfsrc *)s)->live, fds, max);
}

static int collect(void *arg, const void *rec, size_t len)
{
	struct perfsrc *ps = arg;
	const struct perf_event_header *h = rec;
	const uint8_t *p = rec;
	uint64_t time = 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (len < 8 + 8 + 8)
			return 0;
		time = ne64(p + 16);
	} else if (h->type == PERF_RECORD_COMM || h->type == PERF_RECORD_FORK ||
		   h->type == PERF_RECORD_LOST) {
		if (len < 8 + 24)
			return 0;
		time = ne64(p + len - 16); /* sample_id: tid, time, cpu */
	} else {
		return 0;
	}
	queue_push(&ps->q, rec, len, time, 0);
	return 0;
}

static int collect_side(void *arg, const void *rec, size_t len)
{
	struct perfsrc *ps = arg;
	queue_push(&ps->q, rec, len, cg_time(ps->s.core->cg, rec, len), 1);
	return 0;
}

static void dispatch(struct perfsrc *ps, const uint8_t *p, size_t len)
{
	const struct perf_event_header *h = (const void *)p;
	struct tr_core *c = ps->s.core;
	const struct tr_systab *t = c->tab;
	if (h->type == PERF_RECORD_COMM) {
		char comm[TR_COMM] = { 0 };
		if (len < 8 + 8 + 24)
			return;
		size_t n = len - 8 - 8 - 24; /* header, pid and tid, the comm, sample_id */
		if (n > TR_COMM - 1)
			n = TR_COMM - 1;
		memcpy(comm, p + 16, n);
		comm[n] = '\0';
		comm[strnlen(comm, n)] = '\0';
		core_comm(c, ne32(p + 8), ne32(p + 12), comm);
		return;
	}
	if (h->type == PERF_RECORD_FORK) {
		/* pid, ppid, tid, ptid */
		core_fork(c, ne32(p + 8), ne32(p + 16), ne32(p + 20));
		return;
	}
	if (h->type == PERF_RECORD_LOST) {
		ps->lost += ne64(p + 16);
		return;
	}
	/* SAMPLE: pid tid | time | cpu res | raw size | raw */
	if (len < 36)
		return;
	uint32_t rawlen = ne32(p + 32);
	const uint8_t *raw = p + 36;
	if (36 + (size_t)rawlen > len || rawlen < 8)
		return;
	struct tr_event e = { .time = ne64(p + 16), .pid = ne32(p + 8), .tid = ne32(p + 12) };
	uint16_t type;
	memcpy(&type, raw, 2);
	if (t->off_id + 8 > rawlen)
		return;
	e.nr = (int64_t)ne64(raw + t->off_id);
	if (type == t->enter_id) {
		if (t->off_args + 8 * TR_MAXARGS > rawlen)
			return;
		e.enter = true;
		for (unsigned a = 0; a < TR_MAXARGS; a++)
			e.args[a] = ne64(raw + t->off_args + 8 * a);
	} else if (type == t->exit_id) {
		if (t->off_ret + 8 > rawlen)
			return;
		e.ret = (int64_t)ne64(raw + t->off_ret);
	} else {
		return;
	}
	core_event(c, &e);
}

static int ps_drain(struct tr_source *s)
{
	struct perfsrc *ps = (struct perfsrc *)s;
	queue_reset(&ps->q);
	uint64_t bytes = 0;
	struct tr_cg *cg = ps->s.core->cg;
	int err = live_drain(ps->live, collect, ps, &bytes);
	int serr = cg ? cg_drain(cg, collect_side, ps) : 0;
	queue_sort(&ps->q);
	for (size_t i = 0; i < ps->q.recs.n; i++) {
		const struct tr_qrec *r = &ps->q.recs.v[i];
		if (r->kind)
			cg_apply(cg, ps->s.core, ps->q.bytes.v + r->off, r->len);
		else
			dispatch(ps, ps->q.bytes.v + r->off, r->len);
	}
	return err ? err : serr;
}

static int ps_enable(struct tr_source *s)
{
	struct tr_cg *cg = s->core->cg;
	int err = cg ? cg_enable(cg) : 0;
	return err ? err : live_enable(((struct perfsrc *)s)->live);
}

static void ps_disable(struct tr_source *s)
{
	live_disable(((struct perfsrc *)s)->live);
	if (s->core->cg)
		cg_disable(s->core->cg);
}

static uint64_t ps_lost(struct tr_source *s)
{
	return ((struct perfsrc *)s)->lost + (s->core->cg ? s->core->cg->lost : 0);
}

static void ps_close(struct tr_source *s)
{
	struct perfsrc *ps = (struct perfsrc *)s;
	live_close(ps->live);
	queue_release(&ps->q);
	free(ps);
}

static const struct tr_source_ops perfsrc_ops = {
	.pollfds = ps_pollfds, .drain = ps_drain, .enable = ps_enable,
	.disable = ps_disable, .lost = ps_lost, .close = ps_close,
};

int perfsrc_open(struct tr_source **out, struct tr_core *c, const struct tr_target *t,
		 unsigned pages)
{
	struct perfsrc *ps = xcalloc(1, sizeof(*ps));
	ps->s.ops = &perfsrc_ops;
	ps->s.core = c;
	for (int i = 0; i < 2; i++) {
		struct perf_event_attr *a = &ps->attrs[i];
		a->size = sizeof(*a);
		a->type = PERF_TYPE_TRACEPOINT;
		a->config = i == 0 ? c->tab->enter_id : c->tab->exit_id;
		a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
		a->sample_period = 1;
		a->disabled = 1;
		a->inherit = 1;
		a->enable_on_exec = t->on_exec;
		a->sample_id_all = 1;
		a->exclude_guest = 1;
		a->watermark = 1;
		a->wakeup_watermark = pages * 4096u / 4;
		if (i == 0) {
			a->comm = 1;
			a->comm_exec = 1;
			a->task = 1;
		}
	}
	struct live_opts lo = { .attrs = ps->attrs, .nattrs = 2, .tids = t->tids,
				.ntids = t->ntids, .system_wide = t->system_wide,
				.mmap_pages = pages };
	size_t bad;
	int err = live_open(&ps->live, &lo, &bad);
	if (err) {
		free(ps);
		return err;
	}
	if (c->cg && (err = cg_open(c->cg, t, false, pages))) {
		live_close(ps->live);
		free(ps);
		return err;
	}
	*out = &ps->s;
	return 0;
}
