/*
 * cmd_script: `kiln script` (cli, L9): a perf.data as perf script prints
 * it, or its record statistics (--stats).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/profile_cli.h"
#include "pipeline/script.h"

struct script_args {
	struct script_run_opts o;
	const char *fields[16];
	size_t nfields;
	bool force;
};

#define SA_OFF(field) offsetof(struct script_args, field)

static int opt_fields(struct opts_parser *p, const struct opt *opt, const char *arg, void *field)
{
	struct script_args *a = field;
	(void)opt;
	if (a->nfields == sizeof(a->fields) / sizeof(a->fields[0]))
		return opts_error(p, "too many -F options");
	a->fields[a->nfields++] = arg;
	return 0;
}

static int opt_inline(struct opts_parser *p, const struct opt *opt, const char *arg, void *field)
{
	(void)p, (void)opt, (void)arg;
	*(bool *)field = false;
	return 0;
}

static const struct opt script_opts[] = {
	OPT_FILENAME('i', "input", SA_OFF(o.input), "FILE",
		     "the perf.data to read (\"-\": a pipe-mode stream on stdin)"),
	OPT_CALLBACK('F', "fields", 0, "LIST",
		     "fields to print: comm,pid,tid,cpu,time,event,period,ip,sym,symoff,dso,addr,"
		     "trace,srcline (trace: a tracepoint's payload, formatted by its print fmt; "
		     "srcline: file:line from DWARF); +field adds to and -field removes from perf's "
		     "default set; hw:, sw:, trace:, raw:, break: limit a list to one event type "
		     "(repeatable)",
		     opt_fields),
	OPT_BOOL('G', "hide-call-graph", SA_OFF(o.hide_callchain),
		 "print the sample ip only, not the callchain"),
	OPT_CALLBACK(0, "inline", SA_OFF(o.no_inline), NULL,
		     "show inline frames of DWARF-unwound stacks (the default), each as its own "
		     "line ending in \"(inlined)\", as perf does",
		     opt_inline),
	OPT_BOOL(0, "no-inline", SA_OFF(o.no_inline), "do not expand inline frames"),
	OPT_BOOL(0, "header", SA_OFF(o.header),
		 "list the perf.data header first, as perf script --header"),
	OPT_BOOL(0, "header-only", SA_OFF(o.header_only), "list the header only"),
	OPT_BOOL(0, "stats", SA_OFF(o.stats), "count the records of each type instead"),
	OPT_FILENAME(0, "symfs", SA_OFF(o.symfs), "DIR",
		     "look for binaries and debug files under DIR (copied from the recording "
		     "machine): DIR/path, DIR/usr/lib/debug"),
	OPT_FILENAME(0, "debug-dir", SA_OFF(o.debug_dir), "DIR",
		     "the debug-file directory (default /usr/lib/debug under --symfs): "
		     "DIR/.build-id/xx/rest.debug, DIR/path/LINK"),
	OPT_BOOL(0, "no-demangle", SA_OFF(o.no_demangle),
		 "show C++ and Rust names as the binary spells them"),
	OPT_BOOL('f', "force", SA_OFF(force), "read a perf.data owned by neither you nor root"),
	OPT_END(),
};

const struct opts_cmd script_cmd = {
	.name = "script",
	.summary = "Print every sample as perf script does (or --stats: record counts)",
	.synopsis = "[options] [-i FILE]",
	.description = "Print every sample of a perf.data (default ./perf.data) as perf script\n"
		       "(perf 6.1) prints it, byte for byte: fields, widths, callchains, symbols\n"
		       "and dso names, resolved in-process.\n",
	.opts = script_opts,
	.examples = "kiln script -i perf.data\n"
		    "kiln script -F comm,pid,tid,time,ip,event\n"
		    "kiln script -F -period,+addr\n"
		    "kiln script -F comm,pid,tid,time,event,trace -i sched.data\n"
		    "kiln script -F +srcline        # file:line under each frame, from DWARF\n"
		    "kiln script --header-only -i perf.data\n"
		    "kiln script --symfs /srv/target-root --debug-dir /srv/debug -i perf.data\n"
		    "perf record -g -o - -- ./prog | kiln script -i -\n",
};

int cmd_script(int argc, char **argv, const struct kiln_env *env)
{
	struct script_args a = { .o = { .input = "perf.data", .env = env, .out = stdout } };
	struct opts_parser p;
	int code;
	int first = cli_parse(&p, &script_cmd, argc, argv, &a, &code);
	if (first < 0)
		return code;
	if (first < argc) {
		opts_error(&p, "unexpected argument '%s'", argv[first]);
		return cli_usage_error(&p);
	}
	struct script_run_opts o = a.o;
	const char *const *fields = a.fields;
	size_t nfields = a.nfields;
	bool force = a.force;
	o.fields = fields;
	o.nfields = nfields;
	if (cli_check_owner(o.input, force))
		return KILN_EXIT_FAIL;
	struct script_run_result res;
	err_clear();
	int err = script_run(&o, &res);
	if (fflush(stdout) || ferror(stdout)) {
		cli_err("error: cannot write to standard output\n");
		return KILN_EXIT_FAIL;
	}
	if (err) {
		if (res.field_error) {
			/* perf's own wording, so scripts that match it keep working. A
			 * field asked for with -F is a usage error; perf's defaults
			 * failing on the file's samples is the input's doing. */
			cli_err("%s\n", err_last()->msg);
			return o.nfields ? KILN_EXIT_USAGE : KILN_EXIT_BADINPUT;
		}
		return profile_cli_fail(o.input, err);
	}
	if (res.partial)
		return cli_report_partial(o.input);
	return KILN_EXIT_OK;
}
