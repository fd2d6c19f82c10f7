/*
 * profile: a perf.data file aggregated into a stack trie (pipeline, L8).
 *
 * perffile reader → proc (sideband) → unwind (callchain) → symbolize →
 * aggregate (frames, trie). One pass, in time order. Used by collapse,
 * flame and the other aggregate views.
 */
#ifndef KILN_PIPELINE_PROFILE_H
#define KILN_PIPELINE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "aggregate/frames.h"
#include "aggregate/locprof.h"
#include "aggregate/trie.h"
#include "base/env.h"
#include "base/strtab.h"

enum profile_inline {
	PROFILE_INLINE_DWARF = 0, /* inline frames for DWARF-unwound user frames (perf script's way) */
	PROFILE_INLINE_ALL,       /* for every user frame, frame-pointer stacks too */
	PROFILE_INLINE_NONE,      /* none (perf script --no-inline) */
};

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
	bool mappings;     /* also note each frame name's binary (profile_stats.mappings) */
	/*
	 * Also aggregate by address into this (initialised by the caller over
	 * the same strtab; its want_samples / want_sources say what to build),
	 * or NULL. Mappings get their path and build-id before profile_load
	 * returns. Periods are summed as for 'periods'.
	 */
	struct locprof *locprof;
};

/* A binary frames were found in: its path and build-id (hex, "" if unknown). */
struct profile_mapping {
	char *path;
	char build_id[2 * 20 + 1];
};

/* A stack known to be incomplete on the root side (the DWARF stack copy
 * ended before the outermost frame, or the frame cap) keeps the frames
 * found and gets this frame between the process frame and its outermost
 * found caller, so cut stacks group apart instead of posing as roots. */
#define PROFILE_TRUNCATED_FRAME "[truncated]"

struct profile_stats {
	uint64_t samples;
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
	/*
	 * With opts.mappings: the binaries symbols came from, in order of
	 * first use (heap; each path heap too: profile_stats_release), and by
	 * strtab name id, 1 + the index of the binary that name was first
	 * found in, or 0 (name_mapping, nname_mapping entries).
	 */
	struct profile_mapping *mappings;
	size_t nmappings;
	uint32_t *name_mapping;
	size_t nname_mapping;
};

/* Free what profile_load allocated in *st (periods, mappings). */
void profile_stats_release(struct profile_stats *st);

/*
 * Read 'o->input' into 't' (initialised by the caller over 'strs').
 * Returns 0; or -errno when the input cannot be used at all (err_last()
 * says why; nothing was added); a broken input part-way returns 0 with
 * st->partial set and the message in err_last().
 */
int profile_load(const struct profile_opts *o, struct strtab *strs, struct trie *t,
		 struct profile_stats *st);

#endif
