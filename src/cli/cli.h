/*
 * cli: the kiln command line (cli, L9).
 *
 * Adding a command: write cli/cmd_NAME.c exporting
 * `int cmd_NAME(int argc, char **argv, const struct kiln_env *env)` (argv[0]
 * is the command name; env is the environment, read once in main.c),
 * and its description `const struct opts_cmd NAME_cmd` (cli/opts.h: the
 * synopsis, description, option table and EXAMPLES, from which --help,
 * the man page and shell completion are generated), declare both here,
 * add one row to the table in main.c, and write docs/cmd/NAME.md (it
 * opens with the --help text). Commands parse options with cli_parse()
 * into a zero-initialised opts struct, run a pipeline, print user
 * messages through cli_err() (only the CLI prints), and return an exit
 * code below.
 */
#ifndef KILN_CLI_CLI_H
#define KILN_CLI_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>

#include "base/env.h"
#include "base/log.h"

/* The exit-code contract (README, kiln --help). */
enum kiln_exit {
	KILN_EXIT_OK = 0,        /* success (warnings allowed) */
	KILN_EXIT_FAIL = 1,      /* operational failure: permission, I/O, perf_event_open */
	KILN_EXIT_USAGE = 2,     /* bad options or arguments */
	KILN_EXIT_BADINPUT = 3,  /* input unusable: not perf.data, bad header, no samples */
	KILN_EXIT_PARTIAL = 4,   /* input broken part-way: results from the valid prefix */
};

int cmd_record(int argc, char **argv, const struct kiln_env *env);
int cmd_collapse(int argc, char **argv, const struct kiln_env *env);
int cmd_flame(int argc, char **argv, const struct kiln_env *env);
int cmd_script(int argc, char **argv, const struct kiln_env *env);
int cmd_diff(int argc, char **argv, const struct kiln_env *env);
int cmd_export(int argc, char **argv, const struct kiln_env *env);
int cmd_annotate(int argc, char **argv, const struct kiln_env *env);
int cmd_stat(int argc, char **argv, const struct kiln_env *env);
int cmd_list(int argc, char **argv, const struct kiln_env *env);
int cmd_probe(int argc, char **argv, const struct kiln_env *env);
int cmd_trace(int argc, char **argv, const struct kiln_env *env);
int cmd_report(int argc, char **argv, const struct kiln_env *env);
int cmd_top(int argc, char **argv, const struct kiln_env *env);

/* Each command's description (cli/opts.h): options, help, man page. */
struct opts_cmd;
extern const struct opts_cmd record_cmd, collapse_cmd, script_cmd, flame_cmd, diff_cmd,
	export_cmd;
extern const struct opts_cmd annotate_cmd;
extern const struct opts_cmd stat_cmd, list_cmd;
extern const struct opts_cmd trace_cmd;
extern const struct opts_cmd report_cmd;
extern const struct opts_cmd probe_cmd;
extern const struct opts_cmd top_cmd;

/* Shared helpers (cli/util.c). */
/*
 * Everything kiln writes to stderr goes through cli_err(): the message is
 * formatted, passed through sanitize_term (base/sanitize.h) and written
 * with one write(2), so names from profiles in warnings and errors cannot
 * reach the terminal as control sequences. Data on stdout (perf script
 * text, folded stacks) is not touched.
 */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_verr(const char *fmt, va_list ap);
/* The log sink main.c installs (base/log.h): "warning: MSG" through cli_err. */
void cli_log_sink(enum log_level level, const char *msg);
/* "error: WHAT" and "See 'kiln CMD --help'." for a usage error; returns
 * KILN_EXIT_USAGE. */
struct opts_parser;
int cli_usage_error(const struct opts_parser *p);
/* opts_parse() with cmd's table into base; then for --help, the help on
 * stdout (*code 0), for a usage error its message (*code 2), and -1 is
 * returned; else the index of the first argument. */
int cli_parse(struct opts_parser *p, const struct opts_cmd *cmd, int argc, char **argv,
	      void *base, int *code);
/* Print "error: MSG" for the last recorded error, with the offset if any;
 * "FILE: " goes in front unless the message quotes FILE already. */
void cli_error_last(const char *file);
/* Parse a decimal unsigned number; 0 on success. */
int cli_parse_u64(const char *s, unsigned long long *v);
/* -m N: ring buffer pages per CPU, a power of two (an option callback; field: unsigned). */
struct opt;
int cli_opt_mmap_pages(struct opts_parser *p, const struct opt *o, const char *arg, void *field);
/* A command's wait status as kiln's exit code: its own, 128+N if signal N killed it. */
int cli_status_code(int status);
/* Block SIGINT, SIGTERM and SIGHUP (the previous mask in *old): a second
 * signal must not kill kiln between the end of its work and its report. */
void cli_block_stops(sigset_t *old);
/* Die of 'sig' (blocked until now, the report written) so callers see it;
 * returns 128+sig should kiln survive it. */
int cli_die_of(int sig);
/* perf's ownership rule for input files: a file owned by neither the
 * effective user nor root is refused unless 'force' (-f). 0 to go on, or
 * KILN_EXIT_FAIL with the message printed. Standard input ("-") and
 * paths that cannot be stat'ed (the reader reports those) pass. */
int cli_check_owner(const char *path, bool force);
/* Exit code and message for an input that ended early. */
int cli_report_partial(const char *file);

#endif
