/* Tests for the SVG flame graph writer: content, escaping, pruning, determinism. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/svg.h"

struct fx {
	struct strtab names;
	struct trie t;
};

static struct fx *fx_new(void)
{
	struct fx *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	strtab_init(&x->names);
	trie_init(&x->t, &x->names);
	return x;
}

static void fx_free(struct fx *x)
{
	trie_release(&x->t);
	strtab_release(&x->names);
	free(x);
}

/* Add a stack given as (name, length, kind) triples; len 0 means strlen. */
struct fr {
	const char *name;
	size_t len;
	uint8_t kind;
};

static void add(struct fx *x, const struct fr *frames, size_t n, uint64_t weight)
{
	struct trie_frame tf[16];

	assert_true(n <= 16);
	for (size_t i = 0; i < n; i++) {
		size_t len = frames[i].len ? frames[i].len : strlen(frames[i].name);
		tf[i].name = strtab_intern(&x->names, frames[i].name, len);
		tf[i].kind = frames[i].kind;
	}
	trie_add(&x->t, tf, n, weight);
}

#define ADD(x, w, ...)                                                                            \
	do {                                                                                      \
		const struct fr fr_[] = { __VA_ARGS__ };                                          \
		add((x), fr_, sizeof(fr_) / sizeof(fr_[0]), (w));                                 \
	} while (0)
#define P(s) { (s), 0, FRAME_PROCESS }
#define U(s) { (s), 0, FRAME_USER }
#define K(s) { (s), 0, FRAME_KERNEL }
#define J(s) { (s), 0, FRAME_JIT }

/* Render to memory; the result is NUL-terminated, caller frees. */
static char *render(const struct trie *t, const struct svg_opts *o, size_t *len)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);

	assert_non_null(f);
	assert_int_equal(svg_write(f, t, o), 0);
	assert_int_equal(fclose(f), 0);
	if (len)
		*len = n;
	return p;
}

static char *render_default(const struct trie *t, size_t *len)
{
	struct svg_opts o;

	svg_opts_default(&o);
	return render(t, &o, len);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0, l = strlen(needle), len = strlen(hay);

	/* A byte loop, not strstr or memmem: a sanitizer's checks those
	 * calls make cover the whole rest of the text each time. */
	for (size_t i = 0; i + l <= len; i++)
		if (hay[i] == needle[0] && !memcmp(hay + i, needle, l)) {
			n++;
			i += l - 1;
		}
	return n;
}

/* An independent strict UTF-8 check (no overlongs, surrogates, > U+10FFFF). */
static int valid_utf8(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];
		size_t l;
		uint32_t v;

		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			l = 2;
			v = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			l = 3;
			v = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			l = 4;
			v = c & 0x07;
		} else {
			return 0;
		}
		if (i + l > n)
			return 0;
		for (size_t k = 1; k < l; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			v = (v << 6) | (s[i + k] & 0x3f);
		}
		if ((l == 2 && v < 0x80) || (l == 3 && v < 0x800) || (l == 4 && v < 0x10000) ||
		    v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff) || v == 0xfffe || v == 0xffff)
			return 0;
		i += l;
	}
	return 1;
}

/* Outside the script's CDATA, every '&' starts one of our entities. */
static void assert_entities_whole(const char *svg)
{
	const char *cdata = strstr(svg, "<![CDATA[");
	const char *end = cdata ? strstr(cdata, "]]>") : NULL;
	static const char *const ents[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&#39;" };

	for (const char *p = strchr(svg, '&'); p; p = strchr(p + 1, '&')) {
		int ok = 0;

		if (cdata && end && p > cdata && p < end)
			continue;
		for (size_t i = 0; i < sizeof(ents) / sizeof(ents[0]); i++)
			ok |= strncmp(p, ents[i], strlen(ents[i])) == 0;
		if (!ok)
			fail_msg("bare '&' at offset %td: %.20s", p - svg, p);
	}
}

/* The well-formedness properties every output must have. */
static void assert_sane(const char *svg, size_t len)
{
	const char *cdata = strstr(svg, "<![CDATA[");
	const char *end = cdata ? strstr(cdata, "]]>") : NULL;

	assert_int_equal(strlen(svg), len); /* no NUL bytes */
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)svg[i];
		/* The script is indented with tabs; nothing else has any. */
		int in_script = cdata && end && svg + i > cdata && svg + i < end;

		if (c < 0x20 && c != '\n' && !(in_script && c == '\t'))
			fail_msg("control byte 0x%02x at offset %zu", c, i);
	}
	assert_true(valid_utf8((const unsigned char *)svg, len));
	assert_entities_whole(svg);
	assert_true(strncmp(svg, "<?xml ", 6) == 0);
	assert_true(len > 7 && strcmp(svg + len - 7, "</svg>\n") == 0);
}

/* Run xmllint --noout on the document if xmllint is installed. */
static void assert_xmllint(const char *svg, size_t len)
{
	char path[] = "/tmp/kiln_svg_test_XXXXXX";
	char cmd[256];
	int fd, rc;

	if (access("/usr/bin/xmllint", X_OK) != 0) {
		print_message("xmllint not installed; skipping the XML check\n");
		return;
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, svg, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
	snprintf(cmd, sizeof(cmd), "/usr/bin/xmllint --noout '%s'", path);
	rc = system(cmd);
	unlink(path);
	assert_int_equal(rc, 0);
}

/*
 * The attribute 'attr' of the element 'elem' that follows the <title>
 * starting with 'title_prefix', as a double.
 */
static double frame_attr(const char *svg, const char *title_prefix, const char *elem,
			 const char *attr)
{
	char key[256];
	const char *p = strstr(svg, title_prefix), *q;

	assert_non_null(p);
	snprintf(key, sizeof(key), "<%s ", elem);
	p = strstr(p, key);
	assert_non_null(p);
	snprintf(key, sizeof(key), " %s=\"", attr);
	q = strstr(p, key);
	assert_non_null(q);
	return strtod(q + strlen(key), NULL);
}

/* The fill of the frame with that title, as r, g, b. */
static void frame_rgb(const char *svg, const char *title_prefix, int rgb[3])
{
	const char *p = strstr(svg, title_prefix);

	assert_non_null(p);
	p = strstr(p, "fill=\"rgb(");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "fill=\"rgb(%d,%d,%d)", &rgb[0], &rgb[1], &rgb[2]), 3);
}

static struct fx *basic(void)
{
	struct fx *x = fx_new();

	ADD(x, 60, P("myprog"), U("main"), U("work"));
	ADD(x, 30, P("myprog"), U("main"), U("idle"));
	ADD(x, 9, P("other"), U("x"), K("do_syscall_64"));
	ADD(x, 1, P("other"), U("x"), J("LInterpreted;"));
	trie_sort(&x->t);
	return x;
}

static void test_titles_and_structure(void **state)
{
	struct fx *x = basic();
	size_t len;
	char *svg = render_default(&x->t, &len);

	(void)state;
	assert_sane(svg, len);
	assert_non_null(strstr(svg, "<title>all (100 samples, 100.00%)</title>"));
	assert_non_null(strstr(svg, "<title>myprog (90 samples, 90.00%)</title>"));
	assert_non_null(strstr(svg, "<title>main (90 samples, 90.00%)</title>"));
	assert_non_null(strstr(svg, "<title>work (60 samples, 60.00%)</title>"));
	assert_non_null(strstr(svg, "<title>idle (30 samples, 30.00%)</title>"));
	assert_non_null(strstr(svg, "<title>do_syscall_64 (9 samples, 9.00%)</title>"));
	assert_non_null(strstr(svg, "<title>LInterpreted; (1 samples, 1.00%)</title>"));
	/* Nine nodes, all wide enough at 1200 px: one <g> each. */
	assert_int_equal(count(svg, "<g class=\"f\""), 9);
	/* Sample intervals: siblings in name order, idle before work. */
	assert_non_null(strstr(svg, "k:s=\"0\" k:n=\"30\"><title>idle "));
	assert_non_null(strstr(svg, "k:s=\"30\" k:n=\"60\"><title>work "));
	assert_non_null(strstr(svg, "k:s=\"90\" k:n=\"10\"><title>other "));
	/* Root full width (x 10 .. 1190), work at 10 + 30 * 11.8. */
	assert_true(frame_attr(svg, "<title>all ", "rect", "x") == 10.0);
	assert_true(frame_attr(svg, "<title>all ", "rect", "width") == 1180.0);
	assert_true(frame_attr(svg, "<title>work ", "rect", "x") == 364.0);
	assert_true(frame_attr(svg, "<title>work ", "rect", "width") == 708.0);
	/* Root at the bottom: deeper frames are higher up. */
	assert_true(frame_attr(svg, "<title>all ", "rect", "y") >
		    frame_attr(svg, "<title>work ", "rect", "y"));
	/* Viewer pieces: one script in CDATA, the controls, the status line. */
	assert_int_equal(count(svg, "<script"), 1);
	assert_int_equal(count(svg, "<![CDATA["), 1);
	assert_int_equal(count(svg, "]]>"), 1);
	assert_non_null(strstr(svg, ">Reset Zoom</text>"));
	assert_non_null(strstr(svg, ">Search</text>"));
	assert_non_null(strstr(svg, ">ic</text>"));
	assert_non_null(strstr(svg, "id=\"details\""));
	assert_non_null(strstr(svg, "id=\"matched\""));
	assert_non_null(strstr(svg, ">Flame Graph</text>"));
	assert_xmllint(svg, len);
	free(svg);
	fx_free(x);
}

static void test_options(void **state)
{
	struct fx *x = basic();
	struct svg_opts o;
	size_t len;
	char *svg;

	(void)state;
	svg_opts_default(&o);
	o.countname = "cycles (k)";
	o.title = "CPU <profile>";
	o.subtitle = "sub & title";
	o.notes = "notes \"here\"";
	o.inverted = true;
	o.palette = SVG_PALETTE_MEM;
	svg = render(&x->t, &o, &len);
	assert_sane(svg, len);
	/* Parentheses in the count name would confuse the title parser. */
	assert_non_null(strstr(svg, "<title>work (60 cycles [k], 60.00%)</title>"));
	assert_non_null(strstr(svg, ">CPU &lt;profile&gt;</text>"));
	assert_non_null(strstr(svg, ">sub &amp; title</text>"));
	assert_non_null(strstr(svg, "<desc>notes &quot;here&quot;</desc>"));
	assert_non_null(strstr(svg, "k:inv=\"1\""));
	/* Icicle: the root is at the top. */
	assert_true(frame_attr(svg, "<title>all ", "rect", "y") <
		    frame_attr(svg, "<title>work ", "rect", "y"));
	assert_xmllint(svg, len);
	free(svg);

	/* A zeroed opts struct gets the defaults. */
	memset(&o, 0, sizeof(o));
	svg = render(&x->t, &o, &len);
	assert_sane(svg, len);
	assert_non_null(strstr(svg, "<title>work (60 samples, 60.00%)</title>"));
	free(svg);
	fx_free(x);
}

static void test_hostile_names(void **state)
{
	struct fx *x = fx_new();
	size_t big_len = 100 * 1024, len;
	char *big = malloc(big_len + 1);
	char *run = malloc(5001);
	static const char esc_name[] = "esc\x1b[31mred\xff\xfe tail";
	static const char ctl_name[] = "tab\there\nnl\x7f del \xc2\x85 nel \xef\xbf\xbe nonchar";
	char *svg;

	(void)state;
	assert_non_null(big);
	assert_non_null(run);
	memset(big, 'A', big_len);
	big[big_len] = '\0';
	ADD(x, 10, P("app"), U("operator<<"));
	ADD(x, 10, P("app"), U("std::map<int, std::string>"));
	ADD(x, 10, P("app"), U("\"quoted' & amp"));
	ADD(x, 10, P("app"), U("</script><script>alert(1)</script>"));
	ADD(x, 10, P("app"), U("]]><x>"));
	ADD(x, 10, P("app"), { esc_name, sizeof(esc_name) - 1, FRAME_USER });
	ADD(x, 10, P("app"), { ctl_name, sizeof(ctl_name) - 1, FRAME_USER });
	ADD(x, 10, P("app"), U("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5"));
	ADD(x, 10, P("app"), { big, big_len, FRAME_USER });
	/* Overlong '/', a lone surrogate, a truncated sequence. */
	ADD(x, 10, P("app"), U("bad \xc0\xaf \xed\xa0\x80 \xe2\x82"));
	trie_sort(&x->t);
	svg = render_default(&x->t, &len);

	assert_sane(svg, len);
	assert_null(strstr(svg, "<script>alert"));
	assert_null(strstr(svg, "</script><script>"));
	assert_int_equal(count(svg, "</script>"), 1); /* ours only */
	assert_int_equal(count(svg, "]]>"), 1);
	assert_null(strstr(svg, "<x>"));
	assert_non_null(strstr(svg, "<title>&lt;/script&gt;&lt;script&gt;"
				    "alert(1)&lt;/script&gt; (10 samples"));
	assert_non_null(strstr(svg, "<title>operator&lt;&lt; (10 samples, 10.00%)</title>"));
	assert_non_null(strstr(svg, "<title>std::map&lt;int, std::string&gt; (10 samples"));
	assert_non_null(strstr(svg, "<title>&quot;quoted&#39; &amp; amp (10 samples"));
	assert_non_null(strstr(svg, "<title>]]&gt;&lt;x&gt; (10 samples"));
	/* Bad bytes and controls become visible escapes. */
	assert_null(memchr(svg, 0x1b, len));
	assert_non_null(strstr(svg, "<title>esc\\x1b[31mred\\xff\\xfe tail (10 samples"));
	assert_non_null(strstr(svg, "<title>tab\\x09here\\x0anl\\x7f del \\u0085 nel "
				    "\xef\xbf\xbd nonchar (10 samples"));
	assert_non_null(strstr(svg, "<title>bad \\xc0\\xaf \\xed\\xa0\\x80 \\xe2\\x82 "
				    "(10 samples"));
	/* Valid multi-byte UTF-8 passes through. */
	assert_non_null(strstr(svg, "<title>caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5 "
				    "(10 samples"));
	/* The 100 KB name is capped near 4 KiB and marked as cut. */
	memset(run, 'A', 5000);
	run[5000] = '\0';
	assert_null(strstr(svg, run));
	run[4000] = '\0';
	assert_non_null(strstr(svg, run));
	assert_non_null(strstr(svg, "AAAA.. (10 samples, 10.00%)</title>"));
	assert_true(len < 64 * 1024);
	/* Its label is cut to the frame (118 px at 7.08 px a glyph: 16 glyphs). */
	assert_non_null(strstr(svg, ">AAAAAAAAAAAAAA..</text>"));
	assert_xmllint(svg, len);
	free(svg);
	free(run);
	free(big);
	fx_free(x);
}

/* Labels are cut on code points, never inside a sequence or an entity. */
static void test_label_truncation(void **state)
{
	struct fx *x = fx_new();
	char name[401], amps[112];
	size_t len;
	char *svg;

	(void)state;
	for (int i = 0; i < 200; i++)
		memcpy(name + 2 * i, "\xc3\xa9", 2); /* U+00E9 */
	name[400] = '\0';
	ADD(x, 50, P("p"), U(name));
	memset(amps, '&', 111);
	amps[111] = '\0';
	ADD(x, 50, P("p"), U(amps));
	trie_sort(&x->t);
	svg = render_default(&x->t, &len);
	assert_sane(svg, len);
	/* 590 px / 7.08 px = 83 glyphs: 81 code points and "..". */
	{
		char want[512];
		size_t o = 0;

		want[o++] = '>';
		for (int i = 0; i < 81; i++) {
			memcpy(want + o, "\xc3\xa9", 2);
			o += 2;
		}
		memcpy(want + o, "..</text>", 10);
		assert_non_null(strstr(svg, want));
		o = 0;
		want[o++] = '>';
		for (int i = 0; i < 81; i++) {
			memcpy(want + o, "&amp;", 5);
			o += 5;
		}
		memcpy(want + o, "..</text>", 10);
		assert_non_null(strstr(svg, want));
	}
	free(svg);
	fx_free(x);
}

static void test_deterministic(void **state)
{
	struct fx *a = basic(), *b = fx_new();
	size_t la, la2, lb;
	char *sa, *sa2, *sb;

	(void)state;
	/* The same stacks added in another order. */
	ADD(b, 1, P("other"), U("x"), J("LInterpreted;"));
	ADD(b, 9, P("other"), U("x"), K("do_syscall_64"));
	ADD(b, 30, P("myprog"), U("main"), U("idle"));
	ADD(b, 60, P("myprog"), U("main"), U("work"));
	trie_sort(&b->t);
	sa = render_default(&a->t, &la);
	sa2 = render_default(&a->t, &la2);
	sb = render_default(&b->t, &lb);
	assert_int_equal(la, la2);
	assert_memory_equal(sa, sa2, la);
	assert_int_equal(la, lb);
	assert_memory_equal(sa, sb, la);
	free(sa);
	free(sa2);
	free(sb);
	fx_free(a);
	fx_free(b);
}

static void test_colors(void **state)
{
	struct fx *x = basic();
	struct svg_opts o;
	int k[3], j[3], p[3], u[3], u2[3];
	char *svg;

	(void)state;
	svg = render_default(&x->t, NULL);
	frame_rgb(svg, "<title>do_syscall_64 ", k);
	frame_rgb(svg, "<title>LInterpreted; ", j);
	frame_rgb(svg, "<title>myprog ", p);
	frame_rgb(svg, "<title>work ", u);
	/* Kernel orange, JIT green, process blue, user hot (red-yellow). */
	assert_true(k[0] >= 190 && k[1] >= 90 && k[1] < k[0] && k[2] == 0);
	assert_true(j[1] >= 200 && j[0] < j[1] && j[2] < j[1]);
	assert_true(p[2] >= 205 && p[0] < p[2] && p[1] < p[2]);
	assert_true(u[0] >= 205 && u[2] <= 55);
	free(svg);

	/* Same name, same colour, in another graph. */
	{
		struct fx *y = fx_new();

		ADD(y, 5, P("zzz"), U("work"));
		trie_sort(&y->t);
		svg = render_default(&y->t, NULL);
		frame_rgb(svg, "<title>work ", u2);
		assert_memory_equal(u, u2, sizeof(u));
		free(svg);
		fx_free(y);
	}

	/* Plain palettes apply to every kind. */
	svg_opts_default(&o);
	o.palette = SVG_PALETTE_GREEN;
	svg = render(&x->t, &o, NULL);
	frame_rgb(svg, "<title>do_syscall_64 ", k);
	assert_true(k[1] >= 200 && k[0] == k[2]);
	free(svg);
	fx_free(x);
}

static void test_minwidth_prunes(void **state)
{
	struct fx *x = fx_new();
	struct svg_opts o;
	size_t len;
	char *svg;

	(void)state;
	ADD(x, 100000, P("app"), U("big"), U("big_child"));
	ADD(x, 1, P("app"), U("tiny"), U("tiny_child"));
	trie_sort(&x->t);
	svg = render_default(&x->t, &len);
	assert_sane(svg, len);
	assert_non_null(strstr(svg, "<title>big (100,000 samples, 100.00%)</title>"));
	assert_non_null(strstr(svg, "<title>big_child (100,000 samples"));
	assert_non_null(strstr(svg, "<title>all (100,001 samples, 100.00%)</title>"));
	assert_null(strstr(svg, "tiny"));
	assert_int_equal(count(svg, "<g class=\"f\""), 4);
	free(svg);

	/* minwidth 0 draws everything. */
	svg_opts_default(&o);
	o.minwidth = 0;
	svg = render(&x->t, &o, &len);
	assert_non_null(strstr(svg, "<title>tiny (1 samples, 0.00%)</title>"));
	assert_non_null(strstr(svg, "<title>tiny_child (1 samples"));
	free(svg);

	/* The image height follows the rows drawn, not the deepest stack. */
	{
		struct fx *y = fx_new();
		char *s1, *s2;

		ADD(y, 100000, P("app"), U("a"));
		trie_sort(&y->t);
		s1 = render_default(&y->t, NULL);
		ADD(y, 1, P("app"), U("b"), U("c"), U("d"), U("e"), U("f"));
		trie_sort(&y->t);
		s2 = render_default(&y->t, NULL);
		assert_true(strstr(s1, " height=\"") != NULL);
		assert_int_equal(strncmp(strstr(s1, "<svg "), strstr(s2, "<svg "), 80), 0);
		free(s1);
		free(s2);
		fx_free(y);
	}
	fx_free(x);
}

static void test_empty(void **state)
{
	struct fx *x = fx_new();
	size_t len;
	char *svg;

	(void)state;
	trie_sort(&x->t);
	svg = render_default(&x->t, &len);
	assert_sane(svg, len);
	assert_non_null(strstr(svg, ">No samples</text>"));
	assert_null(strstr(svg, "<g class=\"f\""));
	assert_xmllint(svg, len);
	free(svg);
	fx_free(x);
}

static void test_write_error(void **state)
{
	struct fx *x = basic();
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (!f) {
		fx_free(x);
		skip();
	}
	assert_int_equal(svg_write(f, &x->t, NULL), -EIO);
	fclose(f);
	fx_free(x);
}

/* The <g> of the frame titled 'name' (its title starts "name ("), or NULL. */
static const char *frame_of(const char *svg, const char *name)
{
	char key[256];
	snprintf(key, sizeof(key), "<title>%s (", name);
	return strstr(svg, key);
}

/* The fill of the frame titled 'name' ("rgb(...)"), copied into out. */
static void fill_of(const char *svg, const char *name, char *out, size_t n)
{
	const char *g = frame_of(svg, name);
	assert_non_null(g);
	const char *f = strstr(g, "fill=\"");
	assert_non_null(f);
	f += 6;
	const char *e = strchr(f, '"');
	snprintf(out, n, "%.*s", (int)(e - f), f);
}

static void test_flamegraph_options(void **state)
{
	(void)state;
	struct fx *x = fx_new();
	ADD(x, 30, P("p"), U("a"));
	ADD(x, 10, P("p"), U("b"));
	struct svg_opts o;
	char *s;

	svg_opts_default(&o);
	o.title = NULL;
	o.chart = true;
	o.nametype = "Frame<&>:";
	o.bgcolors = "#12aB3c";
	o.factor = 2;
	s = render(&x->t, &o, NULL);
	assert_non_null(strstr(s, ">Flame Chart</text>"));
	assert_non_null(strstr(s, "k:nt=\"Frame&lt;&amp;&gt;:\""));
	assert_int_equal(count(s, "stop-color=\"#12aB3c\""), 2);
	assert_non_null(strstr(s, "<title>a (60 samples, 75.00%)</title>"));
	free(s);

	svg_opts_default(&o);
	o.title = NULL;
	o.inverted = true;
	o.total = 80; /* the whole width stands for 80: "a" takes 30/80 */
	o.divisor = 10;
	s = render(&x->t, &o, NULL);
	assert_non_null(strstr(s, ">Icicle Graph</text>"));
	assert_non_null(strstr(s, "<title>a (3 samples, 37.50%)</title>"));
	assert_non_null(strstr(s, "k:n=\"80\"><title>all (8 samples"));
	free(s);

	/* --minwidth 30%: "b" (25%) is pruned, "a" (75%) stays. */
	svg_opts_default(&o);
	o.minwidth = 30;
	o.minwidth_percent = true;
	s = render(&x->t, &o, NULL);
	assert_non_null(frame_of(s, "a"));
	assert_null(frame_of(s, "b"));
	free(s);
	fx_free(x);
}

static void test_color_modes(void **state)
{
	(void)state;
	struct fx *x = fx_new();
	ADD(x, 3, P("p"), U("a"), U("work"));
	ADD(x, 2, P("p"), U("-"), U("--"));
	struct svg_opts o;
	char c[64], *s, *s2;

	/* --hash: flamegraph.pl's namehash, worked out by hand for "a" and "work". */
	svg_opts_default(&o);
	o.color_mode = SVG_COLOR_HASH;
	s = render(&x->t, &o, NULL);
	fill_of(s, "a", c, sizeof(c));
	assert_string_equal(c, "rgb(235,140,33)");
	fill_of(s, "work", c, sizeof(c));
	assert_string_equal(c, "rgb(236,133,34)");
	fill_of(s, "-", c, sizeof(c));
	assert_string_equal(c, "rgb(200,200,200)");
	fill_of(s, "--", c, sizeof(c));
	assert_string_equal(c, "rgb(160,160,160)");
	free(s);

	/* --random: the same bytes for the same seed, others for another. */
	o.color_mode = SVG_COLOR_RANDOM;
	o.seed = 7;
	s = render(&x->t, &o, NULL);
	s2 = render(&x->t, &o, NULL);
	assert_string_equal(s, s2);
	free(s2);
	o.seed = 8;
	s2 = render(&x->t, &o, NULL);
	assert_string_not_equal(s, s2);
	free(s);
	free(s2);
	fx_free(x);
}

static void test_palettes(void **state)
{
	(void)state;
	struct fx *x = fx_new();
	ADD(x, 1, P("java"), U("java/lang/Thread.run"), U("JVM::call"), K("do_syscall_64"));
	ADD(x, 1, P("java"), J("Lfoo/Bar;::baz_[j]"));
	ADD(x, 1, P("java"), U("main"), U("--"), U("waker"));
	struct svg_opts o;
	char c[64];
	int r, g, b;

	svg_opts_default(&o);
	o.palette = SVG_PALETTE_JAVA;
	char *s = render(&x->t, &o, NULL);
	fill_of(s, "java/lang/Thread.run", c, sizeof(c)); /* green */
	assert_int_equal(sscanf(c, "rgb(%d,%d,%d)", &r, &g, &b), 3);
	assert_true(g >= 200 && r < 120 && b < 120);
	fill_of(s, "JVM::call", c, sizeof(c)); /* yellow */
	assert_int_equal(sscanf(c, "rgb(%d,%d,%d)", &r, &g, &b), 3);
	assert_true(r == g && r >= 175 && b <= 70);
	fill_of(s, "do_syscall_64", c, sizeof(c)); /* orange */
	assert_int_equal(sscanf(c, "rgb(%d,%d,%d)", &r, &g, &b), 3);
	assert_true(r >= 190 && b == 0);
	/* the annotation is not shown, the JIT frame is green */
	fill_of(s, "Lfoo/Bar;::baz", c, sizeof(c));
	assert_int_equal(sscanf(c, "rgb(%d,%d,%d)", &r, &g, &b), 3);
	assert_true(g >= 200 && r < 120);
	assert_null(strstr(s, "_[j]"));
	free(s);

	o.palette = SVG_PALETTE_CHAIN;
	s = render(&x->t, &o, NULL);
	fill_of(s, "waker", c, sizeof(c)); /* aqua above "--" */
	assert_int_equal(sscanf(c, "rgb(%d,%d,%d)", &r, &g, &b), 3);
	assert_true(r < 120 && g >= 165 && g == b);
	fill_of(s, "main", c, sizeof(c)); /* blue below */
	assert_int_equal(sscanf(c, "rgb(%d,%d,%d)", &r, &g, &b), 3);
	assert_true(b >= 205 && r == g);
	free(s);
	fx_free(x);
}

static void test_differential(void **state)
{
	(void)state;
	struct fx *x = fx_new();
	ADD(x, 10, P("p"), U("grew"));
	ADD(x, 10, P("p"), U("shrank"));
	ADD(x, 10, P("p"), U("same"));
	int64_t *delta = calloc(x->t.nodes.n, sizeof(*delta));
	for (uint32_t i = 0; i < x->t.nodes.n; i++) {
		const char *n = trie_name(&x->t, i);
		delta[i] = !strcmp(n, "grew") ? 5 : !strcmp(n, "shrank") ? -5 : 0;
	}
	struct svg_opts o;
	char c[64];
	svg_opts_default(&o);
	o.delta = delta;
	char *s = render(&x->t, &o, NULL);
	fill_of(s, "grew", c, sizeof(c));
	assert_string_equal(c, "rgb(255,0,0)");
	fill_of(s, "shrank", c, sizeof(c));
	assert_string_equal(c, "rgb(0,0,255)");
	fill_of(s, "same", c, sizeof(c));
	assert_string_equal(c, "rgb(255,255,255)");
	assert_non_null(strstr(s, "<title>grew (10 samples, 33.33%; +16.67%)</title>"));
	free(s);
	o.negate = true;
	s = render(&x->t, &o, NULL);
	fill_of(s, "grew", c, sizeof(c));
	assert_string_equal(c, "rgb(0,0,255)");
	assert_non_null(strstr(s, "<title>grew (10 samples, 33.33%; -16.67%)</title>"));
	free(s);
	free(delta);
	fx_free(x);
}

/* The viewer is src/output/flame.js byte for byte, alone in its CDATA section. */
static void test_script_is_flame_js(void **state)
{
	const char *src = getenv("KILN_SRC");
	char path[4096];
	(void)state;
	if (!src)
		skip();
	snprintf(path, sizeof(path), "%s/src/output/flame.js", src);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	static char js[1 << 16];
	size_t n = fread(js, 1, sizeof(js) - 1, f);
	fclose(f);
	assert_true(n > 0 && n < sizeof(js) - 1);
	js[n] = '\0';
	assert_null(strstr(js, "]]>"));
	struct fx *x = basic();
	size_t len;
	char *svg = render_default(&x->t, &len);
	const char *open = "<script type=\"text/ecmascript\"><![CDATA[\n";
	const char *at = strstr(svg, open);
	assert_non_null(at);
	at += strlen(open);
	assert_true((size_t)(svg + len - at) > n);
	assert_memory_equal(at, js, n);
	assert_true(!strncmp(at + n, "]]></script>\n", 13));
	assert_int_equal(count(svg, "<script"), 1);
	free(svg);
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_titles_and_structure),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_label_truncation),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_colors),
		cmocka_unit_test(test_minwidth_prunes),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_flamegraph_options),
		cmocka_unit_test(test_color_modes),
		cmocka_unit_test(test_palettes),
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_script_is_flame_js),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
