/*
 * rows: the model's expanded trees flattened into screen rows, the '/'
 * filter and the selection (tui, L8). See rows.h for the invariants.
 */
#include "tui/rows.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void tui_filter_set(struct tui_filter *f, const char *pat)
{
	tui_filter_release(f);
	if (!pat || !*pat)
		return;
	f->pat = xstrdup(pat);
	f->is_re = regcomp(&f->re, pat, REG_EXTENDED | REG_NOSUB) == 0;
}

bool tui_filter_match(const struct tui_filter *f, const char *s)
{
	if (!f || !f->pat)
		return true;
	if (f->is_re)
		return regexec(&f->re, s, 0, NULL, 0) == 0;
	return strstr(s, f->pat) != NULL;
}

void tui_filter_release(struct tui_filter *f)
{
	if (f->pat && f->is_re)
		regfree(&f->re);
	free(f->pat);
	f->pat = NULL;
	f->is_re = false;
}

/* One level of the depth-first walk: a node and the next child to visit. */
struct walk {
	uint64_t node;
	size_t next, n;
};

static bool push_row(struct tui_rows *rows, const struct browser_model *m, uint64_t node,
		     uint64_t entry, uint32_t depth, size_t max)
{
	struct browser_row br = {0};

	if (rows->r.n >= max) {
		rows->truncated = true;
		return false;
	}
	m->row(m->ctx, node, &br);
	struct tui_row *r = VEC_PUSH_ZERO(&rows->r);
	r->node = node;
	r->entry = entry;
	r->depth = depth;
	r->expandable = br.expandable;
	r->expanded = br.expandable && m->expanded(m->ctx, node);
	return true;
}

/* The rows under an expanded entry, depth first, without recursion. */
static void push_subtree(struct tui_rows *rows, const struct browser_model *m, uint64_t entry,
			 size_t max)
{
	VEC(struct walk) st = {0};

	VEC_PUSH(&st, ((struct walk){entry, 0, m->n_children(m->ctx, entry)}));
	while (st.n) {
		struct walk *w = &st.v[st.n - 1];
		if (w->next >= w->n) {
			st.n--;
			continue;
		}
		uint64_t c = m->child(m->ctx, w->node, w->next++);
		uint32_t depth = (uint32_t)st.n;
		if (!push_row(rows, m, c, entry, depth, max))
			break;
		const struct tui_row *r = &rows->r.v[rows->r.n - 1];
		if (r->expanded && depth < TUI_MAX_DEPTH)
			VEC_PUSH(&st, ((struct walk){c, 0, m->n_children(m->ctx, c)}));
	}
	VEC_FREE(&st);
}

void tui_rows_build(struct tui_rows *rows, const struct browser_model *m,
		    const struct tui_filter *f, size_t max)
{
	size_t n = m->n_entries(m->ctx);

	rows->r.n = 0;
	rows->truncated = false;
	for (size_t i = 0; i < n && !rows->truncated; i++) {
		uint64_t e = m->entry(m->ctx, i);
		if (f && f->pat) {
			struct browser_row br = {0};
			m->row(m->ctx, e, &br);
			if (!tui_filter_match(f, br.key ? br.key : br.text ? br.text : ""))
				continue;
		}
		if (!push_row(rows, m, e, e, 0, max))
			break;
		if (rows->r.v[rows->r.n - 1].expanded)
			push_subtree(rows, m, e, max);
	}
}

size_t tui_rows_find(const struct tui_rows *rows, uint64_t node)
{
	for (size_t i = 0; i < rows->r.n; i++)
		if (rows->r.v[i].node == node)
			return i;
	return SIZE_MAX;
}

void tui_rows_release(struct tui_rows *rows)
{
	VEC_FREE(&rows->r);
	rows->truncated = false;
}

void tui_expand_all(const struct browser_model *m, uint64_t node, bool on)
{
	VEC(uint64_t) st = {0};
	VEC(uint32_t) depth = {0};

	VEC_PUSH(&st, node);
	VEC_PUSH(&depth, 0);
	while (st.n) {
		uint64_t x = st.v[--st.n];
		uint32_t d = depth.v[--depth.n];
		struct browser_row br = {0};
		m->row(m->ctx, x, &br);
		if (!br.expandable)
			continue;
		if (m->expanded(m->ctx, x) != on)
			m->set_expanded(m->ctx, x, on);
		if (d >= TUI_MAX_DEPTH)
			continue;
		size_t n = m->n_children(m->ctx, x);
		for (size_t i = 0; i < n; i++) {
			VEC_PUSH(&st, m->child(m->ctx, x, i));
			VEC_PUSH(&depth, d + 1);
		}
	}
	VEC_FREE(&st);
	VEC_FREE(&depth);
}

void tui_view_fit(struct tui_view *v, size_t n, size_t height)
{
	if (n == 0) {
		v->sel = v->top = 0;
		return;
	}
	if (v->sel >= n)
		v->sel = n - 1;
	if (height == 0) {
		v->top = v->sel;
		return;
	}
	if (v->top > v->sel)
		v->top = v->sel;
	if (v->sel >= v->top + height)
		v->top = v->sel - height + 1;
	/* No empty space below the last row while rows above are hidden. */
	if (v->top + height > n)
		v->top = n > height ? n - height : 0;
}

void tui_view_set(struct tui_view *v, size_t sel, size_t n, size_t height)
{
	v->sel = sel;
	tui_view_fit(v, n, height);
}

void tui_view_move(struct tui_view *v, long delta, size_t n, size_t height)
{
	if (delta < 0)
		v->sel = (size_t)-delta > v->sel ? 0 : v->sel - (size_t)-delta;
	else
		v->sel = (size_t)delta > SIZE_MAX - v->sel ? SIZE_MAX : v->sel + (size_t)delta;
	tui_view_fit(v, n, height);
}

bool tui_zooms_has(const struct tui_zooms *z, enum browser_zoom how)
{
	for (unsigned i = 0; i < z->n; i++)
		if (z->v[i] == how)
			return true;
	return false;
}

/* Take 'how' off the stack, keeping the others' order. */
static void zooms_remove(struct tui_zooms *z, enum browser_zoom how)
{
	unsigned k = 0;
	for (unsigned i = 0; i < z->n; i++)
		if (z->v[i] != how)
			z->v[k++] = z->v[i];
	z->n = k;
}

int tui_zooms_press(struct tui_zooms *z, enum browser_zoom how, bool *on)
{
	*on = false;
	if (how == BROWSER_ZOOM_OUT) {
		if (!z->n)
			return -1;
		return (int)z->v[--z->n];
	}
	if ((unsigned)how >= BROWSER_ZOOM_OUT)
		return -1;
	if (tui_zooms_has(z, how)) {
		zooms_remove(z, how);
		return (int)how;
	}
	z->v[z->n++] = how;
	*on = true;
	return (int)how;
}

void tui_zooms_undo(struct tui_zooms *z, enum browser_zoom how, bool on)
{
	if (on)
		zooms_remove(z, how);
	else if ((unsigned)how < BROWSER_ZOOM_OUT && !tui_zooms_has(z, how))
		z->v[z->n++] = how;
}
