/* profile_cli: shared perf.data → trie options and loading (cli, L9). */
#include "cli/profile_cli.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aggregate/foldedtext.h"
#include "aggregate/scripttext.h"
#include "base/err.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "pipeline/session.h"


#define PC_OFF(field) offsetof(struct profile_cli, field)

static int opt_all(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct frame_opts *f = field;
	(void)p, (void)o, (void)arg;
	f->annotate_kernel = f->annotate_jit = true;
	return 0;
}

const struct opt profile_cli_frame_opts[] = {
	OPT_BOOL(0, "pid", PC_OFF(po.frames.with_pid), "process frame as comm-PID"),
	OPT_BOOL(0, "tid", PC_OFF(po.frames.with_tid), "process frame as comm-PID/TID"),
	OPT_BOOL(0, "kernel", PC_OFF(po.frames.annotate_kernel), "suffix kernel frames with _[k]"),
	OPT_BOOL(0, "jit", PC_OFF(po.frames.annotate_jit), "suffix JIT frames with _[j]"),
	OPT_CALLBACK(0, "all", PC_OFF(po.frames), NULL, "both --kernel and --jit", opt_all),
	OPT_FILENAME(0, "symfs", PC_OFF(po.symfs), "DIR",
		     "look for binaries and debug files under DIR (perf.data)"),
	OPT_FILENAME(0, "debug-dir", PC_OFF(po.debug_dir), "DIR",
		     "debug-file directory (default /usr/lib/debug under --symfs)"),
	OPT_BOOL(0, "no-demangle", PC_OFF(po.no_demangle),
		 "keep C++ and Rust names mangled (perf.data)"),
	OPT_SET_INT(0, "inline", PC_OFF(po.inline_mode), PROFILE_INLINE_ALL,
		    "inline frames (from DWARF) for every user frame; by default only "
		    "DWARF-unwound stacks get them, as in perf script's output (perf.data)"),
	OPT_SET_INT(0, "no-inline", PC_OFF(po.inline_mode), PROFILE_INLINE_NONE,
		    "no inline frames (perf script --no-inline) (perf.data)"),
	OPT_BOOL(0, "mark-inline", PC_OFF(po.frames.annotate_inline),
		 "suffix inlined calls with _[i] (perf.data)"),
	OPT_SET_INT(0, "wall", PC_OFF(po.weight), PROFILE_WEIGHT_WALL,
		    "wall-clock time: on-CPU samples as their time (a clock event's period, else "
		    "1 / the sampling frequency) and off-CPU time (kiln record --off-cpu) "
		    "together, in nanoseconds; blocked stacks end in an [off-cpu: STATE] frame "
		    "(perf.data)"),
	OPT_END(),
};

const struct opt profile_cli_offcpu_opts[] = {
	OPT_SET_INT(0, "off-cpu", PC_OFF(po.weight), PROFILE_WEIGHT_OFFCPU,
		    "blocked time only (kiln record --off-cpu's offcpu-time samples), in "
		    "nanoseconds; each stack ends in an [off-cpu: STATE] frame: S sleeping, D "
		    "uninterruptible (disk I/O), R preempted (perf.data)"),
	OPT_END(),
};

void profile_cli_init(struct profile_cli *pc, const struct kiln_env *env)
{
	memset(pc, 0, sizeof(*pc));
	pc->po.input = "perf.data";
	pc->po.env = env;
}

bool profile_cli_frames_chosen(const struct profile_cli *pc)
{
	const struct frame_opts *f = &pc->po.frames;
	return f->with_pid || f->with_tid || f->annotate_kernel || f->annotate_jit ||
	       f->annotate_inline;
}

int profile_cli_parse(const struct opts_cmd *cmd, int argc, char **argv, void *base,
		      struct profile_cli *pc)
{
	struct opts_parser p;
	int code;
	int first = cli_parse(&p, cmd, argc, argv, base, &code);
	if (first < 0)
		return code;
	if (first < argc)
		pc->po.input = argv[first++];
	if (first < argc) {
		opts_error(&p, "unexpected argument '%s'", argv[first]);
		return cli_usage_error(&p);
	}
	return -1;
}

static const char *input_name(const char *input)
{
	return strcmp(input, "-") ? input : "<stdin>";
}

int profile_cli_fail(const char *input, int err)
{
	cli_error_last(input_name(input));
	if (err == -ENOENT && !strcmp(input, "perf.data"))
		cli_err("hint: there is no perf.data here: record one first ('kiln record -g "
				"-- COMMAND') or name the input\n");
	switch (session_status_of(err)) {
	case SESSION_OK:
		return KILN_EXIT_OK;
	case SESSION_PARTIAL:
		return KILN_EXIT_PARTIAL;
	case SESSION_UNUSABLE:
		return KILN_EXIT_BADINPUT;
	case SESSION_FAILED:
		break;
	}
	return KILN_EXIT_FAIL;
}

/* What profile_load found, told; the exit code. */
static int report_perfdata(struct profile_cli *pc, const struct profile_stats *st, bool graph)
{
	const char *name = pc->po.input;
	if (st->lost)
		cli_err("warning: %s: lost %llu samples while recording\n", name,
			(unsigned long long)st->lost);
	if (st->truncated)
		cli_err(
			"warning: %s: %llu of %llu stacks were cut short (the recorded stack copy "
			"ended before the outermost caller): shown under " PROFILE_TRUNCATED_FRAME
			"; record with a larger --call-graph dwarf,SIZE\n",
			name, (unsigned long long)st->truncated, (unsigned long long)st->samples);
	if (st->unknown_records)
		cli_err("warning: %s: skipped %llu records of unknown type\n", name,
			(unsigned long long)st->unknown_records);
	if (st->mixed_events)
		cli_err("note: %s: periods are summed for '%s' only; %llu samples of other "
				"events are counted, not weighted\n",
			name, st->event, (unsigned long long)st->mixed_events);
	if (graph && st->samples && !st->with_stacks)
		cli_err("warning: %s: the samples have no callchains (recorded without -g): "
				"each stack is the sampled function alone; record call stacks with "
				"'kiln record -g' or '--call-graph dwarf'\n",
			name);
	if (st->offcpu_skipped)
		cli_err("note: %s: %llu off-CPU stacks (offcpu-time) are not in this on-CPU "
				"view: see them with --off-cpu or --wall\n",
			name, (unsigned long long)st->offcpu_skipped);
	if (pc->po.weight == PROFILE_WEIGHT_WALL && !st->offcpu_samples && st->samples)
		cli_err("note: %s: no off-CPU samples: --wall shows on-CPU time only (record "
				"blocked time with 'kiln record --off-cpu')\n",
			name);
	if (st->wall_untimed)
		cli_err("warning: %s: %llu samples of an event counted by a fixed period (-c) "
				"have no time: left out of --wall (record with -F or a clock event)\n",
			name, (unsigned long long)st->wall_untimed);
	if (st->partial)
		return cli_report_partial(name);
	if (st->samples == 0 && pc->po.weight == PROFILE_WEIGHT_OFFCPU) {
		cli_err("error: %s: no off-CPU samples (record them with 'kiln record "
				"--off-cpu')\n",
			name);
		return KILN_EXIT_BADINPUT;
	}
	if (st->samples == 0) {
		cli_err("error: %s: no samples\n", name);
		return KILN_EXIT_BADINPUT;
	}
	return KILN_EXIT_OK;
}

static int load_perfdata(struct profile_cli *pc, struct session *s, struct trie *t, bool graph)
{
	if (cli_check_owner(pc->po.input, pc->force))
		return KILN_EXIT_FAIL;
	int err = profile_load(s, &pc->po, t, &pc->st);
	if (err)
		return profile_cli_fail(pc->po.input, err);
	if (!pc->po.chart)
		trie_sort(t);
	return report_perfdata(pc, &pc->st, graph);
}

/* What profile_text_script found, told; the exit code. */
static int report_script_text(struct profile_cli *pc, const struct scripttext_stats *st,
			      const struct strtab *strs)
{
	const char *name = input_name(pc->po.input);
	/* Inputs that are not perf script text at all: one error, no warnings. */
	if (profile_text_unusable(st)) {
		cli_err("error: %s: not a perf.data file, nor perf script output, nor "
				"folded stacks\n",
			name);
		if (st->frame_lines && st->frame_lines >= st->unrecognized)
			cli_err("hint: it has frame lines but no sample headers (\"comm pid "
					"... event:\" from the first column), which perf script "
					"prints for recordings with call chains (perf record -g)\n");
		return KILN_EXIT_BADINPUT;
	}
	if (pc->po.symfs || pc->po.debug_dir || pc->po.no_demangle)
		cli_err("warning: --symfs, --debug-dir and --no-demangle have no effect "
				"on perf script text\n");
	if (st->long_lines)
		cli_err("warning: %s: skipped %llu lines longer than %u KiB\n", name,
			(unsigned long long)st->long_lines, SCRIPTTEXT_MAX_LINE >> 10);
	if (st->unrecognized)
		cli_err("warning: %s: skipped %llu lines that are not perf script output\n",
			name, (unsigned long long)st->unrecognized);
	if (st->truncated)
		cli_err(
			"warning: %s: %llu stacks deeper than %u frames lost their %llu outermost "
			"frames\n",
			name, (unsigned long long)st->truncated, SCRIPTTEXT_MAX_FRAMES,
			(unsigned long long)st->dropped_frames);
	if (st->filtered && st->event_defaulted)
		cli_err(
			"note: %s: only '%s' samples are folded; %llu samples of other events "
			"skipped (choose with --event-filter)\n",
			name, strtab_get(strs, st->event), (unsigned long long)st->filtered);
	if (st->unterminated && st->samples)
		cli_err(
			"warning: %s: the last sample has no blank line after it and is left out, "
			"as stackcollapse-perf.pl does\n",
			name);
	if (st->samples == 0) {
		if (pc->event_filter && pc->event_filter[0] && st->filtered)
			cli_err("error: %s: no samples of event '%s'\n", name,
				pc->event_filter);
		else
			cli_err("error: %s: no samples\n", name);
		if (st->unterminated)
			cli_err("hint: a sample counts at the blank line after its stack, "
					"which perf script prints for recordings with call "
					"chains (perf record -g)\n");
		return KILN_EXIT_BADINPUT;
	}
	return KILN_EXIT_OK;
}

static int load_script_text(struct profile_cli *pc, const struct session *s, struct strtab *strs,
			    struct trie *t)
{
	const struct frame_opts *f = &pc->po.frames;
	struct scripttext_opts so = {
		.with_pid = f->with_pid,
		.with_tid = f->with_tid,
		.annotate_kernel = f->annotate_kernel,
		.annotate_jit = f->annotate_jit,
		.addrs = pc->addrs,
		.event_filter = pc->event_filter,
	};
	struct scripttext_stats st;
	profile_text_script(s, &pc->po, &so, t, &st);
	return report_script_text(pc, &st, strs);
}

static int load_folded(struct profile_cli *pc, const struct session *s, struct trie *t,
		       struct graph_input *gi)
{
	const char *name = input_name(pc->po.input);
	struct foldedtext_stats st;
	struct profile_folded pf;
	profile_text_folded(s, &pc->po, t, &pf, &st);
	gi->first = pf.first;
	gi->divisor = pf.divisor;
	if (st.ignored)
		cli_err("warning: %s: ignored %llu lines with invalid format\n", name,
			(unsigned long long)st.ignored);
	if (st.long_lines)
		cli_err("warning: %s: skipped %llu lines longer than %u MiB\n", name,
			(unsigned long long)st.long_lines, FOLDEDTEXT_MAX_LINE >> 20);
	if (st.truncated)
		cli_err("warning: %s: %llu stacks cut to their first %u frames\n", name,
			(unsigned long long)st.truncated, FOLDEDTEXT_MAX_FRAMES);
	if (st.saturated)
		cli_err("warning: %s: %llu counts too large, clamped\n", name,
			(unsigned long long)st.saturated);
	if (trie_node(t, 0)->total == 0 && !gi->first) {
		cli_err("error: %s: no stack counts found\n", name);
		return KILN_EXIT_BADINPUT;
	}
	return KILN_EXIT_OK;
}

/*
 * Open the input (of the kinds 'accept' allows), load it into t by its
 * kind, say what went wrong. 'graph': the commands that draw (flame,
 * diff, export).
 */
static int load(struct profile_cli *pc, struct strtab *strs, struct trie *t,
		struct graph_input *gi, unsigned accept, bool graph)
{
	memset(gi, 0, sizeof(*gi));
	gi->divisor = 1;
	strtab_init(strs);
	trie_init(t, strs);
	struct session s;
	struct session_opts so;
	profile_session_opts(&pc->po, strs, &so);
	so.accept = accept;
	so.stdin_hint = graph ? "standard input ('-')" : "'kiln collapse -'";
	err_clear();
	int err = session_open(&s, &so);
	if (err)
		return profile_cli_fail(pc->po.input, err);
	int code;
	if (s.kind != SESSION_PERFDATA && pc->po.weight != PROFILE_WEIGHT_SAMPLES) {
		cli_err("error: --off-cpu and --wall need a perf.data, and '%s' is text\n",
			input_name(pc->po.input));
		code = KILN_EXIT_USAGE;
	} else if (s.kind == SESSION_PERFDATA) {
		gi->kind = GRAPH_INPUT_PERFDATA;
		if (pc->event_filter) {
			cli_err("error: --event-filter applies to perf script "
					"text, and '%s' is a perf.data\n",
				pc->po.input);
			code = KILN_EXIT_USAGE;
		} else {
			pc->po.frames.addrs = pc->addrs;
			code = load_perfdata(pc, &s, t, graph);
		}
	} else if (s.kind == SESSION_FOLDED) {
		gi->kind = GRAPH_INPUT_FOLDED;
		code = load_folded(pc, &s, t, gi);
	} else if (pc->po.chart) {
		cli_err("error: --flamechart needs a perf.data or folded stacks, and '%s' "
				"is perf script text (its samples are not in time order once folded)\n",
			pc->po.input);
		code = KILN_EXIT_USAGE;
	} else {
		gi->kind = GRAPH_INPUT_SCRIPT;
		code = load_script_text(pc, &s, strs, t);
	}
	uint64_t off;
	if (session_text_faulted(&s, &off)) {
		cli_err("warning: %s: input ended early: file shrank while being read "
				"(at offset 0x%llx); results are partial\n",
			input_name(pc->po.input), (unsigned long long)off);
		if (code == KILN_EXIT_OK)
			code = KILN_EXIT_PARTIAL;
	}
	session_close(&s);
	return code;
}

int profile_cli_load_any(struct profile_cli *pc, struct strtab *strs, struct trie *t)
{
	struct graph_input gi;
	return load(pc, strs, t, &gi, SESSION_ACCEPT_PERFDATA | SESSION_ACCEPT_SCRIPT, false);
}

int profile_cli_load_graph(struct profile_cli *pc, struct strtab *strs, struct trie *t,
			   struct graph_input *gi)
{
	return load(pc, strs, t, gi,
		    SESSION_ACCEPT_PERFDATA | SESSION_ACCEPT_SCRIPT | SESSION_ACCEPT_FOLDED, true);
}
