/*
 * textview: a scrolled page of text lines with search (tui, L8); the
 * loop reads keys, the page comes from a struct textview_src.
 */
#define NCURSES_WIDECHAR 1
#define NCURSES_NOMACROS 1 /* refresh(), erase() as functions: the model has a refresh member */
#include "tui/textview.h"

#include <curses.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/vec.h"
#include "base/xalloc.h"

/* ---- a page over a copy of a text ---- */

struct text_page {
	char *text, *title;
	VEC(size_t) start; /* line i is text[start[i] .. start[i+1]-1) without its '\n' */
	size_t len;
};

static size_t text_n_lines(void *ctx)
{
	const struct text_page *p = ctx;
	return p->start.n - 1;
}

static const char *text_line(void *ctx, size_t i, size_t *len)
{
	const struct text_page *p = ctx;
	size_t a = p->start.v[i], b = p->start.v[i + 1];
	if (b > a && p->text[b - 1] == '\n')
		b--;
	*len = b - a;
	return p->text + a;
}

static void text_title(void *ctx, struct buf *out)
{
	const struct text_page *p = ctx;
	buf_addstr(out, p->title);
}

static void text_release(void *ctx)
{
	struct text_page *p = ctx;
	free(p->text);
	free(p->title);
	VEC_FREE(&p->start);
	free(p);
}

static double text_lead_pct(void *ctx, size_t i)
{
	size_t len, k = 0;
	const char *s = text_line(ctx, i, &len);
	char num[32];

	while (k < len && s[k] == ' ')
		k++;
	size_t n = 0;
	while (k < len && n + 1 < sizeof(num) && ((s[k] >= '0' && s[k] <= '9') || s[k] == '.'))
		num[n++] = s[k++];
	num[n] = '\0';
	if (n == 0 || num[0] == '.')
		return -1;
	return strtod(num, NULL);
}

void textview_src_lead_pct(struct textview_src *src)
{
	src->line_pct = text_lead_pct;
}

void textview_src_text(struct textview_src *src, const char *title, const char *text, size_t len)
{
	struct text_page *p = xcalloc(1, sizeof(*p));

	p->text = xmalloc(len + 1);
	memcpy(p->text, text, len);
	p->text[len] = '\0';
	p->len = len;
	p->title = xstrdup(title ? title : "");
	VEC_PUSH(&p->start, 0);
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\n')
			VEC_PUSH(&p->start, i + 1);
	if (p->start.v[p->start.n - 1] != len)
		VEC_PUSH(&p->start, len);
	memset(src, 0, sizeof(*src));
	src->ctx = p;
	src->n_lines = text_n_lines;
	src->line = text_line;
	src->title = text_title;
	src->release = text_release;
}

/* ---- search ---- */

static bool line_matches(const struct textview_src *src, const struct tui_filter *f, size_t i,
			 struct buf *tmp)
{
	size_t len;
	const char *s = src->line(src->ctx, i, &len);

	buf_reset(tmp);
	if (buf_add(tmp, s, len) != 0)
		return false;
	return tui_filter_match(f, buf_str(tmp));
}

size_t textview_find(const struct textview_src *src, const struct tui_filter *f, size_t from,
		     bool forward)
{
	size_t n = src->n_lines(src->ctx), found = SIZE_MAX;
	struct buf tmp;

	if (!f->pat || n == 0)
		return SIZE_MAX;
	if (from >= n)
		from = forward ? n - 1 : 0;
	buf_init(&tmp, 1 << 20);
	for (size_t k = 1; k <= n; k++) {
		size_t i = forward ? (from + k) % n : (from + n - k % n) % n;
		if (line_matches(src, f, i, &tmp)) {
			found = i;
			break;
		}
	}
	buf_release(&tmp);
	return found;
}

/* ---- the loop ---- */

struct page_state {
	struct tui *t;
	const struct textview_src *src;
	struct tui_view view;
	struct tui_filter search;
	size_t hscroll;
	struct buf line, msg;
};

static int text_height(void)
{
	return LINES > 2 ? LINES - 2 : 0;
}

static void draw_page(struct page_state *ps)
{
	struct tui *t = ps->t;
	size_t n = ps->src->n_lines(ps->src->ctx);
	int h = text_height();

	tui_view_fit(&ps->view, n, (size_t)h);
	erase();
	buf_reset(&ps->line);
	if (ps->src->title)
		ps->src->title(ps->src->ctx, &ps->line);
	attrset(tui_attr(t, TUI_TITLE));
	tui_text_pad(t, 0, 0, COLS, ps->line.p ? ps->line.p : "", ps->line.len);
	for (int y = 0; y < h && ps->view.top + (size_t)y < n; y++) {
		size_t i = ps->view.top + (size_t)y, len;
		int a = (int)A_NORMAL;
		if (i == ps->view.sel)
			a = tui_attr(t, TUI_SELECTED);
		else if (ps->search.pat && line_matches(ps->src, &ps->search, i, &ps->line))
			a = tui_attr(t, TUI_MATCH);
		else if (ps->src->line_pct)
			a = tui_pct_attr(t, ps->src->line_pct(ps->src->ctx, i));
		attrset(a);
		const char *s = ps->src->line(ps->src->ctx, i, &len);
		size_t skip = ps->hscroll < len ? ps->hscroll : len;
		if (i == ps->view.sel)
			tui_text_pad(t, 1 + y, 0, COLS, s + skip, len - skip);
		else
			tui_text(t, 1 + y, 0, COLS, s + skip, len - skip);
	}
	if (LINES >= 2) {
		buf_reset(&ps->line);
		if (ps->msg.len)
			buf_addstr(&ps->line, buf_str(&ps->msg));
		else
			buf_addf(&ps->line, "line %zu of %zu  / search  n/N next/prev  q back",
				 n ? ps->view.sel + 1 : 0, n);
		attrset(tui_attr(t, TUI_STATUS));
		tui_text_pad(t, LINES - 1, 0, COLS, buf_str(&ps->line), ps->line.len);
	}
	attrset((int)A_NORMAL);
	refresh();
}

static void search_step(struct page_state *ps, bool forward)
{
	buf_reset(&ps->msg);
	if (!ps->search.pat)
		return;
	size_t i = textview_find(ps->src, &ps->search, ps->view.sel, forward);
	if (i == SIZE_MAX) {
		buf_addstr(&ps->msg, "not found: ");
		buf_addstr(&ps->msg, ps->search.pat);
		return;
	}
	tui_view_set(&ps->view, i, ps->src->n_lines(ps->src->ctx), (size_t)text_height());
}

void textview_run(struct tui *t, const struct textview_src *src, const struct textview_opts *o)
{
	struct page_state ps = {.t = t, .src = src};
	struct tui_tick tick;
	char pat[256] = "";

	tui_tick_start(&tick, o && src->refresh ? o->refresh_ms : 0);
	buf_init(&ps.line, 1 << 20);
	buf_init(&ps.msg, 4096);
	for (bool done = false; !done;) {
		draw_page(&ps);
		int c = tui_getkey_tick(t, &tick);
		if (c != TUI_KEY_TIMEOUT && c != KEY_RESIZE)
			buf_reset(&ps.msg);
		if (tui_view_key(&ps.view, c, src->n_lines(src->ctx), (size_t)text_height()))
			continue;
		switch (c) {
		case TUI_KEY_TIMEOUT: /* a tick (or a wait cut short: ERR) */
			if (tick.period_ms > 0)
				src->refresh(src->ctx);
			break;
		case KEY_RESIZE:
			break;
		case KEY_RIGHT:
			if (ps.hscroll < 100000)
				ps.hscroll += 8;
			break;
		case KEY_LEFT:
			if (ps.hscroll == 0)
				done = true;
			else
				ps.hscroll = ps.hscroll > 8 ? ps.hscroll - 8 : 0;
			break;
		case '/':
			if (LINES >= 1 && tui_prompt(t, LINES - 1, "/", pat, sizeof(pat) - 1)) {
				tui_filter_set(&ps.search, pat);
				if (ps.search.pat && line_matches(src, &ps.search, ps.view.sel, &ps.line))
					break;
				search_step(&ps, true);
			}
			break;
		case 'n':
			search_step(&ps, true);
			break;
		case 'N':
			search_step(&ps, false);
			break;
		case 'q':
		case 27:
			done = true;
			break;
		default:
			break;
		}
	}
	tui_filter_release(&ps.search);
	buf_release(&ps.line);
	buf_release(&ps.msg);
}
