/*
 * cmd_diff: `kiln diff A B` (cli, L9): a differential flame graph of two
 * profiles, as `difffolded.pl A B | flamegraph.pl` draws it: frame widths
 * from B, each frame coloured by how the samples of the stacks ending in
 * it changed from A to B (red grew, blue shrank); or, with --folded,
 * difffolded.pl's three-column text.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/ofile.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "cli/graph_cli.h"
#include "cli/opts.h"
#include "cli/profile_cli.h"
#include "output/folded.h"
#include "pipeline/report.h"

struct diff_args {
	struct profile_cli pc;
	struct graph_cli g;
	const char *out;
	bool normalize, folded;
	bool stdio;          /* perf diff's table instead of a graph */
	const char *compute; /* --stdio: delta, delta-abs, ratio, wdiff:A,B */
	double percent_limit;
};

#define DA_OFF(field) offsetof(struct diff_args, field)

static const struct opt diff_opts[] = {
	OPT_FILENAME('o', "output", DA_OFF(out), "FILE",
		     "SVG to write (default diff.svg; - for stdout)"),
	OPT_BOOL('n', "normalize", DA_OFF(normalize),
		 "scale A's counts to B's total first (difffolded.pl -n)"),
	OPT_BOOL(0, "folded", DA_OFF(folded),
		 "write difffolded.pl's text instead: STACK COUNT_A COUNT_B"),
	OPT_BOOL(0, "stdio", DA_OFF(stdio),
		 "print perf diff's table (Baseline, Delta Abs, Shared Object, Symbol) of two "
		 "perf.data files instead"),
	OPT_STRING('c', "compute", DA_OFF(compute), "METHOD",
		   "--stdio: delta, delta-abs (default), ratio, or wdiff:A,B (B's period times B "
		   "minus A's times A)"),
	OPT_DOUBLE(0, "percent-limit", DA_OFF(percent_limit), "PCT",
		   "--stdio: leave out entries below PCT percent"),
	OPT_INCLUDE(profile_cli_frame_opts, DA_OFF(pc)),
	OPT_BOOL(0, "force", DA_OFF(pc.force), "read a perf.data owned by neither you nor root"),
	OPT_INCLUDE(graph_cli_opts, DA_OFF(g)),
	OPT_END(),
};

const struct opts_cmd diff_cmd = {
	.name = "diff",
	.summary = "Differential flame graph of two profiles (red grew, blue shrank)",
	.synopsis = "[options] A B [-o diff.svg]",
	.description =
		"Compare two profiles (each a perf.data, folded stacks or perf script text):\n"
		"a flame graph whose frame widths are B's, coloured by the change from A to B\n"
		"of the samples of the stacks ending in each frame (red: grew, blue: shrank,\n"
		"white: unchanged), as difffolded.pl + flamegraph.pl draw it. For widths from\n"
		"A, swap the inputs and add --negate. The frame options are those of\n"
		"kiln collapse.\n",
	.opts = diff_opts,
	.examples = "kiln diff before.data after.data -o diff.svg\n"
		    "kiln diff --stdio before.data after.data\n"
		    "kiln diff --stdio -c ratio before.data after.data\n"
		    "kiln diff -n --negate after.folded before.folded -o diff1.svg\n"
		    "kiln diff --folded a.data b.data > diff.folded\n",
};

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
		cli_err("error: %s: already differential (two counts per line)\n", path);
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
	trie_graft(&b->t, &a->t, map);
	uint64_t *first;
	XALLOC_ARRAY(first, b->t.nodes.n);
	memset(first, 0, b->t.nodes.n * sizeof(*first));
	for (uint32_t id = 0; id < a->t.nodes.n; id++)
		first[map[id]] += a->t.nodes.v[id].self;
	free(map);
	trie_sort(&b->t);
	return first;
}

/* --compute: perf diff's methods. */
static int parse_compute(const char *s, struct report_diff_opts *o)
{
	if (!s || !strcmp(s, "delta-abs")) {
		o->compute = REPORT_DIFF_DELTA_ABS;
	} else if (!strcmp(s, "delta")) {
		o->compute = REPORT_DIFF_DELTA;
	} else if (!strcmp(s, "ratio")) {
		o->compute = REPORT_DIFF_RATIO;
	} else if (!strncmp(s, "wdiff:", 6)) {
		char *end;
		o->compute = REPORT_DIFF_WDIFF;
		o->wdiff_a = strtoll(s + 6, &end, 10);
		if (end == s + 6 || *end != ',')
			return -1;
		const char *b = end + 1;
		o->wdiff_b = strtoll(b, &end, 10);
		if (end == b || *end)
			return -1;
	} else {
		return -1;
	}
	return 0;
}

/* kiln diff --stdio A B: perf diff's table. */
static int diff_stdio(const struct diff_args *da, const char *a, const char *b)
{
	struct report_diff_opts o = { .percent_limit = da->percent_limit };
	if (parse_compute(da->compute, &o)) {
		cli_err("error: --compute: delta, delta-abs, ratio or wdiff:A,B, not '%s'\n",
			da->compute);
		return KILN_EXIT_USAGE;
	}
	struct report_load_opts lo = {
		.input = a,
		.env = da->pc.po.env,
		.symfs = da->pc.po.symfs,
		.debug_dir = da->pc.po.debug_dir,
		.no_demangle = da->pc.po.no_demangle,
		.hist = { .keys = { HIST_DSO, HIST_SYM }, .nkeys = 2 },
	};
	if (cli_check_owner(a, da->pc.force) || cli_check_owner(b, da->pc.force))
		return KILN_EXIT_FAIL;
	err_clear();
	unsigned partial = 0;
	const char *failed = a;
	int err = report_diff_run(&lo, b, &o, stdout, &partial, &failed);
	if (fflush(stdout) || ferror(stdout)) {
		cli_err("error: cannot write to standard output\n");
		return KILN_EXIT_FAIL;
	}
	if (err)
		return profile_cli_fail(failed, err);
	if (partial)
		return cli_report_partial(partial & 1 ? a : b);
	return KILN_EXIT_OK;
}

int cmd_diff(int argc, char **argv, const struct kiln_env *env)
{
	struct diff_args da = { .out = NULL };
	profile_cli_init(&da.pc, env);
	graph_cli_init(&da.g);
	struct opts_parser p;
	int rc;
	int optind = cli_parse(&p, &diff_cmd, argc, argv, &da, &rc);
	if (optind < 0)
		return rc;
	if (argc - optind != 2) {
		opts_error(&p, "kiln diff takes two inputs, A and B");
		return cli_usage_error(&p);
	}
	struct profile_cli pc = da.pc;
	struct graph_cli g = da.g;
	const char *out = da.out;
	bool normalize = da.normalize, folded = da.folded;
	if (!strcmp(argv[optind], "-") && !strcmp(argv[optind + 1], "-")) {
		cli_err("error: only one input can be standard input\n");
		return KILN_EXIT_USAGE;
	}
	if (da.stdio)
		return diff_stdio(&da, argv[optind], argv[optind + 1]);
	if (g.chart) {
		cli_err("error: --flamechart does not apply to a diff\n");
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
