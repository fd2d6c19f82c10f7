/*
 * cmd_flame: `kiln flame` (cli, L9): a perf.data, folded stacks or perf
 * script text → interactive SVG flame graph, with flamegraph.pl's options;
 * with `-- CMD` it records the command first (call graphs on).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cli/cli.h"
#include "cli/graph_cli.h"
#include "cli/profile_cli.h"
#include "cli/record_cli.h"

static const char usage_text[] =
	"usage: kiln flame [options] [-i INPUT | INPUT] [-o flame.svg] [-- command [args...]]\n"
	"\n"
	"Render an interactive SVG flame graph: hover for name, samples and percentage,\n"
	"click to zoom, Ctrl-F to search by regex (\"Matched: x%%\"), zoom and search kept in\n"
	"the URL. INPUT is a perf.data, folded stacks (\"a;b;c 12\", as stackcollapse-perf.pl\n"
	"and kiln collapse print them; two counts per line, as difffolded.pl prints, make\n"
	"a differential graph) or perf script text: the first bytes decide; '-' is\n"
	"standard input. With a command (after --), record it first (call graphs on) into\n"
	"the -i file, then render. DWARF stacks cut short by the end of the stack copy\n"
	"stand under a [truncated] frame (see kiln collapse --help).\n"
	"\n"
	"options:\n"
	"  -i, --input FILE      input (default perf.data)\n"
	"  -o, --output FILE     SVG to write (default flame.svg; - for stdout)\n"
	"      --pid, --tid, --kernel, --jit, --all, --symfs DIR, --debug-dir DIR,\n"
	"      --no-demangle, --inline, --no-inline, --mark-inline   as in kiln collapse\n"
	"  -f, --force           read a perf.data owned by another user (as root)\n"
	"  recording (with a command): -F HZ, -c N, -e SPEC, -p PID, -a, -m PAGES, -q\n"
	"  -h, --help            this help\n"
	"\n"
	"%s"
	"\n"
	"EXAMPLES\n"
	"  kiln flame -i perf.data -o flame.svg\n"
	"  kiln flame -o flame.svg -- ./myprog args\n"
	"  kiln collapse perf.data | kiln flame --colors java --minwidth 0.5%% -o f.svg -\n"
	"  kiln flame --title 'my service' -p 1234 -- sleep 10\n"
	"  kiln flame --flamechart --countname ms trace.folded -o chart.svg\n";

struct flame_ctx {
	struct profile_cli pc;
	struct graph_cli g;
};

static int flame_option(int c, const char *arg, void *vctx)
{
	struct flame_ctx *ctx = vctx;
	if (c == 'i') {
		ctx->pc.po.input = arg;
		return 0;
	}
	int r = graph_cli_option(&ctx->g, c, arg);
	if (r <= 0)
		return r;
	return profile_cli_frame_option(&ctx->pc, c, arg);
}

static int print_usage(FILE *f, int code)
{
	fprintf(f, usage_text, graph_cli_help);
	return code;
}

/* delta[node] = B's count of the stacks ending there minus A's (first). */
static int64_t *deltas(const struct trie *t, const uint64_t *first)
{
	int64_t *d;
	XALLOC_ARRAY(d, t->nodes.n ? t->nodes.n : 1);
	for (size_t i = 0; i < t->nodes.n; i++) {
		double v = (double)t->nodes.v[i].self - (double)first[i];
		d[i] = v > 9e18 ? INT64_MAX : v < -9e18 ? -INT64_MAX : (int64_t)v;
	}
	return d;
}

int cmd_flame(int argc, char **argv, const struct kiln_env *env)
{
	struct flame_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	profile_cli_init(&ctx.pc, env);
	graph_cli_init(&ctx.g);
	struct option extra[64];
	size_t n = 0;
	for (size_t i = 0; profile_cli_frame_options[i].name; i++)
		extra[n++] = profile_cli_frame_options[i];
	for (size_t i = 0; graph_cli_options[i].name; i++)
		extra[n++] = graph_cli_options[i];
	extra[n++] = (struct option){ "input", required_argument, NULL, 'i' };
	extra[n] = (struct option){ NULL, 0, NULL, 0 };

	struct record_opts ro = { .env = env };
	struct record_cli_extra x = { 0 };
	ro.output = NULL;
	ro.cmdline = argv - 1;
	ro.cmdline_n = argc + 1;
	int code = KILN_EXIT_OK;
	if (record_cli_parse(argc, argv, &ro, &x, "i:f", extra, flame_option, &ctx)) {
		fprintf(stderr, "See 'kiln flame --help'.\n");
		record_cli_extra_release(&x);
		return KILN_EXIT_USAGE;
	}
	if (x.help) {
		record_cli_extra_release(&x);
		return print_usage(stdout, KILN_EXIT_OK);
	}
	/* A word not after "--" is the input, and options may follow it. */
	if (ro.argv && strcmp(ro.argv[-1], "--")) {
		char **rest = ro.argv;
		int rn = 0;
		while (rest[rn])
			rn++;
		ctx.pc.po.input = rest[0];
		ro.argv = NULL;
		if (rn > 1 && record_cli_parse(rn, rest, &ro, &x, "i:", extra, flame_option, &ctx)) {
			fprintf(stderr, "See 'kiln flame --help'.\n");
			record_cli_extra_release(&x);
			return KILN_EXIT_USAGE;
		}
		if (ro.argv && strcmp(ro.argv[-1], "--")) {
			fprintf(stderr, "error: unexpected argument '%s' (a command goes after --)\n",
				ro.argv[0]);
			record_cli_extra_release(&x);
			return KILN_EXIT_USAGE;
		}
		if (x.help) {
			record_cli_extra_release(&x);
			return print_usage(stdout, KILN_EXIT_OK);
		}
	}
	ctx.pc.po.reverse = ctx.g.reverse;
	ctx.pc.po.chart = ctx.g.chart;
	/* In flame, -o names the SVG; the recording goes to the -i file. */
	const char *svg_path = ro.output ? ro.output : "flame.svg";
	if (ro.argv || ro.npids || ro.system_wide) {
		ro.output = ctx.pc.po.input;
		ro.callgraph = true;
		code = record_cli_run(&ro, x.quiet);
		if (ro.argv && code != KILN_EXIT_OK && code != 126 && code != 127 && code < 128) {
			/* The command failed but the recording is fine: render it, keep its status. */
			fprintf(stderr, "warning: '%s' exited with status %d\n", ro.argv[0], code);
		} else if (code != KILN_EXIT_OK) {
			record_cli_extra_release(&x);
			return code;
		}
	} else if (ro.period || ro.freq || ro.nevents) {
		fprintf(stderr, "error: recording options need a command, -p or -a\n");
		record_cli_extra_release(&x);
		return KILN_EXIT_USAGE;
	}
	int record_code = code;

	struct strtab strs;
	struct trie t;
	struct graph_input gi;
	code = profile_cli_load_graph(&ctx.pc, &strs, &t, &gi);
	if (code == KILN_EXIT_OK || code == KILN_EXIT_PARTIAL) {
		int64_t *delta = gi.first ? deltas(&t, gi.first) : NULL;
		int wcode = graph_cli_write(&ctx.g, &t, gi.divisor, delta, svg_path, "flame");
		if (wcode)
			code = wcode;
		free(delta);
	}
	free(gi.first);
	trie_release(&t);
	strtab_release(&strs);
	record_cli_extra_release(&x);
	return code == KILN_EXIT_OK ? record_code : code;
}
