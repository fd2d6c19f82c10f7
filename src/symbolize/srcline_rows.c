/*
 * srcline_rows: a unit's line table as srcline keeps it, rows sorted by
 * address with binutils' rules for equal addresses, or only the rows
 * that bound each sequence (symbolize, L5). See srcline_int.h.
 */
#include <stdlib.h>

#include "base/sort.h"
#include "base/xalloc.h"
#include "symbolize/srcline_int.h"

/* The unit's line program, its header read (with the file table if 'files'). */
static bool unit_prog(struct srcfile *f, const struct unit *u, bool files, struct dwline_prog *lp)
{
	if (dwline_open(&f->lsecs, u->stmt_off, u->asize, files, lp))
		return true;
	dwline_close(lp);
	return false;
}

/* Names only: a unit's line coverage, one [first row, end) pair of rows
 * per sequence (which rows exist is what picks the unit; their lines and
 * files are not needed). */
struct cover {
	struct unit *u;
	uint64_t first;
	bool any;
};

static void cover_row(void *arg, const struct dwline_row *r)
{
	struct cover *c = arg;
	if (!r->end) {
		if (!c->any || r->addr < c->first)
			c->first = r->addr;
		c->any = true;
		return;
	}
	if (c->any && r->addr > c->first) {
		struct lrow lo = { c->first, 0, SRCLINE_NONE };
		struct lrow hi = { r->addr, LROW_END, SRCLINE_NONE };
		VEC_PUSH(&c->u->lines, lo);
		VEC_PUSH(&c->u->lines, hi);
	}
	c->any = false;
}

static int lrow_cmp(const void *a, const void *b)
{
	const struct lrow *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)lrow_end(x) - (int)lrow_end(y); /* a sequence's start after another's end */
}

void srcline_load_coverage(struct srcfile *f, struct unit *u)
{
	struct dwline_prog lp;
	if (!unit_prog(f, u, false, &lp))
		return;
	struct cover c = { u, 0, false };
	dwline_run(&lp, cover_row, &c);
	dwline_close(&lp);
	if (u->lines.n > 2)
		qsort(u->lines.v, u->lines.n, sizeof(*u->lines.v), lrow_cmp);
}

/* Rows as the program gives them, line and file as srcline_load_lines keeps them. */
struct collect {
	struct lrows *rows;
	unsigned version;
};

static void collect_row(void *arg, const struct dwline_row *r)
{
	struct collect *c = arg;
	/* binutils 2.40 reads a DWARF 5 row whose file register was never
	 * set in its sequence (the initial 1) as file entry 0. */
	uint64_t file = c->version >= 5 && !r->file_set && r->file == 1 ? 0 : r->file;
	struct lrow x = { r->addr, r->line > 0 && r->line <= INT32_MAX ? (uint32_t)r->line : 0,
			  file < UINT32_MAX ? (uint32_t)file : UINT32_MAX };
	if (r->end)
		x.line |= LROW_END;
	VEC_PUSH(&c->rows->v, x);
}

/* By address, an end of sequence first; rows equal by these keep program
 * order (every sort of them is stable). */
static bool lrow_before(const struct lrow *a, const struct lrow *b)
{
	return a->addr != b->addr ? a->addr < b->addr : lrow_end(a) > lrow_end(b);
}

SORT_DEFINE(lrows_sort_all, struct lrow, lrow_before)

/*
 * f->rows sorted by lrow_before. They come as sequences, each mostly in
 * order: a natural merge sort merges the runs already there.
 */
static void rows_sort(struct srcfile *f)
{
	struct lrow *v = f->rows.v.v;
	size_t n = f->rows.v.n, runs = 0;
	for (size_t i = 1; i < n; i++)
		runs += lrow_before(&v[i], &v[i - 1]);
	if (!runs)
		return;
	if (runs > n / 8) { /* no order to speak of */
		lrows_sort_all(v, n);
		return;
	}
	struct lrow *tmp = xmalloc(n * sizeof(*tmp));
	struct lrow *src = v, *dst = tmp;
	for (;;) {
		size_t i = 0, merged = 0;
		while (i < n) {
			size_t mid = i + 1;
			while (mid < n && !lrow_before(&src[mid], &src[mid - 1]))
				mid++;
			size_t hi = mid;
			if (hi < n) {
				hi++;
				while (hi < n && !lrow_before(&src[hi], &src[hi - 1]))
					hi++;
			}
			size_t a = i, b = mid, k = i;
			while (a < mid && b < hi)
				dst[k++] = lrow_before(&src[b], &src[a]) ? src[b++] : src[a++];
			while (a < mid)
				dst[k++] = src[a++];
			while (b < hi)
				dst[k++] = src[b++];
			merged++;
			i = hi;
		}
		struct lrow *t = src;
		src = dst;
		dst = t;
		if (merged == 1)
			break;
	}
	if (src != v) { /* the sorted rows are in tmp: keep that buffer instead */
		free(v);
		f->rows.v.v = src;
		f->rows.v.cap = n;
		return;
	}
	free(tmp);
}

/*
 * The unit's rows in address order and its file names by file register
 * value (file 0 before DWARF 5: "<unknown>"). An invalid program gives
 * neither, as binutils then has no lines for the unit. The rules are
 * those the rows were read by before (libdw's): at one address an end of
 * sequence sorts first, the highest row ends a sequence, and of rows at
 * one address the last counts (binutils keeps the last).
 */
void srcline_load_lines(struct srclines *sl, struct srcfile *f, struct unit *u)
{
	struct dwline_prog lp;
	if (!unit_prog(f, u, true, &lp))
		return;
	f->rows.v.n = 0;
	struct collect c = { &f->rows, u->version };
	if (!dwline_run(&lp, collect_row, &c)) {
		dwline_close(&lp);
		return;
	}
	uint32_t unknown = strtab_intern_str(sl->strs, "<unknown>");
	for (size_t i = 0; i < lp.files.n; i++) {
		const struct dwline_file *df = &lp.files.v[i];
		VEC_PUSH(&u->files, df->name ? strtab_intern(sl->strs, df->name, df->len) : unknown);
	}
	dwline_close(&lp);
	rows_sort(f);
	struct lrow *v = f->rows.v.v;
	size_t n = f->rows.v.n;
	if (n)
		v[n - 1].line |= LROW_END;
	VEC_RESERVE(&u->lines, n);
	for (size_t i = 0; i < n; i++) {
		struct lrow r = v[i];
		r.file = lrow_end(&r) ? SRCLINE_NONE : unit_file(sl, u, r.file);
		if (u->lines.n && u->lines.v[u->lines.n - 1].addr == r.addr)
			u->lines.v[u->lines.n - 1] = r;
		else
			u->lines.v[u->lines.n++] = r;
	}
}
