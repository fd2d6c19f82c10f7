/*
 * cmd_annotate: `kiln annotate` (cli, L9): the sampled functions of a
 * perf.data disassembled, with each instruction's share of the samples
 * and the source lines between them, as perf annotate --stdio prints
 * them (pipeline/symhist.h groups the samples, cli/annotate_view builds
 * and writes each function's view).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "cli/annotate_tui.h"
#include "cli/annotate_view.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/profile_cli.h"
#include "pipeline/symhist.h"

struct annotate_args {
	const char *input;
	const char *symbol;
	const char *dsos;
	uint64_t top;
	bool stdio, tui;
	bool print_line, sort_by_lines;
	const char *prefix;
	uint64_t prefix_strip;
	const char *symfs, *debug_dir;
	bool source;
	bool no_demangle;
	bool full_paths;
	bool skip_missing;
	double percent_limit;
	bool force;
};

#define AA_OFF(field) offsetof(struct annotate_args, field)

static const struct opt annotate_opts[] = {
	OPT_FILENAME('i', "input", AA_OFF(input), "FILE",
		     "the perf.data to read (default perf.data; \"-\": standard input)"),
	OPT_STRING('s', "symbol", AA_OFF(symbol), "SYM",
		   "annotate the symbol SYM (as perf shows it, or as the binary spells it); "
		   "the same as naming it after the options"),
	OPT_STRING('d', "dsos", AA_OFF(dsos), "DSO[,DSO...]",
		   "only symbols in these binaries (by basename or path)"),
	OPT_U64(0, "top", AA_OFF(top), "N", "only the N hottest symbols of each event"),
	OPT_BOOL(0, "stdio", AA_OFF(stdio),
		 "text output, as perf annotate --stdio (the default when standard output is "
		 "not a terminal)"),
	OPT_BOOL(0, "tui", AA_OFF(tui),
		 "the terminal browser: the functions, Enter or 'a' for one's annotation, 'q' "
		 "back (the default on a terminal)"),
	OPT_BOOL('l', "print-line", AA_OFF(print_line),
		 "first the source lines of instructions above 0.5%, hottest first (perf "
		 "annotate --print-line's summary)"),
	OPT_BOOL(0, "sort-by-lines", AA_OFF(sort_by_lines),
		 "instead of the disassembly, each source line's share of the symbol, "
		 "hottest first, with its text"),
	OPT_BOOL(0, "source", AA_OFF(source),
		 "interleave the source lines with the instructions (the default; --no-source: "
		 "instructions only)"),
	OPT_STRING(0, "prefix", AA_OFF(prefix), "DIR",
		   "look for source files under DIR: DIR + the path DWARF names (for trees "
		   "built elsewhere)"),
	OPT_U64(0, "prefix-strip", AA_OFF(prefix_strip), "N",
		"with --prefix: drop the first N directories of that path first"),
	OPT_FILENAME(0, "symfs", AA_OFF(symfs), "DIR",
		     "look for binaries and debug files under DIR (copied from the recording "
		     "machine): DIR/path, DIR/usr/lib/debug"),
	OPT_FILENAME(0, "debug-dir", AA_OFF(debug_dir), "DIR",
		     "the debug-file directory (default /usr/lib/debug under --symfs)"),
	OPT_BOOL(0, "no-demangle", AA_OFF(no_demangle),
		 "show C++ and Rust names as the binary spells them"),
	OPT_BOOL('P', "full-paths", AA_OFF(full_paths), "name binaries by their full path"),
	OPT_BOOL(0, "skip-missing", AA_OFF(skip_missing),
		 "leave out symbols that cannot be annotated (no code bytes, no binary) "
		 "instead of a note"),
	OPT_DOUBLE(0, "percent-limit", AA_OFF(percent_limit), "PCT",
		   "leave out symbols with less than PCT% of their event's period"),
	OPT_BOOL('f', "force", AA_OFF(force), "read a perf.data owned by neither you nor root"),
	OPT_END(),
};

const struct opts_cmd annotate_cmd = {
	.name = "annotate",
	.summary = "Show sampled functions' instructions with their share of the samples",
	.synopsis = "[options] [SYMBOL]",
	.description =
		"Print the disassembly of the sampled functions of a perf.data (default\n"
		"./perf.data) with each instruction's share of the function's samples, the\n"
		"source lines from DWARF (inlined functions named where they start) and the\n"
		"source text when the file is found, laid out as perf annotate --stdio\n"
		"(perf 6.1) prints it. Code is disassembled in-process (x86-64, i386,\n"
		"AArch64, ARM); no program is run.\n"
		"\n"
		"Without SYMBOL, every function with samples, hottest first, event by event,\n"
		"as perf annotate orders them; with SYMBOL, that function (in each binary\n"
		"that has one). A function that cannot be shown (kernel code, a binary\n"
		"without its code bytes) gets a note in its place. Binaries are found as\n"
		"the other commands find them: by path and build-id, under --symfs, with\n"
		"debug files by build-id or debuglink.\n"
		"\n"
		"When standard input and output are a terminal (and not --stdio), the\n"
		"functions are shown in a terminal browser, hottest first: Enter or 'a'\n"
		"opens one's annotation (the text above, lines coloured by their share),\n"
		"'q' goes back, 'q' on the list quits; a single SYMBOL opens on its page.\n"
		"On a terminal kiln cannot drive (TERM=dumb) the text is printed, with a\n"
		"note.\n",
	.opts = annotate_opts,
	.examples = "kiln annotate -i perf.data main\n"
		    "kiln annotate --top 3\n"
		    "kiln annotate --sort-by-lines -s compress_block\n"
		    "kiln annotate -l --prefix /home/me/src --prefix-strip 3 hot_loop\n"
		    "kiln annotate -d libz.so.1 --no-source\n",
};

/* Whether 'name' is in the comma-separated list 'list'. */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		if (len == n && !strncmp(p, name, n))
			return true;
		p += len + (c != NULL);
	}
	return false;
}

/* Whether group g passes the symbol, dso and percent filters. */
static bool wanted(const struct annotate_args *a, struct session *s, const struct symhist *h,
		   const struct symhist_group *g)
{
	if (a->symbol && strcmp(a->symbol, strtab_get(s->strs, g->name)) &&
	    strcmp(a->symbol, strtab_get(s->strs, g->raw)))
		return false;
	if (a->dsos) {
		const struct dso *d = dso_set_get(&s->dsos, g->dso);
		const char *path = annotate_view_dso_path(d);
		const char *base = strrchr(path, '/');
		if (!in_list(a->dsos, path) && !(base && in_list(a->dsos, base + 1)))
			return false;
	}
	if (a->percent_limit > 0 &&
	    annotate_percent(g->period, h->events.v[g->attr].period) < a->percent_limit)
		return false;
	return true;
}

struct run {
	const struct annotate_args *a;
	struct annotate_view v;
	VEC(const struct symhist_group *) picked; /* the groups selected, in order */
};

/* Notes for binaries whose samples fell on no symbol. */
static void report_misses(struct session *s, const struct symhist *h)
{
	for (size_t i = 0; i < h->misses.n; i++) {
		struct dso *d = dso_set_get(&s->dsos, h->misses.v[i].dso);
		if (d->kind != DSO_FILE || dso_is_anon_code(d))
			continue;
		unsigned long long n = (unsigned long long)h->misses.v[i].samples;
		if (!dso_image(&s->dsos, d))
			cli_err("note: %s: binary not found; its %llu samples are not annotated\n",
				d->path, n);
		else
			cli_err("note: %s: %llu samples fall in no symbol of it (stripped, or a "
				"debug-only file?) and are not annotated\n",
				d->path, n);
	}
}

/* The groups to show, in order, into r->picked. */
static void pick(struct run *r)
{
	const struct symhist *h = r->v.h;
	uint32_t attr = UINT32_MAX;
	uint64_t taken = 0;
	for (size_t i = 0; i < h->groups.n; i++) {
		const struct symhist_group *g = &h->groups.v[i];
		if (g->attr != attr) {
			attr = g->attr;
			taken = 0;
		}
		if (r->a->top && taken >= r->a->top)
			continue;
		if (!wanted(r->a, r->v.s, h, g))
			continue;
		taken++;
		VEC_PUSH(&r->picked, g);
	}
}

static int annotate_all(struct run *r)
{
	for (size_t i = 0; i < r->picked.n; i++)
		if (annotate_view_write(&r->v, r->picked.v[i], false, stdout))
			return -EIO;
	return 0;
}

/*
 * The browser, when the terminal can show it: 0 when it was shown, else
 * 1 (the text is to be printed; a terminal kiln cannot drive got a note).
 */
static int browse(struct run *r, const struct kiln_env *env)
{
	const struct annotate_args *a = r->a;
	if (a->stdio || !r->picked.n || !strcmp(a->input, "-"))
		return 1;
	struct annotate_tui t = {
		.v = &r->v,
		.groups = r->picked.v, .n = r->picked.n,
		.term = env->term,
		.straight = a->symbol && r->picked.n == 1,
	};
	int err = annotate_tui_run(&t);
	if (err == -EINVAL || err == -EBUSY)
		cli_err("note: kiln annotate: the terminal (TERM=%s) cannot show the browser; "
			"printing the text\n", env->term ? env->term : "");
	return err ? 1 : 0;
}

/* The input's problems said; the exit code. */
static int finish(const struct annotate_args *a, struct session *s, struct symhist *h,
		  size_t matched)
{
	const char *name = s->name;
	if (h->lost)
		cli_err("warning: %s: lost %llu samples while recording\n", name,
			(unsigned long long)h->lost);
	if (h->unknown_records)
		cli_err("warning: %s: skipped %llu records of unknown type\n", name,
			(unsigned long long)h->unknown_records);
	report_misses(s, h);
	if (h->partial) {
		err_restore(&h->err);
		return cli_report_partial(name);
	}
	if (!h->nsamples) {
		cli_err("error: %s: no samples\n", name);
		return KILN_EXIT_BADINPUT;
	}
	if (!matched && a->symbol) {
		cli_err("error: %s: no samples in a symbol named '%s'%s\n", name, a->symbol,
			a->dsos ? " in those binaries" : "");
		return KILN_EXIT_BADINPUT;
	}
	if (!matched)
		cli_err("note: %s: no symbol to annotate\n", name);
	return KILN_EXIT_OK;
}

int cmd_annotate(int argc, char **argv, const struct kiln_env *env)
{
	struct annotate_args a = { .input = "perf.data", .source = true };
	struct opts_parser p;
	int code;
	int first = cli_parse(&p, &annotate_cmd, argc, argv, &a, &code);
	if (first < 0)
		return code;
	if (first < argc) {
		if (a.symbol && strcmp(a.symbol, argv[first])) {
			opts_error(&p, "two symbols named: '%s' and '%s'", a.symbol, argv[first]);
			return cli_usage_error(&p);
		}
		a.symbol = argv[first++];
	}
	if (first < argc) {
		opts_error(&p, "unexpected argument '%s'", argv[first]);
		return cli_usage_error(&p);
	}
	if (a.prefix_strip && !a.prefix) {
		opts_error(&p, "--prefix-strip needs --prefix");
		return cli_usage_error(&p);
	}
	if (a.prefix_strip > 4096) {
		opts_error(&p, "--prefix-strip %llu: too many directories",
			   (unsigned long long)a.prefix_strip);
		return cli_usage_error(&p);
	}
	if (a.stdio && a.tui) {
		opts_error(&p, "--stdio and --tui exclude each other");
		return cli_usage_error(&p);
	}
	if (cli_check_owner(a.input, a.force))
		return KILN_EXIT_FAIL;

	struct session_opts so = {
		.input = a.input, .env = env, .stdin_hint = "'kiln annotate -i -'",
		.symfs = a.symfs, .debug_dir = a.debug_dir, .no_demangle = a.no_demangle,
	};
	symhist_session_opts(&so);
	struct session s;
	err_clear();
	int err = session_open(&s, &so);
	if (err)
		return profile_cli_fail(a.input, err);
	struct symhist h;
	symhist_init(&h);
	err = symhist_load(&s, &h);
	if (err) {
		code = profile_cli_fail(a.input, err);
	} else {
		struct run r = {
			.a = &a,
			.v = { .s = &s, .h = &h,
			       .ao = { .src = { a.prefix, (unsigned)a.prefix_strip },
				       .no_source = !a.source },
			       .print_line = a.print_line, .sort_by_lines = a.sort_by_lines,
			       .full_paths = a.full_paths, .skip_missing = a.skip_missing },
		};
		pick(&r);
		if (browse(&r, env))
			err = annotate_all(&r);
		if (fflush(stdout) || ferror(stdout) || err) {
			cli_err("error: cannot write to standard output\n");
			code = KILN_EXIT_FAIL;
		} else {
			code = finish(&a, &s, &h, r.picked.n);
		}
		VEC_FREE(&r.picked);
	}
	symhist_release(&h);
	session_close(&s);
	return code;
}
