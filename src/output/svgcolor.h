/*
 * svgcolor: the flame graph's frame colours (output, L7): flamegraph.pl's
 * palettes and its rules for picking one (hot, mem, io, java, js, perl,
 * chain, wakeup, the flat ones), its --hash and --random modes, the
 * differential graph's red/blue scale and --cp's palette map. In the hot
 * palette kiln's frame kinds pick the hue (kernel, JIT, inlined, unknown,
 * process, off-CPU frames stand out from user code).
 */
#ifndef KILN_OUTPUT_SVGCOLOR_H
#define KILN_OUTPUT_SVGCOLOR_H

#include <stddef.h>
#include <stdint.h>

#include "aggregate/trie.h"
#include "output/svg.h"

/* Bytes of a cleaned name (svg.c cuts names there; --hash reads that much). */
#define SVG_NAME_CAP 4096

struct rgb {
	int r, g, b;
};

/* What a frame's colour depends on besides its name and kind. */
struct svg_colors {
	enum svg_palette palette;
	enum svg_color_mode mode;
	uint64_t rng;           /* SVG_COLOR_RANDOM's state: colours follow the drawing order */
	const int64_t *delta;   /* differential graph (svg_opts.delta), or NULL */
	double maxdelta;        /* largest |delta|, at least 1 */
	bool negate;
	struct palmap *palmap;  /* read and extended (--cp), or NULL */
	const struct trie *t;   /* the chain palette looks below the frame */
};

/*
 * The colour of node 'id' of c->t, named 'name' (len bytes, as in the
 * trie, annotation included) of frame kind 'kind'. Advances the random
 * state and adds to the palette map: call it in drawing order.
 */
struct rgb svg_color(struct svg_colors *c, uint32_t id, const char *name, size_t len,
		     uint8_t kind);

#endif
