/* profile_cli: shared perf.data → trie options, and the messages of loading (cli, L9). */
#include "cli/profile_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/foldedtext.h"
#include "aggregate/scripttext.h"
#include "base/err.h"
#include "cli/cli.h"
#include "pipeline/session.h"

enum {
	OPT_PID = 2000,
	OPT_TID,
	OPT_KERNEL,
	OPT_JIT,
	OPT_ALL,
	OPT_SYMFS,
	OPT_DEBUG_DIR,
	OPT_NO_DEMANGLE,
	OPT_FORCE,
	OPT_INLINE,
	OPT_NO_INLINE,
	OPT_MARK_INLINE
};
enum { OPT_ADDRS = 2100, OPT_EVENT_FILTER };

const struct option profile_cli_frame_options[] = {
	{ "pid", no_argument, NULL, OPT_PID },
	{ "tid", no_argument, NULL, OPT_TID },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "jit", no_argument, NULL, OPT_JIT },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "mark-inline", no_argument, NULL, OPT_MARK_INLINE },
	{ NULL, 0, NULL, 0 },
};

void profile_cli_init(struct profile_cli *pc, const struct kiln_env *env)
{
	memset(pc, 0, sizeof(*pc));
	pc->po.input = "perf.data";
	pc->po.env = env;
}

int profile_cli_frame_option(struct profile_cli *pc, int c, const char *arg)
{
	struct frame_opts *f = &pc->po.frames;
	switch (c) {
	case OPT_PID:
		f->with_pid = true;
		return 0;
	case OPT_TID:
		f->with_tid = true;
		return 0;
	case OPT_KERNEL:
		f->annotate_kernel = true;
		return 0;
	case OPT_JIT:
		f->annotate_jit = true;
		return 0;
	case OPT_ALL:
		f->annotate_kernel = f->annotate_jit = true;
		return 0;
	case OPT_SYMFS:
		pc->po.symfs = arg;
		return 0;
	case OPT_DEBUG_DIR:
		pc->po.debug_dir = arg;
		return 0;
	case OPT_NO_DEMANGLE:
		pc->po.no_demangle = true;
		return 0;
	case OPT_INLINE:
		pc->po.inline_mode = PROFILE_INLINE_ALL;
		return 0;
	case OPT_NO_INLINE:
		pc->po.inline_mode = PROFILE_INLINE_NONE;
		return 0;
	case OPT_MARK_INLINE:
		f->annotate_inline = true;
		return 0;
	case 'f':
	case OPT_FORCE:
		pc->force = true;
		return 0;
	default:
		return -1;
	}
}

int profile_cli_parse(int argc, char **argv, struct profile_cli *pc, const char **output,
		      const char *usage_text)
{
	struct option longopts[32]; /* the frame options, these five, the end */
	size_t n = 0;
	for (; profile_cli_frame_options[n].name; n++)
		longopts[n] = profile_cli_frame_options[n];
	longopts[n++] = (struct option){ "addrs", no_argument, NULL, OPT_ADDRS };
	longopts[n++] = (struct option){ "event-filter", required_argument, NULL, OPT_EVENT_FILTER };
	longopts[n++] = (struct option){ "output", required_argument, NULL, 'o' };
	longopts[n++] = (struct option){ "input", required_argument, NULL, 'i' };
	longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:i:hf", longopts, NULL)) != -1) {
		if (c == 'o') {
			*output = optarg;
		} else if (c == 'i') {
			pc->po.input = optarg;
		} else if (c == OPT_ADDRS) {
			pc->addrs = true;
		} else if (c == OPT_EVENT_FILTER) {
			pc->event_filter = optarg;
		} else if (c == 'h') {
			return cli_usage(stdout, usage_text, KILN_EXIT_OK);
		} else if (profile_cli_frame_option(pc, c, optarg)) {
			fprintf(stderr, "See '%s --help'.\n", argv[0]);
			return KILN_EXIT_USAGE;
		}
	}
	if (optind < argc)
		pc->po.input = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "error: unexpected argument '%s'\n", argv[optind]);
		return KILN_EXIT_USAGE;
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
		fprintf(stderr, "hint: there is no perf.data here: record one first ('kiln record -g "
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
		fprintf(stderr, "warning: %s: lost %llu samples while recording\n", name,
			(unsigned long long)st->lost);
	if (st->truncated)
		fprintf(stderr,
			"warning: %s: %llu of %llu stacks were cut short (the recorded stack copy "
			"ended before the outermost caller): shown under " PROFILE_TRUNCATED_FRAME
			"; record with a larger --call-graph dwarf,SIZE\n",
			name, (unsigned long long)st->truncated, (unsigned long long)st->samples);
	if (st->unknown_records)
		fprintf(stderr, "warning: %s: skipped %llu records of unknown type\n", name,
			(unsigned long long)st->unknown_records);
	if (st->mixed_events)
		fprintf(stderr, "note: %s: periods are summed for '%s' only; %llu samples of other "
				"events are counted, not weighted\n",
			name, st->event, (unsigned long long)st->mixed_events);
	if (graph && st->samples && !st->with_stacks)
		fprintf(stderr, "warning: %s: the samples have no callchains (recorded without -g): "
				"each stack is the sampled function alone; record call stacks with "
				"'kiln record -g' or '--call-graph dwarf'\n",
			name);
	if (st->partial)
		return cli_report_partial(name);
	if (st->samples == 0) {
		fprintf(stderr, "error: %s: no samples\n", name);
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
		fprintf(stderr, "error: %s: not a perf.data file, nor perf script output, nor "
				"folded stacks\n",
			name);
		if (st->frame_lines && st->frame_lines >= st->unrecognized)
			fprintf(stderr, "hint: it has frame lines but no sample headers (\"comm pid "
					"... event:\" from the first column), which perf script "
					"prints for recordings with call chains (perf record -g)\n");
		return KILN_EXIT_BADINPUT;
	}
	if (pc->po.symfs || pc->po.debug_dir || pc->po.no_demangle)
		fprintf(stderr, "warning: --symfs, --debug-dir and --no-demangle have no effect "
				"on perf script text\n");
	if (st->long_lines)
		fprintf(stderr, "warning: %s: skipped %llu lines longer than %u KiB\n", name,
			(unsigned long long)st->long_lines, SCRIPTTEXT_MAX_LINE >> 10);
	if (st->unrecognized)
		fprintf(stderr, "warning: %s: skipped %llu lines that are not perf script output\n",
			name, (unsigned long long)st->unrecognized);
	if (st->truncated)
		fprintf(stderr,
			"warning: %s: %llu stacks deeper than %u frames lost their %llu outermost "
			"frames\n",
			name, (unsigned long long)st->truncated, SCRIPTTEXT_MAX_FRAMES,
			(unsigned long long)st->dropped_frames);
	if (st->filtered && st->event_defaulted)
		fprintf(stderr,
			"note: %s: only '%s' samples are folded; %llu samples of other events "
			"skipped (choose with --event-filter)\n",
			name, strtab_get(strs, st->event), (unsigned long long)st->filtered);
	if (st->unterminated && st->samples)
		fprintf(stderr,
			"warning: %s: the last sample has no blank line after it and is left out, "
			"as stackcollapse-perf.pl does\n",
			name);
	if (st->samples == 0) {
		if (pc->event_filter && pc->event_filter[0] && st->filtered)
			fprintf(stderr, "error: %s: no samples of event '%s'\n", name,
				pc->event_filter);
		else
			fprintf(stderr, "error: %s: no samples\n", name);
		if (st->unterminated)
			fprintf(stderr, "hint: a sample counts at the blank line after its stack, "
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
		fprintf(stderr, "warning: %s: ignored %llu lines with invalid format\n", name,
			(unsigned long long)st.ignored);
	if (st.long_lines)
		fprintf(stderr, "warning: %s: skipped %llu lines longer than %u MiB\n", name,
			(unsigned long long)st.long_lines, FOLDEDTEXT_MAX_LINE >> 20);
	if (st.truncated)
		fprintf(stderr, "warning: %s: %llu stacks cut to their first %u frames\n", name,
			(unsigned long long)st.truncated, FOLDEDTEXT_MAX_FRAMES);
	if (st.saturated)
		fprintf(stderr, "warning: %s: %llu counts too large, clamped\n", name,
			(unsigned long long)st.saturated);
	if (trie_node(t, 0)->total == 0 && !gi->first) {
		fprintf(stderr, "error: %s: no stack counts found\n", name);
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
	if (s.kind == SESSION_PERFDATA) {
		gi->kind = GRAPH_INPUT_PERFDATA;
		if (pc->event_filter) {
			fprintf(stderr, "error: --event-filter applies to perf script "
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
		fprintf(stderr, "error: --flamechart needs a perf.data or folded stacks, and '%s' "
				"is perf script text (its samples are not in time order once folded)\n",
			pc->po.input);
		code = KILN_EXIT_USAGE;
	} else {
		gi->kind = GRAPH_INPUT_SCRIPT;
		code = load_script_text(pc, &s, strs, t);
	}
	uint64_t off;
	if (session_text_faulted(&s, &off)) {
		fprintf(stderr, "warning: %s: input ended early: file shrank while being read "
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
