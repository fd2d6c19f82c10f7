/*
 * cmd_flame: `kiln flame` (cli, L9): perf.data → interactive SVG flame
 * graph; with `-- CMD` it records the command first (call graphs on).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/ofile.h"
#include "cli/cli.h"
#include "cli/profile_cli.h"
#include "cli/record_cli.h"
#include "output/svg.h"

static const char usage_text[] =
	"usage: kiln flame [options] [-i perf.data] [-o flame.svg] [-- command [args...]]\n"
	"\n"
	"Render the stacks of a perf.data as an interactive SVG flame graph: hover for\n"
	"name, samples and percentage, click to zoom, Ctrl-F to search by regex. With a\n"
	"command, record it first (call graphs on) into the -i file, then render.\n"
	"\n"
	"options:\n"
	"  -i, --input FILE      perf.data to read (and record into) (default perf.data)\n"
	"  -o, --output FILE     SVG to write (default flame.svg; - for stdout)\n"
	"      --title TEXT      title (default \"Flame Graph\")\n"
	"      --subtitle TEXT   second title line\n"
	"      --width PX        image width (default 1200)\n"
	"      --height PX       frame height (default 16)\n"
	"      --minwidth PX     omit frames narrower than this (default 0.1)\n"
	"      --colors PALETTE  hot (default), mem, io, red, green, blue, aqua, yellow,\n"
	"                        purple, orange\n"
	"      --countname NAME  what a sample is called (default samples)\n"
	"      --inverted        icicle graph: roots at the top\n"
	"      --pid, --tid, --kernel, --jit, --all, --symfs DIR   as in kiln collapse\n"
	"      --inline, --no-inline, --mark-inline             as in kiln collapse\n"
	"  recording (with a command): -F HZ, -c N, -e SPEC, -p PID, -a, -m PAGES, -q\n"
	"  -h, --help            this help\n"
	"\n"
	"EXAMPLES\n"
	"  kiln flame -i perf.data -o flame.svg\n"
	"  kiln flame -o flame.svg -- ./myprog args\n"
	"  kiln flame --title 'my service' -p 1234 -- sleep 10\n";

enum { OPT_TITLE = 3000, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_MINWIDTH, OPT_COLORS,
       OPT_COUNTNAME, OPT_INVERTED };

struct flame_ctx {
	struct profile_cli pc;
	struct svg_opts svg;
};

static const char *const palettes[] = { "hot", "mem", "io", "red", "green", "blue", "aqua",
					"yellow", "purple", "orange" };

static int flame_option(int c, const char *arg, void *vctx)
{
	struct flame_ctx *ctx = vctx;
	char *end;
	switch (c) {
	case 'i':
		ctx->pc.po.input = arg;
		return 0;
	case OPT_TITLE:
		ctx->svg.title = arg;
		return 0;
	case OPT_SUBTITLE:
		ctx->svg.subtitle = arg;
		return 0;
	case OPT_COUNTNAME:
		ctx->svg.countname = arg;
		return 0;
	case OPT_INVERTED:
		ctx->svg.inverted = true;
		return 0;
	case OPT_WIDTH:
	case OPT_HEIGHT: {
		unsigned long v = strtoul(arg, &end, 10);
		if (*end || v < 10 || v > 100000) {
			fprintf(stderr, "error: --%s takes a number of pixels, not '%s'\n",
				c == OPT_WIDTH ? "width" : "height", arg);
			return -1;
		}
		if (c == OPT_WIDTH)
			ctx->svg.width = (unsigned)v;
		else
			ctx->svg.frame_height = (unsigned)v;
		return 0;
	}
	case OPT_MINWIDTH: {
		double v = strtod(arg, &end);
		if (*end || v < 0 || v > 10000) {
			fprintf(stderr, "error: --minwidth takes pixels, not '%s'\n", arg);
			return -1;
		}
		ctx->svg.minwidth = v;
		return 0;
	}
	case OPT_COLORS:
		for (size_t i = 0; i < sizeof(palettes) / sizeof(palettes[0]); i++) {
			if (!strcmp(arg, palettes[i])) {
				ctx->svg.palette = (enum svg_palette)i;
				return 0;
			}
		}
		fprintf(stderr, "error: unknown palette '%s'\n", arg);
		return -1;
	default:
		return profile_cli_frame_option(&ctx->pc, c, arg);
	}
}

int cmd_flame(int argc, char **argv)
{
	struct flame_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	profile_cli_init(&ctx.pc);
	svg_opts_default(&ctx.svg);
	struct option extra[32];
	size_t n = 0;
	for (; profile_cli_frame_options[n].name; n++)
		extra[n] = profile_cli_frame_options[n];
	extra[n++] = (struct option){ "input", required_argument, NULL, 'i' };
	extra[n++] = (struct option){ "title", required_argument, NULL, OPT_TITLE };
	extra[n++] = (struct option){ "subtitle", required_argument, NULL, OPT_SUBTITLE };
	extra[n++] = (struct option){ "width", required_argument, NULL, OPT_WIDTH };
	extra[n++] = (struct option){ "height", required_argument, NULL, OPT_HEIGHT };
	extra[n++] = (struct option){ "minwidth", required_argument, NULL, OPT_MINWIDTH };
	extra[n++] = (struct option){ "colors", required_argument, NULL, OPT_COLORS };
	extra[n++] = (struct option){ "countname", required_argument, NULL, OPT_COUNTNAME };
	extra[n++] = (struct option){ "inverted", no_argument, NULL, OPT_INVERTED };
	extra[n] = (struct option){ NULL, 0, NULL, 0 };

	struct record_opts ro = { 0 };
	struct record_cli_extra x = { 0 };
	ro.output = NULL;
	ro.cmdline = argv - 1;
	ro.cmdline_n = argc + 1;
	int code = KILN_EXIT_OK;
	if (record_cli_parse(argc, argv, &ro, &x, "i:", extra, flame_option, &ctx)) {
		fprintf(stderr, "See 'kiln flame --help'.\n");
		record_cli_extra_release(&x);
		return KILN_EXIT_USAGE;
	}
	if (x.help) {
		record_cli_extra_release(&x);
		return cli_usage(stdout, usage_text, KILN_EXIT_OK);
	}
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
	code = profile_cli_load(&ctx.pc, &strs, &t);
	if (code == KILN_EXIT_OK || code == KILN_EXIT_PARTIAL) {
		struct ofile of;
		if (ofile_open(&of, svg_path)) {
			cli_error_last(NULL);
			code = KILN_EXIT_FAIL;
		} else if (svg_write(of.f, &t, &ctx.svg) || ofile_commit(&of)) {
			if (of.f)
				ofile_abort(&of);
			cli_error_last(NULL);
			code = KILN_EXIT_FAIL;
		} else if (strcmp(svg_path, "-")) {
			fprintf(stderr, "[ kiln flame: wrote %s (%llu samples) ]\n", svg_path,
				(unsigned long long)t.nodes.v[0].total);
		}
	}
	trie_release(&t);
	strtab_release(&strs);
	record_cli_extra_release(&x);
	return code == KILN_EXIT_OK ? record_code : code;
}
