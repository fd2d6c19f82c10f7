/*
 * model: what the terminal browser shows, as callbacks (tui, L8).
 *
 * The browser (browser.h) and the text page (textview.h) draw and take
 * keys; they own no profile data. A command plugs its data in by filling
 * one of these structs:
 *
 *   struct browser_model  a list of entries (report's hist entries, top's
 *                         live ones), each the root of a tree (its
 *                         callchain), with the share of each row;
 *   struct textview_src   a page of text lines (annotate's output, help).
 *
 * Nodes are named by a uint64_t the model chooses (an index, a pointer):
 * the browser keeps them only between calls and compares them for
 * equality, so that the selection survives a refresh when the model
 * gives the same node the same value. 0 is never a node. The browser asks
 * again for every row after any callback that returns 1 (refresh, zoom,
 * key) and after set_expanded; until then it may ask for the rows of the
 * nodes it has, so a model keeps those valid until it returns 1. The model owns
 * which nodes are expanded (so top keeps them across refreshes) and what
 * a zoom means; the browser owns the selection, the scroll position and
 * the '/' filter (matched against each entry's 'key').
 *
 * Strings the model returns are borrowed until the next call into the
 * model; they may hold anything (names from a profile): the browser makes
 * them terminal-safe (base/sanitize) and cuts them to the screen's width.
 */
#ifndef KILN_TUI_MODEL_H
#define KILN_TUI_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* One row as the browser draws it. */
struct browser_row {
	const char *text; /* the row's columns, laid out by the model (no newline) */
	const char *key;  /* what '/' matches (the symbol's name); NULL: 'text' */
	double pct[2];    /* shares in percent, drawn before 'text', coloured */
	unsigned n_pct;   /* how many of pct[] to draw: 0, 1 or 2 (children, self) */
	bool expandable;  /* the node has children ('+' before the row) */
};

/* What 's', 'd' and 't' ask for; BROWSER_ZOOM_OUT undoes the last zoom. */
enum browser_zoom {
	BROWSER_ZOOM_SYMBOL,
	BROWSER_ZOOM_DSO,
	BROWSER_ZOOM_THREAD,
	BROWSER_ZOOM_OUT,
};

struct textview_src;

/* What browser_model.open returns. */
enum { BROWSER_UNFOLD = 0, BROWSER_STAY = 1, BROWSER_QUIT = 2 };

struct browser_model {
	void *ctx; /* passed to every callback */

	/* Required. */
	/* The top line ("Samples: 12K of event 'cycles' ..."), appended to 'out'. */
	void (*title)(void *ctx, struct buf *out);
	/* How many entries there are now (after the model's zooms); the order is theirs. */
	size_t (*n_entries)(void *ctx);
	/* Entry i, 0 <= i < n_entries. */
	uint64_t (*entry)(void *ctx, size_t i);
	/* A node's children (its callchain below it), in drawing order. */
	size_t (*n_children)(void *ctx, uint64_t node);
	uint64_t (*child)(void *ctx, uint64_t node, size_t i);
	/* Fill 'out' (zeroed by the caller) for 'node'. */
	void (*row)(void *ctx, uint64_t node, struct browser_row *out);
	bool (*expanded)(void *ctx, uint64_t node);
	void (*set_expanded)(void *ctx, uint64_t node, bool on);

	/* Optional (NULL: the feature is off). */
	/* The column header under the title ("Overhead  Command  Shared Object  Symbol"). */
	void (*columns)(void *ctx, struct buf *out);
	/* What is zoomed, for the status line ("Thread: cc1 (1234)"), or nothing. */
	void (*status)(void *ctx, struct buf *out);
	/*
	 * Zoom to (or, pressed again, out of) the symbol, DSO or thread of
	 * 'node' (0 with BROWSER_ZOOM_OUT). Returns 1 if the entries changed,
	 * 0 if not (nothing to zoom out of: Esc then quits); a message for the
	 * status line may be appended to 'msg'.
	 */
	int (*zoom)(void *ctx, uint64_t node, enum browser_zoom how, struct buf *msg);
	/*
	 * 'a': fill 'page' with the annotation of the entry 'node' belongs to
	 * ('node' is the selected row, 'entry' its entry). Returns 0 and the
	 * browser shows the page (and calls page->release when it closes), or
	 * < 0 with the reason appended to 'msg' ("no samples in a symbol").
	 */
	int (*annotate)(void *ctx, uint64_t entry, uint64_t node, struct textview_src *page,
			struct buf *msg);
	/*
	 * Called every refresh_ms (browser_opts) while the browser waits for a
	 * key: top reads its samples here. Returns 1 if anything shown changed,
	 * 0 if not, -1 to close the browser (top's sampling ended).
	 */
	int (*refresh)(void *ctx);
	/*
	 * A key the browser does not use (top's 'z', 'K', ...): returns 1 if
	 * the model changed, 0 if the key is ignored.
	 */
	int (*key)(void *ctx, uint64_t node, int key);
	/*
	 * Enter on an entry, before its callchain is unfolded: the model's
	 * own view of it (report's event menu opens that event's list, in
	 * a browser_run of its own). Returns BROWSER_UNFOLD to unfold as
	 * without the callback, BROWSER_STAY (1) to redraw, BROWSER_QUIT to
	 * leave the browser too (the inner one was left with 'q').
	 */
	int (*open)(void *ctx, uint64_t entry);
	/* Extra lines for the help page ('h'), appended to 'out'. */
	void (*help)(void *ctx, struct buf *out);
};

/* A page of text lines, scrolled by textview_run. */
struct textview_src {
	void *ctx;
	/* Required. */
	size_t (*n_lines)(void *ctx);
	/* Line i, 0 <= i < n_lines, without its newline; *len set. */
	const char *(*line)(void *ctx, size_t i, size_t *len);
	/* Optional. */
	void (*title)(void *ctx, struct buf *out);
	/*
	 * Line i's share in percent (annotate's per-instruction share), < 0
	 * for none: the line is coloured as the browser's shares are.
	 */
	double (*line_pct)(void *ctx, size_t i);
	/* As browser_model.refresh (annotate live in top); 1 = lines changed. */
	int (*refresh)(void *ctx);
	/* Frees 'ctx' when the page is closed. */
	void (*release)(void *ctx);
};

#endif
