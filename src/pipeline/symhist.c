/*
 * symhist: samples → per-symbol address histograms (pipeline, L8), a
 * session consumer. One hash probe per sample finds its point (event,
 * symbolizer cache entry: one per dso and address); a new point finds or
 * makes its group; a second probe adds the period to (group, comm) for
 * perf's ranking. At the end the points are sorted into their groups.
 */
#include "pipeline/symhist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/xalloc.h"
#include "output/script.h"

struct point {
	uint32_t group;
	struct annotate_sample s;
};

struct symhist_ctx {
	struct symhist *h;
	struct hashmap points; /* attr << 32 | sym.entry -> index in 'pts' */
	struct hashmap groups; /* hash of (attr, dso, start), probed -> group index */
	struct hashmap comms;  /* group << 32 | comm -> period */
	struct hashmap misses; /* dso -> samples without a symbol */
	VEC(struct point) pts;
};

void symhist_init(struct symhist *h)
{
	memset(h, 0, sizeof(*h));
}

void symhist_release(struct symhist *h)
{
	VEC_FREE(&h->groups);
	VEC_FREE(&h->samples);
	VEC_FREE(&h->events);
	VEC_FREE(&h->misses);
}

void symhist_session_opts(struct session_opts *so)
{
	so->names_only = false;
	so->accept = SESSION_ACCEPT_PERFDATA;
}

static bool has_feature(const struct perf_header_info *hi, unsigned feat)
{
	return feat < 256 && (hi->features[feat / 64] >> (feat % 64)) & 1;
}

/* perf's name of an event: the recorded one, or one derived as perf does
 * for a defaulted name ("cpu-clock:ppp"). */
static void event_name(const struct session *s, const struct ev_attr *a, char *out, size_t len)
{
	char tmp[64];
	if ((!s->h->pipe_mode && has_feature(s->h, PERF_FEAT_EVENT_DESC)) ||
	    strcmp(a->name, ev_default_name(&a->attr, tmp, sizeof(tmp))))
		snprintf(out, len, "%s", a->name);
	else
		script_event_name(&a->attr, out, len);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* perf's period of a sample: the recorded one, else the attr's fixed
 * sample period, else 1. */
static uint64_t sample_period(const struct event *ev)
{
	const struct perf_event_attr *a = &ev->attr->attr;
	if (a->sample_type & PERF_SAMPLE_PERIOD)
		return ev->u.sample.period;
	return !a->freq && a->sample_period ? a->sample_period : 1;
}

static void note_miss(struct symhist_ctx *x, uint32_t dso)
{
	bool fresh;
	uint64_t *v = hashmap_slot(&x->misses, dso, 0, &fresh);
	(*v)++;
}

/* The group of (attr, dso, symbol start), created on first use. */
static uint32_t find_group(struct symhist_ctx *x, struct session *s, uint32_t attr,
			   const struct sym *sym)
{
	uint64_t start = sym->addr - sym->symoff;
	uint64_t key = hash_mix2(hash_mix2(attr, sym->dso), start), v;
	for (;; key++) {
		if (!hashmap_get(&x->groups, key, &v))
			break;
		const struct symhist_group *g = &x->h->groups.v[v];
		if (g->attr == attr && g->dso == sym->dso && g->start == start)
			return (uint32_t)v;
	}
	struct symhist_group g = {
		.attr = attr, .dso = sym->dso, .start = start, .name = sym->name,
		.raw = sym->raw == SYM_NONE ? sym->name : sym->raw, .kernel = sym->kernel,
	};
	if (!sym->kernel) {
		struct dso *d = dso_set_get(&s->dsos, sym->dso);
		const struct elf_image *img = dso_symbols(&s->dsos, d);
		uint64_t st, end;
		if (img && elf_image_lookup_range(img, sym->addr, &st, &end) && st == start)
			g.end = end;
	}
	hashmap_put(&x->groups, key, x->h->groups.n);
	VEC_PUSH(&x->h->groups, g);
	return (uint32_t)(x->h->groups.n - 1);
}

static int on_event(void *ctx, struct session *s, const struct event *ev)
{
	struct symhist_ctx *x = ctx;
	(void)s;
	if (ev->type == PERF_RECORD_LOST)
		x->h->lost += ev->u.lost.lost;
	return 0;
}

static int on_sample(void *ctx, struct session *s, const struct session_sample *smp)
{
	struct symhist_ctx *x = ctx;
	struct symhist *h = x->h;
	const struct event *ev = smp->ev;
	h->nsamples++;
	if (!ev->attr || ev->attr < s->attrs->v.v || ev->attr >= s->attrs->v.v + s->attrs->v.n)
		return 0;
	uint32_t attr = (uint32_t)(ev->attr - s->attrs->v.v);
	uint64_t period = sample_period(ev);
	/* A pipe's attrs arrive as records: events are named when first sampled. */
	while (h->events.n <= attr) {
		struct symhist_event *ne = VEC_PUSH_ZERO(&h->events);
		event_name(s, &s->attrs->v.v[h->events.n - 1], ne->name, sizeof(ne->name));
	}
	struct symhist_event *e = &h->events.v[attr];
	e->samples++;
	e->period = add_sat(e->period, period);

	unsigned mode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (mode != PERF_RECORD_MISC_KERNEL && mode != PERF_RECORD_MISC_USER) {
		h->unresolved++; /* hypervisor, guest: perf finds no map */
		return 0;
	}
	struct sym sym;
	session_symbolize(s, ev->sid.pid, ev->u.sample.ip, mode == PERF_RECORD_MISC_KERNEL, &sym);
	if (sym.dso == SYM_NONE) {
		h->unresolved++;
		return 0;
	}
	if (sym.name == SYM_NONE || sym.entry == SYM_NONE) {
		note_miss(x, sym.dso);
		return 0;
	}
	bool fresh;
	uint64_t *slot = hashmap_slot(&x->points, (uint64_t)attr << 32 | sym.entry, x->pts.n, &fresh);
	if (fresh) {
		struct point p = { find_group(x, s, attr, &sym), { sym.addr, 0, 0 } };
		VEC_PUSH(&x->pts, p);
	}
	struct point *p = &x->pts.v[*slot];
	p->s.samples++;
	p->s.period = add_sat(p->s.period, period);
	struct symhist_group *g = &h->groups.v[p->group];
	g->samples++;
	g->period = add_sat(g->period, period);
	uint64_t *c = hashmap_slot(&x->comms, (uint64_t)p->group << 32 | smp->th->comm, 0, &fresh);
	*c = add_sat(*c, period);
	if (*c > g->rank)
		g->rank = *c;
	return 0;
}

static int point_cmp(const void *pa, const void *pb)
{
	const struct point *a = pa, *b = pb;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	return a->s.addr < b->s.addr ? -1 : a->s.addr > b->s.addr;
}

static int group_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct symhist_group *a = pa, *b = pb;
	const struct session *s = ctx;
	if (a->attr != b->attr)
		return a->attr < b->attr ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank > b->rank ? -1 : 1;
	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	int c = strcmp(strtab_get(s->strs, a->name), strtab_get(s->strs, b->name));
	if (!c)
		c = strcmp(dso_set_get(&s->dsos, a->dso)->path, dso_set_get(&s->dsos, b->dso)->path);
	if (c)
		return c;
	return a->start < b->start ? -1 : a->start > b->start;
}

static int miss_cmp(const void *pa, const void *pb)
{
	const struct symhist_dso_miss *a = pa, *b = pb;
	return a->dso < b->dso ? -1 : a->dso > b->dso;
}

/* Points into their groups' slices, address order; groups sorted. */
static void finish(struct symhist_ctx *x, struct session *s)
{
	struct symhist *h = x->h;
	if (x->pts.n)
		qsort(x->pts.v, x->pts.n, sizeof(*x->pts.v), point_cmp);
	VEC_RESERVE(&h->samples, x->pts.n);
	for (size_t i = 0; i < x->pts.n; i++) {
		struct symhist_group *g = &h->groups.v[x->pts.v[i].group];
		if (!g->n)
			g->first = i;
		g->n++;
		VEC_PUSH(&h->samples, x->pts.v[i].s);
	}
	if (h->groups.n)
		qsort_r(h->groups.v, h->groups.n, sizeof(*h->groups.v), group_cmp, s);
	size_t pos = 0;
	uint64_t k, v;
	while (hashmap_next(&x->misses, &pos, &k, &v)) {
		struct symhist_dso_miss m = { (uint32_t)k, v };
		VEC_PUSH(&h->misses, m);
	}
	if (h->misses.n)
		qsort(h->misses.v, h->misses.n, sizeof(*h->misses.v), miss_cmp);
}

static int on_end(void *ctx, struct session *s)
{
	struct symhist_ctx *x = ctx;
	finish(x, s);
	/* Annotating asks for each instruction's source line once. */
	s->sz.src.uncached = true;
	x->h->unknown_records = perf_reader_stats(s->r)->unknown_records;
	x->h->partial = s->partial;
	if (s->partial)
		x->h->err = *err_last();
	return 0;
}

int symhist_load(struct session *s, struct symhist *h)
{
	struct symhist_ctx x;
	memset(&x, 0, sizeof(x));
	x.h = h;
	hashmap_init(&x.points);
	hashmap_init(&x.groups);
	hashmap_init(&x.comms);
	hashmap_init(&x.misses);
	struct session_consumer c = {
		.ctx = &x, .on_event = on_event, .on_sample = on_sample, .on_end = on_end,
	};
	int err = session_run(s, &c);
	hashmap_release(&x.points);
	hashmap_release(&x.groups);
	hashmap_release(&x.comms);
	hashmap_release(&x.misses);
	VEC_FREE(&x.pts);
	return err;
}

/* Branch and call targets named as kiln names functions elsewhere:
 * demangled unless the session keeps names mangled. */
struct target_names {
	struct session *s;
	const struct elf_image *syms;
};

static const char *target_name(void *ctx, uint64_t vaddr, uint64_t *start)
{
	struct target_names *t = ctx;
	const char *raw = elf_image_lookup(t->syms, vaddr, start);
	if (!raw || t->s->sz.no_demangle || raw[0] != '_' || (raw[1] != 'Z' && raw[1] != 'R'))
		return raw;
	uint32_t id = symbolize_display_name(&t->s->sz, strtab_intern_str(t->s->strs, raw));
	return strtab_get(t->s->strs, id);
}

int symhist_annotate(struct session *s, const struct symhist *h, const struct symhist_group *g,
		     const struct symhist_annotate_opts *o, struct annotation *a)
{
	if (g->kernel || !g->end || g->end <= g->start) {
		memset(a, 0, sizeof(*a));
		source_set_init(&a->sources);
		const char *path = dso_set_get(&s->dsos, g->dso)->path;
		if (g->kernel)
			return err_set(-ENODATA, "no code bytes for %s",
				       strncmp(path, "[kernel.kallsyms]", 17) ? path
									 : "[kernel.kallsyms]");
		return err_set(-EINVAL, "%s: the symbol's size is unknown", path);
	}
	struct target_names tn = { s, dso_symbols(&s->dsos, dso_set_get(&s->dsos, g->dso)) };
	struct annotate_req r = {
		.dsos = &s->dsos, .dso = g->dso, .lines = &s->sz.src, .strs = s->strs,
		.start = g->start, .size = g->end - g->start, .samples = h->samples.v + g->first,
		.nsamples = g->n, .src = o->src, .no_source = o->no_source,
		.sym = tn.syms ? target_name : NULL, .sym_ctx = &tn,
	};
	return annotation_build(a, &r);
}

const char *symhist_func_name(void *ctx, uint32_t id)
{
	struct session *s = ctx;
	if (id == SRCLINE_NONE)
		return NULL;
	return strtab_get(s->strs, symbolize_display_name(&s->sz, id));
}
