/*
 * annotate: samples onto instructions, instructions onto source lines
 * (annotate, L6). One pass over the samples (binary search into the
 * instructions), one srcline lookup per instruction (cached there), one
 * hash of (file, line) for the per-line totals, then the unit's file
 * table and the source files it names, each read once.
 */
#include "annotate/annotate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/hashmap.h"
#include "base/xalloc.h"

double annotate_percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void add_note(struct annotation *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(struct annotation *a, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < a->notes.n; i++)
		if (!strcmp(a->notes.v[i], buf))
			return;
	VEC_PUSH(&a->notes, xstrdup(buf));
}

static void place_samples(struct annotation *a, const struct annotate_req *r)
{
	for (size_t i = 0; i < r->nsamples; i++) {
		const struct annotate_sample *s = &r->samples[i];
		size_t at = disasm_find(&a->dis, s->addr);
		if (at == SIZE_MAX) {
			a->outside_samples += s->samples;
			a->outside_period += s->period;
		} else {
			a->insns.v[at].samples += s->samples;
			a->insns.v[at].period += s->period;
		}
		a->samples += s->samples;
		a->period += s->period;
	}
}

static void place_lines(struct annotation *a, const struct annotate_req *r)
{
	for (size_t i = 0; i < a->insns.n; i++) {
		struct annotate_insn *in = &a->insns.v[i];
		const struct a2l_rec *recs;
		size_t n = srclines_a2l(r->lines, r->dso, a->dis.insns.v[i].addr, &recs);
		if (!n)
			continue;
		in->file = recs[0].file;
		in->line = recs[0].line;
		in->func = recs[0].func;
		in->depth = (uint16_t)(n - 1);
	}
}

static int line_cmp(const void *pa, const void *pb, void *strs)
{
	const struct annotate_line *x = pa, *y = pb;
	const struct strtab *sort_strs = strs;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->file != y->file) {
		const char *fx = x->file == SRCLINE_NONE ? "" : strtab_get(sort_strs, x->file);
		const char *fy = y->file == SRCLINE_NONE ? "" : strtab_get(sort_strs, y->file);
		int c = strcmp(fx, fy);
		if (c)
			return c;
		return x->file < y->file ? -1 : 1;
	}
	return x->line < y->line ? -1 : x->line > y->line;
}

static void line_totals(struct annotation *a, const struct annotate_req *r)
{
	struct hashmap at;

	hashmap_init(&at);
	for (size_t i = 0; i < a->insns.n; i++) {
		const struct annotate_insn *in = &a->insns.v[i];
		if (in->file == SRCLINE_NONE)
			continue;
		bool fresh;
		uint64_t *slot = hashmap_slot(&at, (uint64_t)in->file << 32 | in->line, a->lines.n, &fresh);
		if (fresh) {
			struct annotate_line l = { .file = in->file, .line = in->line, .src = -1 };
			VEC_PUSH(&a->lines, l);
		}
		a->lines.v[*slot].samples += in->samples;
		a->lines.v[*slot].period += in->period;
		a->lines.v[*slot].insns++;
	}
	hashmap_release(&at);
	if (a->lines.n)
		qsort_r(a->lines.v, a->lines.n, sizeof(a->lines.v[0]), line_cmp, r->strs);
}

static void add_unit_path(void *ctx, const char *path)
{
	struct source_set *s = ctx;
	VEC_PUSH(&s->cu_paths, xstrdup(path));
}

static void read_sources(struct annotation *a, const struct annotate_req *r, struct dso *d)
{
	char path[4096];
	const char *symfile = dso_symbols_path(r->dsos, d, path, sizeof(path));
	struct hashmap seen; /* file id -> 1 + source index (0: none) */

	if (!a->lines.n)
		return;
	/* The unit's file table through srclines' open DWARF handle (read
	 * once per binary); the file itself when srclines has none. */
	if (srclines_unit_files(r->lines, r->dso, r->start, add_unit_path, &a->sources) &&
	    (!symfile || source_set_load_unit(&a->sources, symfile, r->start))) {
		add_note(a, "no source file names in the debug info of %s", d->path);
		return;
	}
	hashmap_init(&seen);
	for (size_t i = 0; i < a->insns.n; i++) {
		struct annotate_insn *in = &a->insns.v[i];
		uint64_t idx;
		if (in->file == SRCLINE_NONE)
			continue;
		if (!hashmap_get(&seen, in->file, &idx)) {
			const char *base = strtab_get(r->strs, in->file);
			const char *full = source_set_unit_path(&a->sources, base);
			idx = 0;
			if (!full) {
				add_note(a, "source file %s: no path in the debug info", base);
			} else {
				size_t s = source_set_add(&a->sources, full, &r->src);
				if (a->sources.v.v[s].found)
					idx = s + 1;
				else
					add_note(a, "source file %s not found",
						 a->sources.v.v[s].path);
			}
			hashmap_put(&seen, in->file, idx);
		}
		in->src = (int32_t)idx - 1;
	}
	for (size_t i = 0; i < a->lines.n; i++) {
		uint64_t idx;
		if (hashmap_get(&seen, a->lines.v[i].file, &idx))
			a->lines.v[i].src = (int32_t)idx - 1;
	}
	hashmap_release(&seen);
}

int annotation_build(struct annotation *a, const struct annotate_req *r)
{
	memset(a, 0, sizeof(*a));
	source_set_init(&a->sources);
	a->name = SRCLINE_NONE;

	struct dso *d = dso_set_get(r->dsos, r->dso);
	const struct elf_image *img = d->kind == DSO_FILE ? dso_image(r->dsos, d) : NULL;
	if (!img)
		return err_set(-ENOENT, "%s: no binary to read the code of", d->path);
	const struct elf_image *syms = dso_symbols(r->dsos, d);
	disasm_sym_fn fn = r->sym ? r->sym : disasm_elf_sym;
	void *ctx = r->sym ? r->sym_ctx : (void *)(uintptr_t)syms;
	int err = disasm_range(&a->dis, img, r->start, r->size, fn, ctx);
	if (err == -ENODATA)
		return err_set(err, "%s: %s", d->path, err_last()->msg);
	if (err)
		return err;

	uint64_t start;
	const char *name = syms ? elf_image_lookup(syms, r->start, &start) : NULL;
	if (name && start == r->start)
		a->name = strtab_intern_str(r->strs, name);

	VEC_RESERVE(&a->insns, a->dis.insns.n);
	for (size_t i = 0; i < a->dis.insns.n; i++) {
		struct annotate_insn in = { .file = SRCLINE_NONE, .func = SRCLINE_NONE, .src = -1 };
		VEC_PUSH(&a->insns, in);
	}
	place_samples(a, r);
	if (r->lines) {
		place_lines(a, r);
		line_totals(a, r);
		if (!a->lines.n)
			add_note(a, "no source lines for %s", d->path);
		else if (!r->no_source)
			read_sources(a, r, d);
	}
	return 0;
}

void annotation_release(struct annotation *a)
{
	disasm_release(&a->dis);
	VEC_FREE(&a->insns);
	VEC_FREE(&a->lines);
	source_set_release(&a->sources);
	for (size_t i = 0; i < a->notes.n; i++)
		free(a->notes.v[i]);
	VEC_FREE(&a->notes);
}
