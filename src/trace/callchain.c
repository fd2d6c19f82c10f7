/*
 * callchain: the user stack that made each call, symbolized in-process
 * and printed under its line as perf trace prints callchains (trace, L7).
 *
 * The stacks come with the exits (the BPF program: frame-pointer stacks
 * by bpf_get_stack, or the user registers and a stack copy for DWARF).
 * What was mapped where comes from the kernel's sideband records (MMAP2,
 * COMM, FORK, EXIT) of a dummy software event on the same targets, as
 * kiln record gets them, and for processes already running (-p, -a) from
 * /proc, synthesized as record synthesizes it. The records are applied
 * to a proc machine in time order with the calls (bpfsrc merges them),
 * stacks are unwound by unwind (DWARF CFI for copies) and resolved by
 * symbolize, with perf's inline expansion.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "trace/trace_int.h"

#define CG_INDENT 39 /* perf trace's callchain alignment (38) and its space */

int cg_init(struct tr_cg *g, const struct trace_opts *o)
{
	memset(g, 0, sizeof(*g));
	g->mode = o->callgraph;
	strtab_init(&g->strs);
	dso_set_init(&g->dsos);
	g->dsos.env = o->env;
	g->dsos.vdso_always = true;
	dso_set_use_kallsyms(&g->dsos, false); /* user stacks only, as perf trace shows */
	machine_init(&g->m, &g->strs, &g->dsos);
	g->m.keep_maps_on_exec = true; /* execve's own exit resolves in the old image */
	symbolizer_init(&g->sz, &g->m, &g->strs);
	unwinder_init(&g->uw, &g->m);
	g->st = xmalloc(sizeof(*g->st));
	ev_attrs_init(&g->attrs);
	struct perf_event_attr *a = &g->attr;
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->sample_id_all = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->disabled = 1;
	a->inherit = 1;
	a->exclude_kernel = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC; /* bpf_ktime_get_ns()'s clock: the calls' times */
	g->ready = true;
	return 0;
}

void cg_release(struct tr_cg *g)
{
	if (!g->ready)
		return;
	if (g->live)
		live_close(g->live);
	ev_attrs_release(&g->attrs);
	free(g->st);
	unwinder_release(&g->uw);
	symbolizer_release(&g->sz);
	machine_release(&g->m);
	dso_set_release(&g->dsos);
	strtab_release(&g->strs);
	g->ready = false;
}

/* Synthesized records of running processes, applied at once (time 0). */
static int synth_one(void *arg, const void *rec, size_t len)
{
	cg_apply(arg, rec, len);
	return 0;
}

int cg_open(struct tr_cg *g, const struct tr_target *t)
{
	g->attr.enable_on_exec = t->on_exec;
	struct live_opts lo = { .attrs = &g->attr, .nattrs = 1, .tids = t->tids,
				.ntids = t->ntids, .system_wide = t->system_wide,
				.mmap_pages = 64 };
	size_t bad;
	int err = live_open(&g->live, &lo, &bad);
	if (err)
		return err_set(err, "the sideband event for --call-graph (mappings): %s",
			       err_last()->msg);
	size_t nids;
	const uint64_t *ids = live_ids(g->live, 0, &nids);
	ev_attrs_add(&g->attrs, &g->attr, sizeof(g->attr), ids, nids);
	if ((err = ev_attrs_finish(&g->attrs)))
		return err;
	uint64_t id = nids ? ids[0] : 0;
	if (t->system_wide)
		live_synth_all(&g->attr, id, synth_one, g);
	else if (!t->on_exec)
		for (size_t i = 0; i < t->npids; i++)
			live_synth_process(t->pids[i], &g->attr, id, synth_one, g);
	return 0;
}

int cg_enable(struct tr_cg *g)
{
	return g->live ? live_enable(g->live) : 0;
}

void cg_disable(struct tr_cg *g)
{
	if (g->live)
		live_disable(g->live);
}

int cg_drain(struct tr_cg *g, live_record_fn fn, void *arg)
{
	uint64_t bytes = 0;
	return g->live ? live_drain(g->live, fn, arg, &bytes) : 0;
}

uint64_t cg_time(const struct tr_cg *g, const void *rec, size_t len)
{
	struct event ev;
	if (ev_decode(&ev, rec, len, 0, &g->attrs))
		return 0;
	return ev.sid.time;
}

void cg_apply(struct tr_cg *g, const void *rec, size_t len)
{
	struct event ev;
	if (ev_decode(&ev, rec, len, 0, &g->attrs)) {
		err_clear();
		return;
	}
	machine_apply(&g->m, &ev);
}

static const char spaces[CG_INDENT + 1] = "                                       ";

/* One frame as perf's sample__fprintf_callchain prints it for trace:
 * "name (dso)", "name (inlined)", "[0xoff] (dso)" or "[0] ([unknown])".
 * DWARF-unwound frames are expanded by their inline frames, as perf's
 * unwind_entry does; frame-pointer entries are not (script does alike). */
static void frame(struct tr_cg *g, struct buf *out, uint32_t pid, uint64_t ip, bool inlines)
{
	struct sym sy;
	symbolize(&g->sz, pid, ip, false, &sy);
	const char *dso = sym_dso_path(&g->sz, &sy);
	struct sym_inline inl[SRCLINE_MAX_INLINE];
	size_t n = inlines && sy.dso != SYM_NONE
			   ? symbolize_inlines(&g->sz, &sy, inl, SRCLINE_MAX_INLINE)
			   : 0;
	for (size_t i = 0; i < n; i++) {
		buf_add(out, spaces, CG_INDENT);
		buf_addstr(out, strtab_get(&g->strs, inl[i].name));
		if (inl[i].inlined)
			buf_addstr(out, " (inlined)\n");
		else
			buf_addf(out, " (%s)\n", dso ? dso : "[unknown]");
	}
	if (n)
		return;
	buf_add(out, spaces, CG_INDENT);
	if (sy.name != SYM_NONE)
		buf_addstr(out, strtab_get(&g->strs, sy.name));
	else if (dso && sy.pc)
		buf_addf(out, "[%#llx]", (unsigned long long)sy.pc);
	else
		buf_addstr(out, "[0]");
	buf_addf(out, " (%s)\n", dso ? dso : "[unknown]");
}

void cg_format(struct tr_cg *g, struct buf *out, const struct event *sample)
{
	bool dwarf = sample->u.sample.stack != NULL;
	unwinder_sample(&g->uw, sample, g->st);
	size_t shown = 0;
	for (size_t i = 0; i < g->st->n && shown < CG_MAX_FRAMES; i++) {
		if (g->st->frames[i].kernel)
			continue;
		frame(g, out, sample->sid.pid, g->st->frames[i].ip, dwarf);
		shown++;
	}
	/* A DWARF stack cut short ends, as perf ends it, in an address of -1. */
	if (dwarf && g->st->truncated && shown < CG_MAX_FRAMES)
		frame(g, out, sample->sid.pid, UINT64_MAX, false);
}
