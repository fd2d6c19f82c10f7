/*
 * svgcolor: the flame graph's frame colours (output, L7), as
 * flamegraph.pl picks them.
 */
#include "output/svgcolor.h"

#include <stdbool.h>
#include <string.h>

#include "base/hashmap.h"
#include "output/palmap.h"

/*
 * Colours: flamegraph.pl's palettes, indexed by a hash of the name so a
 * function keeps its colour across graphs. In the hot palette the frame
 * kind picks the hue, as flamegraph.pl's java palette does, so kernel,
 * JIT, inlined, unknown and process frames stand out from user code.
 */

static struct rgb palette_color(enum svg_palette p, double v1, double v2, double v3)
{
	struct rgb c = { 0, 0, 0 };

	switch (p) {
	case SVG_PALETTE_HOT:
		c.r = 205 + (int)(50 * v3);
		c.g = (int)(230 * v1);
		c.b = (int)(55 * v2);
		break;
	case SVG_PALETTE_MEM:
		c.r = 0;
		c.g = 190 + (int)(50 * v2);
		c.b = (int)(210 * v1);
		break;
	case SVG_PALETTE_IO:
		c.r = 80 + (int)(60 * v1);
		c.g = c.r;
		c.b = 190 + (int)(55 * v2);
		break;
	case SVG_PALETTE_RED:
		c.r = 200 + (int)(55 * v1);
		c.g = c.b = 50 + (int)(80 * v1);
		break;
	case SVG_PALETTE_GREEN:
		c.g = 200 + (int)(55 * v1);
		c.r = c.b = 50 + (int)(60 * v1);
		break;
	case SVG_PALETTE_BLUE:
		c.b = 205 + (int)(50 * v1);
		c.r = c.g = 80 + (int)(60 * v1);
		break;
	case SVG_PALETTE_AQUA:
		c.r = 50 + (int)(60 * v1);
		c.g = 165 + (int)(55 * v1);
		c.b = 165 + (int)(55 * v1);
		break;
	case SVG_PALETTE_YELLOW:
		c.r = c.g = 175 + (int)(55 * v1);
		c.b = 50 + (int)(20 * v1);
		break;
	case SVG_PALETTE_PURPLE:
		c.r = c.b = 190 + (int)(65 * v1);
		c.g = 80 + (int)(60 * v1);
		break;
	case SVG_PALETTE_ORANGE:
		c.r = 190 + (int)(65 * v1);
		c.g = 90 + (int)(65 * v1);
		c.b = 0;
		break;
	default:
		break;
	}
	return c;
}

/* flamegraph.pl's namehash: the first three characters, early ones weighing most. */
static double namehash(const char *s, size_t n)
{
	double vector = 0, weight = 1, max = 1;
	unsigned mod = 10;

	/* A "module`" prefix is cut to its first character. */
	for (size_t i = 1; i < n; i++) {
		if (s[i] == '`') {
			s += i + 1;
			n -= i + 1;
			break;
		}
	}
	for (size_t i = 0; i < n; i++) {
		unsigned v = (unsigned char)s[i] % mod;
		vector += (double)v / (double)(mod - 1) * weight;
		mod++;
		max += weight;
		weight *= 0.70;
		if (mod > 12)
			break;
	}
	return 1 - vector / max;
}

static double rng_next(uint64_t *st)
{
	/* xorshift64*: deterministic for a seed, no libc state. */
	uint64_t x = *st;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*st = x;
	return (double)((x * 0x2545f4914f6cdd1dULL) >> 11) / 9007199254740992.0;
}

static bool has(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(s + i, needle, k))
			return true;
	return false;
}

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && !memcmp(s, prefix, k);
}

/* flamegraph.pl's java palette: its name rules, with kiln's frame kinds for the annotations. */
static enum svg_palette java_hue(const char *s, size_t n, uint8_t kind)
{
	static const char *const pkgs[] = { "java/", "javax/", "jdk/", "net/", "org/",
					    "com/",  "io/",    "sun/" };
	const char *p = s;
	size_t m = n;

	if (kind == FRAME_JIT)
		return SVG_PALETTE_GREEN;
	if (kind == FRAME_INLINE)
		return SVG_PALETTE_AQUA;
	if (m && p[0] == 'L') {
		p++;
		m--;
	}
	for (size_t i = 0; i < sizeof(pkgs) / sizeof(pkgs[0]); i++)
		if (starts(p, m, pkgs[i]) || starts(s, n, pkgs[i]))
			return SVG_PALETTE_GREEN;
	if (has(s, n, ":::"))
		return SVG_PALETTE_GREEN;
	if (has(s, n, "::"))
		return SVG_PALETTE_YELLOW;
	if (kind == FRAME_KERNEL)
		return SVG_PALETTE_ORANGE;
	return SVG_PALETTE_RED;
}

static enum svg_palette js_hue(const char *s, size_t n, uint8_t kind)
{
	if (kind == FRAME_JIT)
		return memchr(s, '/', n) ? SVG_PALETTE_GREEN : SVG_PALETTE_AQUA;
	if (has(s, n, "::"))
		return SVG_PALETTE_YELLOW;
	const char *slash = memchr(s, '/', n);
	if (slash && has(slash, n - (size_t)(slash - s), ".js"))
		return SVG_PALETTE_GREEN;
	if (memchr(s, ':', n))
		return SVG_PALETTE_AQUA;
	if (n == 1 && s[0] == ' ')
		return SVG_PALETTE_GREEN;
	if (kind == FRAME_KERNEL)
		return SVG_PALETTE_ORANGE;
	return SVG_PALETTE_RED;
}

static enum svg_palette perl_hue(const char *s, size_t n, uint8_t kind)
{
	if (has(s, n, "::"))
		return SVG_PALETTE_YELLOW;
	if (has(s, n, "Perl") || has(s, n, ".pl"))
		return SVG_PALETTE_GREEN;
	if (kind == FRAME_KERNEL)
		return SVG_PALETTE_ORANGE;
	return SVG_PALETTE_RED;
}

/* True if a "--" frame (a chain graph's waker separator) is below 'id'. */
static bool below_separator(const struct trie *t, uint32_t id)
{
	for (uint32_t p = trie_node(t, id)->parent; p != TRIE_NONE && p != 0;
	     p = trie_node(t, p)->parent) {
		const struct trie_node *n = trie_node(t, p);
		if (strtab_len(t->names, n->name) == 2 && !strcmp(strtab_get(t->names, n->name), "--"))
			return true;
	}
	return false;
}

/* flamegraph.pl's color_scale: white for no change, red for growth, blue for shrinkage. */
static struct rgb delta_color(const struct svg_colors *c, int64_t delta)
{
	double v = (double)delta, max = c->maxdelta;
	struct rgb col = { 255, 255, 255 };

	if (c->negate)
		v = -v;
	if (v > 0)
		col.g = col.b = (int)(210 * (max - v) / max);
	else if (v < 0)
		col.r = col.g = (int)(210 * (max + v) / max);
	return col;
}

struct rgb svg_color(struct svg_colors *c, uint32_t id, const char *name, size_t len,
		     uint8_t kind)
{
	enum svg_palette p = c->palette;
	double v1, v2, v3;
	uint8_t m[3];

	if (len == 2 && !memcmp(name, "--", 2))
		return (struct rgb){ 160, 160, 160 };
	if (len == 1 && name[0] == '-')
		return (struct rgb){ 200, 200, 200 };
	if (c->delta)
		return delta_color(c, c->delta[id]);
	if (c->palmap && palmap_get(c->palmap, name, len, m))
		return (struct rgb){ m[0], m[1], m[2] };

	if (c->mode == SVG_COLOR_HASH) {
		char rev[SVG_NAME_CAP];
		size_t n = len < SVG_NAME_CAP ? len : SVG_NAME_CAP;
		for (size_t i = 0; i < n; i++)
			rev[i] = name[len - 1 - i];
		v1 = namehash(name, len);
		v2 = v3 = namehash(rev, n);
	} else if (c->mode == SVG_COLOR_RANDOM) {
		v1 = rng_next(&c->rng);
		v2 = rng_next(&c->rng);
		v3 = rng_next(&c->rng);
	} else {
		uint64_t h = hash_mix2(hash_bytes(name, len), 0x6b696c6e); /* "kiln" */
		v1 = (double)(h & 0xffff) / 65536.0;
		v2 = (double)((h >> 16) & 0xffff) / 65536.0;
		v3 = (double)((h >> 32) & 0xffff) / 65536.0;
	}

	switch (p) {
	case SVG_PALETTE_HOT:
		/* kiln's addition: frame kinds get their own hues, as in the java palette. */
		switch (kind) {
		case FRAME_KERNEL:
			p = SVG_PALETTE_ORANGE;
			break;
		case FRAME_JIT:
			p = SVG_PALETTE_GREEN;
			break;
		case FRAME_INLINE:
			p = SVG_PALETTE_AQUA;
			break;
		case FRAME_UNKNOWN: {
			int g = 165 + (int)(45 * v1);
			return (struct rgb){ g, g, g };
		}
		case FRAME_PROCESS:
			p = SVG_PALETTE_BLUE;
			break;
		case FRAME_OFFCPU:
			p = SVG_PALETTE_IO; /* blocked time: flamegraph.pl's off-CPU colours */
			break;
		default:
			break;
		}
		break;
	case SVG_PALETTE_JAVA:
		p = java_hue(name, len, kind);
		break;
	case SVG_PALETTE_JS:
		p = js_hue(name, len, kind);
		break;
	case SVG_PALETTE_PERL:
		p = perl_hue(name, len, kind);
		break;
	case SVG_PALETTE_WAKEUP:
		p = SVG_PALETTE_AQUA;
		break;
	case SVG_PALETTE_CHAIN:
		p = below_separator(c->t, id) ? SVG_PALETTE_AQUA : SVG_PALETTE_BLUE;
		break;
	default:
		break;
	}
	struct rgb col = palette_color(p, v1, v2, v3);
	if (c->palmap) {
		m[0] = (uint8_t)col.r;
		m[1] = (uint8_t)col.g;
		m[2] = (uint8_t)col.b;
		palmap_put(c->palmap, name, len, m);
	}
	return col;
}
