/*
 * report_text: perf report --stdio's and perf diff's layouts (output, L7).
 *
 * The lost-sample count, then one section per event: the comment block
 * (sample count with perf's K/M/G unit, event count), the column headers with dotted
 * underlines as wide as the widest value, then one row per entry of the
 * hist in its order: Children and Self (or Overhead) percentages, the
 * Samples column (-n), the sort keys (Command, Pid:Command, Shared
 * Object, Symbol with [.] or [k], CPU), each followed by its callchain
 * in the mode asked (graph, fractal, flat, folded; none), cut at the
 * threshold and print limit, as perf 6.1 prints them.
 */
#ifndef KILN_OUTPUT_REPORT_TEXT_H
#define KILN_OUTPUT_REPORT_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "aggregate/hist.h"

enum report_graph {
	REPORT_GRAPH_NONE,
	REPORT_GRAPH_ABS,     /* "graph": shares of the total */
	REPORT_GRAPH_REL,     /* "fractal": shares of the parent */
	REPORT_GRAPH_FLAT,
	REPORT_GRAPH_FOLDED,
};

struct report_text_opts {
	bool nr_samples;      /* -n */
	enum report_graph graph;
	double threshold;     /* percent (default 0.5) */
	unsigned print_limit; /* 0: no limit */
	double percent_limit; /* entries below are not printed */
	bool relative;        /* --percentage relative: shares of the entries shown */
	bool skip_first_sym;  /* -s starting with sym: the chain's first frame is the entry */
	bool elide[HIST_SORT_MAX]; /* columns a one-value filter makes constant */
};

struct report_section {
	const struct hist *h;
	const char *event;   /* the event's name */
};

/* perf's "# To display the perf.data header info ..." lines. */
void report_text_hint(FILE *out);
/* perf's line for a column a one-value filter left out: "# comm: burn". */
void report_text_elided(FILE *out, const char *what, const char *value);
/* The lost-sample count, once before the sections. */
void report_text_lost(FILE *out, uint64_t lost);
/* One event's section. */
void report_text_section(FILE *out, const struct report_text_opts *o,
			 const struct report_section *s);

/* perf report -T's per-thread block (perf record -s writes a READ record
 * per thread and event at its exit): one row per thread in the order first
 * read, one column per event in the order first read; a thread's values
 * of one event add up. Without reads, perf's bare "# PID  TID" line. */
struct report_thread_value {
	uint32_t pid, tid;
	uint32_t counter; /* index in names */
	uint64_t value;
};
void report_text_threads(FILE *out, const struct report_thread_value *v, size_t n,
			 const char *const *names, size_t ncounters);
/* An event's rows only, as the section prints them (perf top --stdio's
 * table): at most max_rows entries (0: all) at or above the percent limit. */
void report_text_rows(FILE *out, const struct report_text_opts *o, const struct hist *h,
		      size_t max_rows);

/* A sort key's column header ("Shared Object"), and its cell for k
 * padded to 'width' (the last column, a symbol, is not padded). */
const char *report_text_key_header(int key);
/* A sample count as perf's convert_unit shows it: 4021 -> 4 'K' (' ': as is). */
void report_text_samples_unit(uint64_t n, uint64_t *v, char *unit);
void report_text_key(FILE *out, const struct hist *h, int key, const struct hist_key *k,
		     size_t width, bool last);

/* perf diff: baseline (a) and the other file (b), both keyed by dso,sym. */
enum report_diff_compute { REPORT_DIFF_DELTA, REPORT_DIFF_DELTA_ABS, REPORT_DIFF_RATIO,
			   REPORT_DIFF_WDIFF };
struct report_diff_opts {
	enum report_diff_compute compute;
	int64_t wdiff_a, wdiff_b; /* --compute wdiff:A,B */
	double percent_limit;
};
void report_text_diff(FILE *out, const struct report_diff_opts *o, const struct hist *a,
		      const struct hist *b, const char *event_a, const char *event_b);

#endif
