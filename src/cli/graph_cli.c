/*
 * graph_cli: flamegraph.pl's option names and meanings mapped onto
 * svg_opts, and the write of an SVG (plus --cp's palette.map) (cli, L9).
 */
#include "cli/graph_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
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

enum { G_TITLE = 4000, G_SUBTITLE, G_WIDTH, G_HEIGHT, G_MINWIDTH, G_FONTTYPE, G_FONTSIZE,
       G_FONTWIDTH, G_COUNTNAME, G_NAMETYPE, G_COLORS, G_BGCOLORS, G_HASH, G_RANDOM, G_SEED,
       G_CP, G_CP_FILE, G_REVERSE, G_INVERTED, G_FLAMECHART, G_NEGATE, G_NOTES, G_TOTAL,
       G_FACTOR };

const struct option graph_cli_options[] = {
	{ "title", required_argument, NULL, G_TITLE },
	{ "subtitle", required_argument, NULL, G_SUBTITLE },
	{ "width", required_argument, NULL, G_WIDTH },
	{ "height", required_argument, NULL, G_HEIGHT },
	{ "minwidth", required_argument, NULL, G_MINWIDTH },
	{ "fonttype", required_argument, NULL, G_FONTTYPE },
	{ "fontsize", required_argument, NULL, G_FONTSIZE },
	{ "fontwidth", required_argument, NULL, G_FONTWIDTH },
	{ "countname", required_argument, NULL, G_COUNTNAME },
	{ "nametype", required_argument, NULL, G_NAMETYPE },
	{ "colors", required_argument, NULL, G_COLORS },
	{ "color", required_argument, NULL, G_COLORS },
	{ "bgcolors", required_argument, NULL, G_BGCOLORS },
	{ "hash", no_argument, NULL, G_HASH },
	{ "random", no_argument, NULL, G_RANDOM },
	{ "seed", required_argument, NULL, G_SEED },
	{ "cp", no_argument, NULL, G_CP },
	{ "cp-file", required_argument, NULL, G_CP_FILE },
	{ "reverse", no_argument, NULL, G_REVERSE },
	{ "inverted", no_argument, NULL, G_INVERTED },
	{ "flamechart", no_argument, NULL, G_FLAMECHART },
	{ "negate", no_argument, NULL, G_NEGATE },
	{ "notes", required_argument, NULL, G_NOTES },
	{ "total", required_argument, NULL, G_TOTAL },
	{ "factor", required_argument, NULL, G_FACTOR },
	{ NULL, 0, NULL, 0 },
};

const char graph_cli_help[] =
	"flamegraph.pl's options (same names, same meaning):\n"
	"      --title TEXT      title (default \"Flame Graph\"; \"Icicle Graph\" with\n"
	"                        --inverted, \"Flame Chart\" with --flamechart)\n"
	"      --subtitle TEXT   second title line\n"
	"      --width PX        image width (default 1200)\n"
	"      --height PX       frame height (default 16)\n"
	"      --minwidth N[%]   omit frames narrower than N px, or N% of the total (0.1)\n"
	"      --fonttype FONT   font family (default Verdana)\n"
	"      --fontsize N      font size (default 12)\n"
	"      --fontwidth N     average glyph width / font size (default 0.59)\n"
	"      --countname NAME  what a count is (default samples)\n"
	"      --nametype TEXT   label before a hovered frame (default \"Function:\")\n"
	"      --colors PALETTE  hot (default), mem, io, wakeup, chain, java, js, perl,\n"
	"                        red, green, blue, aqua, yellow, purple, orange\n"
	"      --bgcolors BG     yellow, blue, green, grey or #rrggbb\n"
	"      --hash            colours from flamegraph.pl's name hash\n"
	"      --random          random colours (seeded: same output every run; --seed N)\n"
	"      --cp              consistent palette: read and extend ./palette.map\n"
	"      --cp-file FILE    the same with another file\n"
	"      --reverse         stacks reversed: leaf first, merged from the leaves\n"
	"      --inverted        icicle graph: roots at the top\n"
	"      --flamechart      a flame chart: time order (perf.data, folded line order),\n"
	"                        adjacent stacks merged\n"
	"      --negate          swap a differential graph's hues (blue grew, red shrank)\n"
	"      --notes TEXT      notes embedded in the SVG\n"
	"      --total N         the count the full width stands for, if larger\n"
	"      --factor F        multiply the counts shown by F\n";

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

static int parse_double(const char *opt, const char *arg, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "error: --%s takes a number from %g to %g, not '%s'\n", opt, lo, hi,
			arg);
		return -1;
	}
	*out = v;
	return 0;
}

int graph_cli_option(struct graph_cli *g, int c, const char *arg)
{
	struct svg_opts *o = &g->svg;
	double v;
	unsigned long long u;
	switch (c) {
	case G_TITLE:
		o->title = arg;
		return 0;
	case G_SUBTITLE:
		o->subtitle = arg;
		return 0;
	case G_NOTES:
		o->notes = arg;
		return 0;
	case G_COUNTNAME:
		o->countname = arg;
		return 0;
	case G_NAMETYPE:
		o->nametype = arg;
		return 0;
	case G_FONTTYPE:
		o->fonttype = arg;
		return 0;
	case G_WIDTH:
	case G_HEIGHT:
		if (parse_double(c == G_WIDTH ? "width" : "height", arg, c == G_WIDTH ? 40 : 2,
				 c == G_WIDTH ? 1000000 : 1000, &v) ||
		    v != floor(v)) {
			if (v != floor(v))
				fprintf(stderr, "error: --%s takes whole pixels, not '%s'\n",
					c == G_WIDTH ? "width" : "height", arg);
			return -1;
		}
		if (c == G_WIDTH)
			o->width = (unsigned)v;
		else
			o->frame_height = (unsigned)v;
		return 0;
	case G_MINWIDTH: {
		char buf[64];
		size_t n = strlen(arg);
		if (n == 0 || n >= sizeof(buf)) {
			fprintf(stderr, "error: --minwidth takes pixels or a percentage, not '%s'\n",
				arg);
			return -1;
		}
		memcpy(buf, arg, n + 1);
		o->minwidth_percent = buf[n - 1] == '%';
		if (o->minwidth_percent)
			buf[n - 1] = '\0';
		return parse_double("minwidth", buf, 0, o->minwidth_percent ? 100 : 1000000,
				    &o->minwidth);
	}
	case G_FONTSIZE:
		return parse_double("fontsize", arg, 0.1, 1000, &o->fontsize);
	case G_FONTWIDTH:
		return parse_double("fontwidth", arg, 0.01, 10, &o->fontwidth);
	case G_FACTOR:
		return parse_double("factor", arg, 1e-12, 1e12, &o->factor);
	case G_TOTAL:
		return parse_double("total", arg, 0, 1.8e19, &g->total);
	case G_COLORS:
		for (int i = 0; i < SVG_PALETTE_COUNT; i++) {
			if (!strcmp(arg, palettes[i])) {
				o->palette = (enum svg_palette)i;
				return 0;
			}
		}
		fprintf(stderr, "error: unknown palette '%s' (hot, mem, io, wakeup, chain, java, js, "
				"perl, red, green, blue, aqua, yellow, purple, orange)\n",
			arg);
		return -1;
	case G_BGCOLORS:
		if (!svg_bgcolors_ok(arg)) {
			fprintf(stderr, "error: --bgcolors takes yellow, blue, green, grey or #rrggbb, "
					"not '%s'\n",
				arg);
			return -1;
		}
		o->bgcolors = arg;
		return 0;
	case G_HASH:
		o->color_mode = SVG_COLOR_HASH;
		return 0;
	case G_RANDOM:
		o->color_mode = SVG_COLOR_RANDOM;
		return 0;
	case G_SEED:
		if (cli_parse_u64(arg, &u)) {
			fprintf(stderr, "error: --seed takes a number, not '%s'\n", arg);
			return -1;
		}
		o->seed = u;
		return 0;
	case G_CP:
		g->cp = true;
		return 0;
	case G_CP_FILE:
		g->cp = true;
		g->cp_file = arg;
		return 0;
	case G_REVERSE:
		g->reverse = true;
		return 0;
	case G_INVERTED:
		o->inverted = true;
		return 0;
	case G_FLAMECHART:
		g->chart = true;
		o->chart = true;
		return 0;
	case G_NEGATE:
		o->negate = true;
		return 0;
	default:
		return 1;
	}
}

/* Read an existing palette file (a missing one is an empty map). */
static int read_palette(const char *path, struct palmap *m)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return KILN_EXIT_OK;
		fprintf(stderr, "error: cannot open '%s': %s\n", path, strerror(errno));
		return KILN_EXIT_FAIL;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > PALMAP_FILE_MAX) {
		fprintf(stderr, "error: %s: not a regular file of at most %zu MiB\n", path,
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
		fprintf(stderr, "warning: %s: skipped %llu lines that are not NAME->rgb(R,G,B)\n",
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
			fprintf(stderr, "warning: --total %g is less than the actual total, so "
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
		fprintf(stderr, "[ kiln %s: wrote %s (%llu samples) ]\n", what, path,
			(unsigned long long)(trie_node(t, 0)->total / (divisor ? divisor : 1)));
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
