/*
 * cmd_report: `kiln report` (cli, L9): perf report's table of a perf.data,
 * as perf report --stdio prints it (pipeline/report, output/report_text).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/profile_cli.h"
#include "cli/report_tui.h"
#include "pipeline/report.h"

struct report_args {
	struct report_run_opts o;
	const char *sort, *fields, *graph, *percentage;
	bool stdio, tui, force;
	int children; /* -1: as the file has callchains */
};

#define RA_OFF(field) offsetof(struct report_args, field)

static int opt_children(struct opts_parser *p, const struct opt *opt, const char *arg,
			void *field)
{
	(void)p, (void)opt;
	*(int *)field = arg ? 1 : 0;
	return 0;
}

static int opt_no_children(struct opts_parser *p, const struct opt *opt, const char *arg,
			   void *field)
{
	(void)p, (void)opt, (void)arg;
	*(int *)field = 0;
	return 0;
}

static const struct opt report_opts[] = {
	OPT_FILENAME('i', "input", RA_OFF(o.load.input), "FILE",
		     "the perf.data or perf script text to read (default perf.data; \"-\": "
		     "standard input, a file or a pipe)"),
	OPT_BOOL(0, "stdio", RA_OFF(stdio),
		 "print the table as text (perf report --stdio; the default when standard "
		 "output is not a terminal)"),
	OPT_BOOL(0, "tui", RA_OFF(tui),
		 "the terminal browser (the default when standard input and output are a "
		 "terminal)"),
	OPT_STRING('s', "sort", RA_OFF(sort), "KEYS",
		   "sort and group by these keys: comm, pid (the thread; also tid), dso, sym, cpu, "
		   "srcline, srcfile, symoff, parent (default comm,dso,sym)"),
	OPT_STRING('F', "fields", RA_OFF(fields), "FIELDS",
		   "the columns: overhead, overhead_children, sample and sort keys"),
	OPT_STRING('p', "parent", RA_OFF(o.load.parent), "REGEX",
		   "the parent pattern (default \"^sys_|^do_page_fault\"); adds the parent key"),
	OPT_BOOL('n', "show-nr-samples", RA_OFF(o.text.nr_samples), "add the Samples column"),
	{ .kind = OPT_KIND_CALLBACK, .long_name = "children", .offset = RA_OFF(children),
	  .help = "add callees' samples to their callers (Children column; the default when "
		  "the samples have callchains)",
	  .cb = opt_children, .flags = OPT_NOARG | OPT_NEG_CB },
	OPT_CALLBACK(0, "no-children", RA_OFF(children), NULL,
		     "one Overhead column: each entry's own samples", opt_no_children),
	OPT_DOUBLE(0, "percent-limit", RA_OFF(o.text.percent_limit), "PCT",
		   "leave out entries below PCT percent"),
	OPT_STRING(0, "percentage", RA_OFF(percentage), "relative|absolute",
		   "with filters: shares of the samples shown (relative) or of all samples "
		   "(absolute, the default)"),
	OPT_STRING('g', "call-graph", RA_OFF(graph), "MODE[,THRESHOLD[,LIMIT]][,ORDER]",
		   "callchains: none, graph, fractal, flat, folded; caller or callee; "
		   "threshold in percent (default graph,0.5,caller with children, callee without)"),
	OPT_STRING(0, "comm", RA_OFF(o.load.comms), "LIST", "only these commands"),
	OPT_STRING(0, "pid", RA_OFF(o.load.pids), "LIST", "only these process ids"),
	OPT_STRING(0, "tid", RA_OFF(o.load.tids), "LIST", "only these thread ids"),
	OPT_STRING('d', "dsos", RA_OFF(o.load.dsos), "LIST",
		   "only samples in these shared objects (short names)"),
	OPT_STRING('S', "symbols", RA_OFF(o.load.syms), "LIST", "only samples in these symbols"),
	OPT_STRING(0, "time", RA_OFF(o.load.time), "START,END",
		   "only samples in this time range (seconds, as perf script prints times)"),
	OPT_BOOL('T', "threads", RA_OFF(o.threads),
		 "end with perf's per-thread block (values of perf record -s)"),
	OPT_BOOL(0, "header", RA_OFF(o.header), "list the perf.data header first"),
	OPT_BOOL(0, "header-only", RA_OFF(o.header_only), "list the header only"),
	OPT_FILENAME(0, "symfs", RA_OFF(o.load.symfs), "DIR",
		     "look for binaries and debug files under DIR"),
	OPT_FILENAME(0, "debug-dir", RA_OFF(o.load.debug_dir), "DIR",
		     "the debug-file directory (default /usr/lib/debug under --symfs)"),
	OPT_BOOL(0, "no-demangle", RA_OFF(o.load.no_demangle),
		 "show C++ and Rust names as the binary spells them"),
	OPT_BOOL('f', "force", RA_OFF(force), "read a perf.data owned by neither you nor root"),
	OPT_END(),
};

const struct opts_cmd report_cmd = {
	.name = "report",
	.summary = "Print perf report's table of a perf.data",
	.synopsis = "[options] [-i FILE]",
	.description =
		"Print the samples of a perf.data (default ./perf.data) grouped by the sort\n"
		"keys, hottest first, as perf report --stdio (perf 6.1) prints them: the\n"
		"header block, Children and Self (or Overhead) percentages, [.] user and [k]\n"
		"kernel symbols, each entry's callchain. perf script text of a -g\n"
		"recording gives the same table (names and periods from the text).\n"
		"\n"
		"When standard input and output are a terminal (and not --stdio), the\n"
		"table opens in the terminal browser instead (with several events, perf's\n"
		"event menu first): one row per entry with its shares; Enter or '+'\n"
		"unfolds an entry's callchain (the nodes --stdio's graph prints, with\n"
		"their shares of all samples), 'a' annotates the row's symbol (kiln\n"
		"annotate's page), 'd', 't', 's' zoom into its DSO, thread, symbol (the\n"
		"rows of --dsos, --tid, --symbols; again or Esc: zoom out), '/' filters by\n"
		"symbol, 'h' lists the keys, 'q' quits.\n",
	.opts = report_opts,
	.examples = "kiln report --stdio -i perf.data\n"
		    "kiln report --stdio --no-children -s dso\n"
		    "kiln report --stdio -g none -n --percent-limit 1\n"
		    "kiln report --stdio -g folded,0.5,callee\n"
		    "kiln report --stdio --comm burn --dsos libc.so.6\n"
		    "kiln report --stdio --no-children -s sym,srcline\n"
		    "perf script | kiln report --stdio -i -\n",
};

/* -s / -F: the sort keys (and columns). */
static int parse_keys(struct opts_parser *p, struct report_args *a)
{
	struct hist_opts *h = &a->o.load.hist;
	const char *list = a->fields ? a->fields : a->sort ? a->sort : "comm,dso,sym";
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", list);
	bool overhead_seen = false;
	for (char *save = NULL, *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		if (a->fields && !strcmp(k, "overhead")) {
			overhead_seen = true;
			continue;
		}
		if (a->fields && !strcmp(k, "overhead_children")) {
			if (a->children < 0)
				a->children = 1;
			continue;
		}
		if (a->fields && !strcmp(k, "sample")) {
			a->o.text.nr_samples = true;
			continue;
		}
		int key = hist_sort_parse(!strcmp(k, "symbol") ? "sym" : k);
		if (key < 0 || h->nkeys == HIST_MAX_KEYS)
			return opts_error(p, "unknown sort key '%s' (comm, pid, tid, dso, sym, cpu, "
					     "srcline, srcfile, symoff, parent)",
					  k);
		h->keys[h->nkeys++] = (enum hist_sort)key;
	}
	if (a->o.load.parent) { /* perf's -p: the parent column too */
		bool has = false;
		for (size_t i = 0; i < h->nkeys; i++)
			has |= h->keys[i] == HIST_PARENT;
		if (!has && h->nkeys == HIST_MAX_KEYS)
			return opts_error(p, "too many sort keys");
		if (!has)
			h->keys[h->nkeys++] = HIST_PARENT;
	}
	(void)overhead_seen;
	if (!h->nkeys)
		return opts_error(p, "no sort key in '%s'", list);
	a->o.text.skip_first_sym = !a->fields && a->sort && !strncmp(a->sort, "sym", 3);
	return 0;
}

/* -g: perf's print type, threshold, print limit and order, in any order. */
static int parse_graph(struct opts_parser *p, struct report_args *a)
{
	struct report_text_opts *t = &a->o.text;
	t->graph = REPORT_GRAPH_ABS;
	t->threshold = 0.5;
	a->o.load.want_chains = true;
	if (!a->graph)
		return 0;
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", a->graph);
	int numbers = 0;
	for (char *save = NULL, *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		char *end;
		if (!strcmp(k, "none")) {
			t->graph = REPORT_GRAPH_NONE;
			a->o.load.want_chains = false;
		} else if (!strcmp(k, "graph")) {
			t->graph = REPORT_GRAPH_ABS;
		} else if (!strcmp(k, "fractal")) {
			t->graph = REPORT_GRAPH_REL;
		} else if (!strcmp(k, "flat")) {
			t->graph = REPORT_GRAPH_FLAT;
		} else if (!strcmp(k, "folded")) {
			t->graph = REPORT_GRAPH_FOLDED;
		} else if (!strcmp(k, "caller") || !strcmp(k, "callee")) {
			a->o.load.order_auto = false;
			a->o.load.hist.order = k[4] == 'e' && k[5] == 'r' ? HIST_CALLER : HIST_CALLEE;
		} else if (!strcmp(k, "function") || !strcmp(k, "percent")) {
			/* perf's defaults: frames keyed by function, values as percentages */
		} else if (numbers == 0 && (strtod(k, &end), *end == '\0')) {
			t->threshold = strtod(k, NULL);
			numbers++;
		} else if (numbers == 1 && (strtoul(k, &end, 10), *end == '\0')) {
			t->print_limit = (unsigned)strtoul(k, NULL, 10);
			numbers++;
		} else {
			return opts_error(p, "-g: unknown '%s' (none, graph, fractal, flat, folded, "
					     "caller, callee, threshold, print limit)",
					  k);
		}
	}
	if (t->threshold < 0 || t->threshold > 100)
		return opts_error(p, "-g: the threshold is a percentage");
	return 0;
}

/*
 * The browser, when asked for and the terminal can show it: 1 when it was
 * shown (*code set), else 0 (the text is to be printed; a terminal kiln
 * cannot drive got a note).
 */
static int browse(const struct report_args *a, const struct kiln_env *env, int *code)
{
	const struct report_run_opts *o = &a->o;
	if (a->stdio || o->header || o->header_only || o->threads || !strcmp(o->load.input, "-"))
		return 0;
	if (!a->tui && !(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)))
		return 0;
	struct report_text_opts text = o->text;
	struct report_load_opts load = o->load;
	report_elide_columns(o, &text, &load.hist);
	struct report_data d;
	int err = report_load(&load, &d);
	if (err) {
		report_data_release(&d);
		*code = profile_cli_fail(o->load.input, err);
		return 1;
	}
	err = report_tui_run(&(struct report_tui){ .o = o, .d = &d, .text = &text, .env = env });
	bool partial = d.partial;
	report_data_release(&d);
	if (err == -ENODATA) /* no samples: the text says what is wrong */
		return 0;
	if (err == -EINVAL || err == -EBUSY)
		cli_err("note: kiln report: the terminal (TERM=%s) cannot show the browser; "
			"printing the text\n", env->term ? env->term : "");
	if (err)
		return 0;
	*code = partial ? cli_report_partial(o->load.input) : KILN_EXIT_OK;
	return 1;
}

int cmd_report(int argc, char **argv, const struct kiln_env *env)
{
	struct report_args a = {
		.o = { .load = { .input = "perf.data", .env = env, .order_auto = true },
		       .out = stdout },
		.children = -1,
	};
	struct opts_parser p;
	int code;
	int first = cli_parse(&p, &report_cmd, argc, argv, &a, &code);
	if (first < 0)
		return code;
	if (first < argc) {
		opts_error(&p, "unexpected argument '%s'", argv[first]);
		return cli_usage_error(&p);
	}
	if (parse_keys(&p, &a) || parse_graph(&p, &a))
		return cli_usage_error(&p);
	if (a.percentage && strcmp(a.percentage, "relative") && strcmp(a.percentage, "absolute")) {
		opts_error(&p, "--percentage: relative or absolute, not '%s'", a.percentage);
		return cli_usage_error(&p);
	}
	a.o.text.relative = a.percentage && !strcmp(a.percentage, "relative");
	a.o.load.children_auto = a.children < 0;
	a.o.load.hist.children = a.children > 0;
	if (a.o.load.time) {
		uint64_t s, e;
		if (report_parse_time(a.o.load.time, &s, &e)) {
			opts_error(&p, "%s", err_last()->msg);
			return cli_usage_error(&p);
		}
	}
	if (a.stdio && a.tui) {
		opts_error(&p, "--stdio and --tui exclude each other");
		return cli_usage_error(&p);
	}
	if (cli_check_owner(a.o.load.input, a.force))
		return KILN_EXIT_FAIL;
	err_clear();
	if (browse(&a, env, &code))
		return code;
	err_clear();
	bool partial = false;
	int err = report_run(&a.o, &partial);
	if (fflush(stdout) || ferror(stdout)) {
		cli_err("error: cannot write to standard output\n");
		return KILN_EXIT_FAIL;
	}
	if (err)
		return profile_cli_fail(a.o.load.input, err);
	if (partial)
		return cli_report_partial(a.o.load.input);
	return KILN_EXIT_OK;
}
