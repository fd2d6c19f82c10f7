/* hist_cols: a hist's entries as the browsers show them. See hist_cols.h. */
#include "cli/hist_cols.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/report_text.h"

void hist_cols_init(struct hist_cols *c, const struct hist *h, const bool *elide)
{
	c->nkeys = 0;
	for (size_t j = 0; j < h->o.nkeys; j++)
		if (!elide || !elide[h->o.keys[j]])
			c->keys[c->nkeys++] = (int)h->o.keys[j];
	for (size_t j = 0; j < c->nkeys; j++)
		c->width[j] = strlen(report_text_key_header(c->keys[j]));
}

void hist_cols_widen(struct hist_cols *c, const struct hist *h, const struct hist_entry *e)
{
	for (size_t j = 0; j + 1 < c->nkeys; j++) {
		char *p = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&p, &len);
		if (!f)
			continue;
		report_text_key(f, h, c->keys[j], &e->k, c->width[j], false);
		if (!fclose(f) && len > c->width[j])
			c->width[j] = len > HIST_COLS_MAX ? HIST_COLS_MAX : len;
		free(p);
	}
}

void hist_cols_header(const struct hist_cols *c, const struct hist *h, struct buf *out)
{
	if (h && h->o.children)
		buf_addstr(out, "Children    Self  ");
	else
		buf_addstr(out, "Overhead ");
	for (size_t j = 0; j < c->nkeys; j++) {
		if (j + 1 == c->nkeys)
			buf_addstr(out, report_text_key_header(c->keys[j]));
		else
			buf_addf(out, "%-*s  ", (int)c->width[j], report_text_key_header(c->keys[j]));
	}
}

double hist_cols_share(const struct hist *h, uint64_t v)
{
	return h && h->total ? 100.0 * (double)v / (double)h->total : 0.0;
}

/* e's key columns, each padded to its width, appended to out. */
static void keys_text(const struct hist_cols *c, const struct hist *h,
		      const struct hist_entry *e, struct buf *out)
{
	char *p = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&p, &len);
	if (!f)
		return;
	for (size_t j = 0; j < c->nkeys; j++) {
		report_text_key(f, h, c->keys[j], &e->k, c->width[j], j + 1 == c->nkeys);
		if (j + 1 < c->nkeys)
			fputs("  ", f);
	}
	if (!fclose(f))
		buf_add(out, p, len);
	free(p);
}

void hist_cols_entry_row(const struct hist_cols *c, const struct hist *h,
			 const struct hist_entry *e, struct buf *text, struct browser_row *out)
{
	buf_reset(text);
	keys_text(c, h, e, text);
	out->text = buf_str(text);
	if (e->k.sym != HIST_NONE && (h->key_mask >> HIST_SYM & 1))
		out->key = strtab_get(h->strs, e->k.sym);
	if (h->o.children) {
		out->pct[0] = hist_cols_share(h, e->children);
		out->pct[1] = hist_cols_share(h, e->self);
		out->n_pct = 2;
	} else {
		out->pct[0] = hist_cols_share(h, e->self);
		out->n_pct = 1;
	}
}

void hist_cols_kids(struct hist_cols *c, const struct hist *h, uint32_t tree, double threshold)
{
	c->kids.n = 0;
	if (!h || !h->o.callchains || tree == HIST_NONE || tree >= h->nodes.n)
		return;
	for (uint32_t n = hist_node(h, tree)->first_child; n != HIST_NONE;
	     n = hist_node(h, n)->next_sibling)
		if (hist_cols_share(h, hist_node(h, n)->cumul) >= threshold)
			VEC_PUSH(&c->kids, n);
}

void hist_cols_node_row(const struct hist *h, uint32_t n, struct buf *text,
			struct browser_row *out)
{
	buf_reset(text);
	const struct hist_frame *f = hist_node_frame(h, n);
	if (f->sym != HIST_NONE)
		buf_addstr(text, strtab_get(h->strs, f->sym));
	else
		buf_addf(text, "%#" PRIx64, f->ip);
	out->text = buf_str(text);
	out->pct[0] = hist_cols_share(h, hist_node(h, n)->cumul);
	out->n_pct = 1;
}
