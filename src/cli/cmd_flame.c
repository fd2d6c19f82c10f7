/*
 * cmd_flame: `kiln flame` (cli, L9): a perf.data, folded stacks or perf
 * script text → interactive SVG flame graph, with flamegraph.pl's options;
 * with `-- CMD` it records the command first (call graphs on).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cli/cli.h"
#include "cli/graph_cli.h"
#include "cli/opts.h"
#include "cli/profile_cli.h"
#include "cli/record_cli.h"

struct flame_ctx {
	struct profile_cli pc;
	struct graph_cli g;
	struct record_cli rc;
};

static const struct opt flame_opts[] = {
	OPT_FILENAME('i', "input", offsetof(struct flame_ctx, pc.po.input), "FILE",
		     "input (default perf.data); with a command, the recording"),
	OPT_FILENAME('o', "output", offsetof(struct flame_ctx, rc.o.output), "FILE",
		     "SVG to write (default flame.svg; - for stdout)"),
	OPT_INCLUDE(record_cli_opts, offsetof(struct flame_ctx, rc)),
	OPT_INCLUDE(profile_cli_frame_opts, offsetof(struct flame_ctx, pc)),
	OPT_BOOL('f', "force", offsetof(struct flame_ctx, pc.force),
		 "read a perf.data owned by another user (as root)"),
	OPT_INCLUDE(graph_cli_opts, offsetof(struct flame_ctx, g)),
	OPT_END(),
};

const struct opts_cmd flame_cmd = {
	.name = "flame",
	.summary = "Render an interactive SVG flame graph (perf.data, folded or perf script text, "
		   "or record first)",
	.synopsis = "[options] [-i INPUT | INPUT] [-o flame.svg] [-- command [args...]]",
	.description =
		"Render an interactive SVG flame graph: hover for name, samples and percentage,\n"
		"click to zoom, Ctrl-F to search by regex (\"Matched: x%\"), zoom and search kept in\n"
		"the URL. INPUT is a perf.data, folded stacks (\"a;b;c 12\", as stackcollapse-perf.pl\n"
		"and kiln collapse print them; two counts per line, as difffolded.pl prints, make\n"
		"a differential graph) or perf script text: the first bytes decide; '-' is\n"
		"standard input. With a command (after --), record it first (call graphs on) into\n"
		"the -i file, then render. DWARF stacks cut short by the end of the stack copy\n"
		"stand under a [truncated] frame (see kiln collapse --help).\n"
		"\n"
		"The recording options apply with a command, -p or -a; the frame options are\n"
		"those of kiln collapse (--pid is record's -p here).\n"
		"\n"
		"--off-cpu draws blocked time (kiln record --off-cpu's offcpu-time samples) in\n"
		"flamegraph.pl's io palette, widths in nanoseconds; with a command it records\n"
		"them first. --wall draws on-CPU and off-CPU time together (recording blocked\n"
		"time too with a command): each thread's width is close to its wall-clock\n"
		"time, and blocked stacks end in a blue [off-cpu: STATE] frame (S sleeping, D\n"
		"uninterruptible, R preempted).\n",
	.opts = flame_opts,
	.examples = "kiln flame -i perf.data -o flame.svg\n"
		    "kiln flame -o flame.svg -- ./myprog args\n"
		    "kiln collapse perf.data | kiln flame --colors java --minwidth 0.5% -o f.svg -\n"
		    "kiln flame --title 'my service' -p 1234 -- sleep 10\n"
		    "kiln flame --flamechart --countname ms trace.folded -o chart.svg\n"
		    "kiln flame --off-cpu -o offcpu.svg -- ./server   # where it waits\n"
		    "kiln flame --wall -i wall.data -o wall.svg -- ./prog\n",
	.flags = OPTS_STOP_AT_ARG,
};

/*
 * --off-cpu (record's option, here also the view) and --wall: what the
 * graph weighs, and a recording of blocked time with them; flamegraph.pl's
 * io palette for blocked time, widths in nanoseconds.
 */
static void time_view(struct flame_ctx *ctx, struct record_opts *ro)
{
	struct svg_opts *so = &ctx->g.svg;
	if (ctx->pc.po.weight == PROFILE_WEIGHT_WALL) {
		if (!ro->off_cpu)
			ro->off_cpu = RECORD_OFFCPU_AUTO;
		if (!so->title)
			so->title = "Wall-Clock Flame Graph";
	} else if (ro->off_cpu) {
		ctx->pc.po.weight = PROFILE_WEIGHT_OFFCPU;
		if (so->palette == SVG_PALETTE_HOT)
			so->palette = SVG_PALETTE_IO;
		if (!so->title)
			so->title = "Off-CPU Time Flame Graph";
	} else {
		return;
	}
	if (!strcmp(so->countname, "samples"))
		so->countname = "ns";
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

	ctx.rc.o.env = env;
	ctx.rc.o.cmdline = argv - 1;
	ctx.rc.o.cmdline_n = argc + 1;
	struct record_cli_extra *xp = &ctx.rc.x;
	struct opts_parser p;
	int code = KILN_EXIT_OK;
	int first = opts_parse(&p, &flame_cmd, argc, argv, &ctx);
	/* A word not after "--" is the input, and options may follow it. */
	if (first >= 0 && first < argc && !p.dashdash) {
		char **rest = argv + first;
		int rn = argc - first;
		ctx.pc.po.input = rest[0];
		int next = opts_parse(&p, &flame_cmd, rn, rest, &ctx);
		if (next >= 0 && next < rn && !p.dashdash) {
			opts_error(&p, "unexpected argument '%s' (a command goes after --)",
				   rest[next]);
			next = -1;
		}
		argv = rest;
		argc = rn;
		first = next;
	}
	if (first == OPTS_HELP) {
		record_cli_extra_release(xp);
		opts_help(stdout, &flame_cmd);
		return KILN_EXIT_OK;
	}
	/* --wall records blocked time too: its recording options apply. */
	if (first >= 0 && ctx.pc.po.weight == PROFILE_WEIGHT_WALL && !ctx.rc.o.off_cpu)
		ctx.rc.o.off_cpu = RECORD_OFFCPU_AUTO;
	if (first < 0 || record_cli_finish(&ctx.rc, &p)) {
		record_cli_extra_release(xp);
		return cli_usage_error(&p);
	}
	struct record_opts ro = ctx.rc.o;
	struct record_cli_extra x = ctx.rc.x;
	if (first < argc)
		ro.argv = argv + first;
	time_view(&ctx, &ro);
	ctx.pc.po.reverse = ctx.g.reverse;
	ctx.pc.po.chart = ctx.g.chart;
	/* In flame, -o names the SVG; the recording goes to the -i file. */
	const char *svg_path = ro.output ? ro.output : "flame.svg";
	if (ro.argv || ro.npids || ro.system_wide) {
		ro.output = ctx.pc.po.input;
		ro.callgraph = true;
		code = record_cli_run(&ro, &x);
		if (ro.argv && code != KILN_EXIT_OK && code != 126 && code != 127 && code < 128) {
			/* The command failed but the recording is fine: render it, keep its status. */
			cli_err("warning: '%s' exited with status %d\n", ro.argv[0], code);
		} else if (code != KILN_EXIT_OK) {
			record_cli_extra_release(&x);
			return code;
		}
	} else if (ro.period || ro.freq || ro.nevents || ro.off_cpu_thresh_ns || ro.off_cpu_kernel) {
		cli_err("error: recording options need a command, -p or -a\n");
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
