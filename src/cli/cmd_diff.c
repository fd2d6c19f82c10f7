/*
 * cmd_diff: `kiln diff A B` (cli, L9): a differential flame graph of two
 * profiles, as `difffolded.pl A B | flamegraph.pl` draws it: frame widths
 * from B, each frame coloured by how the samples of the stacks ending in
 * it changed from A to B (red grew, blue shrank); or, with --folded,
 * difffolded.pl's three-column text.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/ofile.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "cli/graph_cli.h"
#include "cli/profile_cli.h"
#include "output/folded.h"

static const char usage_text[] =
	"usage: kiln diff [options] A B [-o diff.svg]\n"
	"\n"
	"Compare two profiles (each a perf.data, folded stacks or perf script text):\n"
	"a flame graph whose frame widths are B's, coloured by the change from A to B\n"
	"of the samples of the stacks ending in each frame (red: grew, blue: shrank,\n"
	"white: unchanged), as difffolded.pl + flamegraph.pl draw it. For widths from\n"
	"A, swap the inputs and add --negate.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE     SVG to write (default diff.svg; - for stdout)\n"
	"  -n, --normalize       scale A's counts to B's total first (difffolded.pl -n)\n"
	"      --folded          write difffolded.pl's text instead: STACK COUNT_A COUNT_B\n"
	"      --pid, --tid, --kernel, --jit, --all, --symfs DIR   as in kiln collapse\n"
	"  -h, --help            this help\n"
	"\n"
	"%s"
	"\n"
	"EXAMPLES\n"
	"  kiln diff before.data after.data -o diff.svg\n"
	"  kiln diff -n --negate after.folded before.folded -o diff1.svg\n"
	"  kiln diff --folded a.data b.data > diff.folded\n";

enum { OPT_FOLDED = 5000 };

static int print_usage(FILE *f, int code)
{
	fprintf(f, usage_text, graph_cli_help);
	return code;
}

struct side {
	struct strtab strs;
	struct trie t;
	struct graph_input gi;
};

static int load_side(struct profile_cli *pc, const char *path, struct side *s)
{
	pc->po.input = path;
	int code = profile_cli_load_graph(pc, &s->strs, &s->t, &s->gi);
	if ((code == KILN_EXIT_OK || code == KILN_EXIT_PARTIAL) && s->gi.first) {
		fprintf(stderr, "error: %s: already differential (two counts per line)\n", path);
		return KILN_EXIT_BADINPUT;
	}
	return code;
}

static void scale_trie(struct trie *t, uint64_t k)
{
	for (size_t i = 0; i < t->nodes.n; i++) {
		struct trie_node *n = &t->nodes.v[i];
		n->total = n->total > UINT64_MAX / k ? UINT64_MAX : n->total * k;
		n->self = n->self > UINT64_MAX / k ? UINT64_MAX : n->self * k;
	}
}

/* Merge A's stacks into B's trie (zero-width where B lacks them); returns A's counts by node. */
static uint64_t *merge_first(const struct side *a, struct side *b)
{
	uint32_t *map;
	XALLOC_ARRAY(map, a->t.nodes.n);
	map[0] = 0;
	for (uint32_t id = 1; id < a->t.nodes.n; id++) {
		const struct trie_node *n = &a->t.nodes.v[id];
		uint32_t name = strtab_intern(&b->strs, strtab_get(&a->strs, n->name),
					      strtab_len(&a->strs, n->name));
		map[id] = trie_child(&b->t, map[n->parent], name, n->kind);
	}
	uint64_t *first;
	XALLOC_ARRAY(first, b->t.nodes.n);
	memset(first, 0, b->t.nodes.n * sizeof(*first));
	for (uint32_t id = 0; id < a->t.nodes.n; id++)
		first[map[id]] += a->t.nodes.v[id].self;
	free(map);
	trie_sort(&b->t);
	return first;
}

int cmd_diff(int argc, char **argv, const struct kiln_env *env)
{
	struct profile_cli pc;
	struct graph_cli g;
	const char *out = NULL;
	bool normalize = false, folded = false;
	profile_cli_init(&pc, env);
	graph_cli_init(&g);
	struct option longopts[64];
	size_t n = 0;
	for (size_t i = 0; profile_cli_frame_options[i].name; i++)
		longopts[n++] = profile_cli_frame_options[i];
	for (size_t i = 0; graph_cli_options[i].name; i++)
		longopts[n++] = graph_cli_options[i];
	longopts[n++] = (struct option){ "output", required_argument, NULL, 'o' };
	longopts[n++] = (struct option){ "normalize", no_argument, NULL, 'n' };
	longopts[n++] = (struct option){ "folded", no_argument, NULL, OPT_FOLDED };
	longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	int c;
	optind = 1;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "o:nh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'n':
			normalize = true;
			break;
		case OPT_FOLDED:
			folded = true;
			break;
		case 'h':
			return print_usage(stdout, KILN_EXIT_OK);
		default: {
			int r = c == '?' ? -1 : graph_cli_option(&g, c, optarg);
			if (r > 0)
				r = profile_cli_frame_option(&pc, c, optarg);
			if (r != 0) {
				fprintf(stderr, "See 'kiln diff --help'.\n");
				return KILN_EXIT_USAGE;
			}
		}
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "error: kiln diff takes two inputs, A and B\nSee 'kiln diff --help'.\n");
		return KILN_EXIT_USAGE;
	}
	if (!strcmp(argv[optind], "-") && !strcmp(argv[optind + 1], "-")) {
		fprintf(stderr, "error: only one input can be standard input\n");
		return KILN_EXIT_USAGE;
	}
	if (g.chart) {
		fprintf(stderr, "error: --flamechart does not apply to a diff\n");
		return KILN_EXIT_USAGE;
	}
	pc.po.reverse = g.reverse;
	struct side a, b;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	int code = load_side(&pc, argv[optind], &a);
	int code_b = KILN_EXIT_FAIL;
	bool have_b = false;
	if (code == KILN_EXIT_OK || code == KILN_EXIT_PARTIAL) {
		code_b = load_side(&pc, argv[optind + 1], &b);
		have_b = true;
		if (code_b != KILN_EXIT_OK)
			code = code_b;
	}
	if (code == KILN_EXIT_OK || code == KILN_EXIT_PARTIAL) {
		/* Counts on one scale (fractional folded input). */
		uint64_t d = a.gi.divisor > b.gi.divisor ? a.gi.divisor : b.gi.divisor;
		if (a.gi.divisor < d)
			scale_trie(&a.t, d / a.gi.divisor);
		if (b.gi.divisor < d)
			scale_trie(&b.t, d / b.gi.divisor);
		uint64_t *first = merge_first(&a, &b);
		uint64_t ta = a.t.nodes.v[0].total, tb = b.t.nodes.v[0].total;
		if (normalize && ta != tb && ta) {
			for (size_t i = 0; i < b.t.nodes.n; i++)
				first[i] = (uint64_t)((unsigned __int128)first[i] * tb / ta);
		}
		int wcode;
		if (folded) {
			struct ofile of;
			memset(&of, 0, sizeof(of));
			wcode = KILN_EXIT_OK;
			if (ofile_open(&of, out ? out : "-") ||
			    ofile_close(&of, folded_write_ex(of.f, &b.t, first, d))) {
				cli_error_last(NULL);
				wcode = KILN_EXIT_FAIL;
			}
		} else {
			int64_t *delta;
			XALLOC_ARRAY(delta, b.t.nodes.n);
			for (size_t i = 0; i < b.t.nodes.n; i++) {
				double v = (double)b.t.nodes.v[i].self - (double)first[i];
				delta[i] = v > 9e18 ? INT64_MAX : v < -9e18 ? -INT64_MAX : (int64_t)v;
			}
			wcode = graph_cli_write(&g, &b.t, d, delta, out ? out : "diff.svg", "diff");
			free(delta);
		}
		free(first);
		if (wcode)
			code = wcode;
	}
	free(a.gi.first);
	trie_release(&a.t);
	strtab_release(&a.strs);
	if (have_b) {
		free(b.gi.first);
		trie_release(&b.t);
		strtab_release(&b.strs);
	}
	return code;
}
