/*
 * cmd_collapse: `kiln collapse` (cli, L9): perf.data → folded stacks, the
 * output `perf script | stackcollapse-perf.pl` gives.
 */
#include <getopt.h>
#include <string.h>

#include "base/err.h"
#include "base/ofile.h"
#include "cli/cli.h"
#include "cli/profile_cli.h"
#include "output/folded.h"

static const char usage_text[] =
	"usage: kiln collapse [options] [FILE]\n"
	"\n"
	"Fold the stacks of a perf.data (default ./perf.data) into one line per\n"
	"distinct stack, root first: \"comm;caller;callee COUNT\", sorted, the format\n"
	"of stackcollapse-perf.pl that flame graph tools read.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE   write here instead of standard output\n"
	"      --pid           process frame as comm-PID\n"
	"      --tid           process frame as comm-PID/TID\n"
	"      --kernel        suffix kernel frames with _[k]\n"
	"      --jit           suffix JIT frames with _[j]\n"
	"      --all           both --kernel and --jit\n"
	"      --symfs DIR     look for binaries under DIR\n"
	"  -h, --help          this help\n"
	"\n"
	"EXAMPLES\n"
	"  kiln collapse perf.data > out.folded\n"
	"  kiln collapse --pid --kernel perf.data | grep myfunc\n";

int cmd_collapse(int argc, char **argv)
{
	struct profile_cli pc;
	profile_cli_init(&pc);
	const char *output = "-";
	int rc = profile_cli_parse(argc, argv, &pc, &output, usage_text);
	if (rc >= 0)
		return rc;
	struct trie t;
	struct strtab strs;
	int code = profile_cli_load(&pc, &strs, &t);
	if (code == KILN_EXIT_OK || code == KILN_EXIT_PARTIAL) {
		struct ofile of;
		if (ofile_open(&of, output)) {
			cli_error_last(NULL);
			code = KILN_EXIT_FAIL;
		} else {
			folded_write(of.f, &t);
			if (ofile_commit(&of)) {
				cli_error_last(NULL);
				code = KILN_EXIT_FAIL;
			}
		}
	}
	trie_release(&t);
	strtab_release(&strs);
	return code;
}
