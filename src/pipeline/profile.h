/*
 * profile: a perf.data aggregated into a stack trie (pipeline, L8), and
 * the text inputs (perf script text, folded stacks) into the same trie.
 *
 * A perf.data is read by a session (pipeline/session.h) whose consumer
 * names each sample's frames (aggregate/frames) and adds them to the trie.
 * One pass, in time order; while /proc/kallsyms is still read on its own
 * thread, samples with kernel frames are held (user frames named) and
 * added, in order, once it is read. Used by collapse, flame, diff and
 * export.
 */
#ifndef KILN_PIPELINE_PROFILE_H
#define KILN_PIPELINE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "aggregate/foldedtext.h"
#include "aggregate/frames.h"
#include "aggregate/locprof.h"
#include "aggregate/scripttext.h"
#include "aggregate/trie.h"
#include "base/env.h"
#include "base/strtab.h"
#include "pipeline/session.h"

enum profile_inline {
	PROFILE_INLINE_DWARF = 0, /* inline frames for DWARF-unwound user frames (perf script's way) */
	PROFILE_INLINE_ALL,       /* for every user frame, frame-pointer stacks too */
	PROFILE_INLINE_NONE,      /* none (perf script --no-inline) */
};

/* What a stack's width counts. */
enum profile_weight {
	PROFILE_WEIGHT_SAMPLES = 0, /* on-CPU samples, one each (offcpu-time samples left out) */
	PROFILE_WEIGHT_OFFCPU,      /* blocked time only: offcpu-time samples' periods, in ns */
	PROFILE_WEIGHT_WALL,        /* both in ns: on-CPU samples as their time (a clock event's
				     * period, else 1e9 / the sampling frequency) */
};

/* The leaf frame of blocked time, with the state letter: "[off-cpu: S]";
 * "[off-cpu]" when the file does not say (perf's own recordings). */
#define PROFILE_OFFCPU_FRAME "[off-cpu]"

struct profile_opts {
	const char *input;
	const struct kiln_env *env; /* the environment (base/env.h), or NULL */
	struct frame_opts frames;
	enum profile_inline inline_mode;
	const char *symfs; /* prefix for binary paths, or NULL */
	bool reverse;      /* stacks leaf first (flamegraph.pl --reverse) */
	bool chart;        /* time order, adjacent stacks merged (--flamechart; trie_chart_finish) */
	const char *debug_dir; /* instead of SYMFS/usr/lib/debug, or NULL */
	bool no_demangle;      /* keep C++/Rust names as the binary has them */
	bool periods;      /* also sum the samples' periods by stack (profile_stats.periods) */
	enum profile_weight weight; /* --off-cpu, --wall (perf.data only) */
	/*
	 * Also aggregate by address into this (initialised by the caller over
	 * the same strtab; its want_samples / want_sources say what to build),
	 * or NULL. Mappings get their path and build-id before profile_load
	 * returns. Periods are summed as for 'periods'.
	 */
	struct locprof *locprof;
};

/* A stack known to be incomplete on the root side (the DWARF stack copy
 * ended before the outermost frame, or the frame cap) keeps the frames
 * found and gets this frame between the process frame and its outermost
 * found caller, so cut stacks group apart instead of posing as roots. */
#define PROFILE_TRUNCATED_FRAME "[truncated]"

struct profile_stats {
	uint64_t samples;
	uint64_t with_stacks;  /* samples that recorded a callchain or a user stack */
	uint64_t truncated;    /* samples whose stack got PROFILE_TRUNCATED_FRAME */
	uint64_t lost;         /* records lost (LOST records) */
	uint64_t lost_samples; /* LOST_SAMPLES */
	uint64_t unknown_records;
	bool partial;          /* the input ended early or broke: results are from a prefix */
	/*
	 * With opts.periods: by trie node, the sum of the periods of the
	 * samples whose stack ends there (heap, st->nperiods entries; free()).
	 * Only samples of the first sample's event are summed (event, and
	 * event_time if it counts nanoseconds: cpu-clock, task-clock);
	 * mixed_events counts the others.
	 */
	uint64_t *periods;
	size_t nperiods;
	char event[64];
	bool event_time;
	uint64_t mixed_events;
	uint64_t offcpu_samples; /* offcpu-time samples read */
	uint64_t offcpu_skipped; /* offcpu-time samples the on-CPU view left out */
	uint64_t wall_untimed;   /* --wall: samples of an event that has no time (fixed -c count) */
	uint64_t other_skipped;  /* --off-cpu: on-CPU samples left out */
};

/* Free what profile_load allocated in *st (periods). */
void profile_stats_release(struct profile_stats *st);

/* The session options for reading o->input into a trie over 'strs'. */
void profile_session_opts(const struct profile_opts *o, struct strtab *strs,
			  struct session_opts *so);

/*
 * Read the perf.data session 's' (opened with profile_session_opts) into
 * 't' (initialised by the caller over s->strs). 0; or a negative errno
 * (err_last() says why); a broken input part-way returns 0 with
 * st->partial set and the message in err_last().
 */
int profile_load(struct session *s, const struct profile_opts *o, struct trie *t,
		 struct profile_stats *st);

/* Text inputs (profile_text.c): perf script text of a SESSION_SCRIPT_TEXT
 * session into 't' (over the caller's strtab), sorted, reversed with
 * o->reverse. */
void profile_text_script(const struct session *s, const struct profile_opts *o,
			 const struct scripttext_opts *so, struct trie *t,
			 struct scripttext_stats *st);
/* Whether what profile_text_script found says the text is not perf
 * script output at all (no sample header; mostly other lines). */
bool profile_text_unusable(const struct scripttext_stats *st);

/* Folded stacks as read. */
struct profile_folded {
	uint64_t *first;  /* two counts per line: A's count by node (heap), else NULL */
	uint64_t divisor; /* counts in the trie are the input's times this (fractional counts) */
};
/* Folded stacks of a SESSION_FOLDED session into 't' (o->reverse, o->chart apply). */
void profile_text_folded(const struct session *s, const struct profile_opts *o, struct trie *t,
			 struct profile_folded *out, struct foldedtext_stats *st);

#endif
