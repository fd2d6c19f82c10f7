/* report_tui: `kiln report` in the terminal browser (cli, L9). */
#include "cli/report_tui.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/xalloc.h"
#include "cli/annotate_tui.h"
#include "cli/annotate_view.h"
#include "cli/hist_cols.h"
#include "tui/browser.h"
#include "tui/rows.h"

/*
 * Node values: entry i (in shown order) is i + 1; callchain node n is
 * (n + 1) << 32, above every entry value.
 */
#define NODE_BASE ((uint64_t)1 << 32)

/* What every event's list shares: the terminal and the annotations. */
struct shared {
	const struct report_tui *r;
	struct tui *t;
	struct annotate_source ann;
	int ann_err;           /* reading the file for 'a' failed: not tried again */
	char ann_why[1024];
};

/* The zoom in force: what was selected, copied (a zoom frees the hist it came from). */
struct zoom_state {
	struct tui_zooms z;
	char *dso, *sym;
	int32_t tid;
	char *thread; /* "comm(tid)" */
};

struct model {
	struct shared *sh;
	size_t ev;                 /* the event's index (its attr) */
	const char *event;         /* its name */
	struct zoom_state zs;
	struct report_data *zd;    /* the zoomed read, when zs.z.n (hists point into it: not moved) */
	struct report_text_opts text; /* the columns of the read shown */
	const struct hist *h;
	VEC(uint32_t) shown;   /* entries shown: indices in hist order */
	bool *entry_open;      /* by shown index */
	bool *node_open;       /* by node index */
	struct hist_cols cols; /* the key columns shown */
	struct buf text_buf;
};

static double share(const struct model *m, uint64_t v)
{
	return hist_cols_share(m->h, v);
}

static bool is_node(uint64_t v)
{
	return v >= NODE_BASE;
}

static const struct hist_entry *entry_of(const struct model *m, uint64_t v)
{
	return hist_at(m->h, m->shown.v[v - 1]);
}

static bool has_key(const struct hist *h, enum hist_sort k)
{
	return h->key_mask >> k & 1;
}

/* perf's title: "Samples: 4K of event 'cycles', Event count (approx.): N". */
static void samples_title(struct buf *out, uint64_t nsamples, const char *event)
{
	uint64_t v;
	char unit;
	report_text_samples_unit(nsamples, &v, &unit);
	buf_addf(out, "Samples: %" PRIu64, v);
	if (unit != ' ')
		buf_addch(out, unit);
	buf_addf(out, " of event '%s'", event);
}

static void m_title(void *ctx, struct buf *out)
{
	const struct model *m = ctx;
	samples_title(out, m->h->nsamples, m->event);
	buf_addf(out, ", Event count (approx.): %" PRIu64, m->h->total);
	if (m->zs.thread)
		buf_addf(out, ", Thread: %s", m->zs.thread);
	if (m->zs.dso)
		buf_addf(out, ", DSO: %s", m->zs.dso);
	if (m->zs.sym)
		buf_addf(out, ", Symbol: %s", m->zs.sym);
}

static void m_status(void *ctx, struct buf *out)
{
	const struct model *m = ctx;
	if (!m->zs.z.n)
		return;
	/* perf's title says it too, but an 80-column title is cut before it */
	for (unsigned i = 0; i < m->zs.z.n; i++) {
		enum browser_zoom k = m->zs.z.v[i];
		buf_addf(out, "%s%s: %s", i ? ", " : "",
			 k == BROWSER_ZOOM_DSO ? "DSO" : k == BROWSER_ZOOM_THREAD ? "Thread" : "Symbol",
			 k == BROWSER_ZOOM_DSO ? m->zs.dso
			 : k == BROWSER_ZOOM_THREAD ? m->zs.thread : m->zs.sym);
	}
	buf_addstr(out, " (Esc: zoom out)");
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
	(void)ctx;
	return (uint64_t)i + 1;
}

/* The callchain node under which v's children hang. */
static uint32_t tree_of(const struct model *m, uint64_t v)
{
	return is_node(v) ? (uint32_t)((v >> 32) - 1) : entry_of(m, v)->root;
}

/* v's children above the threshold, into m->cols.kids. */
static void kids_of(struct model *m, uint64_t v)
{
	hist_cols_kids(&m->cols, m->h, m->h->o.callchains ? tree_of(m, v) : HIST_NONE,
		       m->text.threshold);
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
	return i < m->cols.kids.n ? ((uint64_t)m->cols.kids.v[i] + 1) << 32 : 0;
}

static void m_row(void *ctx, uint64_t node, struct browser_row *out)
{
	struct model *m = ctx;
	out->expandable = m_n_children(m, node) > 0;
	if (is_node(node))
		hist_cols_node_row(m->h, tree_of(m, node), &m->text_buf, out);
	else
		hist_cols_entry_row(&m->cols, m->h, entry_of(m, node), &m->text_buf, out);
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

/* The entry a row belongs to (a callchain node: the entry whose tree has it), or NULL. */
static const struct hist_entry *row_entry(const struct model *m, uint64_t v)
{
	if (!is_node(v))
		return entry_of(m, v);
	uint32_t n = tree_of(m, v);
	while (hist_node(m->h, n)->parent != HIST_NONE)
		n = hist_node(m->h, n)->parent;
	for (size_t i = 0; i < m->shown.n; i++)
		if (hist_at(m->h, m->shown.v[i])->root == n)
			return hist_at(m->h, m->shown.v[i]);
	return NULL;
}

/*
 * The symbol and dso names of a row (an entry's keys or a callchain
 * node's frame); HIST_NONE where it has none.
 */
static void row_names(const struct model *m, uint64_t v, uint32_t *sym, uint32_t *dso)
{
	if (is_node(v)) {
		const struct hist_frame *f = hist_node_frame(m->h, tree_of(m, v));
		*sym = f->sym;
		*dso = f->dso;
		return;
	}
	const struct hist_entry *e = entry_of(m, v);
	*sym = has_key(m->h, HIST_SYM) ? e->k.sym : HIST_NONE;
	*dso = has_key(m->h, HIST_DSO) ? e->k.dso : HIST_NONE;
}

/* ---- the entries shown ---- */

/* The entries --stdio prints and the widths of its key columns. */
static void lay_out(struct model *m)
{
	const struct hist *h = m->h;
	m->shown.n = 0;
	hist_cols_init(&m->cols, h, m->text.elide);
	for (size_t i = 0; i < hist_count(h); i++) {
		const struct hist_entry *e = hist_at(h, i);
		if (share(m, hist_entry_period(h, e)) < m->text.percent_limit)
			continue;
		VEC_PUSH(&m->shown, (uint32_t)i);
		hist_cols_widen(&m->cols, h, e);
	}
	free(m->entry_open);
	free(m->node_open);
	m->entry_open = xcalloc(m->shown.n + 1, sizeof(*m->entry_open));
	m->node_open = xcalloc(h->nodes.n + 1, sizeof(*m->node_open));
}

/* Show event 'ev' of 'd' with the columns of 'text'. */
static void show_event(struct model *m, const struct report_data *d,
		       const struct report_text_opts *text)
{
	m->h = &d->ev.v[m->ev].h;
	m->text = *text;
	lay_out(m);
}

/* ---- zoom ---- */

static void zoom_clear(struct zoom_state *zs, enum browser_zoom how)
{
	if (how == BROWSER_ZOOM_DSO) {
		free(zs->dso);
		zs->dso = NULL;
	} else if (how == BROWSER_ZOOM_SYMBOL) {
		free(zs->sym);
		zs->sym = NULL;
	} else if (how == BROWSER_ZOOM_THREAD) {
		free(zs->thread);
		zs->thread = NULL;
	}
}

static void data_free(struct report_data *d)
{
	if (d)
		report_data_release(d);
	free(d);
}

/*
 * Read the file again with the zooms' filters (or go back to the first
 * read when none is left). 0, or < 0 with the reason in msg (the shown
 * read kept).
 */
static int apply_zooms(struct model *m, struct buf *msg)
{
	const struct report_tui *r = m->sh->r;
	if (!m->zs.z.n) {
		show_event(m, r->d, r->text);
		data_free(m->zd);
		m->zd = NULL;
		return 0;
	}
	struct report_run_opts ro = *r->o;
	char tid[16];
	if (m->zs.dso)
		ro.load.dsos = m->zs.dso;
	if (m->zs.sym)
		ro.load.syms = m->zs.sym;
	if (m->zs.thread) {
		snprintf(tid, sizeof(tid), "%" PRId32, m->zs.tid);
		ro.load.tids = tid;
	}
	struct report_text_opts text = ro.text;
	report_elide_columns(&ro, &text, &ro.load.hist);
	struct report_data *nd = xmalloc(sizeof(*nd));
	err_clear();
	int err = report_load(&ro.load, nd);
	if (!err && (nd->ev.n <= m->ev || !nd->ev.v[m->ev].name))
		err = err_set(-ENODATA, "no samples of event '%s' there", m->event);
	if (err) {
		buf_addf(msg, "cannot zoom: %s", err_last()->msg[0] ? err_last()->msg : strerror(-err));
		data_free(nd);
		return err;
	}
	show_event(m, nd, &text);
	data_free(m->zd);
	m->zd = nd;
	return 0;
}

/* Set what zoom 'how' selects on row 'node'. 0, or -1 with the reason in msg. */
static int zoom_pick(struct model *m, uint64_t node, enum browser_zoom how, struct buf *msg)
{
	uint32_t sym, dso;
	row_names(m, node, &sym, &dso);
	if (how == BROWSER_ZOOM_DSO) {
		if (dso == HIST_NONE) {
			buf_addstr(msg, "no shared object here to zoom into");
			return -1;
		}
		m->zs.dso = xstrdup(strtab_get(m->h->strs, dso));
		return 0;
	}
	if (how == BROWSER_ZOOM_SYMBOL) {
		if (sym == HIST_NONE) {
			buf_addstr(msg, "no symbol here to zoom into");
			return -1;
		}
		const char *name = strtab_get(m->h->strs, sym);
		if (strchr(name, ',')) { /* --symbols takes a comma-separated list */
			buf_addstr(msg, "cannot zoom into a symbol whose name has a comma");
			return -1;
		}
		m->zs.sym = xstrdup(name);
		return 0;
	}
	const struct hist_entry *e = row_entry(m, node);
	if (!e) {
		buf_addstr(msg, "no thread here to zoom into");
		return -1;
	}
	m->zs.tid = has_key(m->h, HIST_PID) ? e->k.pid : e->tid;
	uint32_t comm = hist_thread_comm(m->h, m->zs.tid);
	m->zs.thread = xasprintf("%s(%" PRId32 ")",
				 comm != HIST_NONE ? strtab_get(m->h->strs, comm) : "",
				 m->zs.tid);
	return 0;
}

static int m_zoom(void *ctx, uint64_t node, enum browser_zoom how, struct buf *msg)
{
	struct model *m = ctx;
	bool on;
	int kind = tui_zooms_press(&m->zs.z, how, &on);
	if (kind < 0)
		return 0;
	if (on && zoom_pick(m, node, (enum browser_zoom)kind, msg)) {
		tui_zooms_undo(&m->zs.z, (enum browser_zoom)kind, on);
		return 0;
	}
	/* what is taken off is kept until the read without it worked */
	struct zoom_state keep = m->zs;
	char *kept = NULL;
	if (!on) {
		kept = kind == BROWSER_ZOOM_DSO ? m->zs.dso
		       : kind == BROWSER_ZOOM_SYMBOL ? m->zs.sym : m->zs.thread;
		if (kind == BROWSER_ZOOM_DSO)
			m->zs.dso = NULL;
		else if (kind == BROWSER_ZOOM_SYMBOL)
			m->zs.sym = NULL;
		else
			m->zs.thread = NULL;
	}
	if (apply_zooms(m, msg)) {
		if (on)
			zoom_clear(&m->zs, (enum browser_zoom)kind);
		else
			m->zs = keep;
		tui_zooms_undo(&m->zs.z, (enum browser_zoom)kind, on);
		return 0;
	}
	free(kept);
	return 1;
}

/* ---- annotate ---- */

static int m_annotate(void *ctx, uint64_t entry, uint64_t node, struct textview_src *page,
		      struct buf *msg)
{
	struct model *m = ctx;
	struct shared *sh = m->sh;
	(void)entry;
	uint32_t sym, dso;
	row_names(m, node, &sym, &dso);
	if (sym == HIST_NONE) {
		buf_addstr(msg, has_key(m->h, HIST_SYM) || is_node(node)
					? "no symbol here to annotate"
					: "annotation needs the sym sort key (-s ...,sym)");
		return -ENOENT;
	}
	if (!sh->ann.open && !sh->ann_err) {
		const struct report_load_opts *lo = &sh->r->o->load;
		struct session_opts so = {
			.input = lo->input, .env = lo->env, .symfs = lo->symfs,
			.debug_dir = lo->debug_dir, .no_demangle = lo->no_demangle,
			.stdin_hint = "'kiln report -i -'",
		};
		err_clear();
		sh->ann_err = annotate_source_open(&sh->ann, &so);
		if (sh->ann_err)
			snprintf(sh->ann_why, sizeof(sh->ann_why), "%s",
				 err_last()->msg[0] ? err_last()->msg : strerror(-sh->ann_err));
	}
	if (sh->ann_err) {
		buf_addf(msg, "cannot annotate: %s", sh->ann_why);
		return sh->ann_err;
	}
	const char *name = strtab_get(m->h->strs, sym);
	const struct symhist_group *g = annotate_source_find(
		&sh->ann, (uint32_t)m->ev, dso == HIST_NONE ? NULL : strtab_get(m->h->strs, dso), name);
	if (!g) {
		buf_addf(msg, "%s: no samples of its own to annotate", name);
		return -ENODATA;
	}
	return annotate_view_page(&sh->ann.v, g, page, msg);
}

static void m_help(void *ctx, struct buf *out)
{
	(void)ctx;
	buf_addstr(out, "Report\n\n"
			"  Enter, +            unfold the selected entry's callchain\n"
			"  a                   annotate the selected row's symbol (kiln annotate's\n"
			"                      page: instructions with their shares; q back)\n"
			"  d                   only this shared object (--dsos), again: all\n"
			"  t                   only this thread (--tid), again: all\n"
			"  s                   only this symbol (--symbols), again: all\n"
			"  Esc, Left           zoom out of the last zoom; Esc at the top: back to\n"
			"                      the event menu (several events), else quit\n"
			"  q                   quit\n");
}

static void model_init(struct model *m, struct shared *sh, size_t ev)
{
	memset(m, 0, sizeof(*m));
	m->sh = sh;
	m->ev = ev;
	m->event = sh->r->d->ev.v[ev].name;
	buf_init(&m->text_buf, 1 << 16);
	show_event(m, sh->r->d, sh->r->text);
}

static void model_release(struct model *m)
{
	data_free(m->zd);
	zoom_clear(&m->zs, BROWSER_ZOOM_DSO);
	zoom_clear(&m->zs, BROWSER_ZOOM_SYMBOL);
	zoom_clear(&m->zs, BROWSER_ZOOM_THREAD);
	free(m->entry_open);
	free(m->node_open);
	VEC_FREE(&m->shown);
	VEC_FREE(&m->cols.kids);
	buf_release(&m->text_buf);
}

/* Event ev's list until the user leaves it: the key that left it. */
static int run_event(struct shared *sh, size_t ev)
{
	struct model m;
	model_init(&m, sh, ev);
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
		.status = m_status,
		.zoom = m_zoom,
		.annotate = m_annotate,
		.help = m_help,
	};
	int key = browser_run(sh->t, &bm, &(struct browser_opts){0});
	model_release(&m);
	return key;
}

/* ---- the event menu (perf's "Available samples") ---- */

struct menu {
	struct shared *sh;
	VEC(size_t) evs; /* events with samples, by index */
	struct buf text;
};

static void menu_title(void *ctx, struct buf *out)
{
	(void)ctx;
	buf_addstr(out, "Available samples");
}

static size_t menu_n(void *ctx)
{
	const struct menu *u = ctx;
	return u->evs.n;
}

static size_t menu_none(void *ctx, uint64_t node)
{
	(void)ctx, (void)node;
	return 0;
}

static uint64_t menu_child(void *ctx, uint64_t node, size_t i)
{
	(void)ctx, (void)node, (void)i;
	return 0;
}

static void menu_row(void *ctx, uint64_t node, struct browser_row *out)
{
	struct menu *u = ctx;
	const struct report_event *e = &u->sh->r->d->ev.v[u->evs.v[node - 1]];
	uint64_t v;
	char unit;
	report_text_samples_unit(e->h.nsamples, &v, &unit);
	buf_reset(&u->text);
	buf_addf(&u->text, "%" PRIu64, v);
	if (unit != ' ')
		buf_addch(&u->text, unit);
	buf_addf(&u->text, " %s", e->name);
	out->text = buf_str(&u->text);
	out->key = e->name;
}

static bool menu_expanded(void *ctx, uint64_t node)
{
	(void)ctx, (void)node;
	return false;
}

static void menu_set_expanded(void *ctx, uint64_t node, bool on)
{
	(void)ctx, (void)node, (void)on;
}

static int menu_open(void *ctx, uint64_t entry)
{
	struct menu *u = ctx;
	return run_event(u->sh, u->evs.v[entry - 1]) == 'q' ? BROWSER_QUIT : BROWSER_STAY;
}

static void menu_help(void *ctx, struct buf *out)
{
	(void)ctx;
	buf_addstr(out, "Events\n\n"
			"  Enter               the selected event's entries (Esc there: back here)\n"
			"  q, Esc              quit\n");
}

static void run_menu(struct shared *sh, struct menu *u)
{
	struct browser_model bm = {
		.ctx = u,
		.title = menu_title,
		.n_entries = menu_n,
		.entry = m_entry,
		.n_children = menu_none,
		.child = menu_child,
		.row = menu_row,
		.expanded = menu_expanded,
		.set_expanded = menu_set_expanded,
		.open = menu_open,
		.help = menu_help,
	};
	browser_run(sh->t, &bm, &(struct browser_opts){0});
}

int report_tui_run(const struct report_tui *r)
{
	struct shared sh = { .r = r };
	struct menu u = { .sh = &sh };
	for (size_t i = 0; i < r->d->ev.n; i++)
		if (r->d->ev.v[i].used)
			VEC_PUSH(&u.evs, i);
	if (!u.evs.n) {
		VEC_FREE(&u.evs);
		return -ENODATA;
	}
	int err = tui_open(&sh.t, &(struct tui_opts){ .term = r->env->term });
	if (err) {
		VEC_FREE(&u.evs);
		return err;
	}
	struct stderr_aside sa;
	stderr_aside(&sa);
	buf_init(&u.text, 4096);
	if (u.evs.n == 1)
		run_event(&sh, u.evs.v[0]);
	else
		run_menu(&sh, &u);
	tui_close(sh.t);
	stderr_back(&sa);
	annotate_source_close(&sh.ann);
	buf_release(&u.text);
	VEC_FREE(&u.evs);
	return 0;
}
