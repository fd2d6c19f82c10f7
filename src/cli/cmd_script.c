/*
 * cmd_script: `kiln script` (cli, L9): a perf.data as perf script prints
 * it, or its record statistics (--stats).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "cli/cli.h"
#include "cli/profile_cli.h"
#include "pipeline/script.h"

static const char usage_text[] =
	"usage: kiln script [options] [-i FILE]\n"
	"\n"
	"Print every sample of a perf.data (default ./perf.data) as perf script\n"
	"(perf 6.1) prints it, byte for byte: fields, widths, callchains, symbols\n"
	"and dso names, resolved in-process.\n"
	"\n"
	"options:\n"
	"  -i, --input FILE    the perf.data to read (\"-\": a pipe-mode stream on stdin)\n"
	"  -F, --fields LIST   fields to print: comm,pid,tid,cpu,time,event,period,ip,\n"
	"                      sym,symoff,dso,addr,trace,srcline (trace: a tracepoint's\n"
	"                      payload, formatted by its print fmt; srcline: file:line\n"
	"                      from DWARF); +field adds to and -field removes from\n"
	"                      perf's default set; hw:, sw:, trace:, raw:, break: limit\n"
	"                      a list to one event type (repeatable)\n"
	"  -G, --hide-call-graph\n"
	"                      print the sample ip only, not the callchain\n"
	"      --inline        show inline frames of DWARF-unwound stacks (the default),\n"
	"                      each as its own line ending in \"(inlined)\", as perf does\n"
	"      --no-inline     do not expand inline frames\n"
	"      --header        list the perf.data header first, as perf script --header\n"
	"      --header-only   list the header only\n"
	"      --stats         count the records of each type instead\n"
	"      --symfs DIR     look for binaries and debug files under DIR (copied\n"
	"                      from the recording machine): DIR/path, DIR/usr/lib/debug\n"
	"      --debug-dir DIR the debug-file directory (default /usr/lib/debug under\n"
	"                      --symfs): DIR/.build-id/xx/rest.debug, DIR/path/LINK\n"
	"      --no-demangle   show C++ and Rust names as the binary spells them\n"
	"  -f, --force         read a perf.data owned by neither you nor root\n"
	"  -h, --help          this help\n"
	"\n"
	"EXAMPLES\n"
	"  kiln script -i perf.data\n"
	"  kiln script -F comm,pid,tid,time,ip,event\n"
	"  kiln script -F -period,+addr\n"
	"  kiln script -F comm,pid,tid,time,event,trace -i sched.data\n"
	"  kiln script -F +srcline        # file:line under each frame, from DWARF\n"
	"  kiln script --header-only -i perf.data\n"
	"  kiln script --symfs /srv/target-root --debug-dir /srv/debug -i perf.data\n"
	"  perf record -g -o - -- ./prog | kiln script -i -\n";

int cmd_script(int argc, char **argv, const struct kiln_env *env)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "fields", required_argument, NULL, 'F' },
		{ "hide-call-graph", no_argument, NULL, 'G' },
		{ "stats", no_argument, NULL, 1 },
		{ "symfs", required_argument, NULL, 2 },
		{ "header", no_argument, NULL, 3 },
		{ "header-only", no_argument, NULL, 4 },
		{ "force", no_argument, NULL, 'f' },
		{ "debug-dir", required_argument, NULL, 5 },
		{ "no-demangle", no_argument, NULL, 6 },
		{ "inline", no_argument, NULL, 7 },
		{ "no-inline", no_argument, NULL, 8 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct script_run_opts o = { .input = "perf.data", .env = env, .out = stdout };
	const char *fields[16];
	size_t nfields = 0;
	bool force = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:F:Ghf", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.input = optarg;
			break;
		case 'F':
			if (nfields == sizeof(fields) / sizeof(fields[0])) {
				fprintf(stderr, "error: too many -F options\n");
				return KILN_EXIT_USAGE;
			}
			fields[nfields++] = optarg;
			break;
		case 'G':
			o.hide_callchain = true;
			break;
		case 1:
			o.stats = true;
			break;
		case 2:
			o.symfs = optarg;
			break;
		case 3:
			o.header = true;
			break;
		case 4:
			o.header_only = true;
			break;
		case 5:
			o.debug_dir = optarg;
			break;
		case 6:
			o.no_demangle = true;
			break;
		case 7:
			o.no_inline = false;
			break;
		case 8:
			o.no_inline = true;
			break;
		case 'f':
			force = true;
			break;
		case 'h':
			return cli_usage(stdout, usage_text, KILN_EXIT_OK);
		default:
			fprintf(stderr, "See 'kiln script --help'.\n");
			return KILN_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "error: unexpected argument '%s'\n", argv[optind]);
		return KILN_EXIT_USAGE;
	}
	o.fields = fields;
	o.nfields = nfields;
	if (cli_check_owner(o.input, force))
		return KILN_EXIT_FAIL;
	struct script_run_result res;
	err_clear();
	int err = script_run(&o, &res);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "error: cannot write to standard output\n");
		return KILN_EXIT_FAIL;
	}
	if (err) {
		if (res.field_error) {
			/* perf's own wording, so scripts that match it keep working. A
			 * field asked for with -F is a usage error; perf's defaults
			 * failing on the file's samples is the input's doing. */
			fprintf(stderr, "%s\n", err_last()->msg);
			return o.nfields ? KILN_EXIT_USAGE : KILN_EXIT_BADINPUT;
		}
		return profile_cli_fail(o.input, err);
	}
	if (res.partial)
		return cli_report_partial(o.input);
	return KILN_EXIT_OK;
}
