/*
 * opts: declarative option tables for the kiln commands (cli, L9), after
 * git's parse-options. Each command describes itself once, as data (a
 * struct opts_cmd: synopsis, description, option table, examples), and
 * this module derives everything from that one description:
 *
 *   argv parsing        opts_parse()
 *   --help text         opts_help()
 *   man page (troff)    opts_man(), opts_man_index()   (kiln-CMD.1, kiln.1)
 *   shell completion    opts_completion_bash(), opts_completion_zsh()
 *
 * A table is an array of struct opt ending with OPT_END(). Each row names
 * a long option, a short letter (or 0), the kind of value it takes, its
 * help text and metavar, and where the value goes: an offset into the
 * struct the caller passes to opts_parse(), or a callback. OPT_INCLUDE
 * splices a shared table (the frame options, flamegraph.pl's options) in
 * at an offset, so that table's own offsets are relative to a struct
 * embedded in the command's. OPT_GROUP starts a titled block of help.
 *
 * Parsing rules (those of getopt_long, which the commands used before,
 * plus perf's and git's --no-X):
 *   1. "--name=value" and "--name value"; "-xVALUE" and "-x VALUE";
 *      short flags bundle ("-gq", "-gF99"). An optional value must be
 *      attached ("--name=value", "-xVALUE").
 *   2. A long name may be abbreviated to any prefix that is unambiguous;
 *      an exact match wins, and rows with the same target (aliases) do not
 *      make a prefix ambiguous.
 *   3. "--no-NAME" clears a OPT_BOOL row (unless OPT_NONEG) when no row is
 *      named "no-NAME" itself.
 *   4. "--" ends the options. "-" alone is an argument (standard input).
 *   5. -h and --help are accepted by every command (opts_parse returns
 *      OPTS_HELP) and listed last in the help.
 *   6. Without OPTS_STOP_AT_ARG, options and arguments mix freely and the
 *      arguments are moved, in order, behind the options (as getopt_long
 *      permutes); with it, the first argument ends the options (a command
 *      line to run follows) and argv is left as it was.
 */
#ifndef KILN_CLI_OPTS_H
#define KILN_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_kind {
	OPT_KIND_END,
	OPT_KIND_GROUP,    /* help: a titled block (help = title); no option */
	OPT_KIND_INCLUDE,  /* the rows of 'include', their offsets + 'offset' */
	OPT_KIND_BOOL,     /* bool: true; --no-NAME: false */
	OPT_KIND_SET_INT,  /* int (or enum): set to 'value' */
	OPT_KIND_STRING,   /* const char *: the argument (borrowed from argv) */
	OPT_KIND_U64,      /* uint64_t: a decimal number */
	OPT_KIND_DOUBLE,   /* double: a number */
	OPT_KIND_CALLBACK, /* cb(p, row, arg, field); arg NULL for no value or --no-NAME */
};

enum opt_flags {
	OPT_NOARG = 1 << 0,    /* a callback that takes no value */
	OPT_OPTARG = 1 << 1,   /* the value is optional (attached only) */
	OPT_NONEG = 1 << 2,    /* a bool without --no-NAME */
	OPT_HIDDEN = 1 << 3,   /* an alias: parsed, not shown in help, man or completion */
	OPT_FILE = 1 << 4,     /* the value is a path (shell completion completes files) */
	OPT_NEG_CB = 1 << 5,   /* a callback that also takes --no-NAME (arg NULL, unset) */
};

struct opts_parser;
struct opt;
typedef int (*opt_cb)(struct opts_parser *p, const struct opt *o, const char *arg, void *field);

struct opt {
	enum opt_kind kind;
	char short_name;       /* 0: none */
	const char *long_name; /* NULL: short only */
	const char *metavar;   /* for options with a value: "FILE", "HZ" */
	const char *help;      /* one paragraph; wrapped by the help writer */
	size_t offset;         /* where the value goes, from the table's base */
	unsigned flags;        /* enum opt_flags */
	opt_cb cb;
	long value;                 /* OPT_KIND_SET_INT: the value to store */
	const struct opt *include;  /* OPT_KIND_INCLUDE */
};

#define OPT_END() { .kind = OPT_KIND_END }
#define OPT_GROUP(title) { .kind = OPT_KIND_GROUP, .help = (title) }
#define OPT_INCLUDE(table, off) { .kind = OPT_KIND_INCLUDE, .include = (table), .offset = (off) }
#define OPT_BOOL(s, l, off, h) { .kind = OPT_KIND_BOOL, .short_name = (s), .long_name = (l), \
				  .offset = (off), .help = (h) }
#define OPT_SET_INT(s, l, off, v, h) { .kind = OPT_KIND_SET_INT, .short_name = (s), \
					.long_name = (l), .offset = (off), .value = (v), .help = (h) }
#define OPT_STRING(s, l, off, mv, h) { .kind = OPT_KIND_STRING, .short_name = (s), \
					.long_name = (l), .offset = (off), .metavar = (mv), .help = (h) }
#define OPT_FILENAME(s, l, off, mv, h) { .kind = OPT_KIND_STRING, .short_name = (s), \
					  .long_name = (l), .offset = (off), .metavar = (mv), \
					  .help = (h), .flags = OPT_FILE }
#define OPT_U64(s, l, off, mv, h) { .kind = OPT_KIND_U64, .short_name = (s), .long_name = (l), \
				     .offset = (off), .metavar = (mv), .help = (h) }
#define OPT_DOUBLE(s, l, off, mv, h) { .kind = OPT_KIND_DOUBLE, .short_name = (s), \
					.long_name = (l), .offset = (off), .metavar = (mv), .help = (h) }
/* A callback with a value (mv non-NULL) or without (mv NULL: OPT_NOARG). */
#define OPT_CALLBACK(s, l, off, mv, h, fn) { .kind = OPT_KIND_CALLBACK, .short_name = (s), \
					      .long_name = (l), .offset = (off), .metavar = (mv), \
					      .help = (h), .cb = (fn), .flags = (mv) ? 0 : OPT_NOARG }
/* Rows with other flags (OPT_HIDDEN aliases, OPT_OPTARG) are written out with designated
 * initialisers. */

enum opts_cmd_flags {
	OPTS_STOP_AT_ARG = 1 << 0, /* the first argument ends the options (rule 6) */
};

/* One command, described once. Texts are plain; the writers format them. */
struct opts_cmd {
	const char *name;     /* "collapse"; "kiln" for the top level */
	const char *summary;  /* one line: kiln --help, the man page's NAME */
	const char *synopsis; /* after "usage: kiln NAME ", one line per form */
	/*
	 * Paragraphs separated by blank lines. A paragraph whose lines start
	 * with two spaces is kept as laid out (a list); others are filled.
	 */
	const char *description;
	const struct opt *opts;
	const char *notes;    /* paragraphs after the options (exit status...) or NULL */
	/* Example command lines, one a line; "  # text" after one is a comment. */
	const char *examples;
	unsigned flags;       /* enum opts_cmd_flags */
};

struct opts_parser {
	const struct opts_cmd *cmd;
	char err[512];   /* the last error, without "error: " */
	int dashdash;    /* argv index of "--", or 0 if none was seen */
};

#define OPTS_HELP (-2) /* -h or --help was given */

/*
 * Parse argv[1..argc) (argv[0] is the command's name) with cmd's table,
 * storing values into 'base'. Returns the index of the first argument:
 * the arguments are argv[ret..argc) (rule 6); -1 with p->err set for a
 * usage error; or OPTS_HELP.
 */
int opts_parse(struct opts_parser *p, const struct opts_cmd *cmd, int argc, char **argv,
	       void *base);
/* For callbacks: set p->err (printf-style); returns -1. */
int opts_error(struct opts_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The --help text of cmd. */
void opts_help(FILE *f, const struct opts_cmd *cmd);
/* The top level's: 'top', then the commands with their summaries. */
void opts_help_top(FILE *f, const struct opts_cmd *top, const struct opts_cmd *const *cmds,
		   size_t n);

/*
 * Generated artefacts. 'cmds' lists the subcommands (n of them); 'top' is
 * the top level (kiln). Output is deterministic (no date); 'version' goes
 * into the man page's footer.
 */
void opts_man(FILE *f, const struct opts_cmd *cmd, const char *version);
void opts_man_index(FILE *f, const struct opts_cmd *top, const struct opts_cmd *const *cmds,
		    size_t n, const char *version);
void opts_completion_bash(FILE *f, const struct opts_cmd *top,
			  const struct opts_cmd *const *cmds, size_t n);
void opts_completion_zsh(FILE *f, const struct opts_cmd *top,
			 const struct opts_cmd *const *cmds, size_t n);
/* Every spelling of cmd's visible options, one a line ("--output", "-o"). */
void opts_list(FILE *f, const struct opts_cmd *cmd);

#endif
