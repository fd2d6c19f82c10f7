/*
 * cmd_collapse: `kiln collapse` (cli, L9): perf.data, or `perf script`
 * text, → folded stacks, the output `perf script | stackcollapse-perf.pl`
 * gives.
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
	"options:\n"
	"  -o, --output FILE   write here instead of standard output\n"
	"  -i, --input FILE    read FILE (same as the argument)\n"
	"      --pid           process frame as comm-PID\n"
	"      --tid           process frame as comm-PID/TID\n"
	"      --kernel        suffix kernel frames with _[k]\n"
	"      --jit           suffix JIT frames with _[j]\n"
	"      --all           both --kernel and --jit\n"
	"      --symfs DIR     look for binaries and debug files under DIR (perf.data)\n"
	"      --debug-dir DIR debug-file directory (default /usr/lib/debug under --symfs)\n"
	"      --no-demangle   keep C++ and Rust names mangled (perf.data)\n"
	"  -f, --force         read a perf.data owned by neither you nor root\n"
	"      --inline        inline frames (from DWARF) for every user frame; by\n"
	"                      default only DWARF-unwound stacks get them, as in\n"
	"                      perf script's output (perf.data)\n"
	"      --no-inline     no inline frames (perf script --no-inline) (perf.data)\n"
	"      --mark-inline   suffix inlined calls with _[i] (perf.data)\n"
	"      --addrs         name frames without a symbol [dso <ADDR>] (text)\n"
	"      --event-filter=EVENT\n"
	"                      fold only samples of EVENT (text)\n"
	"  -h, --help          this help\n"
	"\n"
	"EXAMPLES\n"
	"  kiln collapse perf.data > out.folded\n"
	"  kiln collapse --pid --kernel perf.data | grep myfunc\n"
	"  perf script | kiln collapse - > out.folded\n"
	"  kiln collapse --all --event-filter=cycles perf-script.txt\n";

int cmd_collapse(int argc, char **argv, const struct kiln_env *env)
{
	struct profile_cli pc;
	profile_cli_init(&pc, env);
	const char *output = "-";
	int rc = profile_cli_parse(argc, argv, &pc, &output, usage_text);
	if (rc >= 0)
		return rc;
	struct trie t;
	struct strtab strs;
	int code = profile_cli_load_any(&pc, &strs, &t);
	if (code == KILN_EXIT_OK || code == KILN_EXIT_PARTIAL) {
		struct ofile of;
		if (ofile_open(&of, output) || ofile_close(&of, folded_write(of.f, &t))) {
			cli_error_last(NULL);
			code = KILN_EXIT_FAIL;
		}
	}
	trie_release(&t);
	strtab_release(&strs);
	return code;
}
