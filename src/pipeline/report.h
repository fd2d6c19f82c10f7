/*
 * report: perf.data → perf report's entries and text (pipeline, L8): a
 * session consumer.
 *
 * Each sample's stack (session_stack, leaf first) is resolved frame by
 * frame (session_symbolize) and named as perf report names it: the
 * symbol's display name, the dso's short name ("libc.so.6",
 * "[kernel.kallsyms]", a module as "[name]", "[unknown]" outside any
 * mapping), [k] for kernel frames. One aggregate/hist per event gets
 * the samples; filters (--comm, --pid, --tid, --dso, --symbols) mark
 * them, --time drops them, as perf does. report_run() then prints the
 * sections through output/report_text; report_load() leaves the hists
 * to a caller (kiln diff, a browser).
 */
#ifndef KILN_PIPELINE_REPORT_H
#define KILN_PIPELINE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "aggregate/hist.h"
#include "base/env.h"
#include "base/strtab.h"
#include "base/vec.h"
#include "output/report_text.h"

struct report_load_opts {
	const char *input;
	const struct kiln_env *env;
	const char *symfs, *debug_dir;
	bool no_demangle;
	struct hist_opts hist; /* keys; children and order unless auto below */
	bool children_auto;    /* children when the samples have callchains (perf's default) */
	bool order_auto;       /* caller with children, else callee */
	bool want_chains;      /* keep callchain trees when the samples have callchains */
	/* filters: comma-separated lists, NULL for none */
	const char *comms, *pids, *tids, *dsos, *syms;
	const char *time; /* perf's --time: "start,end" in seconds, either may be empty */
	const char *parent; /* -s parent's pattern (POSIX extended), NULL: perf's default */
	struct strtab *strs; /* names interned here (shared by two loads), or NULL */
};

struct report_event {
	char *name; /* the event as perf names it */
	struct hist h;
	bool used;  /* it has samples */
	bool callchains; /* its samples carry callchains */
};

struct report_data {
	VEC(struct report_event) ev; /* by attr index */
	struct strtab own_strs;
	struct strtab *strs;
	uint64_t lost;     /* lost samples */
	bool filtered;     /* a filter was given */
	bool partial;      /* the input broke part-way */
	uint64_t samples;
	/* -T: READ records (perf record -s), and their events' names */
	VEC(struct report_thread_value) reads;
	VEC(char *) read_names;
	VEC(uint32_t) read_attr; /* the attr index of each name */
};

#define REPORT_PARENT_DEFAULT "^sys_|^do_page_fault" /* perf's default parent pattern */
/*
 * The loading as a session consumer, for a session the caller runs (kiln
 * top feeds a live one): *c gets the callbacks and a context that adds
 * each sample to d's hists (made on each event's first sample, unsorted:
 * hist_finish them to show them). 0 or -EINVAL (a bad filter). Free the
 * context with report_consumer_free, d with report_data_release.
 */
struct session_consumer;
struct session;
int report_consumer_init(const struct report_load_opts *o, struct report_data *d,
			 struct session_consumer *c);
void report_consumer_free(struct session_consumer *c);
/* After symbolizer_forget (session_reuse_dsos): drop what the consumer
 * keyed by cache entry or dso id. */
void report_consumer_forget(struct session_consumer *c);
/* The strtab id of the name the consumer's entries give dso 'id' (their
 * dso key: "libc.so.6", "[kernel.kallsyms]", "[snd_pcm]", "perf-PID.map"). */
uint32_t report_consumer_dso_name(struct session_consumer *c, struct session *s, uint32_t id,
				  uint32_t pid);
/* d before the first load or consumer (names interned in 'shared' when non-NULL). */
void report_data_init(struct report_data *d, struct strtab *shared);

/* Parse perf's --time "start,end" into nanoseconds (0: open end). 0 or -EINVAL. */
int report_parse_time(const char *spec, uint64_t *start, uint64_t *end);
/* Load a perf.data into one hist per event (finished: sorted). 0 or -errno
 * (err_last() says why; session_status_of() classifies it); *d is to be
 * released either way. */
int report_load(const struct report_load_opts *o, struct report_data *d);
void report_data_release(struct report_data *d);

struct report_run_opts {
	struct report_load_opts load;
	struct report_text_opts text;
	bool header, header_only;
	bool threads; /* -T: per-thread sample counts at the end */
	FILE *out;
};
int report_run(const struct report_run_opts *o, bool *partial);
/* The columns a one-value filter leaves out, as report_run does (a browser's load). */
void report_elide_columns(const struct report_run_opts *o, struct report_text_opts *t,
			  struct hist_opts *h);

/* kiln diff --stdio: perf diff's table of two perf.data files (the
 * first event of each). *partial: bit 0 base, bit 1 other broke part-way;
 * on an error, *failed names the input it came from. */
int report_diff_run(const struct report_load_opts *base, const char *other,
		    const struct report_diff_opts *o, FILE *out, unsigned *partial,
		    const char **failed);

#endif
