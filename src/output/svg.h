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
#include <stdint.h>
#include <stdio.h>

#include "aggregate/trie.h"

enum svg_palette { SVG_PALETTE_HOT = 0, SVG_PALETTE_MEM, SVG_PALETTE_IO, SVG_PALETTE_RED,
		   SVG_PALETTE_GREEN, SVG_PALETTE_BLUE, SVG_PALETTE_AQUA, SVG_PALETTE_YELLOW,
		   SVG_PALETTE_PURPLE, SVG_PALETTE_ORANGE, SVG_PALETTE_WAKEUP, SVG_PALETTE_CHAIN,
		   SVG_PALETTE_JAVA, SVG_PALETTE_JS, SVG_PALETTE_PERL, SVG_PALETTE_COUNT };

/* Where a frame's colour within its palette comes from. */
enum svg_color_mode {
	SVG_COLOR_NAME = 0, /* a hash of the name: same name, same colour, in every graph */
	SVG_COLOR_HASH,     /* flamegraph.pl --hash: its namehash (early characters weigh most) */
	SVG_COLOR_RANDOM,   /* flamegraph.pl --random: a PRNG seeded with 'seed', in frame order */
};

struct palmap;

struct svg_opts {
	const char *title;     /* default "Flame Graph" */
	const char *subtitle;  /* NULL: none */
	const char *countname; /* default "samples" */
	const char *notes;     /* NULL: none; embedded as <desc> */
	unsigned width;        /* image width in px, default 1200 */
	unsigned frame_height; /* px per frame row, default 16 */
	double minwidth;       /* px; frames narrower are not drawn, default 0.1 */
	bool minwidth_percent; /* minwidth is a percentage of the total samples ("0.5%") */
	const char *fonttype;  /* default "Verdana" */
	double fontsize;       /* default 12 */
	double fontwidth;      /* average glyph width as a fraction of fontsize, default 0.59 */
	enum svg_palette palette;
	bool inverted;         /* icicle graph: root at the top */
	const char *nametype;  /* label before the hovered frame, default "Function:" */
	const char *bgcolors;  /* yellow, blue, green, grey or #rrggbb; NULL: by palette */
	enum svg_color_mode color_mode;
	uint64_t seed;         /* SVG_COLOR_RANDOM's seed */
	struct palmap *palmap; /* --cp: colours by name, read and extended; NULL: none */
	bool chart;            /* the trie is a flame chart (title "Flame Chart") */
	uint64_t total;        /* --total: width of the whole graph in samples, if larger */
	double factor;         /* --factor: counts shown are multiplied by it, default 1 */
	uint64_t divisor;      /* counts shown are divided by it (fractional input), default 1 */
	/*
	 * Differential graph: delta[node] = samples of the stack ending at
	 * that node in the second profile minus the first (flamegraph.pl's
	 * two-count lines); frames are red where it grew, blue where it
	 * shrank, white where it did not change (negate swaps the hues).
	 * NULL: not differential.
	 */
	const int64_t *delta;
	bool negate;
};

/* True if 's' is a --bgcolors value: yellow, blue, green, grey or #rrggbb. */
bool svg_bgcolors_ok(const char *s);
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
