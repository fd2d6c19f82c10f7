/*
 * svg: the interactive SVG flame graph writer (output, L7).
 *
 * Walks a sorted stack trie depth first and writes one <g> per frame wide
 * enough to see: a <title> tooltip, a <rect> and a <text> label cut to fit.
 * Frame names never reach the script: they live only in escaped XML text,
 * and the script (a constant, in CDATA) reads them back from the DOM. Each
 * frame also carries its exact sample interval (k:s, k:n attributes) so
 * zoom and search work in samples, not in rounded pixels.
 */
#include "output/svg.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/digits.h"
#include "base/hugebuf.h"
#include "base/utf8.h"
#include "base/vec.h"
#include "output/flame_js.h"
#include "output/palmap.h"
#include "output/svgcolor.h"
#include "output/svgnum.h"

/*
 * Layout, as in flamegraph.pl (non-inverted; 'inverted' mirrors the rows):
 *
 *   0      +--------------------------------------------------+
 *          | Reset Zoom        title              Search   ic |  top
 *   top    +--------------------------------------------------+
 *          |  [leaf]                                          |
 *          |  [ ... ]                                         |  rows * frame_height
 *          |  [process] [process]                             |
 *          |  [all...........................................]|
 *          +--------------------------------------------------+
 *          | Function: ...                      Matched: x.x% |  bottom
 *   height +--------------------------------------------------+
 *
 * Frames span XPAD .. width - XPAD; a frame of 'n' samples starting 's'
 * samples from the left is x = XPAD + s * scale wide n * scale, where
 * scale = (width - 2 * XPAD) / root total.
 */
#define XPAD 10.0
#define NAME_CAP SVG_NAME_CAP /* bytes of a cleaned name, ".." included */
#define SVG_NS "urn:kiln:flamegraph"

#define COL_MAX 40 /* bytes of "r,g,b" */

/* A name made safe for XML 1.0: valid UTF-8, no control characters. */
struct clean {
	size_t len; /* bytes */
	size_t ncp; /* code points */
	char s[NAME_CAP + 1];
};

struct shown_name {
	size_t clean_at, clean_len, ncp, esc_at, esc_len;
	char col[COL_MAX]; /* the colour of its last frame as written, "r,g,b"; for */
	uint8_t col_len;   /* every frame of kind 'col_kind' when has_col (colours */
	uint8_t col_kind;  /* depend on the name and kind alone: same_colors) */
	bool has_col;
};

/* Text being put together. */
struct svg_out {
	char *v;
	size_t n, cap;
};
/*
 * Bytes of frames handed to stdio at a time: the buffer is reserved once
 * (a frame past it grows it) and its pages are reused for every block.
 * Large blocks mean large write calls (stdio writes a block past its own
 * buffer directly), which a file system takes for less than small ones:
 * 256 KiB writes cost ext4 about 3/4 of 32 KiB ones here.
 */
#define OUT_FLUSH (256 * 1024)

/* A frame to draw, in drawing order, with what its text needs. */
struct frame_item {
	uint64_t start;  /* samples left of it */
	uint32_t id;     /* trie node */
	uint32_t depth;  /* row */
	uint32_t name;   /* its shown_name, by index: its colour is that name's last */
};

/* A row's two y coordinates as written ("%.1f"), worked out once per depth. */
struct row_text {
	char y[NUM_MAX], text_y[NUM_MAX];
	uint8_t y_len, text_y_len; /* 0: not worked out yet */
};

struct svg_ctx {
	FILE *f;
	struct svg_out out;     /* the frames' text, handed to 'f' in large pieces */
	const struct trie *t;
	struct svg_opts o;
	double scale;           /* px per sample */
	double cw;              /* average glyph width, px */
	double top;             /* height of the title area above the rows */
	double bottom;          /* height of the status area below them */
	double height;          /* image height */
	uint32_t rows;          /* frame rows drawn (deepest drawn depth + 1) */
	size_t drawn;           /* frames drawn */
	struct clean countname; /* cleaned, parentheses made brackets */
	size_t count_esc_at, count_esc_len; /* countname escaped, in names_text */
	bool same_colors;       /* a frame's colour follows from its name and kind alone */
	struct clean name;      /* scratch for the frame being written */
	/*
	 * Names as written, by trie name id (a function appears in many
	 * frames): the cleaned text (cut for labels), its code points and
	 * the escaped text (title and whole labels), in 'names_text'.
	 */
	VEC(uint32_t) name_of;  /* by name id + 1 (0: "all"): 1 + index in 'names', 0 if none */
	VEC(struct shown_name) names;
	struct svg_out names_text;
	VEC(struct row_text) rows_text; /* by depth */
	char height_text[NUM_MAX];      /* every frame's height, as written */
	size_t height_len;
	uint64_t timemax;       /* samples across the whole width (the root's, or --total) */
	struct svg_colors colors; /* what frame colours depend on */
};

void svg_opts_default(struct svg_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->title = "Flame Graph";
	o->countname = "samples";
	o->width = 1200;
	o->frame_height = 16;
	o->minwidth = 0.1;
	o->fonttype = "Verdana";
	o->fontsize = 12;
	o->fontwidth = 0.59;
	o->palette = SVG_PALETTE_HOT;
	o->nametype = "Function:";
	o->factor = 1;
	o->divisor = 1;
}

/* Zero or out-of-range fields fall back to the defaults. */
static void opts_fix(struct svg_opts *o, const struct svg_opts *in)
{
	struct svg_opts d;

	svg_opts_default(&d);
	if (in)
		*o = *in;
	else
		*o = d;
	if (!o->title)
		o->title = o->chart ? "Flame Chart" : o->inverted ? "Icicle Graph" : d.title;
	if (!o->nametype)
		o->nametype = d.nametype;
	if (!(o->factor > 0 && o->factor < 1e12))
		o->factor = 1;
	if (o->divisor == 0)
		o->divisor = 1;
	if (!o->countname)
		o->countname = d.countname;
	if (!o->fonttype)
		o->fonttype = d.fonttype;
	if (o->width == 0)
		o->width = d.width;
	if (o->width < 40)
		o->width = 40; /* 20 px of frames between the pads */
	if (o->width > 1000000)
		o->width = 1000000;
	if (o->frame_height == 0)
		o->frame_height = d.frame_height;
	if (o->frame_height < 2)
		o->frame_height = 2;
	if (o->frame_height > 1000)
		o->frame_height = 1000;
	if (!(o->minwidth >= 0))
		o->minwidth = 0; /* negative or NaN */
	if (!(o->fontsize > 0 && o->fontsize <= 1000))
		o->fontsize = d.fontsize;
	if (!(o->fontwidth > 0 && o->fontwidth <= 10))
		o->fontwidth = d.fontwidth;
	if ((unsigned)o->palette >= SVG_PALETTE_COUNT)
		o->palette = SVG_PALETTE_HOT;
}

/*
 * Make the n bytes at 's' safe for XML 1.0 text: invalid UTF-8 bytes and
 * C0/DEL become a visible "\xNN", C1 controls "\u00NN", U+FFFE/U+FFFF
 * U+FFFD. TAB, LF and CR are replaced too: a name is one line. The result
 * is cut at NAME_CAP bytes on a code point boundary, ending in "..".
 */
static void clean_name(struct clean *c, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, mark_len = 0, mark_ncp = 0;

	c->len = c->ncp = 0;
	while (i < n) {
		/* Printable ASCII, nearly every byte of a name: kept as it is. */
		if (p[i] >= 0x20 && p[i] < 0x7f && c->len < NAME_CAP) {
			c->s[c->len++] = (char)p[i++];
			c->ncp++;
			if (c->len <= NAME_CAP - 2) {
				mark_len = c->len;
				mark_ncp = c->ncp;
			}
			continue;
		}
		char piece[8];
		size_t plen, pcp, l;
		uint32_t cp;
		int d = utf8_decode(p + i, n - i, &cp);

		l = d > 0 ? (size_t)d : 0;
		if (l == 0) {
			snprintf(piece, sizeof(piece), "\\x%02x", p[i]);
			plen = pcp = 4;
			l = 1;
		} else if (cp < 0x20 || cp == 0x7f) {
			snprintf(piece, sizeof(piece), "\\x%02x", (unsigned)cp);
			plen = pcp = 4;
		} else if (cp >= 0x80 && cp <= 0x9f) {
			snprintf(piece, sizeof(piece), "\\u%04x", (unsigned)cp);
			plen = pcp = 6;
		} else if (cp == 0xfffe || cp == 0xffff) {
			memcpy(piece, "\xef\xbf\xbd", 3); /* U+FFFD */
			plen = 3;
			pcp = 1;
		} else {
			memcpy(piece, p + i, l);
			plen = l;
			pcp = 1;
		}
		if (c->len + plen > NAME_CAP) {
			c->len = mark_len;
			c->ncp = mark_ncp;
			memcpy(c->s + c->len, "..", 2);
			c->len += 2;
			c->ncp += 2;
			break;
		}
		memcpy(c->s + c->len, piece, plen);
		c->len += plen;
		c->ncp += pcp;
		if (c->len <= NAME_CAP - 2) {
			mark_len = c->len;
			mark_ncp = c->ncp;
		}
		i += l;
	}
	c->s[c->len] = '\0';
}

/* Byte length of the first 'k' code points of valid UTF-8 's'. */
static size_t utf8_prefix(const char *s, size_t len, size_t k)
{
	size_t i = 0;

	for (; i < len; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			if (k == 0)
				break;
			k--;
		}
	}
	return i;
}

/* XML's escape for a byte of text or attribute values, or NULL. */
static const char *esc_of(char ch)
{
	switch (ch) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return "&#39;";
	default:
		return NULL;
	}
}

/*
 * n bytes of clean text escaped for XML text and attribute values, at
 * 'p' (room for ESC_MAX * n bytes); returns the end.
 */
#define ESC_MAX 6 /* bytes of the longest escape */
static char *put_esc(char *p, const char *s, size_t n)
{
	size_t start = 0;

	for (size_t i = 0; i < n; i++) {
		const char *rep = esc_of(s[i]);
		if (!rep)
			continue;
		memcpy(p, s + start, i - start);
		p += i - start;
		size_t k = strlen(rep);
		memcpy(p, rep, k);
		p += k;
		start = i + 1;
	}
	memcpy(p, s + start, n - start);
	return p + n - start;
}

/* Room for 'n' more bytes in 'out'; where they go. */
static char *out_room(struct svg_out *out, size_t n)
{
	VEC_RESERVE(out, out->n + n);
	return out->v + out->n;
}

/* Clean and escape a C string from the options (the header's text). */
static void put_text(struct svg_ctx *c, const char *s)
{
	struct svg_out out = { 0 };

	clean_name(&c->name, s, strlen(s));
	char *p = out_room(&out, ESC_MAX * c->name.len);
	fwrite(out.v, 1, (size_t)(put_esc(p, c->name.s, c->name.len) - p), c->f);
	VEC_FREE(&out);
}

/* The name without a stackcollapse annotation ("_[k]", "_[j]", "_[i]", "_[w]"), as shown. */
static size_t shown_len(const char *s, size_t n)
{
	if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']' &&
	    strchr("kjiw", s[n - 2]) && s[n - 2])
		return n - 4;
	return n;
}

static void node_name(const struct svg_ctx *c, uint32_t id, const char **s, size_t *len)
{
	const struct trie_node *n = trie_node(c->t, id);

	if (id == 0 || n->name == TRIE_NO_NAME) {
		*s = "all";
		*len = 3;
	} else {
		*s = strtab_get(c->t->names, n->name);
		*len = strtab_len(c->t->names, n->name);
	}
}

/* The top edge of a row; a frame is 1 px shorter than its row, leaving a gap. */
static double row_y(const struct svg_ctx *c, uint32_t depth)
{
	double fh = c->o.frame_height;

	if (c->o.inverted)
		return c->top + depth * fh;
	return c->height - c->bottom - (depth + 1) * fh + 1;
}

/* A count as shown: times --factor, over the divisor, rounded, with commas. */
static char *put_shown(const struct svg_ctx *c, char *p, uint64_t n)
{
	if (c->o.factor == 1 && c->o.divisor == 1 && n < (1ULL << 53))
		return put_count(p, n); /* the double below holds n exactly */
	double v = (double)n * c->o.factor / (double)c->o.divisor;
	uint64_t r = v < 9e18 ? (uint64_t)num_round(v) : v < 1.8e19 ? (uint64_t)llround(v)
								 : UINT64_MAX;

	return put_count(p, r);
}

/* A signed percentage with two decimals and a sign when positive ("+1.25", "-0.50"). */
static char *put_delta_pct(char *p, double d, uint64_t whole)
{
	double x = whole ? d * 10000.0 / (double)whole : 0.0;
	/* Bounded before rounding: counts up to 2^64 can make any ratio. */
	if (!(x > -1e15))
		x = x != x ? 0.0 : -1e15;
	else if (x > 1e15)
		x = 1e15;
	long long h = num_round(x);
	const char *sign = h > 0 ? "+" : h < 0 ? "-" : "";

	if (h < 0)
		h = -h;
	return put_hundredths(p, sign, h);
}

/* Keep bytes in names_text; their offset. */
static size_t keep_text(struct svg_ctx *c, const char *s, size_t n)
{
	size_t at = c->names_text.n;
	VEC_RESERVE(&c->names_text, at + n);
	memcpy(c->names_text.v + at, s, n);
	c->names_text.n = at + n;
	return at;
}

/* Keep n bytes escaped for XML in names_text; their offset. */
static size_t keep_escaped(struct svg_ctx *c, const char *s, size_t n)
{
	size_t at = c->names_text.n;
	char *p = out_room(&c->names_text, ESC_MAX * n);
	c->names_text.n = (size_t)(put_esc(p, s, n) - c->names_text.v);
	return at;
}

/* A node's name cleaned and escaped, worked out once per name (the root's
 * "all" included, under an id no name has). */
static struct shown_name *shown_name(struct svg_ctx *c, uint32_t id, const char *name,
				     size_t len)
{
	uint32_t nid = id == 0 ? TRIE_NO_NAME : trie_node(c->t, id)->name;
	size_t key = nid == TRIE_NO_NAME ? 0 : (size_t)nid + 1;
	if (key >= c->name_of.n) {
		VEC_RESERVE(&c->name_of, key + 1);
		memset(c->name_of.v + c->name_of.n, 0, (key + 1 - c->name_of.n) * sizeof(uint32_t));
		c->name_of.n = key + 1;
	}
	if (c->name_of.v[key])
		return &c->names.v[c->name_of.v[key] - 1];
	c->name_of.v[key] = (uint32_t)c->names.n + 1;
	struct shown_name sn;
	clean_name(&c->name, name, id == 0 ? len : shown_len(name, len));
	sn.clean_at = keep_text(c, c->name.s, c->name.len);
	sn.clean_len = c->name.len;
	sn.ncp = c->name.ncp;
	sn.esc_at = keep_escaped(c, c->name.s, c->name.len);
	sn.esc_len = c->names_text.n - sn.esc_at;
	sn.has_col = false;
	VEC_PUSH(&c->names, sn);
	return &c->names.v[c->names.n - 1];
}

/* The y coordinates of row 'depth' (the rectangle's and the label's). */
static void row_text(struct svg_ctx *c, uint32_t depth)
{
	while (c->rows_text.n <= depth)
		VEC_PUSH_ZERO(&c->rows_text);
	struct row_text *r = &c->rows_text.v[depth];
	if (!r->y_len) {
		char b[NUM_MAX];
		double y = row_y(c, depth);
		const char *p = fmt_px(b, y);
		r->y_len = (uint8_t)strlen(p);
		memcpy(r->y, p, r->y_len);
		p = fmt_px(b, y + ((double)c->o.frame_height - 1) / 2 + c->o.fontsize / 4);
		r->text_y_len = (uint8_t)strlen(p);
		memcpy(r->text_y, p, r->text_y_len);
	}
}

/* A "%d" of a colour component (0..255, never less than -2^31). */
static char *put_int(char *p, int v)
{
	if (v >= 0 && v < 256) {
		unsigned u = (unsigned)v;
		if (u >= 100) {
			*p++ = (char)('0' + u / 100);
			u %= 100;
			*p++ = (char)('0' + u / 10);
		} else if (u >= 10) {
			*p++ = (char)('0' + u / 10);
		}
		*p++ = (char)('0' + u % 10);
		return p;
	}
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)(int64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* A colour as the fill's "r,g,b", at 'p' (COL_MAX bytes of room); its length. */
static uint8_t put_rgb(char *p, struct rgb col)
{
	char *e = put_int(p, col.r);
	*e++ = ',';
	e = put_int(e, col.g);
	*e++ = ',';
	e = put_int(e, col.b);
	return (uint8_t)(e - p);
}

/*
 * What frame 'id' needs besides its place, worked out in drawing order
 * (colours may follow it): its shown name, its colour, its row's text.
 */
static struct frame_item prep_frame(struct svg_ctx *c, uint32_t id, uint64_t start,
				    uint32_t depth)
{
	struct frame_item it = { .start = start, .id = id, .depth = depth };
	const char *name;
	size_t len;

	node_name(c, id, &name, &len);
	struct shown_name *sn = shown_name(c, id, name, len);
	it.name = (uint32_t)(sn - c->names.v);
	/* The root is coloured like code, not like the processes above it. */
	uint8_t kind = id == 0 ? FRAME_USER : trie_node(c->t, id)->kind;
	if (!sn->has_col || sn->col_kind != kind) {
		sn->col_len = put_rgb(sn->col, svg_color(&c->colors, id, name, len, kind));
		sn->col_kind = kind;
		sn->has_col = c->same_colors;
	}
	row_text(c, depth);
	return it;
}

#define PUT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) += sizeof(lit) - 1)
#define FRAME_ROOM 1024 /* a frame's bytes besides its name (twice) and the count name */

/*
 * One frame's <g>, appended to 'out'. Reads 'c' only: names, rows and
 * colours were worked out by prep_frame.
 */
static void format_frame(const struct svg_ctx *c, const struct frame_item *it,
			 struct svg_out *out)
{
	const struct shown_name *sn = &c->names.v[it->name];
	uint64_t width = it->id == 0 ? c->timemax : trie_node(c->t, it->id)->total;
	long long x1 = to_tenths(XPAD + (double)it->start * c->scale);
	long long x2 = to_tenths(XPAD + (double)(it->start + width) * c->scale);
	double w = (double)(x2 - x1) / 10;
	const char *clean = c->names_text.v + sn->clean_at;
	const char *esc = c->names_text.v + sn->esc_at;
	const struct row_text *rt = &c->rows_text.v[it->depth];
	char *p = out_room(out, FRAME_ROOM + 2 * sn->esc_len + c->count_esc_len);

	PUT(p, "<g class=\"f\" k:s=\"");
	p = put_u64(p, it->start);
	PUT(p, "\" k:n=\"");
	p = put_u64(p, width);
	PUT(p, "\"><title>");
	memcpy(p, esc, sn->esc_len);
	p += sn->esc_len;
	PUT(p, " (");
	p = put_shown(c, p, width);
	*p++ = ' ';
	memcpy(p, c->names_text.v + c->count_esc_at, c->count_esc_len);
	p += c->count_esc_len;
	PUT(p, ", ");
	p = put_pct(p, width, c->timemax);
	*p++ = '%';
	if (c->o.delta && it->id != 0) {
		double dv = (double)c->o.delta[it->id];
		PUT(p, "; ");
		p = put_delta_pct(p, c->o.negate ? -dv : dv, c->timemax);
		*p++ = '%';
	}
	PUT(p, ")</title><rect x=\"");
	p = put_tenths(p, x1);
	PUT(p, "\" y=\"");
	memcpy(p, rt->y, NUM_MAX); /* whole arrays: a fixed copy, no call */
	p += rt->y_len;
	PUT(p, "\" width=\"");
	p = put_tenths(p, x2 - x1);
	PUT(p, "\" height=\"");
	memcpy(p, c->height_text, NUM_MAX);
	p += c->height_len;
	PUT(p, "\" fill=\"rgb(");
	memcpy(p, sn->col, COL_MAX);
	p += sn->col_len;
	PUT(p, ")\" rx=\"2\" ry=\"2\"/><text x=\"");
	p = put_tenths(p, x1 + 30);
	PUT(p, "\" y=\"");
	memcpy(p, rt->text_y, NUM_MAX);
	p += rt->text_y_len;
	PUT(p, "\">");
	/* The label: whole code points, cut with ".." (the script's fit()). */
	size_t chars = w > 0 ? (size_t)(w / c->cw) : 0; /* floor: both are positive */
	if (chars >= 3) {
		if (sn->ncp <= chars) {
			memcpy(p, esc, sn->esc_len);
			p += sn->esc_len;
		} else {
			p = put_esc(p, clean, utf8_prefix(clean, sn->clean_len, chars - 2));
			PUT(p, "..");
		}
	}
	PUT(p, "</text></g>\n");
	out->n = (size_t)(p - out->v);
}

/* Frame 'id' drawn: its text into c->out, handed to stdio in large pieces. */
static void write_frame(struct svg_ctx *c, uint32_t id, uint64_t start, uint32_t depth)
{
	struct frame_item it = prep_frame(c, id, start, depth);

	format_frame(c, &it, &c->out);
	if (c->out.n >= OUT_FLUSH) {
		fwrite(c->out.v, 1, c->out.n, c->f);
		c->out.n = 0;
	}
}

/*
 * Visit, in pre-order with siblings in trie order, every frame at least
 * minwidth px wide; a narrower frame is skipped with its whole subtree
 * (its descendants are no wider). The root is always drawn. With 'emit'
 * false this only measures the deepest row drawn and counts the frames.
 */
static void walk(struct svg_ctx *c, bool emit)
{
	VEC(uint64_t) next_start = { 0 }; /* by level: where the next frame there starts */
	uint32_t maxd = 0;
	size_t drawn = 0;
	struct trie_walk w;

	trie_walk_init(&w, c->t, 0);
	for (uint32_t id; (id = trie_walk_next(&w)) != TRIE_NONE;) {
		const struct trie_node *n = trie_node(c->t, id);
		uint64_t start = 0;

		if (id != 0) {
			start = next_start.v[w.level];
			next_start.v[w.level] += n->total;
			if (n->total == 0 || (double)n->total * c->scale < c->o.minwidth) {
				trie_walk_skip(&w);
				continue;
			}
		}
		if (w.level > maxd)
			maxd = w.level;
		drawn++;
		if (emit)
			write_frame(c, id, start, w.level);
		while (next_start.n <= w.level + 1)
			VEC_PUSH(&next_start, 0);
		next_start.v[w.level + 1] = start; /* its children start where it does */
	}
	trie_walk_release(&w);
	VEC_FREE(&next_start);
	c->rows = maxd + 1;
	c->drawn = drawn;
}

static const char css[] =
	"<style type=\"text/css\">\n"
	"text { fill: rgb(0,0,0); }\n"
	".f { cursor: pointer; }\n"
	".f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
	".parent { opacity: 0.5; }\n"
	".hide { display: none; }\n"
	".ctl { cursor: pointer; }\n"
	".off { opacity: 0.4; }\n"
	"</style>\n";

/*
 * The viewer (output/flame_js.h: flame.js). A constant: it reads names, sample intervals and layout from
 * the DOM (k: attributes), so no profile data is ever inside the script.
 * URL query: x (start sample) and y (depth) of the zoomed frame, s (search
 * regex), ic (ignore case).
 */
static const char script_open[] = "<script type=\"text/ecmascript\"><![CDATA[\n";
static const char script_close[] = "]]></script>\n";

/*
 * flamegraph.pl's --bgcolors: yellow (default for hot, java, js, perl),
 * green (mem), blue (io, wakeup, chain), grey (the flat palettes), or one
 * "#rrggbb" colour. Anything else was refused by the CLI (svg_bgcolors_ok);
 * here it falls back to the palette's default.
 */
static void background(const struct svg_opts *o, const char **bg1, const char **bg2,
		       char flat[8])
{
	const char *name = o->bgcolors;

	if (name && name[0] == '#' && svg_bgcolors_ok(name)) {
		memcpy(flat, name, 7);
		flat[7] = '\0';
		*bg1 = *bg2 = flat;
		return;
	}
	if (!name || !svg_bgcolors_ok(name)) {
		switch (o->palette) {
		case SVG_PALETTE_MEM:
			name = "green";
			break;
		case SVG_PALETTE_IO:
		case SVG_PALETTE_WAKEUP:
		case SVG_PALETTE_CHAIN:
			name = "blue";
			break;
		case SVG_PALETTE_HOT:
		case SVG_PALETTE_JAVA:
		case SVG_PALETTE_JS:
		case SVG_PALETTE_PERL:
			name = "yellow";
			break;
		default:
			name = "grey";
			break;
		}
	}
	if (!strcmp(name, "blue")) {
		*bg1 = "#eeeeee";
		*bg2 = "#e0e0ff";
	} else if (!strcmp(name, "green")) {
		*bg1 = "#eef2ee";
		*bg2 = "#e0ffe0";
	} else if (!strcmp(name, "grey")) {
		*bg1 = "#f8f8f8";
		*bg2 = "#e8e8e8";
	} else {
		*bg1 = "#eeeeee";
		*bg2 = "#eeeeb0";
	}
}

bool svg_bgcolors_ok(const char *s)
{
	if (!strcmp(s, "yellow") || !strcmp(s, "blue") || !strcmp(s, "green") ||
	    !strcmp(s, "grey"))
		return true;
	if (s[0] != '#' || strlen(s) != 7)
		return false;
	for (int i = 1; i < 7; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]))
			return false;
	return true;
}

static void write_header(struct svg_ctx *c)
{
	char a[NUM_MAX], b[NUM_MAX], d[NUM_MAX], e[NUM_MAX], g[NUM_MAX];
	const char *bg1, *bg2;
	char flat[8];
	double w = c->o.width, fs = c->o.fontsize;

	background(&c->o, &bg1, &bg2, flat);
	fputs("<?xml version=\"1.0\" standalone=\"no\"?>\n"
	      "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\""
	      " \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n",
	      c->f);
	fprintf(c->f,
		"<svg version=\"1.1\" width=\"%u\" height=\"%s\" viewBox=\"0 0 %u %s\""
		" xmlns=\"http://www.w3.org/2000/svg\" xmlns:k=\"" SVG_NS "\""
		" k:xpad=\"%s\" k:w=\"%s\" k:cw=\"%s\" k:fh=\"%u\" k:inv=\"%d\" k:nt=\"",
		c->o.width, fmt_num(a, c->height), c->o.width, fmt_num(b, c->height),
		fmt_num(d, XPAD), fmt_num(e, w - 2 * XPAD), fmt_num(g, c->cw), c->o.frame_height,
		c->o.inverted ? 1 : 0);
	put_text(c, c->o.nametype);
	fputs("\" font-family=\"", c->f);
	put_text(c, c->o.fonttype);
	fprintf(c->f, "\" font-size=\"%s\">\n", fmt_num(a, fs));
	if (c->o.notes) {
		fputs("<desc>", c->f);
		put_text(c, c->o.notes);
		fputs("</desc>\n", c->f);
	}
	fprintf(c->f,
		"<defs><linearGradient id=\"background\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
		"<stop stop-color=\"%s\" offset=\"5%%\"/><stop stop-color=\"%s\" offset=\"95%%\"/>"
		"</linearGradient></defs>\n",
		bg1, bg2);
	fputs(css, c->f);
	fprintf(c->f,
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%s\" fill=\"url(#background)\"/>\n",
		c->o.width, fmt_num(a, c->height));
	fprintf(c->f,
		"<text id=\"title\" x=\"%s\" y=\"%s\" text-anchor=\"middle\" font-size=\"%s\">",
		fmt_num(a, w / 2), fmt_num(b, fs * 2), fmt_num(d, fs + 5));
	put_text(c, c->o.title);
	fputs("</text>\n", c->f);
	if (c->o.subtitle) {
		fprintf(c->f,
			"<text id=\"subtitle\" x=\"%s\" y=\"%s\" text-anchor=\"middle\""
			" style=\"fill: rgb(160,160,160)\">",
			fmt_num(a, w / 2), fmt_num(b, fs * 4));
		put_text(c, c->o.subtitle);
		fputs("</text>\n", c->f);
	}
}

/* Status line, controls and frames of a graph with samples. */
static void write_graph(struct svg_ctx *c)
{
	char a[NUM_MAX], b[NUM_MAX];
	double w = c->o.width, fs = c->o.fontsize;
	double status_y = c->height - c->bottom / 2;

	fputs(script_open, c->f);
	fwrite(kiln_flame_js, 1, kiln_flame_js_len, c->f);
	fputs(script_close, c->f);
	fprintf(c->f, "<text id=\"details\" x=\"%s\" y=\"%s\"> </text>\n", fmt_num(a, XPAD),
		fmt_num(b, status_y));
	fprintf(c->f, "<text id=\"matched\" x=\"%s\" y=\"%s\" text-anchor=\"end\"></text>\n",
		fmt_num(a, w - XPAD), fmt_num(b, status_y));
	fprintf(c->f, "<text id=\"unzoom\" class=\"ctl hide\" x=\"%s\" y=\"%s\">",
		fmt_num(a, XPAD), fmt_num(b, fs * 2));
	fputs("Reset Zoom</text>\n", c->f);
	fprintf(c->f, "<text id=\"search\" class=\"ctl\" x=\"%s\" y=\"%s\" text-anchor=\"end\">",
		fmt_num(a, w - XPAD - 2 * fs), fmt_num(b, fs * 2));
	fputs("Search</text>\n", c->f);
	fprintf(c->f, "<text id=\"ic\" class=\"ctl off\" x=\"%s\" y=\"%s\" text-anchor=\"end\">",
		fmt_num(a, w - XPAD), fmt_num(b, fs * 2));
	fputs("ic</text>\n", c->f);
	fputs("<g id=\"frames\">\n", c->f);
	VEC_RESERVE(&c->out, OUT_FLUSH + FRAME_ROOM);
	if (c->drawn * 128 >= OUT_FLUSH) /* the buffer will be filled */
		hugebuf_populate(c->out.v, c->out.cap);
	walk(c, true);
	fwrite(c->out.v, 1, c->out.n, c->f);
	c->out.n = 0;
	fputs("</g>\n", c->f);
}

/* The colour rules' inputs from the options. */
static void colors_init(struct svg_ctx *c)
{
	struct svg_colors *k = &c->colors;

	k->palette = c->o.palette;
	k->mode = c->o.color_mode;
	k->rng = c->o.seed ? c->o.seed : 0x9e3779b97f4a7c15ULL;
	k->delta = c->o.delta;
	k->negate = c->o.negate;
	k->palmap = c->o.palmap;
	k->t = c->t;
	k->maxdelta = 1;
	for (size_t i = 0; k->delta && i < c->t->nodes.n; i++) {
		double v = fabs((double)k->delta[i]);
		if (v > k->maxdelta)
			k->maxdelta = v;
	}
}

int svg_write(FILE *f, const struct trie *t, const struct svg_opts *opts)
{
	struct svg_ctx *c;
	uint64_t total = trie_node(t, 0)->total;
	char a[NUM_MAX], b[NUM_MAX];
	int err = 0;

	XALLOC_ARRAY(c, 1);
	c->f = f;
	c->t = t;
	opts_fix(&c->o, opts);
	clean_name(&c->countname, c->o.countname, strlen(c->o.countname));
	for (size_t i = 0; i < c->countname.len; i++) {
		/* The script finds the name in a title at its last " (". */
		if (c->countname.s[i] == '(')
			c->countname.s[i] = '[';
		else if (c->countname.s[i] == ')')
			c->countname.s[i] = ']';
	}
	/* Room for every name once (the root's "all" too): the arrays are
	 * not moved as drawn names come, and pages past the used part are
	 * never touched. */
	VEC_RESERVE(&c->names, t->names->n + 1);
	VEC_RESERVE(&c->name_of, t->names->n + 1);
	c->count_esc_at = keep_escaped(c, c->countname.s, c->countname.len);
	c->count_esc_len = c->names_text.n - c->count_esc_at;
	/* Random colours follow the drawing order, differential ones each
	 * node's delta, a palette map its file, the chain palette the node's
	 * place: the others are kept per name. */
	c->same_colors = !c->o.delta && !c->o.palmap && c->o.color_mode != SVG_COLOR_RANDOM &&
			 c->o.palette != SVG_PALETTE_CHAIN;
	c->cw = c->o.fontsize * c->o.fontwidth;
	c->top = c->o.fontsize * 3 + (c->o.subtitle ? c->o.fontsize * 2 : 0);
	c->bottom = c->o.fontsize * 2 + 10;

	if (total == 0) {
		c->rows = 2;
		c->height = c->top + c->rows * c->o.frame_height + c->bottom;
		write_header(c);
		fprintf(c->f, "<text id=\"empty\" x=\"%s\" y=\"%s\" text-anchor=\"middle\">",
			fmt_num(a, c->o.width / 2.0), fmt_num(b, c->top + c->o.frame_height));
		fputs("No samples</text>\n", c->f);
	} else {
		c->timemax = total;
		if (c->o.total > total)
			c->timemax = c->o.total;
		c->scale = (c->o.width - 2 * XPAD) / (double)c->timemax;
		if (c->o.minwidth_percent)
			c->o.minwidth = (double)c->timemax * c->o.minwidth / 100 * c->scale;
		colors_init(c);
		const char *h = fmt_px(a, (double)c->o.frame_height - 1);
		c->height_len = strlen(h);
		memcpy(c->height_text, h, c->height_len);
		walk(c, false);
		c->height = c->top + (double)c->rows * c->o.frame_height + c->bottom;
		write_header(c);
		write_graph(c);
	}
	fputs("</svg>\n", f);
	if (fflush(f) != 0 || ferror(f))
		err = -EIO;
	VEC_FREE(&c->name_of);
	VEC_FREE(&c->names);
	VEC_FREE(&c->names_text);
	VEC_FREE(&c->rows_text);
	VEC_FREE(&c->out);
	free(c);
	return err;
}
