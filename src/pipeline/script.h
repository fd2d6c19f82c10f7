/*
 * script: a perf.data printed sample by sample, as perf script prints it
 * (pipeline, L8): perffile reader → proc → unwind → symbolize →
 * output/script, in time order, with no aggregation. Also the --stats
 * view: record counts by type, as perf report --stats gives them.
 */
#ifndef KILN_PIPELINE_SCRIPT_H
#define KILN_PIPELINE_SCRIPT_H

#include <stdbool.h>
#include <stdio.h>

struct script_run_opts {
	const char *input;
	const char *fields; /* -F spec, or NULL for perf's defaults */
	const char *symfs;
	bool stats;         /* print record statistics instead of samples */
	FILE *out;
};

struct script_run_result {
	unsigned long long samples;
	bool partial;
	bool field_error; /* a requested field is not in the samples (message in err_last) */
};

/* 0, or -errno when the input is unusable (err_last() says why). */
int script_run(const struct script_run_opts *o, struct script_run_result *res);

#endif
