/*
 * record_cli: the record options shared by `kiln record` and
 * `kiln flame -- CMD` (cli, L9).
 */
#ifndef KILN_CLI_RECORD_CLI_H
#define KILN_CLI_RECORD_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <sys/types.h>

#include "pipeline/record.h"

struct record_cli_extra {
	char **events;
	size_t nevents;
	pid_t *pids;
	size_t npids;
	bool quiet, help;
};

/* Parse record options (plus a caller's extra ones, handed to extra_fn,
 * which returns 0 if it took the option). 0, or -1 after printing why. */
int record_cli_parse(int argc, char **argv, struct record_opts *o, struct record_cli_extra *x,
		     const char *extra_short, const struct option *extra_long,
		     int (*extra_fn)(int c, const char *arg, void *ctx), void *ctx);
void record_cli_extra_release(struct record_cli_extra *x);
/* Run a recording and report it; returns the exit code. */
int record_cli_run(const struct record_opts *o, bool quiet);

#endif
