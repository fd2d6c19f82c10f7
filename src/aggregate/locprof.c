/* locprof: a profile by address, for the exports (aggregate, L6). */
#include "aggregate/locprof.h"

#include <string.h>

void locprof_init(struct locprof *lp, struct strtab *strs)
{
	memset(lp, 0, sizeof(*lp));
	lp->strs = strs;
	lp->inlines = true;
	hashmap_init(&lp->map_of);
	hashmap_init(&lp->loc_of);
	hashmap_init(&lp->sample_of);
	hashmap_init(&lp->decl_of);
	hashmap_init(&lp->src_of);
}

void locprof_release(struct locprof *lp)
{
	VEC_FREE(&lp->maps);
	VEC_FREE(&lp->locs);
	VEC_FREE(&lp->lines);
	VEC_FREE(&lp->stacks);
	VEC_FREE(&lp->samples);
	VEC_FREE(&lp->decls);
	VEC_FREE(&lp->srcs);
	VEC_FREE(&lp->times);
	hashmap_release(&lp->map_of);
	hashmap_release(&lp->loc_of);
	hashmap_release(&lp->sample_of);
	hashmap_release(&lp->decl_of);
	hashmap_release(&lp->src_of);
}

/*
 * The tables are keyed by a hash of their fields; a hash slot holds one
 * entry, and a different entry with the same hash probes the next key
 * (h + 1, ...). 'same' tells whether entry v - 1 has the fields looked for.
 */
#define PROBE(map, h, v, same)                                                                    \
	for (;; (h)++) {                                                                          \
		if (!hashmap_get((map), (h), &(v)))                                               \
			break;                                                                    \
		if (same)                                                                         \
			return (uint32_t)(v);                                                     \
	}

uint32_t locprof_mapping(struct locprof *lp, uint32_t dso, uint64_t start, uint64_t limit,
			 uint64_t offset)
{
	uint64_t h = hash_mix2(hash_mix2(dso, start), hash_mix2(limit, offset)), v;
	const struct lp_mapping *m;
	PROBE(&lp->map_of, h, v,
	      (m = &lp->maps.v[v - 1], m->dso == dso && m->start == start && m->limit == limit &&
					       m->offset == offset));
	struct lp_mapping nm = { start, limit, offset, dso, LOCPROF_NONE, LOCPROF_NONE, false };
	VEC_PUSH(&lp->maps, nm);
	hashmap_put(&lp->map_of, h, lp->maps.n);
	return (uint32_t)lp->maps.n;
}

/* The declaration of the function of a line (cached per (dso, raw name, file)). */
static struct lp_src decl_of(struct locprof *lp, struct symbolizer *sz, const struct sym *sym,
			     const struct sym_line *l)
{
	uint32_t raw = l->raw, file = l->file;
	uint64_t h = hash_mix2(hash_mix2(sym->dso, raw), file), v;
	for (;; h++) {
		if (!hashmap_get(&lp->decl_of, h, &v))
			break;
		const struct lp_decl_entry *e = &lp->decls.v[v];
		if (e->dso == sym->dso && e->raw == raw && e->file == file)
			return e->decl;
	}
	/* Unknown yet: read the declarations at this address, one per
	 * addr2line record when DWARF has as many function scopes as
	 * addr2line gave records. */
	struct lp_src src = { file == SRCLINE_NONE ? LOCPROF_NONE : file, 0 };
	if (l->nrec) {
		struct srcline_decl d[SRCLINE_MAX_INLINE];
		size_t nd = symbolize_decls(sz, sym, d, SRCLINE_MAX_INLINE);
		if (nd == l->nrec && l->rec < nd) {
			if (d[l->rec].file != SRCLINE_NONE)
				src.file = d[l->rec].file;
			src.line = d[l->rec].line;
		}
	}
	struct lp_decl_entry e = { sym->dso, raw, file, src };
	hashmap_put(&lp->decl_of, h, lp->decls.n);
	VEC_PUSH(&lp->decls, e);
	return src;
}

/* The location's lines: the frames folded stacks show for the address
 * (symbolize_lines), so pprof names every address as they do. */
static void read_lines(struct locprof *lp, struct symbolizer *sz, const struct sym *sym)
{
	struct sym_line ln[SRCLINE_MAX_INLINE];
	size_t n = symbolize_lines(sz, sym, lp->inlines, ln, SRCLINE_MAX_INLINE);
	for (size_t i = 0; i < n; i++) {
		struct lp_src decl = decl_of(lp, sz, sym, &ln[i]);
		struct lp_line l = { ln[i].name, ln[i].raw, decl.file, ln[i].line, decl.line };
		VEC_PUSH(&lp->lines, l);
	}
}

uint32_t locprof_location(struct locprof *lp, struct symbolizer *sz, uint32_t mapping, uint64_t ip,
			  const struct sym *sym)
{
	uint64_t h = hash_mix2(mapping, ip), v;
	const struct lp_location *l;
	PROBE(&lp->loc_of, h, v,
	      (l = &lp->locs.v[v - 1], l->mapping == mapping && l->address == ip));
	struct lp_location nl = { ip, mapping, (uint32_t)lp->lines.n, 0 };
	read_lines(lp, sz, sym);
	nl.nlines = (uint32_t)(lp->lines.n - nl.line0);
	VEC_PUSH(&lp->locs, nl);
	hashmap_put(&lp->loc_of, h, lp->locs.n);
	return (uint32_t)lp->locs.n;
}

uint32_t locprof_named(struct locprof *lp, uint32_t name)
{
	uint64_t h = hash_mix2(UINT32_MAX, name), v;
	const struct lp_location *l;
	PROBE(&lp->loc_of, h, v,
	      (l = &lp->locs.v[v - 1], l->mapping == 0 && l->address == 0 && l->nlines == 1 &&
	       lp->lines.v[l->line0].name == name));
	struct lp_location nl = { 0, 0, (uint32_t)lp->lines.n, 1 };
	struct lp_line ln = { .name = name, .raw = name, .file = LOCPROF_NONE };
	VEC_PUSH(&lp->lines, ln);
	VEC_PUSH(&lp->locs, nl);
	hashmap_put(&lp->loc_of, h, lp->locs.n);
	return (uint32_t)lp->locs.n;
}

void locprof_sample(struct locprof *lp, uint32_t comm, uint32_t pid, uint32_t tid,
		    const uint32_t *locs, size_t n, uint64_t period)
{
	uint64_t h = hash_mix2(hash_mix2(comm, pid), hash_mix2(tid, n)), v;
	for (size_t i = 0; i < n; i++)
		h = hash_mix2(h, locs[i]);
	for (;; h++) {
		if (!hashmap_get(&lp->sample_of, h, &v))
			break;
		struct lp_sample *s = &lp->samples.v[v];
		if (s->comm == comm && s->pid == pid && s->tid == tid && s->n == n &&
		    !memcmp(lp->stacks.v + s->at, locs, n * sizeof(*locs))) {
			s->count++;
			s->period = s->period > UINT64_MAX - period ? UINT64_MAX : s->period + period;
			return;
		}
	}
	struct lp_sample s = { comm, pid, tid, (uint32_t)n, lp->stacks.n, 1, period };
	VEC_RESERVE(&lp->stacks, lp->stacks.n + n);
	if (n)
		memcpy(lp->stacks.v + lp->stacks.n, locs, n * sizeof(*locs));
	lp->stacks.n += n;
	hashmap_put(&lp->sample_of, h, lp->samples.n);
	VEC_PUSH(&lp->samples, s);
}

void locprof_note_source(struct locprof *lp, struct symbolizer *sz, uint32_t name,
			 const struct sym *sym, const struct sym_line *lines, size_t n, size_t i)
{
	/* A line addr2line knows nothing of (kernel, JIT) leaves the name
	 * free for a function met later. */
	if (i >= n || !lines[i].nrec || hashmap_get(&lp->src_of, name, NULL))
		return;
	struct lp_src src = decl_of(lp, sz, sym, &lines[i]);
	hashmap_put(&lp->src_of, name, lp->srcs.n);
	VEC_PUSH(&lp->srcs, src);
}

const struct lp_src *locprof_source(const struct locprof *lp, uint32_t name)
{
	uint64_t v;
	return hashmap_get(&lp->src_of, name, &v) ? &lp->srcs.v[v] : NULL;
}

void locprof_time(struct locprof *lp, uint32_t leaf, uint64_t time, bool has_time)
{
	if (lp->untimed)
		return;
	if (!has_time || lp->times.n >= LOCPROF_MAX_TIMES) {
		lp->untimed = true;
		lp->times_over = has_time;
		VEC_FREE(&lp->times);
		return;
	}
	VEC_PUSH(&lp->times, ((struct lp_time){ time, leaf }));
}
