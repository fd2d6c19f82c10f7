/*
 * report_text: perf report --stdio and perf diff text (see report_text.h).
 */
#include "output/report_text.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/vec.h"
#include "base/xalloc.h"

#define PCT_WIDTH 8
#define SAMPLES_WIDTH 12
#define UNRESOLVED_WIDTH 16 /* perf's BITS_PER_LONG / 4 */

static const char dots[] = "................................................................"
			   "................................................................"
			   "................................................................"
			   "................................................................";

static void put_dots(FILE *out, size_t n)
{
	while (n) {
		size_t k = n < sizeof(dots) - 1 ? n : sizeof(dots) - 1;
		fwrite(dots, 1, k, out);
		n -= k;
	}
}

static void put_spaces(FILE *out, size_t n)
{
	while (n--)
		fputc(' ', out);
}

void report_text_hint(FILE *out)
{
	fputs("# To display the perf.data header info, please use --header/--header-only "
	      "options.\n#\n",
	      out);
}

void report_text_lost(FILE *out, uint64_t lost)
{
	fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n", lost);
}

void report_text_elided(FILE *out, const char *what, const char *value)
{
	fprintf(out, "# %s: %s\n", what, value);
}

/* ---- key columns ---- */

struct col {
	int key;      /* enum hist_sort, or -1 for the percentage columns */
	size_t width;
};

static const char *dso_text(const struct hist *h, uint32_t dso)
{
	return dso == HIST_NONE ? "[unknown]" : strtab_get(h->strs, dso);
}

static const char *comm_text(const struct hist *h, uint32_t comm)
{
	return comm == HIST_NONE ? "" : strtab_get(h->strs, comm);
}

/* The Symbol column's text of a key: "[k] name", "[.] 0x..." */
static size_t sym_text(const struct hist *h, const struct hist_key *k, char *buf, size_t len)
{
	char lvl = k->kernel ? 'k' : '.';
	if (k->sym != HIST_NONE)
		return (size_t)snprintf(buf, len, "[%c] %s", lvl, strtab_get(h->strs, k->sym));
	/* perf's "%-#.*llx": no 0x for zero */
	if (!k->addr)
		return (size_t)snprintf(buf, len, "[%c] %0*d", lvl, UNRESOLVED_WIDTH, 0);
	return (size_t)snprintf(buf, len, "[%c] %#0*" PRIx64, lvl, UNRESOLVED_WIDTH + 2, k->addr);
}

/* The Symbol Offset column's text: "[.] name+0x1f" (newer perf's symoff). */
static size_t symoff_text(const struct hist *h, const struct hist_key *k, char *buf, size_t len)
{
	size_t n = sym_text(h, k, buf, len);
	if (k->sym != HIST_NONE && n < len)
		n += (size_t)snprintf(buf + n, len - n, "+0x%" PRIx64, k->off);
	return n < len ? n : len - 1;
}

static const char *key_header(int key)
{
	switch (key) {
	case HIST_COMM:
		return "Command";
	case HIST_PID:
		return "    Pid:Command";
	case HIST_DSO:
		return "Shared Object";
	case HIST_SYM:
		return "Symbol";
	case HIST_CPU:
		return "CPU";
	case HIST_SRCLINE:
		return "Source:Line";
	case HIST_SRCFILE:
		return "Source File";
	case HIST_SYMOFF:
		return "Symbol Offset";
	case HIST_PARENT:
		return "Parent symbol";
	}
	return "";
}

static size_t key_len(const struct hist *h, int key, const struct hist_key *k, size_t comm_w)
{
	char buf[4096];
	switch (key) {
	case HIST_COMM:
		return strlen(comm_text(h, k->comm));
	case HIST_PID:
		return 8 + comm_w;
	case HIST_DSO:
		return k->dso == HIST_NONE ? UNRESOLVED_WIDTH : strlen(dso_text(h, k->dso));
	case HIST_SYM: {
		size_t n = sym_text(h, k, buf, sizeof(buf));
		if (k->sym == HIST_NONE)
			n = UNRESOLVED_WIDTH + 6;
		/* perf sizes the column by the name without its " (inlined)" */
		else if (n >= 10 && !strcmp(buf + n - 10, " (inlined)"))
			n -= 10;
		return n < sizeof(buf) ? n : sizeof(buf) - 1;
	}
	case HIST_CPU:
		return 3;
	case HIST_SRCLINE:
		return strlen(comm_text(h, k->srcline));
	case HIST_SRCFILE:
		return strlen(comm_text(h, k->srcfile));
	case HIST_SYMOFF:
		return k->sym == HIST_NONE ? UNRESOLVED_WIDTH + 6 : symoff_text(h, k, buf, sizeof(buf));
	case HIST_PARENT:
		return k->parent == HIST_NONE ? strlen("[other]") : strlen(comm_text(h, k->parent));
	}
	return 0;
}

static void key_print(FILE *out, const struct hist *h, int key, const struct hist_key *k,
		      size_t width, bool last)
{
	char buf[4096];
	size_t n = 0;
	switch (key) {
	case HIST_COMM:
		n = (size_t)fprintf(out, "%s", comm_text(h, k->comm));
		break;
	case HIST_PID: {
		size_t cw = width > 8 ? width - 8 : 0;
		n = (size_t)fprintf(out, "%7d:%-*s", (int)k->pid, (int)cw,
				    comm_text(h, hist_thread_comm(h, k->pid)));
		break;
	}
	case HIST_DSO:
		n = (size_t)fprintf(out, "%s", dso_text(h, k->dso));
		break;
	case HIST_SYM:
		n = sym_text(h, k, buf, sizeof(buf));
		fputs(buf, out);
		if (last)
			return; /* perf does not pad the symbol */
		break;
	case HIST_CPU:
		n = (size_t)fprintf(out, "%*.*d", (int)width, (int)width, (int)k->cpu);
		break;
	case HIST_SRCLINE: /* perf's "%-.*s": the last column is not padded */
	case HIST_SRCFILE:
		n = (size_t)fprintf(out, "%s",
				    comm_text(h, key == HIST_SRCLINE ? k->srcline : k->srcfile));
		if (last)
			return;
		break;
	case HIST_SYMOFF:
		n = symoff_text(h, k, buf, sizeof(buf));
		fputs(buf, out);
		if (last)
			return;
		break;
	case HIST_PARENT:
		n = (size_t)fprintf(out, "%s",
				    k->parent == HIST_NONE ? "[other]" : comm_text(h, k->parent));
		break;
	}
	if (n < width)
		put_spaces(out, width - n);
}

const char *report_text_key_header(int key)
{
	return key_header(key);
}

void report_text_key(FILE *out, const struct hist *h, int key, const struct hist_key *k,
		     size_t width, bool last)
{
	key_print(out, h, key, k, width, last);
}

/* ---- callchains ---- */

struct chain_ctx {
	FILE *out;
	const struct hist *h;
	const struct report_text_opts *o;
	uint64_t min_hit;
	unsigned long lines; /* graph lines printed */
};

static void frame_name(const struct hist *h, uint32_t node, FILE *out)
{
	const struct hist_frame *f = hist_node_frame(h, node);
	if (f->sym != HIST_NONE)
		fputs(strtab_get(h->strs, f->sym), out);
	else
		fprintf(out, "%#" PRIx64, f->ip);
}

static void margin(FILE *out, int left)
{
	put_spaces(out, 12 + (size_t)left);
}

static void value(FILE *out, uint64_t v, uint64_t total)
{
	fprintf(out, "%.2f%%", total ? 100.0 * (double)v / (double)total : 0.0);
}

/* Whether node n is shown: perf keeps the children at or above the
 * threshold, of the total (graph) or of the parent's children (fractal). */
static bool shown(const struct chain_ctx *c, uint32_t n)
{
	const struct hist_node *x = hist_node(c->h, n);
	if (!x->cumul)
		return false;
	if (c->o->graph != REPORT_GRAPH_REL)
		return x->cumul >= c->min_hit;
	const struct hist_node *p = hist_node(c->h, x->parent);
	double min = ceil((double)(p->cumul - p->hit) * (c->o->threshold / 100.0));
	return (double)x->cumul >= min;
}

static uint32_t next_shown(const struct chain_ctx *c, uint32_t n)
{
	while (n != HIST_NONE && !shown(c, n))
		n = hist_node(c->h, n)->next_sibling;
	return n;
}

/* The run of nodes perf keeps as one callchain node: from n down while a
 * node has one child and no path ends in it. Returns the run's last node. */
static uint32_t run_end(const struct hist *h, uint32_t n)
{
	for (;;) {
		const struct hist_node *x = hist_node(h, n);
		if (x->hit || x->first_child == HIST_NONE ||
		    hist_node(h, x->first_child)->next_sibling != HIST_NONE)
			return n;
		n = x->first_child;
	}
}

/* perf keeps the levels that still draw a '|' in an int, bit i for level
 * i: past 32 levels its shifts wrap (x86 shifts by the count mod 32), and
 * so do these, so deep chains are drawn as perf draws them. */
static uint32_t bit(int i)
{
	return UINT32_C(1) << (i & 31);
}

static void graph_line(struct chain_ctx *c, int depth, uint32_t mask, int left)
{
	c->lines++;
	margin(c->out, left);
	for (int i = 0; i < depth; i++)
		fputs(mask & bit(i) ? "|          " : "           ", c->out);
	fputc('\n', c->out);
}

static void graph_entry(struct chain_ctx *c, uint32_t node, uint64_t cumul, int depth,
			uint32_t mask, bool first, uint64_t total, int left)
{
	c->lines++;
	margin(c->out, left);
	for (int i = 0; i < depth; i++) {
		fputc(mask & bit(i) ? '|' : ' ', c->out);
		if (first && i == depth - 1) {
			fputs("--", c->out);
			value(c->out, cumul, total);
			fputs("--", c->out);
		} else {
			fputs("          ", c->out);
		}
	}
	if (node == HIST_NONE)
		fputs("[...]", c->out); /* (perf 6.1 may add " (inlined)": memory it never set) */
	else
		frame_name(c->h, node, c->out);
	fputc('\n', c->out);
}

/* perf's __callchain__fprintf_graph over the runs below 'parent'. */
static void graph_level(struct chain_ctx *c, uint32_t parent, uint64_t total, int depth,
			uint32_t mask, int left)
{
	uint64_t remaining = total;
	uint32_t new_mask = mask;
	unsigned printed = 0;
	bool rel = c->o->graph == REPORT_GRAPH_REL;
	for (uint32_t n = next_shown(c, hist_node(c->h, parent)->first_child); n != HIST_NONE;) {
		uint32_t next = next_shown(c, hist_node(c->h, n)->next_sibling);
		uint64_t cumul = hist_node(c->h, n)->cumul;
		remaining -= cumul < remaining ? cumul : remaining;
		if (next == HIST_NONE && (!rel || !remaining))
			new_mask &= ~bit(depth - 1);
		graph_line(c, depth, mask, left);
		uint32_t end = run_end(c->h, n);
		bool first = true;
		for (uint32_t k = n;; k = hist_node(c->h, k)->first_child) {
			graph_entry(c, k, cumul, depth, new_mask, first, total, left);
			first = false;
			if (k == end)
				break;
		}
		uint64_t sub = rel ? hist_node(c->h, end)->cumul - hist_node(c->h, end)->hit : total;
		graph_level(c, end, sub, depth + 1, new_mask | bit(depth), left);
		n = next;
		if (++printed == c->o->print_limit)
			break;
	}
	if (rel && remaining && remaining != total) {
		new_mask &= ~bit(depth - 1);
		graph_entry(c, HIST_NONE, remaining, depth, new_mask, true, total, left);
	}
}

static void print_graph(struct chain_ctx *c, const struct hist_entry *e, uint64_t total,
			uint64_t parent_samples)
{
	FILE *out = c->out;
	bool wrote = false;
	uint32_t root = e->root;
	int left = 0;
	uint32_t first = next_shown(c, hist_node(c->h, root)->first_child);
	if (first != HIST_NONE && next_shown(c, hist_node(c->h, first)->next_sibling) == HIST_NONE &&
	    hist_node(c->h, first)->cumul == parent_samples) {
		uint32_t end = run_end(c->h, first);
		unsigned printed = 0;
		bool started = false;
		for (uint32_t k = first, i = 0;; k = hist_node(c->h, k)->first_child, i++) {
			if (!(i == 0 && c->o->skip_first_sym)) {
				if (!started) {
					margin(out, left);
					fputs("|\n", out);
					margin(out, left);
					fputs("---", out);
					left += 3;
					started = true;
				} else {
					margin(out, left);
				}
				frame_name(c->h, k, out);
				fputc('\n', out);
				wrote = true;
			}
			if (k == end || ++printed == c->o->print_limit)
				break;
		}
		root = end;
	}
	if (c->o->graph == REPORT_GRAPH_REL)
		total = parent_samples;
	graph_level(c, root, total, 1, 1, left);
	if (wrote || c->lines) /* a blank line after a chain, none for nothing */
		fputc('\n', out);
}

/* Paths ending at a node (flat and folded), biggest first. */
typedef VEC(uint32_t) u32_vec;

static void collect_ends(const struct chain_ctx *c, uint32_t n, u32_vec *v)
{
	for (uint32_t k = hist_node(c->h, n)->first_child; k != HIST_NONE;
	     k = hist_node(c->h, k)->next_sibling) {
		if (hist_node(c->h, k)->hit && hist_node(c->h, k)->hit >= c->min_hit)
			VEC_PUSH(v, k);
		collect_ends(c, k, v);
	}
}

static void sort_ends(const struct hist *h, u32_vec *v)
{
	/* insertion sort by hit, stable (tree order breaks ties) */
	for (size_t i = 1; i < v->n; i++) {
		uint32_t x = v->v[i];
		size_t j = i;
		while (j > 0 && hist_node(h, v->v[j - 1])->hit < hist_node(h, x)->hit) {
			v->v[j] = v->v[j - 1];
			j--;
		}
		v->v[j] = x;
	}
}

static void print_path(const struct chain_ctx *c, uint32_t n, bool folded, bool *first)
{
	if (n == HIST_NONE || hist_node(c->h, n)->frame == HIST_NONE)
		return;
	print_path(c, hist_node(c->h, n)->parent, folded, first);
	if (folded) {
		if (!*first)
			fputc(';', c->out);
		*first = false;
		frame_name(c->h, n, c->out);
	} else {
		fputs("                ", c->out);
		frame_name(c->h, n, c->out);
		fputc('\n', c->out);
	}
}

static void print_flat(struct chain_ctx *c, const struct hist_entry *e, uint64_t total,
		       bool folded)
{
	u32_vec v = { 0 };
	collect_ends(c, e->root, &v);
	sort_ends(c->h, &v);
	for (size_t i = 0; i < v.n; i++) {
		bool first = true;
		if (!folded)
			fputs("           ", c->out);
		/* flat prints the path's share with what ends below it, folded its own */
		const struct hist_node *x = hist_node(c->h, v.v[i]);
		value(c->out, folded ? x->hit : x->cumul, total);
		if (folded)
			fputc(' ', c->out);
		else
			fputc('\n', c->out);
		print_path(c, v.v[i], folded, &first);
		fputc('\n', c->out);
		if (i + 1 == c->o->print_limit)
			break;
	}
	VEC_FREE(&v);
}

static void print_chain(FILE *out, const struct report_text_opts *o, const struct hist *h,
			const struct hist_entry *e, uint64_t total)
{
	if (e->root == HIST_NONE)
		return;
	struct chain_ctx c = { .out = out, .h = h, .o = o };
	uint64_t parent = hist_entry_period(h, e);
	uint64_t base = o->graph == REPORT_GRAPH_REL ? parent : total;
	c.min_hit = (uint64_t)((double)base * (o->threshold / 100.0));
	switch (o->graph) {
	case REPORT_GRAPH_ABS:
	case REPORT_GRAPH_REL:
		print_graph(&c, e, total, parent);
		break;
	case REPORT_GRAPH_FLAT:
		print_flat(&c, e, total, false);
		break;
	case REPORT_GRAPH_FOLDED:
		print_flat(&c, e, total, true);
		break;
	case REPORT_GRAPH_NONE:
		break;
	}
}

/* ---- the table ---- */

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

void report_text_samples_unit(uint64_t n, uint64_t *v, char *unit)
{
	*unit = ' ';
	*v = n;
	static const char units[] = "KMG";
	for (int i = 0; i < 3 && *v > 1000; i++) {
		*v /= 1000;
		*unit = units[i];
	}
}

/* The columns shown (keys[*nk]) and their widths. */
static void section_columns(const struct report_text_opts *o, const struct hist *h, int *keys,
			    size_t *nkeys, size_t *widths)
{
	size_t nk = 0;
	for (size_t j = 0; j < h->o.nkeys; j++)
		if (!o->elide[h->o.keys[j]])
			keys[nk++] = h->o.keys[j];
	size_t comm_w = strlen("Command");
	for (size_t i = 0; i < hist_count(h); i++) { /* perf: the threads' comms */
		const struct hist_entry *e = hist_at(h, i);
		size_t n = (h->key_mask >> HIST_COMM) & 1 ? strlen(comm_text(h, e->k.comm)) : 0;
		size_t t = strlen(comm_text(h, hist_thread_comm(h, e->tid)));
		n = t > n ? t : n;
		if (n > comm_w)
			comm_w = n;
	}
	for (size_t j = 0; j < nk; j++) {
		int key = keys[j];
		widths[j] = strlen(key_header(key));
		for (size_t i = 0; i < hist_count(h); i++) {
			size_t n = key_len(h, key, &hist_at(h, i)->k, comm_w);
			if (n > widths[j])
				widths[j] = n;
		}
	}
	*nkeys = nk;
}

/* The rows (at most max_rows entries, 0: all), each with its callchain;
 * shares of total. */
static void section_rows(FILE *out, const struct report_text_opts *o, const struct hist *h,
			 const int *keys, size_t nk, const size_t *widths, uint64_t total,
			 size_t max_rows)
{
	bool children = h->o.children;
	size_t printed = 0;
	/* perf pads the last column shown when an elided one follows it */
	bool last_elided = h->o.nkeys && o->elide[h->o.keys[h->o.nkeys - 1]];
	for (size_t i = 0; i < hist_count(h); i++) {
		const struct hist_entry *e = hist_at(h, i);
		if (pct(hist_entry_period(h, e), total) < o->percent_limit)
			continue;
		if (max_rows && printed++ == max_rows)
			break;
		if (children)
			fprintf(out, "  %*.2f%%  %*.2f%%", PCT_WIDTH - 1, pct(e->children, total),
				PCT_WIDTH - 1, pct(e->self, total));
		else
			fprintf(out, "  %*.2f%%", PCT_WIDTH - 1, pct(e->self, total));
		if (o->nr_samples)
			fprintf(out, "  %*" PRIu64, SAMPLES_WIDTH, e->nself);
		for (size_t j = 0; j < nk; j++) {
			fputs("  ", out);
			key_print(out, h, keys[j], &e->k, widths[j], j + 1 == nk && !last_elided);
		}
		fputc('\n', out);
		if (o->graph != REPORT_GRAPH_NONE && h->o.callchains)
			print_chain(out, o, h, e, total);
	}
}

void report_text_section(FILE *out, const struct report_text_opts *o,
			 const struct report_section *s)
{
	const struct hist *h = s->h;
	bool children = h->o.children;
	/* perf's filters keep every sample in the total (absolute); relative
	 * shares and counts are of the entries shown (their own periods) */
	uint64_t total = h->total, nsamples = h->nsamples;
	if (o->relative) {
		total = nsamples = 0;
		for (size_t i = 0; i < hist_count(h); i++) {
			total += hist_at(h, i)->self;
			nsamples += hist_at(h, i)->nself;
		}
	}
	uint64_t count = total;
	uint64_t unit_v;
	char unit;
	report_text_samples_unit(nsamples, &unit_v, &unit);
	fprintf(out, "# Samples: %" PRIu64 "%c of event '%s'\n", unit_v, unit, s->event);
	fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n", count);

	int keys[HIST_MAX_KEYS];
	size_t nk;
	size_t widths[HIST_MAX_KEYS];
	section_columns(o, h, keys, &nk, widths);

	/* headers */
	fputs("# ", out);
	if (children)
		fprintf(out, "%*s  %*s", PCT_WIDTH, "Children", PCT_WIDTH, "Self");
	else
		fprintf(out, "%*s", PCT_WIDTH, "Overhead");
	if (o->nr_samples)
		fprintf(out, "  %*s", SAMPLES_WIDTH, "Samples");
	for (size_t j = 0; j < nk; j++)
		fprintf(out, "  %-*s", (int)widths[j], key_header(keys[j]));
	fputs("\n# ", out);
	put_dots(out, PCT_WIDTH);
	if (children) {
		fputs("  ", out);
		put_dots(out, PCT_WIDTH);
	}
	if (o->nr_samples) {
		fputs("  ", out);
		put_dots(out, SAMPLES_WIDTH);
	}
	for (size_t j = 0; j < nk; j++) {
		fputs("  ", out);
		put_dots(out, widths[j]);
	}
	fputs("\n#\n", out);

	section_rows(out, o, h, keys, nk, widths, total, 0);
	fputs("\n\n", out);
}

void report_text_rows(FILE *out, const struct report_text_opts *o, const struct hist *h,
		      size_t max_rows)
{
	int keys[HIST_MAX_KEYS];
	size_t nk;
	size_t widths[HIST_MAX_KEYS];
	section_columns(o, h, keys, &nk, widths);
	section_rows(out, o, h, keys, nk, widths, h->total, max_rows);
}

/* ---- -T ---- */

static int digits_of(uint64_t v)
{
	int n = 1;
	while (v >= 10)
		v /= 10, n++;
	return n;
}

void report_text_threads(FILE *out, const struct report_thread_value *v, size_t n,
			 const char *const *names, size_t ncounters)
{
	/* the threads in first-read order, their values summed */
	VEC(uint32_t) order = { 0 }; /* index of each thread's first read */
	uint64_t *vals = NULL;
	struct hashmap at;
	hashmap_init(&at);
	for (size_t i = 0; i < n; i++) {
		uint64_t key = (uint64_t)v[i].pid << 32 | v[i].tid, t;
		if (!hashmap_get(&at, key, &t)) {
			t = order.n;
			hashmap_put(&at, key, t);
			VEC_PUSH(&order, (uint32_t)i);
		}
	}
	if (order.n && ncounters)
		vals = xcalloc(order.n * ncounters, sizeof(*vals));
	int pw = 3, tw = 3;
	int *cw = xcalloc(ncounters ? ncounters : 1, sizeof(*cw));
	for (size_t c = 0; c < ncounters; c++)
		cw[c] = (int)strlen(names[c]);
	for (size_t i = 0; i < n; i++) {
		uint64_t t;
		hashmap_get(&at, (uint64_t)v[i].pid << 32 | v[i].tid, &t);
		if (v[i].counter < ncounters)
			vals[t * ncounters + v[i].counter] += v[i].value;
	}
	for (size_t t = 0; t < order.n; t++) {
		const struct report_thread_value *r = &v[order.v[t]];
		int w = snprintf(NULL, 0, "%d", (int)r->pid);
		pw = w > pw ? w : pw;
		w = snprintf(NULL, 0, "%d", (int)r->tid);
		tw = w > tw ? w : tw;
		for (size_t c = 0; c < ncounters; c++) {
			w = digits_of(vals[t * ncounters + c]);
			cw[c] = w > cw[c] ? w : cw[c];
		}
	}
	fprintf(out, "# %*s  %*s", pw, "PID", tw, "TID");
	for (size_t c = 0; c < ncounters; c++)
		fprintf(out, "  %*s", cw[c], names[c]);
	fputc('\n', out);
	for (size_t t = 0; t < order.n; t++) {
		const struct report_thread_value *r = &v[order.v[t]];
		fprintf(out, "  %*d  %*d", pw, (int)r->pid, tw, (int)r->tid);
		for (size_t c = 0; c < ncounters; c++)
			fprintf(out, "  %*" PRIu64, cw[c], vals[t * ncounters + c]);
		fputc('\n', out);
	}
	free(cw);
	free(vals);
	hashmap_release(&at);
	VEC_FREE(&order);
}

/* ---- perf diff ---- */

struct diff_row {
	const struct hist_entry *a, *b; /* either may be NULL, not both */
	double value;                   /* what the row sorts by */
	bool na;                        /* no baseline: ratio and wdiff say N/A */
};

struct diff_ctx {
	const struct hist *h; /* keys and names (both hists share the strtab) */
	const struct report_diff_opts *o;
};

/* Paired rows first (by value, high first; delta-abs by size), then the
 * rows with no baseline for ratio and wdiff, then baseline-only rows. */
static int diff_rank(const struct report_diff_opts *o, const struct diff_row *r)
{
	if (!r->b)
		return 2;
	return r->na && o->compute != REPORT_DIFF_DELTA && o->compute != REPORT_DIFF_DELTA_ABS;
}

static int diff_cmp(const struct diff_ctx *c, const struct diff_row *x, const struct diff_row *y)
{
	int rx = diff_rank(c->o, x), ry = diff_rank(c->o, y);
	if (rx != ry)
		return rx - ry;
	if (rx == 0 || c->o->compute == REPORT_DIFF_DELTA || c->o->compute == REPORT_DIFF_DELTA_ABS) {
		double vx = x->value, vy = y->value;
		if (c->o->compute == REPORT_DIFF_DELTA_ABS) {
			vx = fabs(vx);
			vy = fabs(vy);
		}
		if (rx != 2 && vx != vy)
			return vx > vy ? -1 : 1;
	}
	const struct hist_entry *ex = x->a ? x->a : x->b, *ey = y->a ? y->a : y->b;
	if (rx == 2 && ex->self != ey->self)
		return ex->self > ey->self ? -1 : 1;
	if (rx == 1 && x->b->self != y->b->self) /* no baseline: by the other's period */
		return x->b->self > y->b->self ? -1 : 1;
	if (rx == 0 && x->a && y->a && x->a->self != y->a->self) /* equal: by the baseline */
		return x->a->self > y->a->self ? -1 : 1;
	if (rx == 0 && (x->a != NULL) != (y->a != NULL))
		return x->a ? -1 : 1;
	return hist_key_cmp(c->h, &ex->k, &ey->k);
}

static int diff_cmp_q(const void *x, const void *y, void *arg)
{
	return diff_cmp(arg, x, y);
}

static const char *diff_header(enum report_diff_compute c)
{
	switch (c) {
	case REPORT_DIFF_DELTA:
		return "Delta";
	case REPORT_DIFF_DELTA_ABS:
		return "Delta Abs";
	case REPORT_DIFF_RATIO:
		return "Ratio";
	case REPORT_DIFF_WDIFF:
		return "Weighted diff";
	}
	return "";
}

static void diff_value(FILE *out, const struct report_diff_opts *o, const struct diff_row *r,
		       int w)
{
	if (!r->b) {
		put_spaces(out, (size_t)w);
		return;
	}
	switch (o->compute) {
	case REPORT_DIFF_DELTA:
	case REPORT_DIFF_DELTA_ABS:
		fprintf(out, "%+*.2f%%", w - 1, r->value);
		return;
	case REPORT_DIFF_RATIO:
		if (r->na)
			fprintf(out, "%*s", w, "N/A");
		else
			fprintf(out, "%*.6f", w, r->value);
		return;
	case REPORT_DIFF_WDIFF:
		if (r->na)
			fprintf(out, "%*s", w, "N/A");
		else
			fprintf(out, "%*.0f", w, r->value);
		return;
	}
}

void report_text_diff(FILE *out, const struct report_diff_opts *o, const struct hist *a,
		      const struct hist *b, const char *event_a, const char *event_b)
{
	(void)event_b;
	VEC(struct diff_row) rows = { 0 };
	uint64_t ta = a->total, tb = b->total;
	for (size_t i = 0; i < hist_count(a); i++) {
		struct diff_row *r = VEC_PUSH_ZERO(&rows);
		r->a = hist_at(a, i);
		r->b = hist_find(b, &r->a->k);
		if (r->b && !hist_entry_period(b, r->b))
			r->b = NULL;
	}
	for (size_t i = 0; i < hist_count(b); i++) {
		const struct hist_entry *e = hist_at(b, i);
		const struct hist_entry *p = hist_find(a, &e->k);
		if (p && hist_entry_period(a, p))
			continue;
		struct diff_row *r = VEC_PUSH_ZERO(&rows);
		r->b = e;
		r->na = true;
	}
	for (size_t i = 0; i < rows.n; i++) {
		struct diff_row *r = &rows.v[i];
		if (!r->b)
			continue;
		double pa = r->a ? pct(r->a->self, ta) : 0, pb = pct(r->b->self, tb);
		switch (o->compute) {
		case REPORT_DIFF_DELTA:
		case REPORT_DIFF_DELTA_ABS:
			r->value = pb - pa;
			break;
		case REPORT_DIFF_RATIO:
			r->value = r->a ? (double)r->b->self / (double)r->a->self : 0;
			break;
		case REPORT_DIFF_WDIFF:
			r->value = r->a ? (double)r->b->self * (double)o->wdiff_b -
						  (double)r->a->self * (double)o->wdiff_a
					: 0;
			break;
		}
	}
	struct diff_ctx c = { .h = a, .o = o };
	if (rows.n)
		qsort_r(rows.v, rows.n, sizeof(rows.v[0]), diff_cmp_q, &c);

	/* Shared Object and Symbol columns, as wide as their widest value */
	size_t dw = strlen("Shared Object"), sw = strlen("Symbol");
	for (size_t i = 0; i < rows.n; i++) {
		const struct hist_entry *e = rows.v[i].a ? rows.v[i].a : rows.v[i].b;
		size_t n = key_len(a, HIST_DSO, &e->k, 0), m = key_len(a, HIST_SYM, &e->k, 0);
		dw = n > dw ? n : dw;
		sw = m > sw ? m : sw;
	}
	const char *vh = diff_header(o->compute);
	int vw = (int)strlen(vh);
	if (o->compute == REPORT_DIFF_RATIO || o->compute == REPORT_DIFF_WDIFF)
		vw = 14;
	else if (o->compute == REPORT_DIFF_DELTA)
		vw = 7;
	fprintf(out, "# Event '%s'\n#\n", event_a);
	fprintf(out, "# %*s  %*s  %-*s  %-*s\n# ", PCT_WIDTH, "Baseline", vw, vh, (int)dw,
		"Shared Object", (int)sw, "Symbol");
	put_dots(out, PCT_WIDTH);
	fputs("  ", out);
	put_dots(out, (size_t)vw);
	fputs("  ", out);
	put_dots(out, dw);
	fputs("  ", out);
	put_dots(out, sw);
	fputs("\n#\n", out);
	for (size_t i = 0; i < rows.n; i++) {
		const struct diff_row *r = &rows.v[i];
		const struct hist_entry *e = r->a ? r->a : r->b;
		double shown = r->a ? pct(r->a->self, ta) : pct(r->b->self, tb);
		if (shown < o->percent_limit)
			continue;
		if (r->a)
			fprintf(out, "  %*.2f%%  ", PCT_WIDTH - 1, pct(r->a->self, ta));
		else
			fprintf(out, "  %*s  ", PCT_WIDTH, "");
		diff_value(out, o, r, vw);
		fputs("  ", out);
		key_print(out, a, HIST_DSO, &e->k, dw, false);
		fputs("  ", out);
		key_print(out, a, HIST_SYM, &e->k, sw, true);
		fputc('\n', out);
	}
	VEC_FREE(&rows);
}
