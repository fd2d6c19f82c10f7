/*
 * stat_text: counts written as perf stat writes them (output, L7).
 *
 * Three layouts (perf 6.1's): the text table (value right-aligned in 18
 * columns, unit, event name in 32, then " # metric unit" in 35 columns,
 * a multiplexing "  (xx.xx%)" and an "-r" spread "  ( +- x.xx% )"), -x SEP
 * (value, unit, event, [spread,] run time, running %, metric value, metric
 * unit) and -j (one JSON object per line). Derived figures are perf's
 * shadow metrics, each taken from the rows of the same aggregate: CPUs
 * utilized (task-clock / elapsed), per-second rates over task-clock with
 * K/M/G prefixes, GHz, insn per cycle, and miss ratios ("of all branches",
 * "of all cache refs", "of all L1-dcache accesses", ...).
 *
 * The caller gives scaled values; nothing here touches the kernel.
 */
#ifndef KILN_OUTPUT_STAT_TEXT_H
#define KILN_OUTPUT_STAT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

enum stat_fmt { STAT_TEXT, STAT_CSV, STAT_JSON };
enum stat_aggr { STAT_AGGR_GLOBAL, STAT_AGGR_CPU, STAT_AGGR_THREAD, STAT_AGGR_CORE,
		 STAT_AGGR_SOCKET };

/* What a row counts, for the derived figures. */
enum stat_kind {
	STAT_K_OTHER,       /* a count: a per-second rate when task-clock is known */
	STAT_K_TASK_CLOCK,  /* task-clock, cpu-clock (msec; CPUs utilized) */
	STAT_K_CYCLES,      /* GHz */
	STAT_K_INSTRUCTIONS,/* insn per cycle */
	STAT_K_BRANCHES,
	STAT_K_BRANCH_MISSES,
	STAT_K_CACHE_REFS,
	STAT_K_CACHE_MISSES,
	STAT_K_L1D_LOADS,
	STAT_K_L1D_LOAD_MISSES,
	STAT_K_L1I_LOADS,
	STAT_K_L1I_LOAD_MISSES,
	STAT_K_LLC_LOADS,
	STAT_K_LLC_LOAD_MISSES,
	STAT_K_DTLB_LOADS,
	STAT_K_DTLB_LOAD_MISSES,
	STAT_K_ITLB_LOADS,
	STAT_K_ITLB_LOAD_MISSES,
	STAT_K_NONE,        /* no derived figure (a tracepoint with no clock) */
	STAT_K_TOOL,        /* duration_time, user_time, system_time: ns, a rate */
};

enum stat_state { STAT_COUNTED, STAT_NOT_COUNTED, STAT_NOT_SUPPORTED };

struct stat_row {
	const char *event;    /* its name */
	enum stat_kind kind;
	enum stat_state state;
	double value;         /* scaled; msec for clocks (the unit) */
	uint64_t run, ena;    /* running and enabled time, ns */
	double noise;         /* -r: relative standard error of the mean, % (0: none) */
	/* The aggregate the row belongs to (rows of one aggregate share these). */
	int cpu, socket, die, core, nr; /* CPU, topology ids, CPUs in it */
	const char *comm;     /* --per-thread: the thread's comm and tid */
	int tid;
};

struct stat_opts {
	enum stat_fmt fmt;
	const char *sep;      /* -x: the separator */
	enum stat_aggr aggr;
	const char *thousands; /* big-num digit group separator ("" or NULL: none) */
	unsigned runs;        /* -r (1: no spreads) */
};

/* The rows of one report (or one -I interval: 'ts' >= 0 is its time in s),
 * 'elapsed_ns' the wall time they cover (for CPUs utilized). */
void stat_text_rows(struct buf *out, const struct stat_opts *o, const struct stat_row *rows,
		    size_t n, double ts, double elapsed_ns);
/* The interval header ("#           time             counts unit events"), text only. */
void stat_text_interval_header(struct buf *out, const struct stat_opts *o);
/* "\n Performance counter stats for KIND'WHAT'[ (N runs)]:\n\n", text only;
 * kind is "" or "process id " or "thread id ". */
void stat_text_header(struct buf *out, const struct stat_opts *o, const char *kind,
		      const char *what);
/*
 * The footer, text only: elapsed seconds (with "+- sd" for -r, sd the
 * standard error of the mean in s), then user and sys seconds when
 * 'rusage' (a single run of a command).
 */
void stat_text_footer(struct buf *out, const struct stat_opts *o, double elapsed_s,
		      double sd_s, bool rusage, double user_s, double sys_s);

/* Helpers, exposed for tests. */
/* "%18.0f"/"%18.2f" with digit groups: "1,234,567" (thousands "," ) */
void stat_text_number(char *out, size_t len, double v, int width, int prec,
		      const char *thousands);
/* perf's convert_unit_double: v scaled to K, M or G; *unit gets ' ' or the letter. */
double stat_text_unit(double v, char *unit);
/* Significant decimals for a value with standard deviation sd (perf's rule). */
int stat_text_precision(double sd);

#endif
