/*
 * svg: the interactive SVG flame graph writer (output, L7).
 *
 * Renders a sorted stack trie (aggregate/trie.h) as a flamegraph.pl-style
 * SVG that works when opened directly in a browser: hover shows name,
 * samples and percentage; click zooms; a reset control; regex search
 * (button and Ctrl-F) highlights matches and shows "Matched: x%". All
 * names are escaped for XML text and attributes; the output is
 * deterministic (same trie and options, same bytes).
 */
#ifndef KILN_OUTPUT_SVG_H
#define KILN_OUTPUT_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "aggregate/trie.h"

enum svg_palette { SVG_PALETTE_HOT = 0, SVG_PALETTE_MEM, SVG_PALETTE_IO, SVG_PALETTE_RED,
		   SVG_PALETTE_GREEN, SVG_PALETTE_BLUE, SVG_PALETTE_AQUA, SVG_PALETTE_YELLOW,
		   SVG_PALETTE_PURPLE, SVG_PALETTE_ORANGE };

struct svg_opts {
	const char *title;     /* default "Flame Graph" */
	const char *subtitle;  /* NULL: none */
	const char *countname; /* default "samples" */
	const char *notes;     /* NULL: none; embedded as <desc> */
	unsigned width;        /* image width in px, default 1200 */
	unsigned frame_height; /* px per frame row, default 16 */
	double minwidth;       /* px; frames narrower are not drawn, default 0.1 */
	const char *fonttype;  /* default "Verdana" */
	double fontsize;       /* default 12 */
	double fontwidth;      /* average glyph width as a fraction of fontsize, default 0.59 */
	enum svg_palette palette;
	bool inverted;         /* icicle graph: root at the top */
};

/* Fill with the defaults listed above. */
void svg_opts_default(struct svg_opts *o);
/*
 * Write the flame graph of 't' (already sorted with trie_sort) to 'f'.
 * Returns 0, or -EIO if a write failed. An empty trie (no samples) still
 * gives a valid SVG that says so.
 *
 * Frames narrower than o->minwidth are left out with their subtrees. Names
 * are cleaned before escaping: invalid UTF-8 bytes and control characters
 * become "\xNN", and names are cut at 4 KiB on a code point boundary. A
 * NULL 'o' means the defaults, and so do NULL strings and zero sizes in it
 * (a zero minwidth draws every frame). The viewer keeps its state in the
 * URL query: x (first sample) and y (depth) of the zoomed frame, s (search
 * regex), ic=1 (ignore case).
 */
int svg_write(FILE *f, const struct trie *t, const struct svg_opts *o);

#endif
