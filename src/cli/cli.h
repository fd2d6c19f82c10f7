/*
 * cli: the kiln command line (cli, L9).
 *
 * Adding a command: write cli/cmd_NAME.c exporting
 * `int cmd_NAME(int argc, char **argv, const struct kiln_env *env)` (argv[0]
 * is the command name; env is the environment, read once in main.c),
 * declare it here, add one row to the table in main.c, write
 * docs/cmd/NAME.md, and end its --help with EXAMPLES. Commands parse
 * options into a zero-initialised opts struct, run a pipeline, print
 * user messages (only the CLI prints), and return an exit code below.
 */
#ifndef KILN_CLI_CLI_H
#define KILN_CLI_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "base/env.h"

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

/* Shared helpers (cli/util.c). */
/* From now on, everything written to stderr goes through sanitize_term
 * (base/sanitize.h), a line at a time: names from profiles in warnings
 * and errors cannot reach the terminal as control sequences. Data on
 * stdout (perf script text, folded stacks) is not touched. */
void cli_sanitize_stderr(void);
/* Print "error: MSG" for the last recorded error, with the offset if any. */
void cli_error_last(const char *file);
/* Print usage text (with its EXAMPLES) to stdout for --help, or point to it on stderr. */
int cli_usage(FILE *f, const char *text, int code);
/* Parse a decimal unsigned number; 0 on success. */
int cli_parse_u64(const char *s, unsigned long long *v);
/* perf's ownership rule for input files: a file owned by neither the
 * effective user nor root is refused unless 'force' (-f). 0 to go on, or
 * KILN_EXIT_FAIL with the message printed. Standard input ("-") and
 * paths that cannot be stat'ed (the reader reports those) pass. */
int cli_check_owner(const char *path, bool force);
/* Exit code and message for an input that ended early. */
int cli_report_partial(const char *file);

#endif
