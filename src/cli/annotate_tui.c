/* annotate_tui: `kiln annotate` in the terminal browser (cli, L9). */
#include "cli/annotate_tui.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/buf.h"
#include "tui/browser.h"
#include "tui/textview.h"

#define DSO_WIDTH_MAX 30

struct list {
	const struct annotate_tui *a;
	int dso_width;
	struct buf text; /* the row handed out last */
};

static const struct symhist_group *group_of(const struct list *l, uint64_t node)
{
	return l->a->groups[node - 1];
}

static void m_title(void *ctx, struct buf *out)
{
	const struct list *l = ctx;
	const struct symhist *h = l->a->v->h;
	uint64_t samples = 0;
	for (size_t i = 0; i < h->events.n; i++)
		samples += h->events.v[i].samples;
	if (h->events.n == 1)
		buf_addf(out, "Samples: %llu of event '%s'", (unsigned long long)samples,
			 h->events.v[0].name);
	else
		buf_addf(out, "Samples: %llu of %zu events", (unsigned long long)samples,
			 h->events.n);
	buf_addf(out, ", %zu function%s annotated", l->a->n, l->a->n == 1 ? "" : "s");
}

static void m_columns(void *ctx, struct buf *out)
{
	const struct list *l = ctx;
	buf_addf(out, "Overhead %-*s  Symbol", l->dso_width, "Shared Object");
}

static size_t m_n_entries(void *ctx)
{
	const struct list *l = ctx;
	return l->a->n;
}

static uint64_t m_entry(void *ctx, size_t i)
{
	(void)ctx;
	return (uint64_t)i + 1;
}

static size_t m_n_children(void *ctx, uint64_t node)
{
	(void)ctx;
	(void)node;
	return 0;
}

static uint64_t m_child(void *ctx, uint64_t node, size_t i)
{
	(void)ctx;
	(void)node;
	(void)i;
	return 0;
}

static void m_row(void *ctx, uint64_t node, struct browser_row *out)
{
	struct list *l = ctx;
	const struct symhist_group *g = group_of(l, node);
	const char *sym = strtab_get(l->a->v->s->strs, g->name);
	buf_reset(&l->text);
	buf_addf(&l->text, "%-*s  [%c] %s", l->dso_width, annotate_view_dso(l->a->v, g),
		 g->kernel ? 'k' : '.', sym);
	out->text = buf_str(&l->text);
	out->key = sym;
	out->pct[0] = annotate_view_share(l->a->v, g);
	out->n_pct = 1;
}

static bool m_expanded(void *ctx, uint64_t node)
{
	(void)ctx;
	(void)node;
	return false;
}

static void m_set_expanded(void *ctx, uint64_t node, bool on)
{
	(void)ctx;
	(void)node;
	(void)on;
}

/* The page of node's function: the --stdio text, coloured by the leading shares. */
static int m_annotate(void *ctx, uint64_t entry, uint64_t node, struct textview_src *page,
		      struct buf *msg)
{
	const struct list *l = ctx;
	(void)node;
	return annotate_view_page(l->a->v, group_of(l, entry), page, msg);
}

static void m_help(void *ctx, struct buf *out)
{
	(void)ctx;
	buf_addstr(out, "Annotate\n\n"
			"  Enter, a            the selected function's instructions\n");
}

void stderr_aside(struct stderr_aside *sa)
{
	sa->saved = sa->mem = -1;
	int mem = memfd_create("kiln-stderr", MFD_CLOEXEC);
	if (mem < 0)
		return;
	int saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (saved < 0 || dup2(mem, STDERR_FILENO) < 0) {
		if (saved >= 0)
			close(saved);
		close(mem);
		return;
	}
	sa->saved = saved;
	sa->mem = mem;
}

void stderr_back(struct stderr_aside *sa)
{
	if (sa->saved < 0)
		return;
	dup2(sa->saved, STDERR_FILENO);
	close(sa->saved);
	char chunk[4096];
	off_t off = 0;
	for (;;) {
		ssize_t n = pread(sa->mem, chunk, sizeof(chunk), off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += n;
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(STDERR_FILENO, chunk + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			done += w;
		}
	}
	close(sa->mem);
}

int annotate_tui_run(const struct annotate_tui *a)
{
	struct list l = { .a = a, .dso_width = (int)strlen("Shared Object") };
	for (size_t i = 0; i < a->n; i++) {
		size_t w = strlen(annotate_view_dso(a->v, a->groups[i]));
		if (w > (size_t)l.dso_width)
			l.dso_width = w > DSO_WIDTH_MAX ? DSO_WIDTH_MAX : (int)w;
	}
	struct tui *t;
	int err = tui_open(&t, &(struct tui_opts){ .term = a->term });
	if (err)
		return err;
	struct stderr_aside sa;
	stderr_aside(&sa);
	buf_init(&l.text, 1 << 16);
	struct browser_model m = {
		.ctx = &l,
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
	if (a->straight && a->n == 1) {
		struct textview_src page = {0};
		struct buf msg;
		buf_init(&msg, 4096);
		if (m_annotate(&l, 1, 1, &page, &msg) == 0) {
			textview_run(t, &page, &(struct textview_opts){0});
			page.release(page.ctx);
		} else {
			browser_run(t, &m, &(struct browser_opts){0});
		}
		buf_release(&msg);
	} else {
		browser_run(t, &m, &(struct browser_opts){0});
	}
	tui_close(t);
	stderr_back(&sa);
	buf_release(&l.text);
	return 0;
}
