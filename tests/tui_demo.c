/*
 * tui-demo: the terminal browser (src/tui) over a synthetic profile, for
 * the end-to-end test that drives it in tmux (tests/e2e/tui_browser.sh)
 * until a kiln command shows a real one.
 *
 *   tui-demo [--entries N] [--refresh-ms MS]
 *
 * N entries (default 300), hottest first, "hottest_function" on top, each
 * with a nested callchain; names long, hostile (an escape sequence) and
 * UTF-8. 's'/'d'/'t' zoom by symbol, DSO, command; 'a' opens a text page;
 * with --refresh-ms the title counts refreshes; 'X' calls exit(3) from
 * inside the browser (the atexit restore). Exit 0, 1 when the terminal
 * cannot be used, 2 on bad usage.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/vec.h"
#include "base/xalloc.h"
#include "tui/browser.h"
#include "tui/term.h"
#include "tui/textview.h"

struct node {
	char *name;
	double pct;
	uint32_t entry;
	VEC(uint32_t) kids;
	bool expanded;
};

struct demo {
	VEC(struct node) nodes; /* handle = index + 1 */
	VEC(uint32_t) entries;  /* all entries' node indexes, hottest first */
	VEC(uint32_t) shown;    /* entries after the zooms */
	const char **comm, **dso; /* per entry */
	enum browser_zoom zoom_kind[3];
	char *zoom_val[3];
	size_t n_zoom;
	unsigned refreshes;
	struct buf text;
};

static const char *const comms[] = {"cc1", "ld", "make", "bash", "python3"};
static const char *const dsos[] = {"cc1", "libc.so.6", "[kernel.kallsyms]", "libstdc++.so.6",
				   "ld-linux-x86-64.so.2"};
static const char *const words[] = {"parse", "expr", "tree", "hash", "alloc", "visit",
				    "emit",  "scan", "fold", "lower", "match", "cache"};

static uint32_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

static uint32_t add_node(struct demo *d, char *name, double pct, uint32_t entry)
{
	struct node *n = VEC_PUSH_ZERO(&d->nodes);
	n->name = name;
	n->pct = pct;
	n->entry = entry;
	return (uint32_t)(d->nodes.n - 1);
}

static void add_chain(struct demo *d, uint32_t parent, uint32_t entry, int depth, uint64_t *s)
{
	if (depth >= 6)
		return;
	unsigned nk = 1 + rnd(s) % 3;
	double left = d->nodes.v[parent].pct;
	for (unsigned k = 0; k < nk && left > 0.001; k++) {
		double p = k + 1 == nk ? left : left * (0.4 + (rnd(s) % 40) / 100.0);
		left -= p;
		char *name = xasprintf("%s_%s_%u", words[rnd(s) % 12], words[rnd(s) % 12], depth);
		uint32_t c = add_node(d, name, p, entry);
		VEC_PUSH(&d->nodes.v[parent].kids, c);
		if (rnd(s) % 4)
			add_chain(d, c, entry, depth + 1, s);
	}
}

static char *entry_name(size_t i, uint64_t *s)
{
	if (i == 0)
		return xstrdup("hottest_function");
	if (i == 1)
		return xstrdup("std::_Rb_tree<std::__cxx11::basic_string<char, std::char_traits<char>, "
			       "std::allocator<char> >, std::pair<std::__cxx11::basic_string<char> "
			       "const, unsigned long>, std::_Select1st<...> >::_M_insert_unique()");
	if (i == 2)
		return xstrdup("evil\x1b[31m_name");
	if (i == 3)
		return xstrdup("funci\xc3\xb3n_\xc3\xb1");
	return xasprintf("%s_%s_%zu", words[rnd(s) % 12], words[rnd(s) % 12], i);
}

static void build(struct demo *d, size_t n)
{
	double sum = 0;
	uint64_t s = 42;

	for (size_t i = 0; i < n; i++)
		sum += 1.0 / (double)((i + 1) * (i + 1) + 10);
	XALLOC_ARRAY(d->comm, n);
	XALLOC_ARRAY(d->dso, n);
	for (size_t i = 0; i < n; i++) {
		double p = 100.0 / (double)((i + 1) * (i + 1) + 10) / sum;
		uint32_t e = add_node(d, entry_name(i, &s), p, (uint32_t)i);
		d->comm[i] = comms[i % 5];
		d->dso[i] = dsos[(i / 2) % 5];
		VEC_PUSH(&d->entries, e);
		add_chain(d, e, (uint32_t)i, 0, &s);
	}
}

static const char *zoom_value(const struct demo *d, enum browser_zoom how, uint32_t entry)
{
	switch (how) {
	case BROWSER_ZOOM_SYMBOL:
		return d->nodes.v[d->entries.v[entry]].name;
	case BROWSER_ZOOM_DSO:
		return d->dso[entry];
	case BROWSER_ZOOM_THREAD:
		return d->comm[entry];
	case BROWSER_ZOOM_OUT:
		break;
	}
	return "";
}

static void apply_zooms(struct demo *d)
{
	d->shown.n = 0;
	for (uint32_t i = 0; i < d->entries.n; i++) {
		bool ok = true;
		for (size_t z = 0; z < d->n_zoom; z++)
			ok = ok && !strcmp(zoom_value(d, d->zoom_kind[z], i), d->zoom_val[z]);
		if (ok)
			VEC_PUSH(&d->shown, i);
	}
}

static struct node *node_of(struct demo *d, uint64_t h)
{
	return &d->nodes.v[h - 1];
}

static void m_title(void *ctx, struct buf *out)
{
	struct demo *d = ctx;
	buf_addf(out, "Samples: 12K of event 'cycles', Event count (approx.): 9876543210");
	if (d->refreshes)
		buf_addf(out, " refresh %u", d->refreshes);
}

static void m_columns(void *ctx, struct buf *out)
{
	(void)ctx;
	buf_addstr(out, "Overhead  Command   Shared Object         Symbol");
}

static size_t m_n_entries(void *ctx)
{
	struct demo *d = ctx;
	return d->shown.n;
}

static uint64_t m_entry(void *ctx, size_t i)
{
	struct demo *d = ctx;
	return (uint64_t)d->entries.v[d->shown.v[i]] + 1;
}

static size_t m_n_children(void *ctx, uint64_t h)
{
	return node_of(ctx, h)->kids.n;
}

static uint64_t m_child(void *ctx, uint64_t h, size_t i)
{
	return (uint64_t)node_of(ctx, h)->kids.v[i] + 1;
}

static void m_row(void *ctx, uint64_t h, struct browser_row *out)
{
	struct demo *d = ctx;
	struct node *n = node_of(d, h);
	bool is_entry = d->entries.v[n->entry] == h - 1;

	buf_reset(&d->text);
	if (is_entry)
		buf_addf(&d->text, "%-8s  %-20s  [.] %s", d->comm[n->entry], d->dso[n->entry],
			 n->name);
	else
		buf_addstr(&d->text, n->name);
	out->text = buf_str(&d->text);
	out->key = n->name;
	out->pct[0] = n->pct;
	out->n_pct = 1;
	out->expandable = n->kids.n > 0;
}

static bool m_expanded(void *ctx, uint64_t h)
{
	return node_of(ctx, h)->expanded;
}

static void m_set_expanded(void *ctx, uint64_t h, bool on)
{
	node_of(ctx, h)->expanded = on;
}

static void m_status(void *ctx, struct buf *out)
{
	struct demo *d = ctx;
	static const char *const kind[] = {"Symbol", "DSO", "Thread"};
	for (size_t z = 0; z < d->n_zoom; z++)
		buf_addf(out, "%s%s: %s", z ? "  " : "", kind[d->zoom_kind[z]], d->zoom_val[z]);
}

static int m_zoom(void *ctx, uint64_t h, enum browser_zoom how, struct buf *msg)
{
	struct demo *d = ctx;

	if (how == BROWSER_ZOOM_OUT || (d->n_zoom && d->zoom_kind[d->n_zoom - 1] == how)) {
		if (!d->n_zoom)
			return 0;
		free(d->zoom_val[--d->n_zoom]);
		apply_zooms(d);
		return 1;
	}
	if (d->n_zoom == 3) {
		buf_addstr(msg, "zoomed too deep");
		return 0;
	}
	d->zoom_kind[d->n_zoom] = how;
	d->zoom_val[d->n_zoom++] = xstrdup(zoom_value(d, how, node_of(d, h)->entry));
	apply_zooms(d);
	return 1;
}

static int m_annotate(void *ctx, uint64_t entry, uint64_t node, struct textview_src *page,
		      struct buf *msg)
{
	struct demo *d = ctx;
	struct buf text;
	const char *sym = node_of(d, entry)->name;

	(void)node;
	(void)msg;
	buf_init(&text, 1 << 20);
	buf_addf(&text, "Percent |  Source code & Disassembly of %s\n", sym);
	for (unsigned i = 0; i < 150; i++)
		buf_addf(&text, "%7.2f :   %4x:  %s %%r%ux,%%r%cx\n", i == 7 ? 42.5 : (i % 13) / 10.0,
			 i * 4, i % 3 ? "mov" : "add", i % 9, "abcd"[i % 4]);
	buf_addstr(&text, "end_of_annotation\n");
	char *title = xasprintf("Annotate: %s", sym);
	textview_src_text(page, title, text.p, text.len);
	textview_src_lead_pct(page);
	free(title);
	buf_release(&text);
	return 0;
}

static int m_refresh(void *ctx)
{
	struct demo *d = ctx;
	d->refreshes++;
	return 1;
}

static int m_key(void *ctx, uint64_t node, int key)
{
	(void)ctx;
	(void)node;
	if (key == 'X')
		exit(3); /* an error path that ends the process from inside the browser */
	return 0;
}

static void m_help(void *ctx, struct buf *out)
{
	(void)ctx;
	buf_addstr(out, "Demo keys\n\n  X                   exit(3) from inside the browser\n");
}

static void demo_free(struct demo *d)
{
	for (size_t i = 0; i < d->nodes.n; i++) {
		free(d->nodes.v[i].name);
		VEC_FREE(&d->nodes.v[i].kids);
	}
	for (size_t z = 0; z < d->n_zoom; z++)
		free(d->zoom_val[z]);
	VEC_FREE(&d->nodes);
	VEC_FREE(&d->entries);
	VEC_FREE(&d->shown);
	free(d->comm);
	free(d->dso);
	buf_release(&d->text);
}

int main(int argc, char **argv)
{
	struct demo d = {0};
	size_t n = 300;
	int refresh_ms = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--entries") && i + 1 < argc) {
			n = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--refresh-ms") && i + 1 < argc) {
			refresh_ms = atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: tui-demo [--entries N] [--refresh-ms MS]\n");
			return 2;
		}
	}
	buf_init(&d.text, 1 << 16);
	build(&d, n);
	apply_zooms(&d);

	struct browser_model m = {
		.ctx = &d,
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
		.refresh = m_refresh,
		.key = m_key,
		.help = m_help,
	};
	struct tui_opts to = {.term = getenv("TERM")};
	struct tui *t;
	int err = tui_open(&t, &to);
	if (err) {
		fprintf(stderr, "tui-demo: cannot use the terminal: %s\n", strerror(-err));
		demo_free(&d);
		return 1;
	}
	struct browser_opts bo = {.refresh_ms = refresh_ms};
	browser_run(t, &m, &bo);
	tui_close(t);

	demo_free(&d);
	return 0;
}
