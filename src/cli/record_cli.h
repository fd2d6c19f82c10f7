/*
 * record_cli: the record options shared by `kiln record` and
 * `kiln flame -- CMD` (cli, L9).
 */
#ifndef KILN_CLI_RECORD_CLI_H
#define KILN_CLI_RECORD_CLI_H

#include <stdbool.h>
#include <sys/types.h>

#include "cli/opts.h"
#include "pipeline/record.h"

struct record_cli_extra {
	char **events;
	size_t nevents;
	char **filters; /* per event: its --filter (borrowed from argv), or NULL */
	size_t nfilters;
	size_t last_arg; /* the first event of the last -e argument */
	/* --probe: probes made for this recording, removed at its end (cli/probe_cli.h) */
	char **probes;
	const char **probe_bins; /* per probe: the --probe-exec before it, or NULL */
	const char **probe_filters;
	size_t nprobes;
	const char *probe_exec;
	bool last_probe; /* the last event option was --probe (for --filter) */
	pid_t *pids;
	size_t npids;
	bool quiet;
};

/* What the record options fill in. */
struct record_cli {
	struct record_opts o;
	struct record_cli_extra x;
};

/* The record options (-o -F -c -e -g --call-graph -p -a -m -q), an option
 * table (cli/opts.h) over a struct record_cli, for OPT_INCLUDE. */
extern const struct opt record_cli_opts[];
/* The sampling part of them (-F -c -e -g --call-graph -p -a -m), for kiln top. */
extern const struct opt record_cli_sampling_opts[];
/* After parsing: hand the lists to rc->o and check the combination; 0, or
 * -1 with p->err set. */
int record_cli_finish(struct record_cli *rc, struct opts_parser *p);
void record_cli_extra_release(struct record_cli_extra *x);
/* Report a recording (or top's sampling) that failed: the error, and the
 * hint for a refused perf_event_open (perf_event_paranoid, CAP_PERFMON), a
 * missing PMU, locked memory. Returns the exit code. */
int record_cli_failed(const struct record_opts *o, const struct record_result *r, int err);
/* Run a recording and report it; returns the exit code. */
int record_cli_run(const struct record_opts *o, const struct record_cli_extra *x);

#endif
