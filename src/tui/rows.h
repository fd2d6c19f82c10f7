/*
 * rows: the browser's screen-independent state (tui, L8): the model's
 * trees flattened into the rows on screen, the '/' filter, and the
 * selection and scroll position. No curses here, so it is unit-tested.
 *
 * Invariants of a built struct tui_rows:
 *  1. rows are in drawing order: an entry, then (if it is expanded) its
 *     children depth-first, each child's subtree before its next sibling;
 *  2. only entries whose key matches the filter appear;
 *  3. at most 'max' rows (the rest is cut and 'truncated' set), and no
 *     row deeper than TUI_MAX_DEPTH (a cycle in a model cannot hang it).
 */
#ifndef KILN_TUI_ROWS_H
#define KILN_TUI_ROWS_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/vec.h"
#include "tui/model.h"

#define TUI_MAX_DEPTH 1024

struct tui_row {
	uint64_t node;
	uint64_t entry; /* the entry (depth 0 row) this row belongs to */
	uint32_t depth;
	bool expandable;
	bool expanded;
};

struct tui_rows {
	VEC(struct tui_row) r;
	bool truncated; /* the 'max' rows were reached */
};

/*
 * The '/' filter: a POSIX extended regex when the pattern compiles as one
 * (a plain word is a regex that matches itself as a substring), else a
 * plain substring. Matching is case-sensitive, as symbol names are.
 */
struct tui_filter {
	char *pat; /* NULL: no filter, everything matches */
	regex_t re;
	bool is_re;
};

/* Set (pat non-empty), or clear (NULL or ""), the filter. */
void tui_filter_set(struct tui_filter *f, const char *pat);
bool tui_filter_match(const struct tui_filter *f, const char *s);
void tui_filter_release(struct tui_filter *f);

/* Rebuild 'rows' from the model, entries filtered by 'f' (may be NULL). */
void tui_rows_build(struct tui_rows *rows, const struct browser_model *m,
		    const struct tui_filter *f, size_t max);
/* The index of the row showing 'node', or SIZE_MAX. */
size_t tui_rows_find(const struct tui_rows *rows, uint64_t node);
void tui_rows_release(struct tui_rows *rows);

/*
 * Expand (on) or fold every expandable node under 'node', itself
 * included, through the model ('e' on an entry, 'E' and 'C' on all).
 */
void tui_expand_all(const struct browser_model *m, uint64_t node, bool on);

/*
 * The selection and the first row drawn, over 'n' rows of which 'height'
 * fit on screen. Every function leaves sel < n (or 0 when n is 0) and
 * top <= sel < top + height (when height > 0).
 */
struct tui_view {
	size_t sel, top;
};

/* Move the selection by 'delta' rows, stopping at the ends. */
void tui_view_move(struct tui_view *v, long delta, size_t n, size_t height);
/* Select row 'sel' (clamped). */
void tui_view_set(struct tui_view *v, size_t sel, size_t n, size_t height);
/* Re-establish the invariant after n or height changed (a rebuild, a resize). */
void tui_view_fit(struct tui_view *v, size_t n, size_t height);

/*
 * The zooms in force, in the order they were made (perf's zoom stack):
 * each of BROWSER_ZOOM_SYMBOL, _DSO and _THREAD at most once. A model
 * keeps one to know what 's', 'd', 't' and Esc mean.
 */
struct tui_zooms {
	enum browser_zoom v[BROWSER_ZOOM_OUT];
	unsigned n;
};

bool tui_zooms_has(const struct tui_zooms *z, enum browser_zoom how);
/*
 * A zoom key pressed: BROWSER_ZOOM_OUT takes the last zoom off (returns
 * it, or -1 when there is none); a kind in force is taken off (returns
 * it); any other is put on (returns it, *on set). *on says which.
 */
int tui_zooms_press(struct tui_zooms *z, enum browser_zoom how, bool *on);
/* Put back what tui_zooms_press changed ('how' the kind it returned, 'on' as it
 * set it) when the model could not apply it. */
void tui_zooms_undo(struct tui_zooms *z, enum browser_zoom how, bool on);

#endif
