/*
 * tui unit tests (L8) for what needs no screen: the model's trees
 * flattened into rows (expanded and folded nodes, depths, entries), the
 * '/' filter (regex, substring, invalid regex), the row cap and a model
 * with a cycle, expanding and folding whole trees, the selection and
 * scroll position, and the text page's line splitting and search.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <string.h>

#include <curses.h>

#include "tui/rows.h"
#include "tui/term.h"
#include "tui/textview.h"

/*
 * The tree (node = index + 1):
 *   A (1) -> A1 (2) -> A1a (3), A1b (4)
 *         -> A2 (5)
 *   B (6)
 *   C (7) -> C1 (8)
 *   x[y (9)
 * With 'cycle' set, node 8 is its own child.
 */
struct tnode {
	const char *name;
	uint64_t kids[3];
	size_t nk;
};

struct tmodel {
	struct tnode n[10];
	bool expanded[10];
	bool cycle;
	int set_calls;
};

static const uint64_t entries[] = {1, 6, 7, 9};

static size_t t_n_entries(void *ctx)
{
	(void)ctx;
	return 4;
}

static uint64_t t_entry(void *ctx, size_t i)
{
	(void)ctx;
	return entries[i];
}

static size_t t_n_children(void *ctx, uint64_t h)
{
	struct tmodel *m = ctx;
	return m->cycle && h == 8 ? 1 : m->n[h].nk;
}

static uint64_t t_child(void *ctx, uint64_t h, size_t i)
{
	struct tmodel *m = ctx;
	return m->cycle && h == 8 ? 8 : m->n[h].kids[i];
}

static void t_row(void *ctx, uint64_t h, struct browser_row *out)
{
	struct tmodel *m = ctx;
	out->text = m->n[h].name;
	out->key = m->n[h].name;
	out->expandable = t_n_children(ctx, h) > 0;
}

static bool t_expanded(void *ctx, uint64_t h)
{
	struct tmodel *m = ctx;
	return m->expanded[h];
}

static void t_set_expanded(void *ctx, uint64_t h, bool on)
{
	struct tmodel *m = ctx;
	m->expanded[h] = on;
	m->set_calls++;
}

static void t_title(void *ctx, struct buf *out)
{
	(void)ctx;
	buf_addstr(out, "t");
}

static struct tmodel tm;
static struct browser_model model = {
	.ctx = &tm,
	.title = t_title,
	.n_entries = t_n_entries,
	.entry = t_entry,
	.n_children = t_n_children,
	.child = t_child,
	.row = t_row,
	.expanded = t_expanded,
	.set_expanded = t_set_expanded,
};

static int setup(void **state)
{
	(void)state;
	memset(&tm, 0, sizeof(tm));
	tm.n[1] = (struct tnode){"A", {2, 5}, 2};
	tm.n[2] = (struct tnode){"A1", {3, 4}, 2};
	tm.n[3] = (struct tnode){"A1a", {0}, 0};
	tm.n[4] = (struct tnode){"A1b", {0}, 0};
	tm.n[5] = (struct tnode){"A2", {0}, 0};
	tm.n[6] = (struct tnode){"B", {0}, 0};
	tm.n[7] = (struct tnode){"C", {8}, 1};
	tm.n[8] = (struct tnode){"C1", {0}, 0};
	tm.n[9] = (struct tnode){"x[y", {0}, 0};
	return 0;
}

/* The rows as "name/depth/entry" joined by spaces, '+' or '-' for expandable ones. */
static const char *flat(const struct tui_rows *r)
{
	static char out[512];
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < r->r.n; i++) {
		const struct tui_row *x = &r->r.v[i];
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s%s/%u/%s", i ? " " : "",
					x->expandable ? (x->expanded ? "-" : "+") : "",
					tm.n[x->node].name, x->depth, tm.n[x->entry].name);
	}
	return out;
}

static void test_flatten(void **state)
{
	struct tui_rows r = {0};
	(void)state;

	tui_rows_build(&r, &model, NULL, 100);
	assert_string_equal(flat(&r), "+A/0/A B/0/B +C/0/C x[y/0/x[y");
	/* A child expanded under a folded entry stays hidden. */
	tm.expanded[2] = true;
	tui_rows_build(&r, &model, NULL, 100);
	assert_string_equal(flat(&r), "+A/0/A B/0/B +C/0/C x[y/0/x[y");
	tm.expanded[1] = true;
	tui_rows_build(&r, &model, NULL, 100);
	assert_string_equal(flat(&r),
			    "-A/0/A -A1/1/A A1a/2/A A1b/2/A A2/1/A B/0/B +C/0/C x[y/0/x[y");
	tm.expanded[2] = false;
	tm.expanded[7] = true;
	tui_rows_build(&r, &model, NULL, 100);
	assert_string_equal(flat(&r), "-A/0/A +A1/1/A A2/1/A B/0/B -C/0/C C1/1/C x[y/0/x[y");
	assert_int_equal(tui_rows_find(&r, 8), 5);
	assert_int_equal(tui_rows_find(&r, 3), SIZE_MAX);
	assert_false(r.truncated);
	tui_rows_release(&r);
}

static void test_filter(void **state)
{
	struct tui_rows r = {0};
	struct tui_filter f = {0};
	(void)state;

	tm.expanded[1] = true; /* an entry's children come with it; they are not matched */
	tui_filter_set(&f, "B");
	tui_rows_build(&r, &model, &f, 100);
	assert_string_equal(flat(&r), "B/0/B");
	tui_filter_set(&f, "^(A|C)$");
	assert_true(f.is_re);
	tui_rows_build(&r, &model, &f, 100);
	assert_string_equal(flat(&r), "-A/0/A +A1/1/A A2/1/A +C/0/C");
	/* Not a regex: matched as a substring. */
	tui_filter_set(&f, "x[");
	assert_false(f.is_re);
	tui_rows_build(&r, &model, &f, 100);
	assert_string_equal(flat(&r), "x[y/0/x[y");
	tui_filter_set(&f, "nothing");
	tui_rows_build(&r, &model, &f, 100);
	assert_int_equal(r.r.n, 0);
	/* Empty clears. */
	tui_filter_set(&f, "");
	assert_null(f.pat);
	tui_rows_build(&r, &model, &f, 100);
	assert_int_equal(r.r.n, 6);
	tui_filter_release(&f);
	tui_rows_release(&r);
}

static void test_cap_and_cycle(void **state)
{
	struct tui_rows r = {0};
	(void)state;

	tm.expanded[1] = tm.expanded[2] = true;
	tui_rows_build(&r, &model, NULL, 3);
	assert_string_equal(flat(&r), "-A/0/A -A1/1/A A1a/2/A");
	assert_true(r.truncated);
	tui_rows_build(&r, &model, NULL, 8); /* exactly the 8 rows there are */
	assert_int_equal(r.r.n, 8);
	assert_false(r.truncated);
	tui_rows_build(&r, &model, NULL, 7);
	assert_int_equal(r.r.n, 7);
	assert_true(r.truncated);
	/* A model whose node is its own child: bounded depth, no hang. */
	memset(tm.expanded, 0, sizeof(tm.expanded));
	tm.cycle = true;
	tm.expanded[7] = tm.expanded[8] = true;
	tui_rows_build(&r, &model, NULL, 1 << 20);
	assert_false(r.truncated);
	assert_int_equal(r.r.n, 4 + TUI_MAX_DEPTH);
	assert_int_equal(r.r.v[r.r.n - 2].depth, TUI_MAX_DEPTH);
	tui_expand_all(&model, 7, false); /* terminates on the cycle too */
	assert_false(tm.expanded[7]);
	assert_false(tm.expanded[8]);
	tui_rows_release(&r);
}

static void test_expand_all(void **state)
{
	struct tui_rows r = {0};
	(void)state;

	tui_expand_all(&model, 1, true);
	assert_true(tm.expanded[1] && tm.expanded[2]);
	assert_false(tm.expanded[3] || tm.expanded[5]); /* leaves are left alone */
	assert_int_equal(tm.set_calls, 2);
	tui_rows_build(&r, &model, NULL, 100);
	assert_string_equal(flat(&r),
			    "-A/0/A -A1/1/A A1a/2/A A1b/2/A A2/1/A B/0/B +C/0/C x[y/0/x[y");
	tui_expand_all(&model, 1, false);
	assert_false(tm.expanded[1] || tm.expanded[2]);
	tui_rows_release(&r);
}

static void test_view(void **state)
{
	struct tui_view v = {0};
	(void)state;

	tui_view_move(&v, 15, 100, 10);
	assert_int_equal(v.sel, 15);
	assert_int_equal(v.top, 6);
	tui_view_move(&v, -9, 100, 10); /* page up to above the top */
	assert_int_equal(v.sel, 6);
	assert_int_equal(v.top, 6);
	tui_view_move(&v, -1000, 100, 10);
	assert_int_equal(v.sel, 0);
	assert_int_equal(v.top, 0);
	tui_view_move(&v, 1000, 100, 10);
	assert_int_equal(v.sel, 99);
	assert_int_equal(v.top, 90);
	tui_view_move(&v, LONG_MAX, 100, 10);
	assert_int_equal(v.sel, 99);
	/* Fewer rows (a filter): the selection and top follow. */
	tui_view_fit(&v, 5, 10);
	assert_int_equal(v.sel, 4);
	assert_int_equal(v.top, 0);
	/* A taller screen shows the rows above instead of empty space below. */
	tui_view_set(&v, 50, 100, 3);
	assert_int_equal(v.top, 48);
	tui_view_fit(&v, 100, 60);
	assert_int_equal(v.sel, 50);
	assert_int_equal(v.top, 40);
	/* No room at all, no rows at all. */
	tui_view_fit(&v, 100, 0);
	assert_int_equal(v.top, 50);
	tui_view_fit(&v, 0, 10);
	assert_int_equal(v.sel, 0);
	assert_int_equal(v.top, 0);
	tui_view_move(&v, 1, 0, 10);
	assert_int_equal(v.sel, 0);
}

static void test_view_keys(void **state)
{
	struct tui_view v = {0};
	(void)state;

	assert_true(tui_view_key(&v, KEY_END, 100, 10));
	assert_int_equal(v.sel, 99);
	assert_true(tui_view_key(&v, KEY_PPAGE, 100, 10)); /* a page is the height less one */
	assert_int_equal(v.sel, 90);
	assert_true(tui_view_key(&v, 'k', 100, 10));
	assert_int_equal(v.sel, 89);
	assert_true(tui_view_key(&v, ' ', 100, 10));
	assert_int_equal(v.sel, 98);
	assert_true(tui_view_key(&v, 'g', 100, 10));
	assert_int_equal(v.sel, 0);
	assert_true(tui_view_key(&v, KEY_DOWN, 100, 1)); /* one row on screen: pages of one */
	assert_true(tui_view_key(&v, KEY_NPAGE, 100, 1));
	assert_int_equal(v.sel, 2);
	assert_int_equal(v.top, 2);
	assert_false(tui_view_key(&v, 'q', 100, 10));
	assert_false(tui_view_key(&v, KEY_RESIZE, 100, 10));
	assert_int_equal(v.sel, 2);
}

static void test_textview_lines(void **state)
{
	struct textview_src src;
	struct tui_filter f = {0};
	size_t len;
	(void)state;

	textview_src_text(&src, "t", "foo\nbar\n\nbaz", 12);
	assert_int_equal(src.n_lines(src.ctx), 4);
	assert_memory_equal(src.line(src.ctx, 1, &len), "bar", 3);
	assert_int_equal(len, 3);
	src.line(src.ctx, 2, &len);
	assert_int_equal(len, 0);
	assert_memory_equal(src.line(src.ctx, 3, &len), "baz", 3);
	assert_int_equal(len, 3);

	tui_filter_set(&f, "ba");
	assert_int_equal(textview_find(&src, &f, 0, true), 1);
	assert_int_equal(textview_find(&src, &f, 1, true), 3);
	assert_int_equal(textview_find(&src, &f, 3, true), 1); /* wraps */
	assert_int_equal(textview_find(&src, &f, 3, false), 1);
	assert_int_equal(textview_find(&src, &f, 1, false), 3); /* wraps */
	tui_filter_set(&f, "^foo$");
	assert_int_equal(textview_find(&src, &f, 0, true), 0); /* the only match: itself, once round */
	tui_filter_set(&f, "qux");
	assert_int_equal(textview_find(&src, &f, 0, true), SIZE_MAX);
	tui_filter_release(&f);
	src.release(src.ctx);

	textview_src_text(&src, "t", "  42.50 :  1c: mov\n   0.00 : x\n 7 :\nmov 1\n\n.5\n", 46);
	textview_src_lead_pct(&src);
	assert_int_equal(src.n_lines(src.ctx), 6);
	assert_true(src.line_pct(src.ctx, 0) == 42.5);
	assert_true(src.line_pct(src.ctx, 1) == 0.0);
	assert_true(src.line_pct(src.ctx, 2) == 7.0);
	assert_true(src.line_pct(src.ctx, 3) < 0);
	assert_true(src.line_pct(src.ctx, 4) < 0);
	assert_true(src.line_pct(src.ctx, 5) < 0);
	src.release(src.ctx);

	textview_src_text(&src, "t", "one\n", 4);
	assert_int_equal(src.n_lines(src.ctx), 1);
	src.release(src.ctx);
	textview_src_text(&src, NULL, "", 0);
	assert_int_equal(src.n_lines(src.ctx), 0);
	tui_filter_set(&f, "x");
	assert_int_equal(textview_find(&src, &f, 0, true), SIZE_MAX);
	tui_filter_release(&f);
	src.release(src.ctx);
}

/* The zoom stack: push, toggle off out of order, Esc pops the last, undo. */
static void test_zooms(void **state)
{
	(void)state;
	struct tui_zooms z = {0};
	bool on;

	assert_int_equal(tui_zooms_press(&z, BROWSER_ZOOM_OUT, &on), -1); /* nothing to pop */
	assert_false(on);
	assert_int_equal(tui_zooms_press(&z, BROWSER_ZOOM_DSO, &on), BROWSER_ZOOM_DSO);
	assert_true(on);
	assert_int_equal(tui_zooms_press(&z, BROWSER_ZOOM_THREAD, &on), BROWSER_ZOOM_THREAD);
	assert_true(on);
	assert_int_equal(tui_zooms_press(&z, BROWSER_ZOOM_SYMBOL, &on), BROWSER_ZOOM_SYMBOL);
	assert_true(on);
	assert_int_equal(z.n, 3);
	/* 'd' again: the DSO zoom comes off, the others stay in their order */
	assert_int_equal(tui_zooms_press(&z, BROWSER_ZOOM_DSO, &on), BROWSER_ZOOM_DSO);
	assert_false(on);
	assert_false(tui_zooms_has(&z, BROWSER_ZOOM_DSO));
	assert_int_equal(z.n, 2);
	assert_int_equal(z.v[0], BROWSER_ZOOM_THREAD);
	assert_int_equal(z.v[1], BROWSER_ZOOM_SYMBOL);
	/* the model could not zoom out of it: it is back */
	tui_zooms_undo(&z, BROWSER_ZOOM_DSO, false);
	assert_true(tui_zooms_has(&z, BROWSER_ZOOM_DSO));
	assert_int_equal(z.n, 3);
	/* Esc: the last one first */
	assert_int_equal(tui_zooms_press(&z, BROWSER_ZOOM_OUT, &on), BROWSER_ZOOM_DSO);
	assert_int_equal(tui_zooms_press(&z, BROWSER_ZOOM_OUT, &on), BROWSER_ZOOM_SYMBOL);
	assert_false(on);
	/* a zoom the model could not apply is taken back */
	assert_int_equal(tui_zooms_press(&z, BROWSER_ZOOM_SYMBOL, &on), BROWSER_ZOOM_SYMBOL);
	assert_true(on);
	tui_zooms_undo(&z, BROWSER_ZOOM_SYMBOL, true);
	assert_int_equal(z.n, 1);
	assert_int_equal(tui_zooms_press(&z, BROWSER_ZOOM_OUT, &on), BROWSER_ZOOM_THREAD);
	assert_int_equal(z.n, 0);
	/* undoing a pop of a kind already back in force adds nothing */
	tui_zooms_press(&z, BROWSER_ZOOM_DSO, &on);
	tui_zooms_undo(&z, BROWSER_ZOOM_DSO, false);
	assert_int_equal(z.n, 1);
	assert_int_equal(tui_zooms_press(&z, (enum browser_zoom)7, &on), -1);
	assert_int_equal(z.n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_flatten, setup),
		cmocka_unit_test_setup(test_filter, setup),
		cmocka_unit_test_setup(test_cap_and_cycle, setup),
		cmocka_unit_test_setup(test_expand_all, setup),
		cmocka_unit_test(test_view),
		cmocka_unit_test(test_view_keys),
		cmocka_unit_test(test_textview_lines),
		cmocka_unit_test(test_zooms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
