/*
 * callchain: the user stack that made each call, symbolized in-process
 * and printed under its line as perf trace prints callchains, and the
 * page faults of -F with their code and data locations (trace, L7).
 *
 * The stacks come with the exits (the BPF program: frame-pointer stacks
 * by bpf_get_stack, or the user registers and a stack copy for DWARF).
 * What was mapped where comes from the kernel's sideband records (MMAP2,
 * COMM, FORK, EXIT) of a dummy software event on the same targets, as
 * kiln record gets them, and for processes already running (-p, -a) from
 * /proc, synthesized as record synthesizes it. The records are applied
 * to a proc machine in time order with the calls (bpfsrc merges them),
 * stacks are unwound by unwind (DWARF CFI for copies) and resolved by
 * symbolize, with perf's inline expansion. Page faults are samples of
 * the software page-fault events (ip and address) opened beside the
 * sideband event, handed to the core in the same time order.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "source/live/ktext.h"
#include "trace/trace_int.h"

#define CG_INDENT 39 /* perf trace's callchain alignment (38) and its space */

static void event_attr(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->sample_id_all = 1;
	a->disabled = 1;
	a->inherit = 1;
}

void cg_init(struct tr_cg *g, const struct trace_opts *o)
{
	memset(g, 0, sizeof(*g));
	g->mode = o->callgraph;
	g->faults = o->faults;
	strtab_init(&g->strs);
	dso_set_init(&g->dsos);
	g->dsos.env = o->env;
	g->dsos.vdso_always = true;
	/* Stacks are user stacks (as perf trace shows them); a fault's ip may
	 * be the kernel's (copying to user memory). */
	dso_set_use_kallsyms(&g->dsos, o->faults != 0);
	machine_init(&g->m, &g->strs, &g->dsos);
	g->m.keep_maps_on_exec = true; /* execve's own exit resolves in the old image */
	g->m.data_maps = o->faults != 0;
	symbolizer_init(&g->sz, &g->m, &g->strs);
	unwinder_init(&g->uw, &g->m);
	g->st = xmalloc(sizeof(*g->st));
	ev_attrs_init(&g->attrs);
	/* [0]: the sideband (a dummy event); then the page fault events. */
	struct perf_event_attr *a = &g->attr[g->nattr++];
	event_attr(a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	a->mmap = 1;
	a->mmap2 = 1;
	a->mmap_data = o->faults != 0;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->exclude_kernel = 1;
	for (unsigned f = TRACE_PF_MIN; f <= TRACE_PF_MAJ; f <<= 1) {
		if (!(o->faults & f))
			continue;
		a = &g->attr[g->nattr++];
		event_attr(a, PERF_TYPE_SOFTWARE, f == TRACE_PF_MAJ ? PERF_COUNT_SW_PAGE_FAULTS_MAJ
								     : PERF_COUNT_SW_PAGE_FAULTS_MIN);
		a->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
		a->sample_period = 1;
	}
	g->ready = true;
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
	cg_apply(arg, NULL, rec, len);
	return 0;
}

int cg_open(struct tr_cg *g, const struct tr_target *t, bool monotonic, unsigned pages)
{
	g->on_exec = t->on_exec;
	for (size_t i = 0; i < g->nattr; i++) {
		g->attr[i].enable_on_exec = t->on_exec;
		/* The BPF program's times are bpf_ktime_get_ns(): CLOCK_MONOTONIC. */
		g->attr[i].use_clockid = monotonic;
		g->attr[i].clockid = monotonic ? CLOCK_MONOTONIC : 0;
	}
	struct live_opts lo = { .attrs = g->attr, .nattrs = g->nattr, .tids = t->tids,
				.ntids = t->ntids, .system_wide = t->system_wide,
				.mmap_pages = pages };
	size_t bad;
	int err = live_open(&g->live, &lo, &bad);
	if (err)
		return err_set(err, "%s: %s",
			       bad > 0 && bad < g->nattr ? "the page fault events (-F)"
							  : "the mappings' sideband event",
			       err_last()->msg);
	for (size_t i = 0; i < g->nattr; i++) {
		size_t nids;
		const uint64_t *ids = live_ids(g->live, i, &nids);
		ev_attrs_add(&g->attrs, &g->attr[i], sizeof(g->attr[i]), ids, nids);
	}
	if ((err = ev_attrs_finish(&g->attrs)))
		return err;
	size_t nids;
	const uint64_t *ids = live_ids(g->live, 0, &nids);
	uint64_t id = nids ? ids[0] : 0;
	if (g->faults) {
		struct ktext kt;
		ktext_read(&kt);
		live_synth_kernel(&g->attr[0], id, &kt, synth_one, g);
		ktext_release(&kt);
	}
	if (t->system_wide)
		live_synth_all(&g->attr[0], id, synth_one, g);
	else if (!t->on_exec)
		for (size_t i = 0; i < t->npids; i++)
			live_synth_process(t->pids[i], &g->attr[0], id, synth_one, g);
	return 0;
}

int cg_enable(struct tr_cg *g)
{
	/* A command's events start at its exec (enable_on_exec), not now. */
	return g->live && !g->on_exec ? live_enable(g->live) : 0;
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
	if (ev_decode(&ev, rec, len, 0, &g->attrs)) {
		err_clear();
		return 0;
	}
	return ev.sid.time;
}

void cg_apply(struct tr_cg *g, struct tr_core *c, const void *rec, size_t len)
{
	struct event ev;
	if (ev_decode(&ev, rec, len, 0, &g->attrs)) {
		err_clear();
		return;
	}
	if (ev.type == PERF_RECORD_LOST) {
		g->lost += ev.u.lost.lost;
		return;
	}
	if (ev.type == PERF_RECORD_SAMPLE) {
		if (c && ev.attr && ev.attr->attr.type == PERF_TYPE_SOFTWARE)
			core_fault(c, &ev, ev.attr->attr.config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
		return;
	}
	/* A fault's line names the task as the kernel then named it. */
	if (ev.type == PERF_RECORD_COMM && c) {
		char comm[TR_COMM] = { 0 };
		memcpy(comm, ev.u.comm.comm, strnlen(ev.u.comm.comm, TR_COMM - 1));
		core_comm(c, ev.u.comm.pid, ev.u.comm.tid, comm);
	}
	machine_apply(&g->m, &ev);
}

/* perf's map__map_ip: anonymous memory, the stack and the heap are shown
 * by address, files by their offset. */
static uint64_t map_ip(struct tr_cg *g, const struct mapping *m, uint64_t addr)
{
	const char *p = dso_set_get(&g->dsos, m->dso)->path;
	if (!strncmp(p, "//anon", 6) || !strncmp(p, "/dev/zero", 9) ||
	    !strncmp(p, "/anon_hugepage", 14) || !strncmp(p, "[stack", 6) ||
	    !strncmp(p, "/SYSV", 5) || !strcmp(p, "[heap]"))
		return addr;
	return addr - m->start + m->pgoff;
}

void cg_fault(struct tr_cg *g, struct buf *out, const struct event *ev, bool major)
{
	uint32_t pid = ev->sid.pid;
	bool kernel = (ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	uint64_t ip = ev->u.sample.ip, addr = ev->u.sample.addr;
	buf_addstr(out, major ? "majfault [" : "minfault [");
	/* perf's print_location: the code by symbol, else by map offset. */
	const struct mapping *m = machine_find(&g->m, pid, ip, kernel);
	struct sym sy;
	symbolize(&g->sz, pid, ip, kernel, &sy);
	if (sy.name != SYM_NONE)
		buf_addf(out, "%s+0x%llx", strtab_get(&g->strs, sy.name),
			 (unsigned long long)sy.symoff);
	else
		buf_addf(out, "0x%llx", (unsigned long long)(m ? map_ip(g, m, ip) : ip));
	buf_addstr(out, "] => ");
	/* The data by mapping (looked up in the fault's mode, as perf does). */
	m = machine_find(&g->m, pid, addr, kernel);
	if (m)
		buf_addf(out, "%s@0x%llx", dso_set_get(&g->dsos, m->dso)->path,
			 (unsigned long long)map_ip(g, m, addr));
	else
		buf_addf(out, "0x%llx", (unsigned long long)addr);
	buf_addf(out, " (%c%c)\n", m ? 'd' : '?', kernel ? 'k' : '.');
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
