/* report_tui: `kiln report` in the terminal browser (cli, L9). */
#include "cli/report_tui.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/xalloc.h"
#include "cli/annotate_tui.h"
#include "tui/browser.h"

#define COL_WIDTH_MAX 30

/*
 * Node values: entry i (in shown order) is i + 1; callchain node n is
 * (n + 1) << 32, above every entry value.
 */
#define NODE_BASE ((uint64_t)1 << 32)

struct model {
	const struct report_tui *r;
	const struct hist *h;
	VEC(uint32_t) shown;   /* entries shown: indices in hist order */
	bool *entry_open;      /* by shown index */
	bool *node_open;       /* by node index */
	VEC(uint32_t) kids;    /* scratch: a node's children above the threshold */
	int keys[HIST_MAX_KEYS];
	size_t nkeys;
	size_t width[HIST_MAX_KEYS];
	struct buf text;
};

static double share(const struct model *m, uint64_t v)
{
	return m->h->total ? 100.0 * (double)v / (double)m->h->total : 0.0;
}

static bool is_node(uint64_t v)
{
	return v >= NODE_BASE;
}

static const struct hist_entry *entry_of(const struct model *m, uint64_t v)
{
	return hist_at(m->h, m->shown.v[v - 1]);
}

/* e's key columns, each padded to its width, appended to out. */
static void keys_text(const struct model *m, const struct hist_entry *e, struct buf *out)
{
	char *p = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&p, &len);
	if (!f)
		return;
	for (size_t j = 0; j < m->nkeys; j++) {
		report_text_key(f, m->h, m->keys[j], &e->k, m->width[j], j + 1 == m->nkeys);
		if (j + 1 < m->nkeys)
			fputs("  ", f);
	}
	if (!fclose(f))
		buf_add(out, p, len);
	free(p);
}

static void m_title(void *ctx, struct buf *out)
{
	const struct model *m = ctx;
	buf_addf(out, "Samples: %" PRIu64 " of event '%s', Event count (approx.): %" PRIu64,
		 m->h->nsamples, m->r->event, m->h->total);
}

static void m_columns(void *ctx, struct buf *out)
{
	const struct model *m = ctx;
	if (m->h->o.children)
		buf_addstr(out, "Children    Self  ");
	else
		buf_addstr(out, "Overhead ");
	for (size_t j = 0; j < m->nkeys; j++) {
		if (j + 1 == m->nkeys)
			buf_addstr(out, report_text_key_header(m->keys[j]));
		else
			buf_addf(out, "%-*s  ", (int)m->width[j], report_text_key_header(m->keys[j]));
	}
}

static size_t m_n_entries(void *ctx)
{
	const struct model *m = ctx;
	return m->shown.n;
}

static uint64_t m_entry(void *ctx, size_t i)
{
	(void)ctx;
	return (uint64_t)i + 1;
}

/* The callchain node under which v's children hang. */
static uint32_t tree_of(const struct model *m, uint64_t v)
{
	return is_node(v) ? (uint32_t)((v >> 32) - 1) : entry_of(m, v)->root;
}

/* v's children above the threshold, into m->kids. */
static void kids_of(struct model *m, uint64_t v)
{
	m->kids.n = 0;
	if (!m->h->o.callchains)
		return;
	uint32_t t = tree_of(m, v);
	if (t == HIST_NONE)
		return;
	for (uint32_t c = hist_node(m->h, t)->first_child; c != HIST_NONE;
	     c = hist_node(m->h, c)->next_sibling)
		if (share(m, hist_node(m->h, c)->cumul) >= m->r->text->threshold)
			VEC_PUSH(&m->kids, c);
}

static size_t m_n_children(void *ctx, uint64_t node)
{
	struct model *m = ctx;
	kids_of(m, node);
	return m->kids.n;
}

static uint64_t m_child(void *ctx, uint64_t node, size_t i)
{
	struct model *m = ctx;
	kids_of(m, node);
	return i < m->kids.n ? ((uint64_t)m->kids.v[i] + 1) << 32 : 0;
}

static void m_row(void *ctx, uint64_t node, struct browser_row *out)
{
	struct model *m = ctx;
	buf_reset(&m->text);
	out->expandable = m_n_children(m, node) > 0;
	if (is_node(node)) {
		uint32_t n = tree_of(m, node);
		const struct hist_frame *f = hist_node_frame(m->h, n);
		if (f->sym != HIST_NONE)
			buf_addstr(&m->text, strtab_get(m->h->strs, f->sym));
		else
			buf_addf(&m->text, "%#" PRIx64, f->ip);
		out->text = buf_str(&m->text);
		out->pct[0] = share(m, hist_node(m->h, n)->cumul);
		out->n_pct = 1;
		return;
	}
	const struct hist_entry *e = entry_of(m, node);
	keys_text(m, e, &m->text);
	out->text = buf_str(&m->text);
	if (e->k.sym != HIST_NONE && (m->h->key_mask >> HIST_SYM & 1))
		out->key = strtab_get(m->h->strs, e->k.sym);
	if (m->h->o.children) {
		out->pct[0] = share(m, e->children);
		out->pct[1] = share(m, e->self);
		out->n_pct = 2;
	} else {
		out->pct[0] = share(m, e->self);
		out->n_pct = 1;
	}
}

static bool m_expanded(void *ctx, uint64_t node)
{
	const struct model *m = ctx;
	return is_node(node) ? m->node_open[tree_of(m, node)] : m->entry_open[node - 1];
}

static void m_set_expanded(void *ctx, uint64_t node, bool on)
{
	struct model *m = ctx;
	if (is_node(node))
		m->node_open[tree_of(m, node)] = on;
	else
		m->entry_open[node - 1] = on;
}

static int m_annotate(void *ctx, uint64_t entry, uint64_t node, struct textview_src *page,
		      struct buf *msg)
{
	(void)ctx, (void)entry, (void)node, (void)page;
	buf_addstr(msg, "annotate: use kiln annotate SYM");
	return -ENOTSUP;
}

static void m_help(void *ctx, struct buf *out)
{
	(void)ctx;
	buf_addstr(out, "Report\n\n"
			"  Enter, +            the selected entry's callchain\n");
}

/* The entries --stdio prints and the widths of its key columns. */
static void lay_out(struct model *m)
{
	const struct hist *h = m->h;
	for (size_t j = 0; j < h->o.nkeys; j++)
		if (!m->r->text->elide[h->o.keys[j]])
			m->keys[m->nkeys++] = (int)h->o.keys[j];
	for (size_t j = 0; j < m->nkeys; j++)
		m->width[j] = strlen(report_text_key_header(m->keys[j]));
	for (size_t i = 0; i < hist_count(h); i++) {
		const struct hist_entry *e = hist_at(h, i);
		if (share(m, hist_entry_period(h, e)) < m->r->text->percent_limit)
			continue;
		VEC_PUSH(&m->shown, (uint32_t)i);
		for (size_t j = 0; j + 1 < m->nkeys; j++) {
			char *p = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&p, &len);
			if (!f)
				continue;
			report_text_key(f, h, m->keys[j], &e->k, m->width[j], false);
			if (!fclose(f) && len > m->width[j])
				m->width[j] = len > COL_WIDTH_MAX ? COL_WIDTH_MAX : len;
			free(p);
		}
	}
}

int report_tui_run(const struct report_tui *r)
{
	struct model m = { .r = r, .h = r->h };
	struct tui *t;
	int err = tui_open(&t, &(struct tui_opts){ .term = r->term });
	if (err)
		return err;
	struct stderr_aside sa;
	stderr_aside(&sa);
	buf_init(&m.text, 1 << 16);
	lay_out(&m);
	m.entry_open = xcalloc(m.shown.n + 1, sizeof(*m.entry_open));
	m.node_open = xcalloc(r->h->nodes.n + 1, sizeof(*m.node_open));
	struct browser_model bm = {
		.ctx = &m,
		.title = m_title,
		.n_entries = m_n_entries,
		.entry = m_entry,
		.n_children = m_n_children,
		.child = m_child,
		.row = m_row,
		.expanded = m_expanded,
		.set_expanded = m_set_expanded,
		.columns = m_columns,
		.annotate = m_annotate,
		.help = m_help,
	};
	browser_run(t, &bm, &(struct browser_opts){0});
	tui_close(t);
	stderr_back(&sa);
	free(m.entry_open);
	free(m.node_open);
	VEC_FREE(&m.shown);
	VEC_FREE(&m.kids);
	buf_release(&m.text);
	return 0;
}
