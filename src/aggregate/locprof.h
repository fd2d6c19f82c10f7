/*
 * locprof: a profile by address (aggregate, L6), beside the stack trie,
 * for the exports that keep what the trie's names drop (pprof, and the
 * source positions of speedscope's frames).
 *
 *  - mappings: a binary's place in a process (start, limit, file offset,
 *    dso), one per distinct (dso, start, limit, offset);
 *  - locations: one per (mapping, sampled address), each with its source
 *    lines, innermost first: the frames folded stacks show for the
 *    address (symbolize_lines: the inlined calls there, then the function
 *    that holds them; without inlines, the symbol alone; nothing for an
 *    address past the end of every symbol), named as folded stacks name
 *    them, with file:line and the functions' declarations
 *    (symbolize_decls, cached per function);
 *  - samples: one per distinct (comm, pid, tid, location stack), stacks
 *    leaf first, with a count and the events' period sum;
 *  - sources: by frame name (strtab id), the declaration of the first
 *    function of that name met (file, line);
 *  - times: every sample in the order it came, its time and the trie
 *    node its stack ended at (speedscope's time order).
 *
 * Ids (mappings, locations) are 1 + the index in first-use order, so the
 * tables depend only on the order samples come in. Nothing here is built
 * unless a caller asks (pipeline/profile with opts.locprof): collapse and
 * flame never pay for it.
 */
#ifndef KILN_AGGREGATE_LOCPROF_H
#define KILN_AGGREGATE_LOCPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hashmap.h"
#include "base/strtab.h"
#include "base/vec.h"
#include "symbolize/symbolize.h"

#define LOCPROF_NONE UINT32_MAX
/* Samples whose times are kept (16 bytes each): past it, none are. */
#define LOCPROF_MAX_TIMES ((size_t)1 << 24)

struct lp_mapping {
	uint64_t start, limit, offset; /* [start, limit) in the process; file offset of start */
	uint32_t dso;                  /* dso id */
	/* Filled by the caller once loading ends (locprof does not read dsos): */
	uint32_t file;     /* strtab id of the path, LOCPROF_NONE */
	uint32_t build_id; /* strtab id of the hex build-id, LOCPROF_NONE */
	bool is_file;      /* a file (not the kernel, a JIT map, anonymous code) */
};

struct lp_line {
	uint32_t name;       /* display name (as folded stacks name it) */
	uint32_t raw;        /* name in the binary (mangled) */
	uint32_t file;       /* declaration's file (path), else the line's basename, LOCPROF_NONE */
	uint32_t line;       /* 0: unknown */
	uint32_t start_line; /* the function's declaration line, 0: unknown */
};

struct lp_location {
	uint64_t address;  /* as sampled, in the process's address space */
	uint32_t mapping;  /* mapping id, 0: none */
	uint32_t line0, nlines; /* lines[line0 .. line0 + nlines), innermost first */
};

struct lp_sample {
	uint32_t comm, pid, tid; /* comm: strtab id */
	uint32_t n;              /* stacks[at .. at + n): location ids, leaf first */
	size_t at;
	uint64_t count, period;
};

struct lp_src {
	uint32_t file, line; /* LOCPROF_NONE / 0 when unknown */
};

struct lp_time {
	uint64_t time; /* the sample's time (perf's clock, nanoseconds) */
	uint32_t leaf; /* the trie node its stack ended at */
};

struct lp_decl_entry {
	uint32_t dso, raw, file; /* the key */
	struct lp_src decl;
};

struct locprof {
	struct strtab *strs; /* borrowed */
	bool want_samples;   /* build mappings, locations, samples */
	bool want_sources;   /* build sources */
	bool want_times;     /* build times */
	bool untimed;        /* a sample without a time, or too many: no times kept */
	bool times_over;     /* untimed because of LOCPROF_MAX_TIMES */
	bool inlines;        /* locations keep inlined calls as lines (else the symbol's alone),
			      * as the trie's frames do */
	VEC(struct lp_mapping) maps;
	VEC(struct lp_location) locs;
	VEC(struct lp_line) lines;
	VEC(uint32_t) stacks;
	VEC(struct lp_sample) samples;
	struct hashmap map_of, loc_of, sample_of; /* hash -> index (probed on collisions) */
	struct hashmap decl_of;                   /* hash(dso, raw, file) -> index in decls */
	VEC(struct lp_decl_entry) decls;
	struct hashmap src_of;                    /* frame name id -> index in srcs */
	VEC(struct lp_src) srcs;
	VEC(struct lp_time) times;
};

void locprof_init(struct locprof *lp, struct strtab *strs);
void locprof_release(struct locprof *lp);

/* The id of a mapping (created if new). */
uint32_t locprof_mapping(struct locprof *lp, uint32_t dso, uint64_t start, uint64_t limit,
			 uint64_t offset);
/*
 * The id of the location of sampled address 'ip' in mapping 'mapping' (0:
 * none) that 'sym' resolved; its lines are read on first use.
 */
uint32_t locprof_location(struct locprof *lp, struct symbolizer *sz, uint32_t mapping, uint64_t ip,
			  const struct sym *sym);
/* Add a sample: location ids leaf first. */
/* A location that is only a name (no mapping, no address): a frame kiln
 * adds, such as an off-CPU sample's state; one per name. */
uint32_t locprof_named(struct locprof *lp, uint32_t name);
void locprof_sample(struct locprof *lp, uint32_t comm, uint32_t pid, uint32_t tid,
		    const uint32_t *locs, size_t n, uint64_t period);
/* Note a sample's time and the trie node its stack ended at (want_times). */
void locprof_time(struct locprof *lp, uint32_t leaf, uint64_t time, bool has_time);
/*
 * Note the source of frame name 'name', the function of line 'i' of the
 * n lines symbolize_lines gave for 'sym', unless the name has one already.
 */
void locprof_note_source(struct locprof *lp, struct symbolizer *sz, uint32_t name,
			 const struct sym *sym, const struct sym_line *lines, size_t n, size_t i);
/* The source noted for a frame name, or NULL. */
const struct lp_src *locprof_source(const struct locprof *lp, uint32_t name);

#endif
