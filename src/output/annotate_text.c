/*
 * annotate_text: perf annotate --stdio's text of an annotation (output,
 * L7). Everything is computed before writing; the stream's error flag
 * decides the result.
 */
#include "output/annotate_text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/vec.h"
#include "base/xalloc.h"

/* perf's graph_dotted_line: the dashes under the header stop there. */
#define DOTTED_MAX 207

static int hex_width(uint64_t v)
{
	int w = 1;
	while (v >>= 4)
		w++;
	return w;
}

static int finish(FILE *f)
{
	return ferror(f) ? -EIO : 0;
}

static const char *func_text(const struct annotate_text_opts *o, const struct strtab *strs,
			     uint32_t id)
{
	const char *n = o->func_name ? o->func_name(o->func_ctx, id) : NULL;
	return n ? n : strtab_get(strs, id);
}

static void source_row(FILE *f, const struct annotation *a, const struct strtab *strs,
		       const struct annotate_insn *in, int aw)
{
	size_t len = 0;
	const char *text = NULL;

	if (in->src >= 0)
		text = source_line(&a->sources.v.v[in->src], in->line, &len);
	if (text) {
		while (len && (*text == ' ' || *text == '\t'))
			text++, len--;
		fprintf(f, " %8s: %-*" PRIu32 " %.*s\n", "", aw, in->line, (int)len, text);
	} else {
		fprintf(f, " %8s: %-*" PRIu32 " %s:%" PRIu32 "\n", "", aw, in->line,
			strtab_get(strs, in->file), in->line);
	}
}

/* The header line ("WHAT DSO for EVENT (N samples, ...)"), the dashes, the notes. */
static void write_header(FILE *f, const struct annotation *a, const struct annotate_text_opts *o,
			 const char *what)
{
	int hl = fprintf(f, " %-8.8s|\t%s %s for %s (%" PRIu64 " samples, percent: %s)\n",
			 "Percent", what, o->dso_name, o->event, a->samples,
			 o->percent_type ? o->percent_type : "local period");
	for (int i = 0; i < hl; i++)
		fputc(i < DOTTED_MAX ? '-' : ' ', f);
	fputs("----\n", f);
	for (size_t i = 0; i < a->notes.n; i++)
		fprintf(f, " %8s: note: %s\n", "", a->notes.v[i]);
}

int annotate_text_write(FILE *f, const struct annotation *a, const struct strtab *strs,
			const struct annotate_text_opts *o)
{
	const struct disasm *d = &a->dis;
	uint64_t top = d->insns.n ? d->insns.v[d->insns.n - 1].addr : d->start;
	int aw = hex_width(top);
	/* objdump's tab after "ADDR:", expanded by perf: to the next multiple
	 * of 8 columns from the address field's start. */
	int gap = 8 - (aw + 1) % 8;
	char text[DISASM_MNEMONIC_MAX + DISASM_OPS_MAX + 2];

	write_header(f, a, o, "Source code & Disassembly of");
	fprintf(f, " %8s:\n", "");
	if (a->name != SRCLINE_NONE)
		fprintf(f, " %8s: %016" PRIx64 " <%s>:\n", "", d->start, func_text(o, strs, a->name));

	uint32_t func = SRCLINE_NONE, file = SRCLINE_NONE, line = 0;
	for (size_t i = 0; i < d->insns.n; i++) {
		const struct disasm_insn *di = &d->insns.v[i];
		const struct annotate_insn *in = &a->insns.v[i];
		if (!o->no_source && in->file != SRCLINE_NONE) {
			if (in->func != func && in->func != SRCLINE_NONE)
				fprintf(f, " %8s: %s():\n", "", func_text(o, strs, in->func));
			if (in->file != file || in->line != line || in->func != func)
				source_row(f, a, strs, in, aw);
			func = in->func;
			file = in->file;
			line = in->line;
		}
		disasm_insn_text(di, text, sizeof(text));
		fprintf(f, " %7.2f :   %*" PRIx64 ":%*s%s\n", annotate_percent(in->period, a->period),
			aw, di->addr, gap, "", text);
	}
	return finish(f);
}

struct sum_row {
	uint32_t file, line;
	uint64_t period;
};

static int sum_cmp(const void *pa, const void *pb, void *strs)
{
	const struct sum_row *x = pa, *y = pb;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	int c = strcmp(strtab_get(strs, x->file), strtab_get(strs, y->file));
	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

int annotate_text_write_lines(FILE *f, const struct annotation *a, const struct strtab *strs,
			      const char *dso_path, bool perf_threshold)
{
	VEC(struct sum_row) rows = { 0 };
	struct hashmap at;

	hashmap_init(&at);
	for (size_t i = 0; i < a->insns.n; i++) {
		const struct annotate_insn *in = &a->insns.v[i];
		if (in->file == SRCLINE_NONE || !in->period)
			continue;
		if (perf_threshold && annotate_percent(in->period, a->period) <= 0.5)
			continue;
		bool fresh;
		uint64_t *slot = hashmap_slot(&at, (uint64_t)in->file << 32 | in->line, rows.n, &fresh);
		if (fresh) {
			struct sum_row r = { in->file, in->line, 0 };
			VEC_PUSH(&rows, r);
		}
		rows.v[*slot].period += in->period;
	}
	hashmap_release(&at);
	if (rows.n)
		qsort_r(rows.v, rows.n, sizeof(rows.v[0]), sum_cmp, (void *)(uintptr_t)strs);

	fprintf(f, "\nSorted summary for file %s\n", dso_path);
	fprintf(f, "----------------------------------------------\n\n");
	if (!rows.n)
		fprintf(f, " Nothing higher than %1.1f%%\n", 0.5);
	for (size_t i = 0; i < rows.n; i++)
		fprintf(f, " %7.2f %s:%" PRIu32 "\n", annotate_percent(rows.v[i].period, a->period),
			strtab_get(strs, rows.v[i].file), rows.v[i].line);
	VEC_FREE(&rows);
	return finish(f);
}

int annotate_text_write_by_line(FILE *f, const struct annotation *a, const struct strtab *strs,
				const struct annotate_text_opts *o)
{
	char loc[4096];
	int lw = 0;

	write_header(f, a, o, "Source lines of");
	if (a->name != SRCLINE_NONE)
		fprintf(f, " %8s: %016" PRIx64 " <%s>:\n", "", a->dis.start,
			func_text(o, strs, a->name));
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < a->lines.n; i++) {
			const struct annotate_line *l = &a->lines.v[i];
			if (!l->period)
				continue;
			int n = snprintf(loc, sizeof(loc), "%s:%" PRIu32, strtab_get(strs, l->file),
					 l->line);
			if (!pass) {
				lw = n > lw ? n : lw;
				continue;
			}
			size_t len = 0;
			const char *text = NULL;
			if (l->src >= 0 && !o->no_source)
				text = source_line(&a->sources.v.v[l->src], l->line, &len);
			while (text && len && (*text == ' ' || *text == '\t'))
				text++, len--;
			if (text)
				fprintf(f, " %7.2f : %-*s   %.*s\n", annotate_percent(l->period, a->period),
					lw, loc, (int)len, text);
			else
				fprintf(f, " %7.2f : %s\n", annotate_percent(l->period, a->period), loc);
		}
	}
	uint64_t unplaced = a->period;
	for (size_t i = 0; i < a->lines.n; i++)
		unplaced -= a->lines.v[i].period;
	if (unplaced && a->dis.insns.n)
		fprintf(f, " %7.2f : (no source line)\n", annotate_percent(unplaced, a->period));
	return finish(f);
}
