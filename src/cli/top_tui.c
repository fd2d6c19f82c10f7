/* top_tui: `kiln top` in the terminal browser (cli, L9). See top_tui.h. */
#include "cli/top_tui.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/hashmap.h"
#include "base/xalloc.h"
#include "base/err.h"
#include "cli/annotate_tui.h"
#include "cli/annotate_view.h"
#include "cli/hist_cols.h"
#include "output/report_text.h"
#include "tui/browser.h"

/*
 * Node values: an entry is known by a hash of its key (bit 63 clear, never
 * 0), so it keeps its selection and expanded state while the entries
 * decay, move and are dropped; a callchain node is bit 63 | its index.
 */
#define NODE_BIT ((uint64_t)1 << 63)

struct model {
	const struct top_tui *o;
	const struct hist *h; /* NULL before the first samples */
	struct top_stats st;
	VEC(uint32_t) shown;        /* entries shown: indices in h->entries */
	struct hashmap by_value;    /* entry value -> index in h->entries */
	struct hashmap entry_open;  /* entry values expanded */
	struct hashmap node_open;   /* node indices expanded */
	struct hist_cols cols; /* the key columns shown */
	struct buf text;
	long next_ms; /* monotonic ms of the next period's end */
	bool ended;
	/* zoom ('d', 't'): only the entries of one DSO, or one thread or command */
	enum { ZOOM_NONE, ZOOM_DSO, ZOOM_PID, ZOOM_COMM } zoom;
	uint32_t zoom_id; /* strtab id (dso, comm) or tid */
};

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double share(const struct model *m, uint64_t v)
{
	return hist_cols_share(m->h, v);
}

static uint64_t entry_value(const struct hist_entry *e)
{
	uint64_t v = hash_bytes(&e->k, sizeof(e->k)) & ~NODE_BIT;
	return v ? v : 1;
}

static const struct hist_entry *entry_of(const struct model *m, uint64_t v)
{
	uint64_t i;
	if (!m->h || !hashmap_get(&m->by_value, v, &i))
		return NULL;
	return &m->h->entries.v[i];
}

/* Whether the zoom keeps entry e. */
static bool zoomed_in(const struct model *m, const struct hist_entry *e)
{
	switch (m->zoom) {
	case ZOOM_DSO:
		return e->k.dso == m->zoom_id;
	case ZOOM_PID:
		return (uint32_t)e->k.pid == m->zoom_id;
	case ZOOM_COMM:
		return e->k.comm == m->zoom_id;
	default:
		return true;
	}
}

/* The entries to show, in order, and the key columns' widths. */
static void lay_out(struct model *m)
{
	m->shown.n = 0;
	hashmap_release(&m->by_value);
	hashmap_init(&m->by_value);
	m->cols.nkeys = 0;
	const struct hist *h = m->h;
	if (!h)
		return;
	hist_cols_init(&m->cols, h, NULL);
	for (size_t i = 0; i < hist_count(h); i++) {
		const struct hist_entry *e = hist_at(h, i);
		if (share(m, hist_entry_period(h, e)) < m->o->percent_limit || !zoomed_in(m, e))
			continue;
		uint32_t idx = h->order.v[i];
		VEC_PUSH(&m->shown, idx);
		hashmap_put(&m->by_value, entry_value(e), idx);
		hist_cols_widen(&m->cols, h, e);
	}
}

/* Node indices moved at the refresh: carry the expanded ones over. */
static void remap_nodes(struct model *m, const struct hist_remap *map)
{
	struct hashmap moved;
	hashmap_init(&moved);
	size_t pos = 0;
	uint64_t k, v;
	while (map && hashmap_next(&m->node_open, &pos, &k, &v))
		if (k < map->nnodes && map->node[k] != HIST_NONE)
			hashmap_put(&moved, map->node[k], 1);
	hashmap_release(&m->node_open);
	m->node_open = moved;
}

static int m_refresh(void *ctx)
{
	struct model *m = ctx;
	struct top *t = m->o->t;
	if (m->ended)
		return -1;
	bool done = top_poll(t, 0);
	if (done) {
		m->ended = true;
		return -1;
	}
	if (now_ms() < m->next_ms)
		return 0;
	m->next_ms = now_ms() + m->o->delay_ms;
	top_refresh(t, &m->st);
	if (m->o->refreshed)
		m->o->refreshed(m->o->arg, &m->st);
	m->h = top_hist(t);
	remap_nodes(m, top_remap(t));
	lay_out(m);
	return 1;
}

static void m_title(void *ctx, struct buf *out)
{
	struct model *m = ctx;
	m->o->header(m->o->arg, &m->st, out);
}

static void m_columns(void *ctx, struct buf *out)
{
	const struct model *m = ctx;
	hist_cols_header(&m->cols, m->h, out);
}

static size_t m_n_entries(void *ctx)
{
	const struct model *m = ctx;
	return m->shown.n;
}

static uint64_t m_entry(void *ctx, size_t i)
{
	const struct model *m = ctx;
	return entry_value(&m->h->entries.v[m->shown.v[i]]);
}

static uint32_t tree_of(const struct model *m, uint64_t v)
{
	if (v & NODE_BIT)
		return (uint32_t)(v & ~NODE_BIT);
	const struct hist_entry *e = entry_of(m, v);
	return e ? e->root : HIST_NONE;
}

static void kids_of(struct model *m, uint64_t v)
{
	bool chains = m->h && m->h->o.callchains;
	hist_cols_kids(&m->cols, m->h, chains ? tree_of(m, v) : HIST_NONE, m->o->threshold);
}

static size_t m_n_children(void *ctx, uint64_t node)
{
	struct model *m = ctx;
	kids_of(m, node);
	return m->cols.kids.n;
}

static uint64_t m_child(void *ctx, uint64_t node, size_t i)
{
	struct model *m = ctx;
	kids_of(m, node);
	return i < m->cols.kids.n ? NODE_BIT | m->cols.kids.v[i] : 0;
}

static void m_row(void *ctx, uint64_t node, struct browser_row *out)
{
	struct model *m = ctx;
	buf_reset(&m->text);
	out->text = "";
	if (!m->h)
		return;
	out->expandable = m_n_children(m, node) > 0;
	if (node & NODE_BIT) {
		uint32_t n = tree_of(m, node);
		if (n < m->h->nodes.n)
			hist_cols_node_row(m->h, n, &m->text, out);
		return;
	}
	const struct hist_entry *e = entry_of(m, node);
	if (e)
		hist_cols_entry_row(&m->cols, m->h, e, &m->text, out);
}

static bool m_expanded(void *ctx, uint64_t node)
{
	const struct model *m = ctx;
	uint64_t v;
	if (node & NODE_BIT)
		return hashmap_get(&m->node_open, node & ~NODE_BIT, &v) && v;
	return hashmap_get(&m->entry_open, node, &v) && v;
}

static void m_set_expanded(void *ctx, uint64_t node, bool on)
{
	struct model *m = ctx;
	if (node & NODE_BIT)
		hashmap_put(&m->node_open, node & ~NODE_BIT, on);
	else
		hashmap_put(&m->entry_open, node, on);
}

static bool has_key(const struct model *m, enum hist_sort k)
{
	return m->h && ((m->h->key_mask >> k) & 1);
}

static int m_zoom(void *ctx, uint64_t node, enum browser_zoom how, struct buf *msg)
{
	struct model *m = ctx;
	if (how == BROWSER_ZOOM_OUT || (m->zoom != ZOOM_NONE && how != BROWSER_ZOOM_SYMBOL)) {
		if (m->zoom == ZOOM_NONE)
			return 0;
		m->zoom = ZOOM_NONE; /* 'd' or 't' again: out */
		lay_out(m);
		return 1;
	}
	const struct hist_entry *e = (node & NODE_BIT) ? NULL : entry_of(m, node);
	if (!e) {
		buf_addstr(msg, "zoom from an entry's row");
		return 0;
	}
	if (how == BROWSER_ZOOM_DSO) {
		if (!has_key(m, HIST_DSO) && !has_key(m, HIST_SYM)) {
			buf_addstr(msg, "no DSO column to zoom to (-s dso)");
			return 0;
		}
		if (e->k.dso == HIST_NONE) {
			buf_addstr(msg, "this entry has no DSO");
			return 0;
		}
		m->zoom = ZOOM_DSO;
		m->zoom_id = e->k.dso;
	} else if (how == BROWSER_ZOOM_THREAD) {
		if (has_key(m, HIST_PID)) {
			m->zoom = ZOOM_PID;
			m->zoom_id = (uint32_t)e->k.pid;
		} else if (has_key(m, HIST_COMM)) {
			m->zoom = ZOOM_COMM;
			m->zoom_id = e->k.comm;
		} else {
			buf_addstr(msg, "no thread column to zoom to (-s pid or -s comm)");
			return 0;
		}
	} else {
		buf_addstr(msg, "zoom to a symbol: not in top");
		return 0;
	}
	lay_out(m);
	return 1;
}

static void m_status(void *ctx, struct buf *out)
{
	const struct model *m = ctx;
	if (!m->h || m->zoom == ZOOM_NONE)
		return;
	if (m->zoom == ZOOM_DSO) {
		buf_addf(out, "DSO: %s", strtab_get(m->h->strs, m->zoom_id));
	} else if (m->zoom == ZOOM_COMM) {
		buf_addf(out, "Command: %s", strtab_get(m->h->strs, m->zoom_id));
	} else {
		uint32_t c = hist_thread_comm(m->h, (int32_t)m->zoom_id);
		buf_addf(out, "Thread: %s (%u)", c == HIST_NONE ? "" : strtab_get(m->h->strs, c),
			 m->zoom_id);
	}
}

/* ---- annotate ('a'): the selected symbol, live ---- */

/* A page over the symbol's annotation, built again at every refresh. */
struct live_page {
	struct model *m;
	uint32_t dso, sym;        /* the row's keys (strtab ids; dso HIST_NONE: any) */
	struct textview_src text; /* the annotation as of the last refresh */
};

static int build_page(struct live_page *lp, struct buf *msg)
{
	struct top *t = lp->m->o->t;
	struct symhist h;
	symhist_init(&h);
	err_clear();
	int err = top_symhist(t, lp->dso, lp->sym, &h);
	if (err) {
		buf_addf(msg, "%s: %s", strtab_get(top_strs(t), lp->sym), err_last()->msg);
		symhist_release(&h);
		return err;
	}
	struct annotate_view v = { .s = top_session(t), .h = &h, .ao = { .no_source = true } };
	struct textview_src page;
	err = annotate_view_page(&v, &h.groups.v[0], &page, msg);
	symhist_release(&h);
	if (err)
		return err;
	if (lp->text.release)
		lp->text.release(lp->text.ctx);
	lp->text = page;
	return 0;
}

static size_t lp_n_lines(void *ctx)
{
	struct live_page *lp = ctx;
	return lp->text.n_lines(lp->text.ctx);
}

static const char *lp_line(void *ctx, size_t i, size_t *len)
{
	struct live_page *lp = ctx;
	return lp->text.line(lp->text.ctx, i, len);
}

static double lp_line_pct(void *ctx, size_t i)
{
	struct live_page *lp = ctx;
	return lp->text.line_pct ? lp->text.line_pct(lp->text.ctx, i) : -1;
}

static void lp_title(void *ctx, struct buf *out)
{
	struct live_page *lp = ctx;
	lp->text.title(lp->text.ctx, out);
	if (lp->m->ended)
		buf_addstr(out, "  (sampling ended)");
	else
		buf_addf(out, "  (live: every %.1fs)", lp->m->o->delay_ms / 1000.0);
}

/* The list's refresh; at a new period the annotation is built again (kept
 * as it was if the symbol has no samples left). */
static int lp_refresh(void *ctx)
{
	struct live_page *lp = ctx;
	int r = m_refresh(lp->m);
	if (r != 1)
		return 0;
	struct buf msg;
	buf_init(&msg, 4096);
	r = build_page(lp, &msg) == 0;
	buf_release(&msg);
	return r;
}

static void lp_release(void *ctx)
{
	struct live_page *lp = ctx;
	if (lp->text.release)
		lp->text.release(lp->text.ctx);
	free(lp);
}

static int m_annotate(void *ctx, uint64_t entry, uint64_t node, struct textview_src *page,
		      struct buf *msg)
{
	struct model *m = ctx;
	(void)entry;
	uint32_t sym = HIST_NONE, dso = HIST_NONE;
	if (m->h && (node & NODE_BIT)) {
		uint32_t n = tree_of(m, node);
		if (n < m->h->nodes.n) {
			sym = hist_node_frame(m->h, n)->sym;
			dso = hist_node_frame(m->h, n)->dso;
		}
	} else if (has_key(m, HIST_SYM)) {
		const struct hist_entry *e = entry_of(m, node);
		if (e) {
			sym = e->k.sym;
			dso = has_key(m, HIST_DSO) ? e->k.dso : HIST_NONE;
		}
	}
	if (sym == HIST_NONE) {
		buf_addstr(msg, has_key(m, HIST_SYM) || (node & NODE_BIT)
					? "no symbol here to annotate"
					: "annotation needs the sym sort key (-s ...,sym)");
		return -ENOENT;
	}
	struct live_page *lp = xcalloc(1, sizeof(*lp));
	lp->m = m;
	lp->dso = dso;
	lp->sym = sym;
	int err = build_page(lp, msg);
	if (err) {
		lp_release(lp);
		return err;
	}
	*page = (struct textview_src){ .ctx = lp, .n_lines = lp_n_lines, .line = lp_line,
				       .title = lp_title, .line_pct = lp_line_pct,
				       .refresh = lp_refresh, .release = lp_release };
	return 0;
}

static void m_help(void *ctx, struct buf *out)
{
	(void)ctx;
	buf_addstr(out, "Top\n\n"
			"  Enter, +            the selected entry's callchain (-g)\n"
			"  a                   annotate the selected row's symbol, live: its\n"
			"                      instructions with their shares, built again at\n"
			"                      every refresh (q or Esc: back to the list)\n"
			"  d, t                only the selected entry's DSO, thread (-s pid) or\n"
			"                      command (-s comm); again: all\n"
			"  q, Ctrl-C           quit (a -o file is finished first)\n");
}

int top_tui_run(const struct top_tui *o)
{
	struct model m = { .o = o };
	struct tui *t;
	int err = tui_open(&t, &(struct tui_opts){ .term = o->term });
	if (err)
		return err;
	struct stderr_aside sa;
	stderr_aside(&sa);
	buf_init(&m.text, 1 << 16);
	hashmap_init(&m.by_value);
	hashmap_init(&m.entry_open);
	hashmap_init(&m.node_open);
	m.next_ms = now_ms() + o->delay_ms;
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
		.refresh = m_refresh,
		.zoom = m_zoom,
		.annotate = m_annotate,
		.status = m_status,
		.help = m_help,
	};
	browser_run(t, &bm, &(struct browser_opts){ .refresh_ms = TOP_TUI_TICK_MS });
	tui_close(t);
	stderr_back(&sa);
	hashmap_release(&m.by_value);
	hashmap_release(&m.entry_open);
	hashmap_release(&m.node_open);
	VEC_FREE(&m.shown);
	VEC_FREE(&m.cols.kids);
	buf_release(&m.text);
	return 0;
}
