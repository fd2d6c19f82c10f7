/* profile: perf.data → stack trie (pipeline, L8). */
#include "pipeline/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/err.h"
#include "base/log.h"
#include "base/vec.h"
#include "base/xalloc.h"
#include "dso/dso.h"
#include "pipeline/readahead.h"
#include "proc/proc.h"
#include "source/perffile/perffile.h"
#include "symbolize/symbolize.h"
#include "unwind/dwarf.h"
#include "unwind/unwind.h"

/* Use /proc/kallsyms only for a profile of this very kernel: same release,
 * and (checked at the first kernel address) the same _text after KASLR. */
static bool same_kernel(const struct perf_header_info *h)
{
	struct utsname u;
	if (!h->osrelease)
		return true;
	return uname(&u) == 0 && !strcmp(u.release, h->osrelease);
}

static void check_kaslr(struct machine *m, struct dso_set *dsos, bool *checked)
{
	*checked = true;
	const struct kallsyms *ks = dso_kallsyms(dsos);
	uint64_t text;
	if (!ks || !m->kernel_text || !kallsyms_find(ks, "_text", &text))
		return;
	if (text != m->kernel_text) {
		log_warn("the recorded kernel was loaded at 0x%llx, the running one at 0x%llx "
			 "(another boot): kernel frames will show as [kernel.kallsyms]",
			 (unsigned long long)m->kernel_text, (unsigned long long)text);
		dso_set_use_kallsyms(dsos, false);
		kallsyms_free(dsos->ksyms);
		dsos->ksyms = NULL;
	}
}

/* Read and unwind on a second thread (readahead.h) for a file input (pipe
 * mode adds attrs while reading) of at least READAHEAD_MIN bytes when
 * there is a second CPU: the thread opens the binaries a second time,
 * which small inputs do not repay. KILN_THREADS=1 never, =2 always (for
 * a file). The output is the same either way. */
#define READAHEAD_MIN ((off_t)32 << 20)

static bool use_readahead(const struct perf_header_info *h, const char *input, int threads)
{
	struct stat st;
	if (h->pipe_mode || threads == 1)
		return false;
	if (threads == 2)
		return true;
	return sysconf(_SC_NPROCESSORS_ONLN) > 1 && stat(input, &st) == 0 &&
	       st.st_size >= READAHEAD_MIN;
}

/* Frame names per (symbol, dso, mode): naming builds and interns a string,
 * so it is done once per distinct symbol (the key is exact, not a hash). */
static struct trie_frame cached_frame(struct hashmap *fc, struct strtab *strs,
				      const struct symbolizer *sz, const struct sym *sym,
				      const struct frame_opts *o)
{
	/* An exact key: name id (32 bits), dso id (31 bits), kernel (1 bit). */
	uint64_t key = ((uint64_t)sym->name << 32) | ((uint64_t)(sym->dso & 0x7fffffff) << 1) |
		       sym->kernel, v;
	if (sym->name == SYM_NONE || sym->dso == SYM_NONE || sym->dso > 0x7fffffff)
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
};

static void entry_frames_release(struct entry_frames *c)
{
	free(c->at[0].v);
	free(c->at[1].v);
	free(c->frames.v);
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
				VEC_PUSH(&c->frames, frame_for_inline(strs, &in[i], o));
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

/* Whether a sample's period counts: only the first event seen is summed. */
static bool period_counts(struct profile_stats *st, const struct event *ev)
{
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
static void add_period(struct period_vec *pv, const struct trie *t, const struct event *ev,
		       uint32_t leaf)
{
	if (pv->n < t->nodes.n) {
		VEC_RESERVE(pv, t->nodes.n);
		memset(pv->v + pv->n, 0, (t->nodes.n - pv->n) * sizeof(uint64_t));
		pv->n = t->nodes.n;
	}
	uint64_t p = ev->u.sample.period;
	pv->v[leaf] = pv->v[leaf] > UINT64_MAX - p ? UINT64_MAX : pv->v[leaf] + p;
}

/*
 * Note the dso of each symbol frame of a sample (frames[1..n) hold the
 * stack's frames outermost first, stack->frames leaf first). The lookup is
 * cached by symbolize, so asking again costs a hash probe.
 */
/* Note the binary a frame name was first found in (pprof's mappings). */
static void note_dso(struct hashmap *name_dso, uint32_t name, const struct sym *sym)
{
	if (sym->dso != SYM_NONE && !hashmap_get(name_dso, name, NULL))
		hashmap_put(name_dso, name, sym->dso);
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

static void collect_mappings(struct profile_stats *st, const struct hashmap *name_dso,
			     struct dso_set *dsos, const struct strtab *strs)
{
	size_t ndsos = dsos->v.n;
	uint32_t *dso_map;
	XALLOC_ARRAY(dso_map, ndsos ? ndsos : 1);
	memset(dso_map, 0, (ndsos ? ndsos : 1) * sizeof(*dso_map));
	uint64_t key, val;
	for (size_t pos = 0; hashmap_next(name_dso, &pos, &key, &val);)
		if (val < ndsos)
			dso_map[val] = 1;
	/*
	 * Binaries numbered in dso id order (deterministic, whatever the
	 * hashing), files first: pprof takes the first mapping for the main
	 * binary, and the executable is mapped before its libraries.
	 */
	for (size_t k = 0; k < 2 * ndsos; k++) {
		size_t d = k % ndsos;
		if (dso_map[d] != 1)
			continue;
		struct dso *ds = dso_set_get(dsos, (uint32_t)d);
		if ((ds->kind == DSO_FILE) != (k < ndsos))
			continue;
		XREALLOC_ARRAY(st->mappings, st->nmappings + 1);
		struct profile_mapping *pm = &st->mappings[st->nmappings++];
		pm->path = xstrdup(ds->path);
		build_id_hex(dsos, ds, pm->build_id);
		dso_map[d] = (uint32_t)st->nmappings + 1; /* 1 + index, and never 1 again */
	}
	st->nname_mapping = strs->n;
	XALLOC_ARRAY(st->name_mapping, st->nname_mapping ? st->nname_mapping : 1);
	memset(st->name_mapping, 0, (st->nname_mapping ? st->nname_mapping : 1) * sizeof(uint32_t));
	for (size_t pos = 0; hashmap_next(name_dso, &pos, &key, &val);)
		if (key < st->nname_mapping && val < ndsos)
			st->name_mapping[key] = dso_map[val] - 1;
	free(dso_map);
}

void profile_stats_release(struct profile_stats *st)
{
	free(st->periods);
	for (size_t i = 0; i < st->nmappings; i++)
		free(st->mappings[i].path);
	free(st->mappings);
	free(st->name_mapping);
	st->periods = NULL;
	st->mappings = NULL;
	st->name_mapping = NULL;
	st->nperiods = st->nmappings = st->nname_mapping = 0;
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
	size_t nl = symbolize_lines(sz, sym, ln, SRCLINE_MAX_INLINE);
	if (nl && nl == k)
		locprof_note_source(lp, sz, name, sym, ln, nl, nl - 1 - j);
	else if (nl && k == 1)
		locprof_note_source(lp, sz, name, sym, ln, nl, nl - 1);
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

int profile_load(const struct profile_opts *o, struct strtab *strs, struct trie *t,
		 struct profile_stats *st)
{
	memset(st, 0, sizeof(*st));
	struct perf_reader *r;
	int err = perf_reader_open(&r, o->input, NULL);
	if (err)
		return err;
	const struct perf_header_info *h = perf_reader_info(r);
	struct dso_set dsos;
	struct machine m;
	struct symbolizer sz;
	dso_set_init(&dsos);
	dsos.symfs = o->symfs;
	dsos.debug_dir = o->debug_dir;
	dsos.env = o->env;
	dso_set_use_kallsyms(&dsos, same_kernel(h));
	for (size_t i = 0; i < h->nbuild_ids; i++)
		if (h->build_ids[i].pid != -1 || h->build_ids[i].filename[0] == '/')
			dso_set_expect_build_id(&dsos, h->build_ids[i].filename,
						h->build_ids[i].id, h->build_ids[i].size);
	machine_init(&m, strs, &dsos);
	symbolizer_init(&sz, &m, strs);
	sz.no_demangle = o->no_demangle;
	/* Trie frames are names: no line tables, unless the exports want lines. */
	sz.src.names_only = !o->locprof;
	struct unwinder uw;
	unwinder_init(&uw, &m);
	unwinder_set_arch(&uw, h->arch);
	struct hashmap fcache;
	hashmap_init(&fcache);
	struct entry_frames ecache = { 0 };
	struct hashmap pcache;
	hashmap_init(&pcache);

	struct unwind_stack *stack = xmalloc(sizeof(*stack)); /* 16 KiB: off the C stack */
	size_t cap = UNWIND_MAX_FRAMES * 4 + 2; /* room for inline frames and [truncated] too */
	struct trie_frame *frames = xmalloc(sizeof(*frames) * cap);
	uint32_t truncated_name = strtab_intern_str(strs, PROFILE_TRUNCATED_FRAME);
	bool kaslr_checked = false;
	struct trie_chart chart = { 0 };
	struct period_vec periods = { 0 };
	struct hashmap name_dso; /* frame name id -> dso id it was first found in */
	hashmap_init(&name_dso);
	struct locprof *lp = o->locprof;
	u32_vec locs = { 0 }; /* the sample's location ids (locprof) */
	struct event ev;
	int rc;
	/* Unwinding on a second thread; not for a foreign architecture's
	 * file (nothing to unwind there, and its one warning is the main
	 * thread's to give: the reader thread is quiet). */
	struct readahead *ra = use_readahead(h, o->input, o->env ? o->env->threads : 0) && !uw.foreign_arch
				       ? readahead_start(r, true, o->symfs, o->debug_dir, o->env)
				       : NULL;
	while ((rc = ra ? readahead_next(ra, &ev, stack) : perf_reader_next(r, &ev)) == 1) {
		if (ev.type != PERF_RECORD_SAMPLE) {
			machine_apply(&m, &ev);
			if (ev.type == PERF_RECORD_LOST)
				st->lost += ev.u.lost.lost;
			else if (ev.type == PERF_RECORD_LOST_SAMPLES)
				st->lost_samples += ev.u.lost.lost;
			continue;
		}
		st->samples++;
		bool counted = (o->periods || lp) && period_counts(st, &ev);
		const struct thread *th = machine_thread(&m, ev.sid.pid, ev.sid.tid);
		frames[0] = process_frame(&pcache, strs, th->comm, ev.sid.pid, ev.sid.tid, &o->frames);
		if (!ra) /* else the reader thread unwound it */
			unwinder_sample(&uw, &ev, stack);
		uint64_t st_bits = ev.attr ? ev.attr->attr.sample_type : 0;
		bool inl = o->inline_mode == PROFILE_INLINE_ALL ||
			   (o->inline_mode == PROFILE_INLINE_DWARF &&
			    (st_bits & PERF_SAMPLE_REGS_USER) && (st_bits & PERF_SAMPLE_STACK_USER));
		size_t n = 1;
		locs.n = 0;
		if (stack->truncated) {
			st->truncated++;
			frames[n++] = (struct trie_frame){ truncated_name, FRAME_UNKNOWN };
		}
		for (size_t i = stack->n; i-- > 0 && n < cap;) {
			struct sym sym;
			if (stack->frames[i].kernel && !kaslr_checked)
				check_kaslr(&m, &dsos, &kaslr_checked);
			symbolize(&sz, ev.sid.pid, stack->frames[i].ip, stack->frames[i].kernel, &sym);
			if (lp && lp->want_samples)
				add_location(lp, &m, &sz, &locs, ev.sid.pid, &stack->frames[i], &sym);
			const struct trie_frame *fr;
			struct trie_frame one;
			size_t k = 1;
			if (sym.entry != SYM_NONE) {
				k = entry_frames(&ecache, &fcache, strs, &sz, &sym, &o->frames,
						 inl && !sym.kernel, &fr);
			} else {
				one = cached_frame(&fcache, strs, &sz, &sym, &o->frames);
				fr = &one;
			}
			for (size_t j = 0; j < k && n < cap; j++) { /* outermost first */
				frames[n] = fr[j];
				if (o->mappings)
					note_dso(&name_dso, frames[n].name, &sym);
				if (lp && lp->want_sources)
					note_source(lp, &sz, frames[n].name, &sym, k, j);
				n++;
			}
		}
		if (lp && lp->want_samples) {
			for (size_t i = 0, j = locs.n; i + 1 < j; i++, j--) { /* leaf first */
				uint32_t x = locs.v[i];
				locs.v[i] = locs.v[j - 1];
				locs.v[j - 1] = x;
			}
			locprof_sample(lp, th->comm, ev.sid.pid, ev.sid.tid, locs.v, locs.n,
				       counted ? ev.u.sample.period : 0);
		}
		if (o->reverse) {
			for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
				struct trie_frame x = frames[i];
				frames[i] = frames[j - 1];
				frames[j - 1] = x;
			}
		}
		uint32_t leaf = o->chart ? trie_chart_add(t, &chart, frames, n, 1)
					 : trie_add(t, frames, n, 1);
		if (lp && lp->want_times)
			locprof_time(lp, leaf, ev.sid.time, ev.sid.has_time);
		if (o->periods && counted)
			add_period(&periods, t, &ev, leaf);
	}
	readahead_stop(ra);
	st->periods = periods.v;
	st->nperiods = periods.n;
	if (o->mappings)
		collect_mappings(st, &name_dso, &dsos, strs);
	if (lp)
		name_locprof_mappings(lp, &dsos, strs, h);
	VEC_FREE(&locs);
	hashmap_release(&name_dso);
	if (o->chart)
		trie_chart_finish(t, &chart);
	const struct perf_reader_stats *rs = perf_reader_stats(r);
	st->unknown_records = rs->unknown_records;
	st->partial = perf_reader_partial(r) || rc < 0;
	if (st->partial)
		err_restore(perf_reader_error(r));
	free(stack);
	free(frames);
	unwinder_release(&uw);
	hashmap_release(&fcache);
	entry_frames_release(&ecache);
	hashmap_release(&pcache);
	symbolizer_release(&sz);
	machine_release(&m);
	dso_set_release(&dsos);
	perf_reader_free(r);
	return 0;
}
