/*
 * script: a perf.data printed sample by sample, as perf script prints it
 * (pipeline, L8): perffile reader → proc → unwind → symbolize →
 * output/script, in time order, with no aggregation. Also the --stats
 * view: record counts by type, as perf report --stats gives them.
 *
 * The resolution follows perf 6.1 where it shows in the text: which map
 * an address belongs to (user maps, then kernel maps for kernel-looking
 * addresses), how a callchain is walked (context markers, 127 entries),
 * which address a callchain line prints (dso-relative for user files,
 * raw for the kernel, anonymous memory and unmapped addresses), the dso
 * names ("[kernel.kallsyms]", "[module]", "/tmp/perf-PID.map") and the
 * kernel symbols (/proc/kallsyms, relocated to the recorded kernel, only
 * when the recorded kernel build-id is absent or is the running one's).
 */
#ifndef KILN_PIPELINE_SCRIPT_H
#define KILN_PIPELINE_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/env.h"

struct script_run_opts {
	const char *input;
	const struct kiln_env *env; /* the environment (base/env.h), or NULL */
	const char *const *fields; /* -F specs in command-line order */
	size_t nfields;
	const char *symfs;
	const char *debug_dir; /* instead of SYMFS/usr/lib/debug, or NULL */
	bool no_demangle;      /* keep C++/Rust names as the binary has them */
	bool stats;           /* print record statistics instead of samples */
	bool hide_callchain;  /* print the sample ip only (perf script -G) */
	bool header;          /* list the perf.data header first (perf script --header) */
	bool header_only;     /* list the header and stop (perf script --header-only) */
	bool no_inline;       /* DWARF-unwound frames without their inline frames (--no-inline) */
	FILE *out;
};

struct script_run_result {
	unsigned long long samples;
	bool partial;
	/* The -F spec, or the samples' attributes, refuse it (perf's message in err_last). */
	bool field_error;
};

/* 0, or -errno when the input is unusable (err_last() says why). */
int script_run(const struct script_run_opts *o, struct script_run_result *res);

#endif
