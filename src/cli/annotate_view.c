/* annotate_view: one function's annotation, as text or a page (cli, L9). */
#include "cli/annotate_view.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "output/annotate_text.h"
#include "tui/textview.h"

#define KERNEL_NAME "[kernel.kallsyms]"

const char *annotate_view_dso_path(const struct dso *d)
{
	if (d->kind == DSO_KERNEL && !strncmp(d->path, KERNEL_NAME, strlen(KERNEL_NAME)))
		return KERNEL_NAME;
	return d->path;
}

const char *annotate_view_dso(const struct annotate_view *v, const struct symhist_group *g)
{
	const char *path = annotate_view_dso_path(dso_set_get(&v->s->dsos, g->dso));
	const char *base = strrchr(path, '/');
	return v->full_paths || !base ? path : base + 1;
}

double annotate_view_share(const struct annotate_view *v, const struct symhist_group *g)
{
	return annotate_percent(g->period, v->h->events.v[g->attr].period);
}

/* An annotation that could not be built: its header and the reason, in its place. */
static void note_only(struct annotation *a, const struct symhist_group *g)
{
	a->samples = g->samples;
	a->period = g->period;
	a->dis.start = g->start;
	a->name = g->raw;
	const char *why = err_last()->msg[0] ? err_last()->msg : "cannot be annotated";
	VEC_PUSH(&a->notes, xstrdup(why));
}

int annotate_view_write(const struct annotate_view *v, const struct symhist_group *g,
			bool always_note, FILE *f)
{
	struct session *s = v->s;
	const char *path = annotate_view_dso_path(dso_set_get(&s->dsos, g->dso));
	struct annotate_text_opts to = {
		.dso_name = annotate_view_dso(v, g),
		.event = v->h->events.v[g->attr].name,
		.func_name = symhist_func_name,
		.func_ctx = s,
		.no_source = v->ao.no_source,
	};
	struct annotation an;
	err_clear();
	int err = symhist_annotate(s, v->h, g, &v->ao, &an);
	if (err && v->skip_missing && !always_note) {
		annotation_release(&an);
		return 0;
	}
	if (err)
		note_only(&an, g);
	else if (v->print_line)
		err = annotate_text_write_lines(f, &an, s->strs, path, true);
	if (v->sort_by_lines)
		err = annotate_text_write_by_line(f, &an, s->strs, &to);
	else
		err = annotate_text_write(f, &an, s->strs, &to);
	annotation_release(&an);
	return err ? -EIO : 0;
}

int annotate_view_page(const struct annotate_view *v, const struct symhist_group *g,
		       struct textview_src *page, struct buf *msg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		buf_addstr(msg, "out of memory");
		return -ENOMEM;
	}
	int err = annotate_view_write(v, g, true, f);
	if (fclose(f) || err) {
		free(text);
		buf_addstr(msg, "cannot write the annotation");
		return -EIO;
	}
	char *title = xasprintf("Annotate: %s  %.2f%%  %s", strtab_get(v->s->strs, g->name),
				annotate_view_share(v, g), annotate_view_dso(v, g));
	textview_src_text(page, title, text, len);
	textview_src_lead_pct(page);
	free(title);
	free(text);
	return 0;
}

int annotate_source_open(struct annotate_source *src, struct session_opts *so)
{
	memset(src, 0, sizeof(*src));
	symhist_session_opts(so);
	int err = session_open(&src->s, so);
	if (err)
		return err;
	symhist_init(&src->h);
	err = symhist_load(&src->s, &src->h);
	if (err) {
		symhist_release(&src->h);
		session_close(&src->s);
		return err;
	}
	src->v = (struct annotate_view){ .s = &src->s, .h = &src->h };
	src->open = true;
	return 0;
}

void annotate_source_close(struct annotate_source *src)
{
	if (!src->open)
		return;
	symhist_release(&src->h);
	session_close(&src->s);
	src->open = false;
}

/* Whether dso 'd' is the one report calls 'name' (dso_name in pipeline/report). */
static bool dso_named(const struct dso *d, const char *name)
{
	if (d->kind == DSO_KERNEL) {
		if (!strncmp(d->path, KERNEL_NAME, strlen(KERNEL_NAME)))
			return !strcmp(name, KERNEL_NAME);
		char buf[512];
		return !strcmp(name, dso_module_name(d->path, buf, sizeof(buf)));
	}
	const char *b = strrchr(d->path, '/');
	return !strcmp(name, b && b[1] ? b + 1 : d->path);
}

const struct symhist_group *annotate_source_find(const struct annotate_source *src,
						 uint32_t attr, const char *dso, const char *sym)
{
	const struct symhist *h = &src->h;
	for (size_t i = 0; i < h->groups.n; i++) {
		const struct symhist_group *g = &h->groups.v[i];
		if (g->attr != attr || strcmp(sym, strtab_get(src->s.strs, g->name)))
			continue;
		if (!dso || dso_named(dso_set_get(&src->s.dsos, g->dso), dso))
			return g;
	}
	return NULL;
}
