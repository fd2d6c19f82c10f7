/*
 * browser: the entries-and-callchains list in curses (tui, L8). The
 * state that does not need a screen (rows, filter, selection) is in
 * rows.c; this file draws it and maps keys to it. See browser.h.
 */
#define NCURSES_WIDECHAR 1
#define NCURSES_NOMACROS 1 /* refresh(), erase() as functions: the model has a refresh member */
#include "tui/browser.h"

#include <curses.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "tui/rows.h"
#include "tui/textview.h"

static const char help_text[] =
	"Keys\n"
	"\n"
	"  Up/Down, k/j        move the selection\n"
	"  PgUp/PgDn, b/space  move by a page\n"
	"  Home/End, g/G       first/last row\n"
	"  Enter, +            expand/fold the selected callchain\n"
	"  e                   expand/fold all of the selected entry's callchain\n"
	"  E                   expand every entry\n"
	"  C                   fold every entry\n"
	"  /                   filter entries by symbol (regex or substring; empty: all)\n"
	"  s                   zoom to the selected symbol (again: zoom out)\n"
	"  d                   zoom to the selected DSO (again: zoom out)\n"
	"  t                   zoom to the selected thread (again: zoom out)\n"
	"  a                   annotate the selected entry\n"
	"  h, ?                this help\n"
	"  Esc, Left           clear the filter, else zoom out, else (Esc) quit\n"
	"  q                   quit\n"
	"\n"
	"In a text page: Up/Down, PgUp/PgDn, Home/End, Left/Right scroll,\n"
	"/ search, n/N next/previous match, q or Esc back.\n";

struct browser {
	struct tui *t;
	const struct browser_model *m;
	struct tui_rows rows;
	struct tui_filter filter;
	struct tui_view view;
	size_t max_rows;
	struct buf line, msg;
	char pat[256];
};

static int first_row_y(const struct browser *b)
{
	return b->m->columns ? 2 : 1;
}

static size_t rows_height(const struct browser *b)
{
	int h = LINES - first_row_y(b) - 1;
	return h > 0 ? (size_t)h : 0;
}

/* Rebuild the rows and keep the selection on its node, or on its entry. */
static void rebuild(struct browser *b)
{
	uint64_t node = 0, entry = 0;
	size_t old = b->view.sel;

	if (b->view.sel < b->rows.r.n) {
		node = b->rows.r.v[b->view.sel].node;
		entry = b->rows.r.v[b->view.sel].entry;
	}
	tui_rows_build(&b->rows, b->m, &b->filter, b->max_rows);
	size_t i = node ? tui_rows_find(&b->rows, node) : SIZE_MAX;
	if (i == SIZE_MAX && entry)
		i = tui_rows_find(&b->rows, entry);
	tui_view_set(&b->view, i != SIZE_MAX ? i : old, b->rows.r.n, rows_height(b));
}

static void restart(struct browser *b)
{
	b->view.sel = b->view.top = 0;
	tui_rows_build(&b->rows, b->m, &b->filter, b->max_rows);
	tui_view_fit(&b->view, b->rows.r.n, rows_height(b));
}

static void draw_row(struct browser *b, int y, size_t i)
{
	struct tui *t = b->t;
	const struct tui_row *r = &b->rows.r.v[i];
	struct browser_row br = {0};
	bool sel = i == b->view.sel;
	int x = 0, base = sel ? tui_attr(t, TUI_SELECTED) : (int)A_NORMAL;
	char tmp[32];

	b->m->row(b->m->ctx, r->node, &br);
	attrset(base);
	if (r->depth) {
		size_t indent = (size_t)r->depth * 3;
		x = indent < (size_t)COLS ? (int)indent : COLS;
		for (int k = 0; k < x; k++)
			mvaddch(y, k, ' ');
	}
	const char *fold = r->expandable ? (r->expanded ? "- " : "+ ") : "  ";
	x += tui_text(t, y, x, COLS - x, fold, 2);
	unsigned np = br.n_pct < 2 ? br.n_pct : 2;
	for (unsigned k = 0; k < np && x < COLS; k++) {
		int n = r->depth ? snprintf(tmp, sizeof(tmp), "%.2f%% ", br.pct[k])
				 : snprintf(tmp, sizeof(tmp), "%6.2f%%  ", br.pct[k]);
		if (!sel)
			attrset(tui_pct_attr(t, br.pct[k]));
		x += tui_text(t, y, x, COLS - x, tmp, n > 0 ? (size_t)n : 0);
		attrset(base);
	}
	const char *text = br.text ? br.text : "";
	if (x < COLS) {
		if (sel)
			tui_text_pad(t, y, x, COLS - x, text, strlen(text));
		else
			tui_text(t, y, x, COLS - x, text, strlen(text));
	}
	attrset((int)A_NORMAL);
}

static void draw(struct browser *b)
{
	struct tui *t = b->t;
	size_t h = rows_height(b);

	tui_view_fit(&b->view, b->rows.r.n, h);
	erase();
	buf_reset(&b->line);
	b->m->title(b->m->ctx, &b->line);
	attrset(tui_attr(t, TUI_TITLE));
	tui_text_pad(t, 0, 0, COLS, buf_str(&b->line), b->line.len);
	attrset((int)A_NORMAL);
	if (b->m->columns && LINES > 1) {
		buf_reset(&b->line);
		b->m->columns(b->m->ctx, &b->line);
		attrset((int)A_BOLD);
		tui_text(t, 1, 2, COLS - 2, buf_str(&b->line), b->line.len);
		attrset((int)A_NORMAL);
	}
	for (size_t k = 0; k < h && b->view.top + k < b->rows.r.n; k++)
		draw_row(b, first_row_y(b) + (int)k, b->view.top + k);
	if (b->rows.r.n == 0 && h > 0)
		tui_text(t, first_row_y(b), 2, COLS - 2, "(no entries)", 12);
	if (LINES > 1) {
		buf_reset(&b->line);
		if (b->m->status)
			b->m->status(b->m->ctx, &b->line);
		if (b->filter.pat)
			buf_addf(&b->line, "%sfilter: %s", b->line.len ? "  " : "", b->filter.pat);
		if (b->msg.len)
			buf_addf(&b->line, "%s%s", b->line.len ? "  " : "", buf_str(&b->msg));
		if (b->rows.truncated)
			buf_addf(&b->line, "%s(rows cut at %zu)", b->line.len ? "  " : "",
				 b->max_rows);
		buf_addf(&b->line, "%s%zu/%zu  ? help", b->line.len ? "  " : "",
			 b->rows.r.n ? b->view.sel + 1 : 0, b->rows.r.n);
		attrset(tui_attr(t, TUI_STATUS));
		tui_text_pad(t, LINES - 1, 0, COLS, buf_str(&b->line), b->line.len);
		attrset((int)A_NORMAL);
	}
	refresh();
}

char *browser_help_text(const struct browser_model *m, size_t *len)
{
	struct buf out;

	buf_init(&out, 1 << 20);
	buf_addstr(&out, help_text);
	if (m->help) {
		buf_addch(&out, '\n');
		m->help(m->ctx, &out);
	}
	return buf_detach(&out, len);
}

static void show_page(struct browser *b, struct textview_src *page, const struct browser_opts *o)
{
	struct textview_opts to = {.refresh_ms = o ? o->refresh_ms : 0};

	textview_run(b->t, page, &to);
	if (page->release)
		page->release(page->ctx);
}

static void show_help(struct browser *b)
{
	struct textview_src page;
	size_t len;
	char *text = browser_help_text(b->m, &len);

	textview_src_text(&page, "Help", text, len);
	free(text);
	show_page(b, &page, NULL);
}

static const struct tui_row *selected(const struct browser *b)
{
	return b->view.sel < b->rows.r.n ? &b->rows.r.v[b->view.sel] : NULL;
}

/* The status line says the model is at work (a zoom or a page may read a file). */
static void busy(struct browser *b)
{
	if (LINES < 1)
		return;
	attrset(tui_attr(b->t, TUI_STATUS));
	tui_text_pad(b->t, LINES - 1, 0, COLS, "Working...", 10);
	attrset((int)A_NORMAL);
	refresh();
}

static void do_zoom(struct browser *b, enum browser_zoom how)
{
	const struct tui_row *r = selected(b);

	if (!b->m->zoom || !r)
		return;
	busy(b);
	if (b->m->zoom(b->m->ctx, r->node, how, &b->msg) == 1)
		restart(b);
}

static void do_annotate(struct browser *b, const struct browser_opts *o)
{
	const struct tui_row *r = selected(b);
	struct textview_src page = {0};

	if (!r)
		return;
	if (!b->m->annotate) {
		buf_addstr(&b->msg, "no annotation here");
		return;
	}
	busy(b);
	if (b->m->annotate(b->m->ctx, r->entry, r->node, &page, &b->msg) < 0) {
		if (!b->msg.len)
			buf_addstr(&b->msg, "cannot annotate this entry");
		return;
	}
	show_page(b, &page, o);
	rebuild(b); /* the model may have changed while the page was up (top) */
}

/* Esc/Left: clear the filter, else zoom out. Returns false if neither applied. */
static bool go_back(struct browser *b)
{
	if (b->filter.pat) {
		tui_filter_set(&b->filter, NULL);
		b->pat[0] = '\0';
		rebuild(b);
		return true;
	}
	if (b->m->zoom && (busy(b), b->m->zoom(b->m->ctx, 0, BROWSER_ZOOM_OUT, &b->msg)) == 1) {
		restart(b);
		return true;
	}
	return false;
}

static void toggle(struct browser *b, bool whole_entry)
{
	const struct tui_row *r = selected(b);

	if (!r)
		return;
	if (whole_entry) {
		uint64_t e = r->entry;
		size_t i = tui_rows_find(&b->rows, e);
		bool on = i == SIZE_MAX || !b->rows.r.v[i].expanded;
		tui_expand_all(b->m, e, on);
		if (i != SIZE_MAX)
			b->view.sel = i;
	} else if (r->expandable) {
		b->m->set_expanded(b->m->ctx, r->node, !r->expanded);
	}
	rebuild(b);
}

static void all_entries(struct browser *b, bool on)
{
	size_t n = b->m->n_entries(b->m->ctx);

	for (size_t i = 0; i < n; i++)
		tui_expand_all(b->m, b->m->entry(b->m->ctx, i), on);
	rebuild(b);
}

int browser_run(struct tui *t, const struct browser_model *m, const struct browser_opts *o)
{
	int quit_key = 'q';
	struct browser b = {.t = t, .m = m};
	struct tui_tick tick;

	tui_tick_start(&tick, o && m->refresh ? o->refresh_ms : 0);
	b.max_rows = o && o->max_rows ? o->max_rows : BROWSER_MAX_ROWS;
	buf_init(&b.line, 1 << 20);
	buf_init(&b.msg, 4096);
	restart(&b);
	for (bool done = false; !done;) {
		draw(&b);
		int c = tui_getkey_tick(t, &tick);
		if (c != TUI_KEY_TIMEOUT && c != KEY_RESIZE)
			buf_reset(&b.msg);
		if (tui_view_key(&b.view, c, b.rows.r.n, rows_height(&b)))
			continue;
		switch (c) {
		case TUI_KEY_TIMEOUT: /* a tick (or a wait cut short: ERR) */
			if (tick.period_ms > 0) {
				int r = m->refresh(m->ctx);
				if (r == 1)
					rebuild(&b);
				else if (r < 0)
					done = true;
			}
			break;
		case KEY_RESIZE:
			break;
		case '\n':
		case '\r':
		case KEY_ENTER:
			if (m->open && selected(&b) && !selected(&b)->depth) {
				int rc = m->open(m->ctx, selected(&b)->entry);
				if (rc == BROWSER_QUIT) {
					done = true;
					quit_key = 'q';
				}
				else if (rc == BROWSER_STAY)
					rebuild(&b);
				if (rc != BROWSER_UNFOLD)
					break;
			}
			/* A row without a callchain (annotate's list): Enter annotates it. */
			if (selected(&b) && !selected(&b)->expandable && m->annotate) {
				do_annotate(&b, o);
				break;
			}
			/* fall through */
		case '+':
			toggle(&b, false);
			break;
		case 'e':
			toggle(&b, true);
			break;
		case 'E':
			all_entries(&b, true);
			break;
		case 'C':
			all_entries(&b, false);
			break;
		case '/':
			if (LINES >= 1 && tui_prompt(t, LINES - 1, "/", b.pat, sizeof(b.pat) - 1)) {
				tui_filter_set(&b.filter, b.pat);
				restart(&b);
			}
			break;
		case 's':
			do_zoom(&b, BROWSER_ZOOM_SYMBOL);
			break;
		case 'd':
			do_zoom(&b, BROWSER_ZOOM_DSO);
			break;
		case 't':
			do_zoom(&b, BROWSER_ZOOM_THREAD);
			break;
		case 'a':
			do_annotate(&b, o);
			break;
		case 'h':
		case '?':
			show_help(&b);
			break;
		case 27:
			done = !go_back(&b);
			quit_key = 27;
			break;
		case KEY_LEFT:
			go_back(&b);
			break;
		case 'q':
			done = true;
			quit_key = 'q';
			break;
		default:
			if (m->key && m->key(m->ctx, selected(&b) ? selected(&b)->node : 0, c) == 1)
				rebuild(&b);
			break;
		}
	}
	tui_rows_release(&b.rows);
	tui_filter_release(&b.filter);
	buf_release(&b.line);
	buf_release(&b.msg);
	return quit_key;
}
