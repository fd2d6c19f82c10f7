/*
 * cmd_collapse: `kiln collapse` (cli, L9): perf.data, or `perf script`
 * text, → folded stacks, the output `perf script | stackcollapse-perf.pl`
 * gives.
 */
#include <stddef.h>
#include <string.h>

#include "base/err.h"
#include "base/ofile.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/profile_cli.h"
#include "output/folded.h"

struct collapse_args {
	struct profile_cli pc;
	const char *output;
};

#define CA_OFF(field) offsetof(struct collapse_args, field)

static const struct opt collapse_opts[] = {
	OPT_FILENAME('o', "output", CA_OFF(output), "FILE", "write here instead of standard output"),
	OPT_FILENAME('i', "input", CA_OFF(pc.po.input), "FILE", "read FILE (same as the argument)"),
	OPT_INCLUDE(profile_cli_frame_opts, CA_OFF(pc)),
	OPT_INCLUDE(profile_cli_offcpu_opts, CA_OFF(pc)),
	OPT_BOOL('f', "force", CA_OFF(pc.force), "read a perf.data owned by neither you nor root"),
	OPT_BOOL(0, "addrs", CA_OFF(pc.addrs), "name frames without a symbol [dso <ADDR>] (text)"),
	OPT_STRING(0, "event-filter", CA_OFF(pc.event_filter), "EVENT",
		   "fold only samples of EVENT (text)"),
	OPT_END(),
};

const struct opts_cmd collapse_cmd = {
	.name = "collapse",
	.summary = "Fold the stacks of a perf.data into lines for flame graph tools",
	.synopsis = "[options] [FILE]",
	.description =
		"Fold the stacks of a perf.data (default ./perf.data) into one line per\n"
		"distinct stack, root first: \"comm;caller;callee COUNT\", sorted, the format\n"
		"of stackcollapse-perf.pl that flame graph tools read.\n"
		"\n"
		"FILE may also be the text `perf script` prints (anything that does not start\n"
		"like a perf.data), folded exactly as stackcollapse-perf.pl folds it; '-'\n"
		"reads standard input. Of text, only samples of one event are folded: the first\n"
		"one seen, or the one --event-filter names.\n"
		"\n"
		"A --call-graph dwarf stack whose recorded stack copy ended before the\n"
		"outermost caller keeps the frames found and gets a [truncated] frame right\n"
		"under the process frame (a warning counts them); perf's own folding shows\n"
		"[unknown] there.\n"
		"\n"
		"A recording made with kiln record --off-cpu also holds blocked time\n"
		"(offcpu-time samples): --off-cpu folds it alone, --wall beside the on-CPU\n"
		"samples, both with counts in nanoseconds and a leaf frame [off-cpu: STATE];\n"
		"without either, only on-CPU samples are folded.\n",
	.opts = collapse_opts,
	.examples = "kiln collapse perf.data > out.folded\n"
		    "kiln collapse --pid --kernel perf.data | grep myfunc\n"
		    "perf script | kiln collapse - > out.folded\n"
		    "kiln collapse --all --event-filter=cycles perf-script.txt\n"
		    "kiln collapse --off-cpu perf.data   # blocked time, ns\n",
};

int cmd_collapse(int argc, char **argv, const struct kiln_env *env)
{
	struct collapse_args a;
	profile_cli_init(&a.pc, env);
	a.output = "-";
	int rc = profile_cli_parse(&collapse_cmd, argc, argv, &a, &a.pc);
	if (rc >= 0)
		return rc;
	struct profile_cli pc = a.pc;
	const char *output = a.output;
	struct trie t;
	struct strtab strs;
	int code = profile_cli_load_any(&pc, &strs, &t);
	if (code == KILN_EXIT_OK || code == KILN_EXIT_PARTIAL) {
		struct ofile of;
		int werr = ofile_open(&of, output);
		if (!werr) {
			/* a leaf's line holds its whole path: ~64 bytes a node is low */
			ofile_background(&of, env ? env->threads : 0, t.nodes.n * 64);
			werr = ofile_close(&of, folded_write(of.f, &t));
		}
		if (werr) {
			cli_error_last(NULL);
			code = KILN_EXIT_FAIL;
		}
	}
	trie_release(&t);
	strtab_release(&strs);
	return code;
}
