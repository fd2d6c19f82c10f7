/*
 * graph_cli: flamegraph.pl's option names and meanings mapped onto
 * svg_opts, and the write of an SVG (plus --cp's palette.map) (cli, L9).
 */
#include "cli/graph_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/ofile.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "output/palmap.h"

#define PALMAP_FILE_MAX ((size_t)64 << 20)

#define G_OFF(field) offsetof(struct graph_cli, field)

static const char *const palettes[SVG_PALETTE_COUNT] = {
	[SVG_PALETTE_HOT] = "hot",       [SVG_PALETTE_MEM] = "mem",
	[SVG_PALETTE_IO] = "io",         [SVG_PALETTE_RED] = "red",
	[SVG_PALETTE_GREEN] = "green",   [SVG_PALETTE_BLUE] = "blue",
	[SVG_PALETTE_AQUA] = "aqua",     [SVG_PALETTE_YELLOW] = "yellow",
	[SVG_PALETTE_PURPLE] = "purple", [SVG_PALETTE_ORANGE] = "orange",
	[SVG_PALETTE_WAKEUP] = "wakeup", [SVG_PALETTE_CHAIN] = "chain",
	[SVG_PALETTE_JAVA] = "java",     [SVG_PALETTE_JS] = "js",
	[SVG_PALETTE_PERL] = "perl",
};

void graph_cli_init(struct graph_cli *g)
{
	memset(g, 0, sizeof(*g));
	svg_opts_default(&g->svg);
	g->svg.title = NULL; /* chosen by svg_write from --inverted/--flamechart */
}

/* A number in [lo, hi] for the option 'o' into *out. */
static int parse_range(struct opts_parser *p, const struct opt *o, const char *arg, double lo,
		       double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= lo && v <= hi))
		return opts_error(p, "--%s takes a number from %g to %g, not '%s'", o->long_name, lo,
				  hi, arg);
	*out = v;
	return 0;
}

/* The limits of the numeric options, by name. */
static const struct {
	const char *name;
	double lo, hi;
} ranges[] = {
	{ "fontsize", 0.1, 1000 }, { "fontwidth", 0.01, 10 }, { "factor", 1e-12, 1e12 },
	{ "total", 0, 1.8e19 },    { "width", 40, 1000000 },  { "height", 2, 1000 },
};

static int opt_number(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if (!strcmp(o->long_name, ranges[i].name))
			return parse_range(p, o, arg, ranges[i].lo, ranges[i].hi, field);
	return opts_error(p, "--%s: no range", o->long_name); /* not reached */
}

/* --width and --height: whole pixels in range, into an unsigned. */
static int opt_pixels(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	double v;
	if (opt_number(p, o, arg, &v))
		return -1;
	if (v != floor(v))
		return opts_error(p, "--%s takes whole pixels, not '%s'", o->long_name, arg);
	*(unsigned *)field = (unsigned)v;
	return 0;
}

static int opt_minwidth(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct svg_opts *s = field;
	char buf[64];
	size_t n = strlen(arg);
	if (n == 0 || n >= sizeof(buf))
		return opts_error(p, "--minwidth takes pixels or a percentage, not '%s'", arg);
	memcpy(buf, arg, n + 1);
	s->minwidth_percent = buf[n - 1] == '%';
	if (s->minwidth_percent)
		buf[n - 1] = '\0';
	return parse_range(p, o, buf, 0, s->minwidth_percent ? 100 : 1000000, &s->minwidth);
}

static int opt_colors(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	(void)o;
	for (int i = 0; i < SVG_PALETTE_COUNT; i++) {
		if (!strcmp(arg, palettes[i])) {
			*(enum svg_palette *)field = (enum svg_palette)i;
			return 0;
		}
	}
	return opts_error(p, "unknown palette '%s' (hot, mem, io, wakeup, chain, java, js, perl, "
			     "red, green, blue, aqua, yellow, purple, orange)",
			  arg);
}

static int opt_bgcolors(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	(void)o;
	if (!svg_bgcolors_ok(arg))
		return opts_error(p, "--bgcolors takes yellow, blue, green, grey or #rrggbb, not '%s'",
				  arg);
	*(const char **)field = arg;
	return 0;
}

static int opt_seed(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	unsigned long long u;
	(void)o;
	if (cli_parse_u64(arg, &u))
		return opts_error(p, "--seed takes a number, not '%s'", arg);
	*(uint64_t *)field = u;
	return 0;
}

static int opt_cp_file(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct graph_cli *g = field;
	(void)p, (void)o;
	g->cp = true;
	g->cp_file = arg;
	return 0;
}

static int opt_flamechart(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct graph_cli *g = field;
	(void)p, (void)o, (void)arg;
	g->chart = g->svg.chart = true;
	return 0;
}

#define PALETTE_HELP                                                                               \
	"hot (default), mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, " \
	"purple, orange"

const struct opt graph_cli_opts[] = {
	OPT_GROUP("flamegraph.pl's options (same names, same meaning):"),
	OPT_STRING(0, "title", G_OFF(svg.title), "TEXT",
		   "title (default \"Flame Graph\"; \"Icicle Graph\" with --inverted, "
		   "\"Flame Chart\" with --flamechart)"),
	OPT_STRING(0, "subtitle", G_OFF(svg.subtitle), "TEXT", "second title line"),
	OPT_CALLBACK(0, "width", G_OFF(svg.width), "PX", "image width (default 1200)", opt_pixels),
	OPT_CALLBACK(0, "height", G_OFF(svg.frame_height), "PX", "frame height (default 16)",
		     opt_pixels),
	OPT_CALLBACK(0, "minwidth", G_OFF(svg), "N[%]",
		     "omit frames narrower than N px, or N% of the total (0.1)", opt_minwidth),
	OPT_STRING(0, "fonttype", G_OFF(svg.fonttype), "FONT", "font family (default Verdana)"),
	OPT_CALLBACK(0, "fontsize", G_OFF(svg.fontsize), "N", "font size (default 12)",
		     opt_number),
	OPT_CALLBACK(0, "fontwidth", G_OFF(svg.fontwidth), "N",
		     "average glyph width / font size (default 0.59)", opt_number),
	OPT_STRING(0, "countname", G_OFF(svg.countname), "NAME",
		   "what a count is (default samples)"),
	OPT_STRING(0, "nametype", G_OFF(svg.nametype), "TEXT",
		   "label before a hovered frame (default \"Function:\")"),
	OPT_CALLBACK(0, "colors", G_OFF(svg.palette), "PALETTE", PALETTE_HELP, opt_colors),
	{ .kind = OPT_KIND_CALLBACK, .long_name = "color", .offset = G_OFF(svg.palette),
	  .metavar = "PALETTE", .help = "as --colors", .cb = opt_colors, .flags = OPT_HIDDEN },
	OPT_CALLBACK(0, "bgcolors", G_OFF(svg.bgcolors), "BG", "yellow, blue, green, grey or #rrggbb",
		     opt_bgcolors),
	OPT_SET_INT(0, "hash", G_OFF(svg.color_mode), SVG_COLOR_HASH,
		    "colours from flamegraph.pl's name hash"),
	OPT_SET_INT(0, "random", G_OFF(svg.color_mode), SVG_COLOR_RANDOM,
		    "random colours (seeded: same output every run; --seed N)"),
	OPT_CALLBACK(0, "seed", G_OFF(svg.seed), "N", "the seed of --random (default 0)", opt_seed),
	OPT_BOOL(0, "cp", G_OFF(cp), "consistent palette: read and extend ./palette.map"),
	{ .kind = OPT_KIND_CALLBACK, .long_name = "cp-file", .offset = 0, .metavar = "FILE",
	  .help = "the same with another file", .cb = opt_cp_file, .flags = OPT_FILE },
	OPT_BOOL(0, "reverse", G_OFF(reverse), "stacks reversed: leaf first, merged from the leaves"),
	OPT_BOOL(0, "inverted", G_OFF(svg.inverted), "icicle graph: roots at the top"),
	OPT_CALLBACK(0, "flamechart", 0, NULL,
		     "a flame chart: time order (perf.data, folded line order), adjacent stacks "
		     "merged",
		     opt_flamechart),
	OPT_BOOL(0, "negate", G_OFF(svg.negate),
		 "swap a differential graph's hues (blue grew, red shrank)"),
	OPT_STRING(0, "notes", G_OFF(svg.notes), "TEXT", "notes embedded in the SVG"),
	OPT_CALLBACK(0, "total", G_OFF(total), "N",
		     "the count the full width stands for, if larger", opt_number),
	OPT_CALLBACK(0, "factor", G_OFF(svg.factor), "F", "multiply the counts shown by F",
		     opt_number),
	OPT_END(),
};

/* Read an existing palette file (a missing one is an empty map). */
static int read_palette(const char *path, struct palmap *m)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return KILN_EXIT_OK;
		cli_err("error: cannot open '%s': %s\n", path, strerror(errno));
		return KILN_EXIT_FAIL;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > PALMAP_FILE_MAX) {
		cli_err("error: %s: not a regular file of at most %zu MiB\n", path,
			PALMAP_FILE_MAX >> 20);
		close(fd);
		return KILN_EXIT_BADINPUT;
	}
	size_t len = (size_t)st.st_size, got = 0;
	char *data = xmalloc(len + 1);
	while (got < len) {
		ssize_t k = read(fd, data + got, len - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	uint64_t skipped = palmap_parse(m, data, got);
	free(data);
	if (skipped)
		cli_err("warning: %s: skipped %llu lines that are not NAME->rgb(R,G,B)\n",
			path, (unsigned long long)skipped);
	return KILN_EXIT_OK;
}

int graph_cli_write(struct graph_cli *g, const struct trie *t, uint64_t divisor,
		    const int64_t *delta, const char *path, const char *what)
{
	struct svg_opts o = g->svg;
	const char *cp_path = g->cp_file ? g->cp_file : "palette.map";
	int code = KILN_EXIT_OK;
	o.divisor = divisor ? divisor : 1;
	o.delta = delta;
	if (g->total > 0) {
		double tot = g->total * (double)o.divisor;
		o.total = tot >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(tot);
		uint64_t have = trie_node(t, 0)->total;
		if (o.total < have && (double)o.total / (double)have > 0.02)
			cli_err("warning: --total %g is less than the actual total, so "
					"ignored\n",
				g->total);
	}
	if (g->cp) {
		o.palmap = palmap_new();
		code = read_palette(cp_path, o.palmap);
		if (code) {
			palmap_free(o.palmap);
			return code;
		}
	}
	struct ofile of;
	memset(&of, 0, sizeof(of));
	if (ofile_open(&of, path) || ofile_close(&of, svg_write(of.f, t, &o))) {
		cli_error_last(NULL);
		code = KILN_EXIT_FAIL;
	} else if (strcmp(path, "-")) {
		/* in the graph's unit: samples, or ns for time views (--countname) */
		cli_err("[ kiln %s: wrote %s (%llu %s) ]\n", what, path,
			(unsigned long long)(trie_node(t, 0)->total / (divisor ? divisor : 1)),
			o.countname ? o.countname : "samples");
	}
	if (o.palmap && code == KILN_EXIT_OK) {
		struct ofile pf;
		memset(&pf, 0, sizeof(pf));
		if (ofile_open(&pf, cp_path) || ofile_close(&pf, palmap_write(o.palmap, pf.f))) {
			cli_error_last(NULL);
			code = KILN_EXIT_FAIL;
		}
	}
	palmap_free(o.palmap);
	return code;
}
