/*
 * profile: perf.data → stack trie (pipeline, L8): a session consumer.
 *
 * Each sample's stack (session_stack) is symbolized frame by frame
 * (session_symbolize), named by aggregate/frames (inline frames as the
 * mode says), and added to the trie under its process frame; with a
 * locprof, each frame's location and source are noted beside it.
 */
#include "pipeline/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/hugebuf.h"
#include "base/vec.h"
#include "base/xalloc.h"
#include "dso/dso.h"
#include "pipeline/offcpu.h"
#include "proc/proc.h"
#include "symbolize/symbolize.h"
#include "unwind/unwind.h"

/* Frame names per (symbol, dso, mode): naming builds and interns a string,
 * so it is done once per distinct symbol (the key is exact, not a hash),
 * and once per dso for its frames of no symbol ("[dso]"), unless they
 * show their address (--addrs). */
static struct trie_frame cached_frame(struct hashmap *fc, struct strtab *strs,
				      const struct symbolizer *sz, const struct sym *sym,
				      const struct frame_opts *o)
{
	/* An exact key: name id or SYM_NONE (32 bits), dso id (31 bits),
	 * kernel (1 bit). */
	uint64_t key = ((uint64_t)sym->name << 32) | ((uint64_t)(sym->dso & 0x7fffffff) << 1) |
		       sym->kernel, v;
	if ((sym->name == SYM_NONE && o->addrs) || sym->dso == SYM_NONE || sym->dso > 0x7fffffff)
		return frame_for_sym(strs, sz, sym, o);
	if (hashmap_get(fc, key, &v))
		return (struct trie_frame){ (uint32_t)(v >> 8), (uint8_t)(v & 0xff) };
	struct trie_frame f = frame_for_sym(strs, sz, sym, o);
	hashmap_put(fc, key, ((uint64_t)f.name << 8) | f.kind);
	return f;
}

/*
 * The trie frames of a symbolized address, cached by the symbolizer's
 * cache entry: naming, demangling and the inline chain are worked out
 * once per address, not once per sample. Two tables, as the same address
 * may be shown without inline frames (frame-pointer samples) and with
 * them (DWARF samples) in one file.
 */
struct entry_slots {
	uint64_t *v; /* by sym.entry: 0 unknown, else (first << 8 | count) + 1 */
	size_t n, cap;
};

struct entry_frames {
	struct entry_slots at[2]; /* without, with inline frames */
	VEC(struct trie_frame) frames;
	struct hashmap inl; /* name id << 1 | inlined -> an inline frame (name << 8 | kind) */
};

static void entry_frames_release(struct entry_frames *c)
{
	free(c->at[0].v);
	free(c->at[1].v);
	free(c->frames.v);
	hashmap_release(&c->inl);
}

/* frame_for_inline once per (name, inlined): the same inline function
 * shows at many addresses. */
static struct trie_frame cached_inline(struct hashmap *ic, struct strtab *strs,
				       const struct sym_inline *in, const struct frame_opts *o)
{
	uint64_t key = (uint64_t)in->name << 1 | in->inlined, v;
	if (hashmap_get(ic, key, &v))
		return (struct trie_frame){ (uint32_t)(v >> 8), (uint8_t)(v & 0xff) };
	struct trie_frame f = frame_for_inline(strs, in, o);
	hashmap_put(ic, key, ((uint64_t)f.name << 8) | f.kind);
	return f;
}

/* The frames for 'sym' (entry != SYM_NONE), outermost first. */
static size_t entry_frames(struct entry_frames *c, struct hashmap *fcache, struct strtab *strs,
			   struct symbolizer *sz, const struct sym *sym, const struct frame_opts *o,
			   bool inl, const struct trie_frame **out)
{
	struct entry_slots *at = &c->at[inl];
	if (at->n <= sym->entry) {
		size_t want = (size_t)sym->entry + 1;
		VEC_RESERVE(at, want);
		memset(at->v + at->n, 0, (want - at->n) * sizeof(*at->v));
		at->n = want;
	}
	uint64_t v = at->v[sym->entry];
	if (!v) {
		size_t first = c->frames.n, k = 0;
		if (inl) {
			struct sym_inline in[SRCLINE_MAX_INLINE];
			k = symbolize_inlines(sz, sym, in, SRCLINE_MAX_INLINE);
			for (size_t i = k; i-- > 0;)
				VEC_PUSH(&c->frames, cached_inline(&c->inl, strs, &in[i], o));
		}
		if (!k) {
			VEC_PUSH(&c->frames, cached_frame(fcache, strs, sz, sym, o));
			k = 1;
		}
		v = at->v[sym->entry] = (((uint64_t)first << 8) | k) + 1;
	}
	*out = c->frames.v + ((v - 1) >> 8);
	return (v - 1) & 0xff;
}

/* The process frame of (pid, tid) while its comm stays the same: one
 * hash probe per sample instead of formatting and interning the name. */
static struct trie_frame process_frame(struct hashmap *pc, struct strtab *strs, uint32_t comm,
				       uint32_t pid, uint32_t tid, const struct frame_opts *o)
{
	uint64_t key = ((uint64_t)pid << 32) | tid, v;
	if (hashmap_get(pc, key, &v) && (uint32_t)(v >> 32) == comm)
		return (struct trie_frame){ (uint32_t)v, FRAME_PROCESS };
	struct trie_frame f = frame_for_process(strs, strtab_get(strs, comm), pid, tid, o);
	hashmap_put(pc, key, ((uint64_t)comm << 32) | f.name);
	return f;
}

struct period_vec {
	uint64_t *v;
	size_t n, cap;
};

/* Whether a sample's period counts: only the first event seen is summed
 * (in time views every sample counts, as its time). */
static bool period_counts(struct profile_stats *st, const struct event *ev, enum profile_weight w)
{
	if (w != PROFILE_WEIGHT_SAMPLES) {
		if (!st->event[0])
			snprintf(st->event, sizeof(st->event), "%s",
				 w == PROFILE_WEIGHT_OFFCPU ? "off-cpu" : "wall");
		st->event_time = true;
		return true;
	}
	const char *name = ev->attr && ev->attr->name ? ev->attr->name : "events";
	if (!st->event[0]) {
		snprintf(st->event, sizeof(st->event), "%s", name);
		st->event_time = ev->attr && ev->attr->attr.type == PERF_TYPE_SOFTWARE &&
				 (ev->attr->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
				  ev->attr->attr.config == PERF_COUNT_SW_TASK_CLOCK);
	} else if (strncmp(st->event, name, sizeof(st->event) - 1)) {
		st->mixed_events++;
		return false;
	}
	return true;
}

/* Sum a sample's period at its stack's leaf. */
static void add_period(struct period_vec *pv, const struct trie *t, uint64_t p, uint32_t leaf)
{
	if (pv->n < t->nodes.n) {
		VEC_RESERVE(pv, t->nodes.n);
		memset(pv->v + pv->n, 0, (t->nodes.n - pv->n) * sizeof(uint64_t));
		pv->n = t->nodes.n;
	}
	pv->v[leaf] = pv->v[leaf] > UINT64_MAX - p ? UINT64_MAX : pv->v[leaf] + p;
}

/* A dso's build-id in hex ("" if unknown): the recorded one, else the file's. */
static void build_id_hex(struct dso_set *dsos, struct dso *ds, char out[2 * 20 + 1])
{
	uint8_t id[ELF_BUILD_ID_MAX];
	size_t idn = ds->build_id_size;
	if (idn)
		memcpy(id, ds->build_id, idn);
	else if (ds->kind == DSO_FILE && dso_image(dsos, ds))
		idn = elf_image_build_id(dso_image(dsos, ds), id);
	if (idn > 20)
		idn = 20;
	for (size_t b = 0; b < idn; b++)
		snprintf(out + 2 * b, 3, "%02x", id[b]);
	out[2 * idn] = '\0';
}

/*
 * The locprof's mappings get their binaries' paths and build-ids: the
 * dso's, else the one the file's header lists for that name (the kernel's,
 * the vDSO's).
 */
static void name_locprof_mappings(struct locprof *lp, struct dso_set *dsos, struct strtab *strs,
				  const struct perf_header_info *h)
{
	for (size_t i = 0; i < lp->maps.n; i++) {
		struct lp_mapping *mp = &lp->maps.v[i];
		struct dso *ds = dso_set_get(dsos, mp->dso);
		char bid[2 * 20 + 1];
		bool kernel = ds->kind == DSO_KERNEL && !strncmp(ds->path, "[kernel.kallsyms]", 17);
		const char *path = kernel ? "[kernel.kallsyms]" : ds->path;
		mp->is_file = ds->kind == DSO_FILE && !dso_is_anon_code(ds);
		mp->file = strtab_intern_str(strs, path);
		build_id_hex(dsos, ds, bid);
		for (size_t b = 0; !bid[0] && b < h->nbuild_ids; b++) {
			const struct perf_build_id *e = &h->build_ids[b];
			if (strcmp(e->filename, path))
				continue;
			size_t n = e->size > 20 ? 20 : e->size;
			for (size_t k = 0; k < n; k++)
				snprintf(bid + 2 * k, 3, "%02x", e->id[k]);
			bid[2 * n] = '\0';
		}
		mp->build_id = bid[0] ? strtab_intern_str(strs, bid) : LOCPROF_NONE;
	}
}

void profile_stats_release(struct profile_stats *st)
{
	free(st->periods);
	st->periods = NULL;
	st->nperiods = 0;
}

/*
 * Note the source of frame j of the k frames (outermost first) that
 * symbolized address 'sym' gave: its inline chain's records when they
 * were expanded into these frames, else the function holding the address.
 */
static void note_source(struct locprof *lp, struct symbolizer *sz, uint32_t name,
			const struct sym *sym, size_t k, size_t j)
{
	/* A frame without a symbol is named after its binary: no function's source. */
	if (sym->name == SYM_NONE || locprof_source(lp, name))
		return;
	struct sym_line ln[SRCLINE_MAX_INLINE];
	size_t nl = symbolize_lines(sz, sym, k > 1, ln, SRCLINE_MAX_INLINE);
	if (nl == k)
		locprof_note_source(lp, sz, name, sym, ln, nl, nl - 1 - j);
}

/* The location of one frame of a sample (locprof), appended to 'locs'. */
typedef VEC(uint32_t) u32_vec;

static void add_location(struct locprof *lp, struct machine *m, struct symbolizer *sz,
			 u32_vec *locs, uint32_t pid, const struct unwind_frame *f,
			 const struct sym *sym)
{
	const struct mapping *mp = machine_find(m, pid, f->ip, f->kernel);
	uint32_t mid = mp ? locprof_mapping(lp, mp->dso, mp->start, mp->end, mp->pgoff) : 0;
	VEC_PUSH(locs, locprof_location(lp, sz, mid, f->ip, sym));
}


/* ---- the consumer ---- */

/*
 * The previous sample's stack, root first, with where each frame's trie
 * frames ended in the sample's frame list: consecutive samples mostly
 * share their outer frames, whose trie frames are then taken as they are
 * instead of being symbolized and looked up again (about two thirds of
 * the frames of a DWARF compile recording). The answer for an address
 * only changes with the machine's state, so any other record forgets it.
 */
struct stack_memo {
	struct unwind_frame *ip; /* root first */
	uint32_t *end;           /* frames[] length after frame d */
	size_t depth;            /* valid frames; 0: nothing to reuse */
	size_t start;            /* frames[] length before the stack's frames */
	uint32_t pid;
	bool inl;
};

/* How many outer frames of 'st' (root first) match the memo's; 0 unless
 * the sample is alike (process, inline mode, frames before the stack). */
static size_t memo_match(const struct stack_memo *m, const struct unwind_stack *st, uint32_t pid,
			 bool inl, size_t start)
{
	if (!m->depth || m->pid != pid || m->inl != inl || m->start != start)
		return 0;
	size_t d = 0, lim = st->n < m->depth ? st->n : m->depth;
	while (d < lim && m->ip[d].ip == st->frames[st->n - 1 - d].ip &&
	       m->ip[d].kernel == st->frames[st->n - 1 - d].kernel)
		d++;
	return d;
}

/*
 * The trie frames of recent addresses by (pid, address, kernel, inline
 * mode), direct-mapped: one probe instead of the symbolizer's mapping
 * search, cache and entry lookups. Like the stack memo, an answer holds
 * until the next record that is not a sample (the generation moves on).
 */
#define ADDR_CACHE_BITS 14

struct addr_slot {
	uint64_t ip;
	uint32_t pid, gen; /* gen 0: never filled */
	uint32_t first;    /* the frames: ecache.frames[first..first + n) */
	uint16_t n;
	bool kernel, inl;
};

struct addr_cache {
	struct addr_slot *v; /* 1 << ADDR_CACHE_BITS, or NULL (with a locprof) */
	uint32_t gen;
};

/*
 * Samples held back while /proc/kallsyms is still read on its own thread
 * (session_kernel_waiting), so that symbolizing user frames goes on
 * meanwhile instead of waiting at the first kernel frame. A held sample
 * keeps its trie frames, user frames named at once (the machine may
 * change later), each kernel frame a placeholder with its address beside
 * it. Once the symbols are read (or before a record that changes the
 * kernel's address space, and at the end), the held samples get their
 * kernel frames and go into the trie in their order; while any is held,
 * every later sample is held too, so the trie gets the stacks in the
 * same order as without holding. At most DEFER_MAX_BYTES are held
 * (frames, kernel addresses and the samples' records): then the symbols
 * are waited for. Not with a locprof or a flame chart (both see the
 * samples in time order as they come).
 */
#define DEFER_MAX_BYTES ((size_t)8 << 20)

struct deferred_sample {
	uint32_t first, n;   /* frames[first..first + n) */
	uint32_t kfirst, nk; /* kernel[kfirst..kfirst + nk) */
	uint32_t pid;
	bool counted;
	uint64_t weight, value;
};

struct deferred_kernel {
	uint64_t ip;
	uint32_t at; /* index in frames[] of the placeholder */
};

/* The arrays are HVECs (base/hugebuf.h): up to DEFER_MAX_BYTES, in huge
 * pages once large, reused after each flush. */
struct deferred {
	bool allowed;
	HVEC(struct deferred_sample) samples;
	HVEC(struct trie_frame) frames;
	HVEC(struct deferred_kernel) kernel;
};

/* The bytes the held samples take (their arrays' used parts). */
static size_t deferred_bytes(const struct deferred *d)
{
	return d->samples.n * sizeof(*d->samples.v) + d->frames.n * sizeof(*d->frames.v) +
	       d->kernel.n * sizeof(*d->kernel.v);
}

struct profile_ctx {
	const struct profile_opts *o;
	struct strtab *strs;
	struct trie *t;
	struct profile_stats *st;
	struct locprof *lp;
	struct hashmap fcache;       /* frame names per symbol (cached_frame) */
	struct entry_frames ecache;  /* trie frames per symbolizer entry */
	struct hashmap pcache;       /* process frames per thread */
	struct trie_frame *frames;   /* the sample's trie frames, root first */
	size_t cap;
	struct stack_memo memo;      /* the last sample's frames, when reusable (not with a
				      * locprof, or reversed frames) */
	struct addr_cache acache;    /* frames by address (with the memo) */
	struct deferred deferred;    /* samples waiting for kernel symbols */
	bool deferring;              /* this sample's kernel frames wait (placeholders) */
	uint32_t truncated_name;
	struct trie_chart chart;
	struct period_vec periods;
	u32_vec locs;                /* the sample's location ids (locprof) */
};

static void ctx_init(struct profile_ctx *x, const struct profile_opts *o, struct strtab *strs,
		     struct trie *t, struct profile_stats *st)
{
	memset(x, 0, sizeof(*x));
	x->o = o;
	x->strs = strs;
	x->t = t;
	x->st = st;
	x->lp = o->locprof;
	hashmap_init(&x->fcache);
	hashmap_init(&x->pcache);
	hashmap_init(&x->ecache.inl);
	x->cap = UNWIND_MAX_FRAMES * 4 + 2; /* room for inline frames and [truncated] too */
	x->frames = xmalloc(sizeof(*x->frames) * x->cap);
	if (!o->locprof && !o->reverse) {
		x->memo.ip = xmalloc(sizeof(*x->memo.ip) * UNWIND_MAX_FRAMES);
		x->memo.end = xmalloc(sizeof(*x->memo.end) * UNWIND_MAX_FRAMES);
		x->acache.v = xcalloc((size_t)1 << ADDR_CACHE_BITS, sizeof(*x->acache.v));
		x->acache.gen = 1;
	}
	x->deferred.allowed = !o->locprof && !o->chart;
	x->truncated_name = strtab_intern_str(strs, PROFILE_TRUNCATED_FRAME);
}

static void ctx_release(struct profile_ctx *x)
{
	free(x->frames);
	free(x->memo.ip);
	free(x->memo.end);
	free(x->acache.v);
	VEC_FREE(&x->locs);
	HVEC_FREE(&x->deferred.samples);
	HVEC_FREE(&x->deferred.frames);
	HVEC_FREE(&x->deferred.kernel);
	hashmap_release(&x->fcache);
	entry_frames_release(&x->ecache);
	hashmap_release(&x->pcache);
	free(x->periods.v);
}

static int on_event(void *ctx, struct session *s, const struct event *ev)
{
	struct profile_ctx *x = ctx;
	(void)s;
	x->memo.depth = 0; /* the machine may have changed */
	if (x->acache.v && !++x->acache.gen) { /* wrapped: forget every slot */
		memset(x->acache.v, 0, sizeof(*x->acache.v) << ADDR_CACHE_BITS);
		x->acache.gen = 1;
	}
	if (ev->type == PERF_RECORD_LOST)
		x->st->lost += ev->u.lost.lost;
	else if (ev->type == PERF_RECORD_LOST_SAMPLES)
		x->st->lost_samples += ev->u.lost.lost;
	return 0;
}

/* Whether a user frame of this sample gets its inline frames. */
static bool wants_inlines(const struct profile_opts *o, const struct session_sample *smp)
{
	return o->inline_mode == PROFILE_INLINE_ALL ||
	       (o->inline_mode == PROFILE_INLINE_DWARF && smp->dwarf);
}

/* The trie frames of a symbolized address (outermost first): its
 * symbolizer entry's, else its name's (in *one). */
static size_t sym_frames(struct profile_ctx *x, struct session *s, const struct sym *sym, bool inl,
			 struct trie_frame *one, const struct trie_frame **fr)
{
	if (sym->entry != SYM_NONE)
		return entry_frames(&x->ecache, &x->fcache, x->strs, &s->sz, sym, &x->o->frames,
				    inl && !sym->kernel, fr);
	*one = cached_frame(&x->fcache, x->strs, &s->sz, sym, &x->o->frames);
	*fr = one;
	return 1;
}

/* Append k trie frames to x->frames[*n..] (as many as fit). */
static void put_frames(struct profile_ctx *x, const struct trie_frame *fr, size_t k, size_t *n)
{
	for (size_t j = 0; j < k && *n < x->cap; j++)
		x->frames[(*n)++] = fr[j];
}

/* Append the trie frames of one stack frame (outermost first) to
 * x->frames[*n..], with the locprof's location and sources. */
static void add_frame(struct profile_ctx *x, struct session *s, uint32_t pid,
		      const struct unwind_frame *f, bool inl, size_t *n)
{
	struct sym sym;
	session_symbolize(s, pid, f->ip, f->kernel, &sym);
	if (x->lp && x->lp->want_samples)
		add_location(x->lp, &s->m, &s->sz, &x->locs, pid, f, &sym);
	const struct trie_frame *fr;
	struct trie_frame one;
	size_t k = sym_frames(x, s, &sym, inl, &one, &fr), at = *n;
	put_frames(x, fr, k, n);
	for (size_t j = 0; x->lp && x->lp->want_sources && at + j < *n; j++)
		note_source(x->lp, &s->sz, fr[j].name, &sym, k, j);
}

/* add_frame without a locprof, through the address cache: a hit takes
 * the frames the address had, without symbolizing it again. */
static void add_frame_cached(struct profile_ctx *x, struct session *s, uint32_t pid,
			     const struct unwind_frame *f, bool inl, size_t *n)
{
	struct addr_cache *c = &x->acache;
	uint64_t h = (f->ip ^ (uint64_t)pid << 32 ^ (uint64_t)(f->kernel | inl << 1) << 62) *
		     0x9e3779b97f4a7c15ULL;
	struct addr_slot *a = &c->v[h >> (64 - ADDR_CACHE_BITS)];
	if (a->gen == c->gen && a->ip == f->ip && a->pid == pid && a->kernel == f->kernel &&
	    a->inl == inl) {
		put_frames(x, x->ecache.frames.v + a->first, a->n, n);
		return;
	}
	struct sym sym;
	session_symbolize(s, pid, f->ip, f->kernel, &sym);
	const struct trie_frame *fr;
	struct trie_frame one;
	size_t k = sym_frames(x, s, &sym, inl, &one, &fr);
	if (sym.entry != SYM_NONE)
		*a = (struct addr_slot){ f->ip, pid, c->gen, (uint32_t)(fr - x->ecache.frames.v),
					 (uint16_t)k, f->kernel, inl };
	put_frames(x, fr, k, n);
}

/* A kernel frame held back (x->deferring): a placeholder, its address
 * noted (a kernel address is always one trie frame). */
static void hold_kernel(struct profile_ctx *x, uint64_t ip, size_t *n)
{
	HVEC_PUSH(&x->deferred.kernel, ((struct deferred_kernel){ ip, (uint32_t)*n }));
	x->frames[(*n)++] = (struct trie_frame){ SYM_NONE, FRAME_UNKNOWN };
}

/* Append the trie frames of a stack, root first: the outer frames the
 * last sample shared as they were, the others symbolized (add_frame);
 * kernel frames held back while x->deferring. */
static void add_stack(struct profile_ctx *x, struct session *s, uint32_t pid,
		      const struct unwind_stack *st, bool inl, size_t *n)
{
	struct stack_memo *m = &x->memo;
	if (!m->ip) {
		for (size_t i = st->n; i-- > 0 && *n < x->cap;) {
			if (st->frames[i].kernel && x->deferring)
				hold_kernel(x, st->frames[i].ip, n);
			else
				add_frame(x, s, pid, &st->frames[i], inl, n);
		}
		return;
	}
	size_t d = memo_match(m, st, pid, inl, *n), keep = SIZE_MAX;
	m->start = *n;
	if (d)
		*n = m->end[d - 1];
	for (; d < st->n && *n < x->cap; d++) {
		const struct unwind_frame *f = &st->frames[st->n - 1 - d];
		if (f->kernel && x->deferring) {
			keep = d < keep ? d : keep; /* the memo stops before placeholders */
			hold_kernel(x, f->ip, n);
		} else {
			add_frame_cached(x, s, pid, f, inl, n);
		}
		m->ip[d] = *f;
		m->end[d] = (uint32_t)*n;
	}
	m->depth = d < keep ? d : keep;
	m->pid = pid;
	m->inl = inl;
}

static void reverse_frames(struct trie_frame *f, size_t n)
{
	for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
		struct trie_frame t = f[i];
		f[i] = f[j - 1];
		f[j - 1] = t;
	}
}

/* The locprof's sample: its locations leaf first. */
static void add_locprof_sample(struct profile_ctx *x, const struct session_sample *smp,
			       uint64_t value)
{
	u32_vec *l = &x->locs;
	for (size_t i = 0, j = l->n; i + 1 < j; i++, j--) {
		uint32_t t = l->v[i];
		l->v[i] = l->v[j - 1];
		l->v[j - 1] = t;
	}
	const struct event *ev = smp->ev;
	locprof_sample(x->lp, smp->th->comm, ev->sid.pid, ev->sid.tid, l->v, l->n,
		       value);
}

static bool is_offcpu(const struct event *ev)
{
	return ev->attr && ev->attr->name && !strcmp(ev->attr->name, OFFCPU_EVENT);
}

/* An on-CPU sample's time in ns: a clock event's period, else the
 * sampling interval of its frequency; 0 when neither says. */
static uint64_t oncpu_ns(const struct event *ev)
{
	const struct perf_event_attr *a = ev->attr ? &ev->attr->attr : NULL;
	if (!a)
		return 0;
	if (a->type == PERF_TYPE_SOFTWARE &&
	    (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK))
		return ev->u.sample.period;
	if (a->freq && a->sample_freq)
		return 1000000000ULL / a->sample_freq;
	return 0;
}

/* A sample's weight in the view; 0 leaves it out. */
static uint64_t sample_weight(struct profile_ctx *x, const struct event *ev, bool off)
{
	switch (x->o->weight) {
	case PROFILE_WEIGHT_SAMPLES:
		if (off)
			x->st->offcpu_skipped++;
		return off ? 0 : 1;
	case PROFILE_WEIGHT_OFFCPU:
		if (!off)
			x->st->other_skipped++;
		return off ? ev->u.sample.period : 0;
	case PROFILE_WEIGHT_WALL: {
		uint64_t w = off ? ev->u.sample.period : oncpu_ns(ev);
		if (!w && !off)
			x->st->wall_untimed++;
		return w;
	}
	}
	return 0;
}

/* The leaf frame of an offcpu-time sample: its state, when the id says. */
static struct trie_frame offcpu_frame(struct strtab *strs, const struct event *ev)
{
	char name[16] = PROFILE_OFFCPU_FRAME, st = offcpu_id_state(ev->sid.id);
	if (st > ' ' && st < 127)
		snprintf(name, sizeof(name), "[off-cpu: %c]", st);
	return (struct trie_frame){ strtab_intern_str(strs, name), FRAME_OFFCPU };
}

/* A sample's trie frames into the trie (reversed with o->reverse); the
 * leaf's node. */
static uint32_t add_to_trie(struct profile_ctx *x, struct trie_frame *frames, size_t n,
			    uint64_t weight, bool counted, uint64_t value)
{
	if (x->o->reverse)
		reverse_frames(frames, n);
	uint32_t leaf = x->o->chart ? trie_chart_add(x->t, &x->chart, frames, n, weight)
				    : trie_add(x->t, frames, n, weight);
	if (x->o->periods && counted)
		add_period(&x->periods, x->t, value, leaf);
	return leaf;
}

/* Hold the sample built in x->frames[0..n) (its kernel frames from kfirst
 * on in deferred.kernel, their places relative to x->frames). */
static void hold_sample(struct profile_ctx *x, size_t n, size_t kfirst, uint32_t pid,
			bool counted, uint64_t weight, uint64_t value)
{
	struct deferred *d = &x->deferred;
	uint32_t first = (uint32_t)d->frames.n;
	HVEC_RESERVE(&d->frames, d->frames.n + n);
	memcpy(d->frames.v + first, x->frames, n * sizeof(*x->frames));
	d->frames.n += n;
	for (size_t i = kfirst; i < d->kernel.n; i++)
		d->kernel.v[i].at += first;
	HVEC_PUSH(&d->samples,
		  ((struct deferred_sample){ first, (uint32_t)n, (uint32_t)kfirst,
					    (uint32_t)(d->kernel.n - kfirst), pid, counted, weight,
					    value }));
}

/* The held samples get their kernel frames (waiting for the symbols if
 * they are still read) and go into the trie, in their order. */
static int flush_deferred(void *ctx, struct session *s)
{
	struct profile_ctx *x = ctx;
	struct deferred *d = &x->deferred;
	for (size_t i = 0; i < d->samples.n; i++) {
		const struct deferred_sample *ds = &d->samples.v[i];
		for (uint32_t j = 0; j < ds->nk; j++) {
			const struct deferred_kernel *k = &d->kernel.v[ds->kfirst + j];
			struct sym sym;
			session_symbolize(s, ds->pid, k->ip, true, &sym);
			const struct trie_frame *fr;
			struct trie_frame one;
			sym_frames(x, s, &sym, false, &one, &fr);
			d->frames.v[k->at] = fr[0];
		}
		add_to_trie(x, d->frames.v + ds->first, ds->n, ds->weight, ds->counted, ds->value);
	}
	d->samples.n = d->frames.n = d->kernel.n = 0;
	return 0;
}

/*
 * One sample: its process frame, then its stack root first ([truncated]
 * when cut short), each frame symbolized and named; added to the trie
 * (and the locprof, the periods), or held (struct deferred).
 */
static int on_sample(void *ctx, struct session *s, const struct session_sample *smp)
{
	struct profile_ctx *x = ctx;
	const struct profile_opts *o = x->o;
	const struct event *ev = smp->ev;
	struct deferred *d = &x->deferred;
	x->deferring = d->allowed && deferred_bytes(d) < DEFER_MAX_BYTES && session_kernel_waiting(s);
	if (d->samples.n && !x->deferring)
		flush_deferred(x, s);
	bool off = is_offcpu(ev);
	x->st->offcpu_samples += off;
	uint64_t weight = sample_weight(x, ev, off);
	if (!weight)
		return 0;
	x->st->samples++;
	if ((ev->attr && (ev->attr->attr.sample_type & PERF_SAMPLE_CALLCHAIN)) || smp->dwarf)
		x->st->with_stacks++;
	bool counted = (o->periods || x->lp) && period_counts(x->st, ev, o->weight);
	uint64_t value = o->weight ? weight : ev->u.sample.period;
	x->frames[0] = process_frame(&x->pcache, x->strs, smp->th->comm, ev->sid.pid, ev->sid.tid,
				     &o->frames);
	const struct unwind_stack *stack = session_stack(s, smp);
	bool inl = wants_inlines(o, smp);
	size_t n = 1, kfirst = d->kernel.n;
	x->locs.n = 0;
	if (stack->truncated) {
		x->st->truncated++;
		x->frames[n++] = (struct trie_frame){ x->truncated_name, FRAME_UNKNOWN };
	}
	add_stack(x, s, ev->sid.pid, stack, inl, &n);
	if (off && n < x->cap) {
		x->frames[n++] = offcpu_frame(x->strs, ev);
		if (x->lp && x->lp->want_samples) /* the state is pprof's leaf too */
			VEC_PUSH(&x->locs, locprof_named(x->lp, x->frames[n - 1].name));
	}
	if (d->kernel.n > kfirst || d->samples.n) {
		hold_sample(x, n, kfirst, ev->sid.pid, counted, weight, value);
		return 0;
	}
	if (x->lp && x->lp->want_samples)
		add_locprof_sample(x, smp, counted ? value : 0);
	uint32_t leaf = add_to_trie(x, x->frames, n, weight, counted, value);
	if (x->lp && x->lp->want_times)
		locprof_time(x->lp, leaf, ev->sid.time, ev->sid.has_time);
	return 0;
}

static int on_end(void *ctx, struct session *s)
{
	struct profile_ctx *x = ctx;
	flush_deferred(x, s);
	x->st->periods = x->periods.v;
	x->st->nperiods = x->periods.n;
	x->periods.v = NULL;
	if (x->lp)
		name_locprof_mappings(x->lp, &s->dsos, x->strs, s->h);
	if (x->o->chart)
		trie_chart_finish(x->t, &x->chart);
	x->st->unknown_records = perf_reader_stats(s->r)->unknown_records;
	x->st->partial = s->partial;
	return 0;
}

void profile_session_opts(const struct profile_opts *o, struct strtab *strs,
			  struct session_opts *so)
{
	memset(so, 0, sizeof(*so));
	so->input = o->input;
	so->env = o->env;
	so->symfs = o->symfs;
	so->debug_dir = o->debug_dir;
	so->no_demangle = o->no_demangle;
	/* /proc/kallsyms on its own thread from the start (the kernel formats
	 * it slowly: 10-15% of a DWARF collapse's CPU), joined at the first
	 * kernel frame. */
	so->prefetch_kallsyms = true;
	/* Trie frames are names: no line tables, unless the exports want lines. */
	so->names_only = !o->locprof;
	so->strs = strs;
}

/* Bytes of perf.data per trie node reserved before reading (a hint). */
#define PROFILE_DATA_PER_NODE 1024

int profile_load(struct session *s, const struct profile_opts *o, struct trie *t,
		 struct profile_stats *st)
{
	memset(st, 0, sizeof(*st));
	struct profile_ctx x;
	ctx_init(&x, o, s->strs, t, st);
	/* Room for the trie's nodes, from the data's size (compile.data: a
	 * node per ~1.5-2 KB): past 2 MiB in huge pages, not grown by copies. */
	if (s->h)
		trie_reserve(t, (size_t)(s->h->data_size / PROFILE_DATA_PER_NODE));
	struct session_consumer c = {
		.ctx = &x,
		.on_event = on_event,
		.on_sample = on_sample,
		.on_end = on_end,
		.on_kernel_change = flush_deferred,
		.unwind_all = true,
	};
	int err = session_run(s, &c);
	ctx_release(&x);
	return err;
}
