/*
 * cmd_export: `kiln export` (cli, L9): a profile (perf.data, folded stacks
 * or perf script text) → speedscope JSON, pprof (gzip protobuf) or folded
 * stacks, written atomically.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/ofile.h"
#include "cli/cli.h"
#include "cli/profile_cli.h"
#include "output/export.h"
#include "output/folded.h"

static const char usage_text[] =
	"usage: kiln export --format speedscope|pprof|folded [-i INPUT | INPUT] [-o OUT]\n"
	"\n"
	"Convert a profile (a perf.data, folded stacks or perf script text; '-' is\n"
	"standard input) for other tools:\n"
	"  speedscope  speedscope's JSON file format: one sampled profile per thread\n"
	"              (comm-PID/TID), or one for everything with --merge; from a\n"
	"              perf.data, inlined calls as frames of their own, and each\n"
	"              function's source file and line from DWARF\n"
	"  pprof       profile.proto, gzip-compressed (go tool pprof, Pyroscope, Parca):\n"
	"              from a perf.data, mappings (address range, file offset, path,\n"
	"              build-id), one location per sampled address with its\n"
	"              file:line lines (inlined calls first), functions (name,\n"
	"              mangled name, file, start line), samples labelled comm, pid,\n"
	"              tid; from folded or script text, locations by function name\n"
	"  folded      folded stacks, as kiln collapse prints them\n"
	"\n"
	"options:\n"
	"  -f, --format FORMAT   speedscope, pprof or folded (required)\n"
	"  -i, --input FILE      input (default perf.data)\n"
	"  -o, --output FILE     output (default stdout; - for stdout)\n"
	"      --merge           speedscope: one profile, process frames kept\n"
	"      --pid, --tid, --kernel, --jit, --all, --symfs DIR   as in kiln collapse\n"
	"      --no-inline       no inlined calls (speedscope frames, pprof lines); by\n"
	"                        default speedscope and pprof show them for every user\n"
	"                        frame (frame-pointer stacks too, as with --inline)\n"
	"  -h, --help            this help\n"
	"\n"
	"EXAMPLES\n"
	"  kiln export --format pprof -i perf.data -o profile.pb.gz && go tool pprof -top profile.pb.gz\n"
	"  go tool pprof -raw profile.pb.gz     # addresses, file:line, inlined frames, mappings\n"
	"  kiln export --format speedscope -i perf.data -o profile.speedscope.json\n"
	"  kiln collapse perf.data | kiln export -f pprof -o p.pb.gz -\n";

enum { OPT_MERGE = 6000 };

/* speedscope's frame file and line: the declaration noted for the frame's name. */
static bool frame_source(void *ctx, uint32_t name, uint8_t kind, struct export_src *out)
{
	const struct locprof *lp = ctx;
	(void)kind;
	const struct lp_src *s = locprof_source(lp, name);
	if (!s || (s->file == LOCPROF_NONE && !s->line))
		return false;
	out->file = s->file == LOCPROF_NONE ? NULL : strtab_get(lp->strs, s->file);
	out->line = s->line;
	return true;
}
enum fmt { FMT_NONE, FMT_SPEEDSCOPE, FMT_PPROF, FMT_FOLDED };

/*
 * What each format needs loaded: speedscope a profile per thread unless
 * merged or the frames were chosen; pprof the events' periods (a second
 * sample type); pprof and speedscope from a perf.data also addresses,
 * source lines and inline frames (for every user frame, unless
 * --no-inline or --inline chose), aggregated beside the trie
 * (aggregate/locprof.h) over 'strs'.
 */
static void configure(struct profile_cli *pc, enum fmt fmt, bool merge, bool frame_opt,
		      struct locprof *lp, struct strtab *strs)
{
	if (fmt == FMT_SPEEDSCOPE && !merge && !frame_opt)
		pc->po.frames.with_tid = true;
	pc->po.periods = fmt == FMT_PPROF;
	if (fmt == FMT_PPROF || fmt == FMT_SPEEDSCOPE) {
		if (pc->po.inline_mode == PROFILE_INLINE_DWARF)
			pc->po.inline_mode = PROFILE_INLINE_ALL;
		pc->po.locprof = lp;
	}
	strtab_init(strs);
	locprof_init(lp, strs);
	lp->want_samples = fmt == FMT_PPROF;
	lp->want_sources = lp->want_times = fmt == FMT_SPEEDSCOPE;
	lp->inlines = pc->po.inline_mode != PROFILE_INLINE_NONE;
}

/* The writers' options: the profile's name, its periods, speedscope's sources. */
static void export_options(const struct profile_cli *pc, enum fmt fmt, bool merge,
			   const struct graph_input *gi, struct locprof *lp,
			   struct export_opts *eo)
{
	*eo = (struct export_opts){ .merge = merge, .divisor = gi->divisor };
	bool perfdata = gi->kind == GRAPH_INPUT_PERFDATA;
	if (pc->st.periods && pc->st.event[0]) {
		eo->values2 = pc->st.periods;
		eo->nvalues2 = pc->st.nperiods;
	}
	if ((pc->st.periods || (fmt == FMT_PPROF && perfdata)) && pc->st.event[0]) {
		eo->type2 = pc->st.event;
		eo->unit2 = pc->st.event_time ? "nanoseconds" : "count";
	}
	if (fmt == FMT_SPEEDSCOPE && perfdata) {
		eo->src = frame_source;
		eo->src_ctx = lp;
		if (!lp->untimed && lp->times.n) { /* time order */
			eo->times = lp->times.v;
			eo->ntimes = lp->times.n;
		} else if (lp->times_over) {
			fprintf(stderr, "warning: over %zu samples: speedscope profiles are "
					"aggregated, not in time order\n",
				(size_t)LOCPROF_MAX_TIMES);
		}
	}
	const char *base = strrchr(pc->po.input, '/');
	eo->name = base ? base + 1 : pc->po.input;
}

/* Write 'out' whole or not at all; -1 with the message printed. */
static int write_export(const char *out, enum fmt fmt, const struct trie *t,
			const struct locprof *lp, const struct graph_input *gi,
			const struct export_opts *eo)
{
	struct ofile of;
	memset(&of, 0, sizeof(of));
	int err = ofile_open(&of, out);
	if (!err) {
		if (fmt == FMT_SPEEDSCOPE)
			err = speedscope_write(of.f, t, eo);
		else if (fmt == FMT_PPROF && gi->kind == GRAPH_INPUT_PERFDATA)
			err = pprof_write_locprof(of.f, lp, eo);
		else if (fmt == FMT_PPROF)
			err = pprof_write(of.f, t, eo);
		else
			err = folded_write_ex(of.f, t, gi->first, gi->divisor);
		err = ofile_close(&of, err);
	}
	if (!err)
		return 0;
	cli_error_last(NULL);
	return -1;
}

int cmd_export(int argc, char **argv, const struct kiln_env *env)
{
	struct profile_cli pc;
	const char *out = "-";
	enum fmt fmt = FMT_NONE;
	bool merge = false, frame_opt = false;
	profile_cli_init(&pc, env);
	struct option longopts[32];
	size_t n = 0;
	for (size_t i = 0; profile_cli_frame_options[i].name; i++)
		longopts[n++] = profile_cli_frame_options[i];
	longopts[n++] = (struct option){ "format", required_argument, NULL, 'f' };
	longopts[n++] = (struct option){ "input", required_argument, NULL, 'i' };
	longopts[n++] = (struct option){ "output", required_argument, NULL, 'o' };
	longopts[n++] = (struct option){ "merge", no_argument, NULL, OPT_MERGE };
	longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	int c;
	optind = 1;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "f:i:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "speedscope"))
				fmt = FMT_SPEEDSCOPE;
			else if (!strcmp(optarg, "pprof"))
				fmt = FMT_PPROF;
			else if (!strcmp(optarg, "folded"))
				fmt = FMT_FOLDED;
			else {
				fprintf(stderr, "error: unknown format '%s' (speedscope, pprof, folded)\n",
					optarg);
				return KILN_EXIT_USAGE;
			}
			break;
		case 'i':
			pc.po.input = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case OPT_MERGE:
			merge = true;
			break;
		case 'h':
			return cli_usage(stdout, usage_text, KILN_EXIT_OK);
		default:
			if (c == '?' || profile_cli_frame_option(&pc, c, optarg)) {
				fprintf(stderr, "See 'kiln export --help'.\n");
				return KILN_EXIT_USAGE;
			}
			frame_opt = true;
		}
	}
	if (optind < argc)
		pc.po.input = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "error: unexpected argument '%s'\n", argv[optind]);
		return KILN_EXIT_USAGE;
	}
	if (fmt == FMT_NONE) {
		fprintf(stderr, "error: --format is required (speedscope, pprof, folded)\n"
				"See 'kiln export --help'.\n");
		return KILN_EXIT_USAGE;
	}
	/* gzip's rule: compressed bytes are not for a terminal. */
	if (fmt == FMT_PPROF && !strcmp(out, "-") && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "error: refusing to write compressed data to a terminal; use -o FILE\n");
		return KILN_EXIT_USAGE;
	}
	struct strtab strs;
	struct trie t;
	struct graph_input gi;
	struct locprof lp;
	configure(&pc, fmt, merge, frame_opt, &lp, &strs);
	int code = profile_cli_load_graph(&pc, &strs, &t, &gi);
	if (code == KILN_EXIT_OK || code == KILN_EXIT_PARTIAL) {
		struct export_opts eo;
		export_options(&pc, fmt, merge, &gi, &lp, &eo);
		if (write_export(out, fmt, &t, &lp, &gi, &eo))
			code = KILN_EXIT_FAIL;
	}
	free(gi.first);
	profile_stats_release(&pc.st);
	locprof_release(&lp);
	trie_release(&t);
	strtab_release(&strs);
	return code;
}
