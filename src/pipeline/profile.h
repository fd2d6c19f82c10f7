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
#include "aggregate/trie.h"
#include "base/strtab.h"

enum profile_inline {
	PROFILE_INLINE_DWARF = 0, /* inline frames for DWARF-unwound user frames (perf script's way) */
	PROFILE_INLINE_ALL,       /* for every user frame, frame-pointer stacks too */
	PROFILE_INLINE_NONE,      /* none (perf script --no-inline) */
};

struct profile_opts {
	const char *input;
	struct frame_opts frames;
	enum profile_inline inline_mode;
	const char *symfs; /* prefix for binary paths, or NULL */
};

struct profile_stats {
	uint64_t samples;
	uint64_t lost;         /* records lost (LOST records) */
	uint64_t lost_samples; /* LOST_SAMPLES */
	uint64_t unknown_records;
	bool partial;          /* the input ended early or broke: results are from a prefix */
};

/*
 * Read 'o->input' into 't' (initialised by the caller over 'strs').
 * Returns 0; or -errno when the input cannot be used at all (err_last()
 * says why; nothing was added); a broken input part-way returns 0 with
 * st->partial set and the message in err_last().
 */
int profile_load(const struct profile_opts *o, struct strtab *strs, struct trie *t,
		 struct profile_stats *st);

#endif
