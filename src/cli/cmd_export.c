/*
 * cmd_export: `kiln export` (cli, L9): a profile (perf.data, folded stacks
 * or perf script text) → speedscope JSON, pprof (gzip protobuf) or folded
 * stacks, written atomically.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/ofile.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/profile_cli.h"
#include "output/export.h"
#include "output/folded.h"

enum fmt { FMT_NONE, FMT_SPEEDSCOPE, FMT_PPROF, FMT_FOLDED };

struct export_args {
	struct profile_cli pc;
	const char *out;
	int fmt; /* enum fmt */
	bool merge;
};

#define EA_OFF(field) offsetof(struct export_args, field)

static int opt_format(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	(void)o;
	if (!strcmp(arg, "speedscope"))
		*(int *)field = FMT_SPEEDSCOPE;
	else if (!strcmp(arg, "pprof"))
		*(int *)field = FMT_PPROF;
	else if (!strcmp(arg, "folded"))
		*(int *)field = FMT_FOLDED;
	else
		return opts_error(p, "unknown format '%s' (speedscope, pprof, folded)", arg);
	return 0;
}

static const struct opt export_opts[] = {
	OPT_CALLBACK('f', "format", EA_OFF(fmt), "FORMAT", "speedscope, pprof or folded (required)",
		     opt_format),
	OPT_FILENAME('i', "input", EA_OFF(pc.po.input), "FILE", "input (default perf.data)"),
	OPT_FILENAME('o', "output", EA_OFF(out), "FILE", "output (default stdout; - for stdout)"),
	OPT_BOOL(0, "merge", EA_OFF(merge), "speedscope: one profile, process frames kept"),
	OPT_INCLUDE(profile_cli_frame_opts, EA_OFF(pc)),
	OPT_INCLUDE(profile_cli_offcpu_opts, EA_OFF(pc)),
	OPT_BOOL(0, "force", EA_OFF(pc.force), "read a perf.data owned by neither you nor root"),
	OPT_END(),
};

const struct opts_cmd export_cmd = {
	.name = "export",
	.summary = "Convert a profile to speedscope JSON, pprof or folded stacks",
	.synopsis = "--format speedscope|pprof|folded [-i INPUT | INPUT] [-o OUT]",
	.description =
		"Convert a profile (a perf.data, folded stacks or perf script text; '-' is\n"
		"standard input) for other tools:\n"
		"\n"
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
		"The frame options are those of kiln collapse; --no-inline leaves out inlined\n"
		"calls (speedscope frames, pprof lines), which speedscope and pprof otherwise\n"
		"show for every user frame (frame-pointer stacks too, as with --inline).\n",
	.opts = export_opts,
	.examples =
		"kiln export --format pprof -i perf.data -o profile.pb.gz && go tool pprof -top profile.pb.gz\n"
		"go tool pprof -raw profile.pb.gz     # addresses, file:line, inlined frames, mappings\n"
		"kiln export --format speedscope -i perf.data -o profile.speedscope.json\n"
		"kiln collapse perf.data | kiln export -f pprof -o p.pb.gz -\n",
};

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
	/* Off-CPU sums have no times of their own: time views are aggregated. */
	if (pc->po.weight != PROFILE_WEIGHT_SAMPLES)
		lp->want_times = false;
	lp->inlines = pc->po.inline_mode != PROFILE_INLINE_NONE;
}

/* The writers' options: the profile's name, its periods, speedscope's sources. */
static void export_options(const struct profile_cli *pc, enum fmt fmt, bool merge,
			   const struct graph_input *gi, struct locprof *lp,
			   struct export_opts *eo)
{
	*eo = (struct export_opts){ .merge = merge, .divisor = gi->divisor };
	if (pc->po.weight != PROFILE_WEIGHT_SAMPLES) {
		eo->unit = "nanoseconds"; /* speedscope; pprof's second value is the time */
	}
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
			cli_err("warning: over %zu samples: speedscope profiles are "
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
	struct export_args ea = { .out = "-", .fmt = FMT_NONE };
	profile_cli_init(&ea.pc, env);
	int rc = profile_cli_parse(&export_cmd, argc, argv, &ea, &ea.pc);
	if (rc >= 0)
		return rc;
	if (ea.fmt == FMT_NONE) {
		struct opts_parser p = { .cmd = &export_cmd };
		opts_error(&p, "--format is required (speedscope, pprof, folded)");
		return cli_usage_error(&p);
	}
	struct profile_cli pc = ea.pc;
	const char *out = ea.out;
	enum fmt fmt = (enum fmt)ea.fmt;
	bool merge = ea.merge, frame_opt = profile_cli_frames_chosen(&pc);
	/* gzip's rule: compressed bytes are not for a terminal. */
	if (fmt == FMT_PPROF && !strcmp(out, "-") && isatty(STDOUT_FILENO)) {
		cli_err("error: refusing to write compressed data to a terminal; use -o FILE\n");
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
