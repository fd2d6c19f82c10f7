/*
 * profile_cli: options and loading shared by the commands that read a
 * perf.data into a stack trie (collapse, flame) (cli, L9).
 */
#ifndef KILN_CLI_PROFILE_CLI_H
#define KILN_CLI_PROFILE_CLI_H

#include <stdbool.h>

#include "aggregate/trie.h"
#include "base/strtab.h"
#include "cli/opts.h"
#include "pipeline/profile.h"

struct profile_cli {
	struct profile_opts po;
	const char *input_flag; /* -i, if given */
	bool force;             /* -f: read an input another user owns */
	/* collapse only, for perf script text: */
	bool addrs;               /* --addrs */
	const char *event_filter; /* --event-filter=EVENT */
	/* What profile_load gave for a perf.data (periods, event when asked
	 * for in po): release with profile_stats_release. */
	struct profile_stats st;
};

void profile_cli_init(struct profile_cli *pc, const struct kiln_env *env);
/*
 * The frame options (--pid, --tid, --kernel, --jit, --all, --symfs,
 * --debug-dir, --no-demangle, --inline, --no-inline, --mark-inline), an
 * option table (cli/opts.h) over a struct profile_cli, for OPT_INCLUDE.
 */
extern const struct opt profile_cli_frame_opts[];
/* --off-cpu (the view), for the commands that do not record (collapse,
 * export); flame takes record's --off-cpu as both. */
extern const struct opt profile_cli_offcpu_opts[];
/* Whether a frame option chose how frames are named (--pid ... --mark-inline). */
bool profile_cli_frames_chosen(const struct profile_cli *pc);
/*
 * Parse argv with cmd's table over 'base' (which embeds pc), and take at
 * most one argument, the input. Returns -1 to go on, or an exit code to
 * return at once (help printed, or a usage error).
 */
int profile_cli_parse(const struct opts_cmd *cmd, int argc, char **argv, void *base,
		      struct profile_cli *pc);
/*
 * Report a failed session_open/profile_load of 'input' (err: -errno,
 * err_last() says why): the message, a hint when ./perf.data is missing,
 * and the exit code, one mapping for every command (session_status_of).
 */
int profile_cli_fail(const char *input, int err);
/*
 * Initialise strs and t and load pc->po.input into them, reporting
 * problems; returns the exit code (OK, PARTIAL, BADINPUT, FAIL, USAGE).
 * The input (a file, or "-" for standard input) is a perf.data or `perf
 * script` text, folded by stackcollapse-perf.pl's rules (pipeline/session.h
 * decides which; pipeline/profile.h loads it).
 */
int profile_cli_load_any(struct profile_cli *pc, struct strtab *strs, struct trie *t);

/* What profile_cli_load_graph read. */
enum graph_input_kind { GRAPH_INPUT_PERFDATA, GRAPH_INPUT_FOLDED, GRAPH_INPUT_SCRIPT };
struct graph_input {
	enum graph_input_kind kind;
	uint64_t *first;  /* folded text with two counts per line: A's count by node (heap) */
	uint64_t divisor; /* counts in the trie are the input's times this (fractional counts) */
};

/*
 * For the commands that draw (flame, diff, export): like
 * profile_cli_load_any, and the text may also be folded stacks
 * (aggregate/foldedtext.h; detected from its first line). A perf.data
 * without callchains gets a warning. pc->po.reverse
 * and pc->po.chart apply to every kind (a flame chart of perf script text
 * is refused: exit 2). gi->first must be freed.
 */
int profile_cli_load_graph(struct profile_cli *pc, struct strtab *strs, struct trie *t,
			   struct graph_input *gi);

#endif
