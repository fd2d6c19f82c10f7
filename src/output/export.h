/*
 * export: a stack trie as the profile formats other tools read (output, L7).
 *
 * speedscope_write: speedscope's file format (JSON, "sampled" profiles):
 * one shared frame table (name; file and line when a source lookup is
 * given and knows them), and one profile per child of the trie's root
 * (a process or thread frame, which then names the profile), or a single
 * profile holding every stack (merge); activeProfileIndex is the profile
 * with the most samples (the first of equals). With the samples' times,
 * each profile lists its samples in time order, unit nanoseconds,
 * startValue the first sample's time after the earliest sample of the
 * file; a sample's weight is the time to the profile's next sample, at
 * most the profile's median interval (a thread's sleep does not widen
 * the sample before it; the last sample weighs the median), so
 * speedscope's time order shows the program's phases. Without times,
 * each distinct stack is one sample weighted by its count (unit none).
 *
 * pprof_write: the pprof format (profile.proto, gzip-compressed): a string
 * table, one function per distinct name, one location per distinct frame
 * (an inlined frame joins its caller's location as an extra line, callee
 * first), one sample per distinct stack (leaf first) with the value types
 * given. Encoded by kiln's own protobuf writer; gzip by zlib.
 *
 * Both escape every name for the format (JSON strings are valid UTF-8:
 * invalid bytes become U+FFFD, control characters, quotes, '<', '>' and
 * '&' become \u escapes) and write the same bytes for the same trie.
 */
#ifndef KILN_OUTPUT_EXPORT_H
#define KILN_OUTPUT_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "aggregate/locprof.h"
#include "aggregate/trie.h"

/* Source position of a frame, when something knows it. */
struct export_src {
	const char *file; /* NULL: unknown */
	uint32_t line;    /* 0: unknown */
};
/* A lookup from frame (name id, kind) to its source; may be NULL. */
typedef bool (*export_src_fn)(void *ctx, uint32_t name, uint8_t kind, struct export_src *out);

struct export_opts {
	const char *name;      /* profile (file) name, default "kiln" */
	bool merge;            /* speedscope: one profile, not one per root child */
	uint64_t divisor;      /* counts are the input's times this (default 1) */
	const char *unit;      /* speedscope unit: "none" (default), "nanoseconds", ... */
	const char *sample_type; /* pprof: default "samples" */
	const char *sample_unit; /* pprof: default "count" */
	export_src_fn src;     /* file/line lookup, or NULL */
	void *src_ctx;
	/*
	 * speedscope: every sample as it came, its time and trie leaf
	 * (aggregate/locprof.h): profiles in time order, unit nanoseconds.
	 * NULL: a sample per distinct stack, weighted by its count.
	 */
	const struct lp_time *times;
	size_t ntimes;
	/*
	 * pprof: a second value per sample, e.g. the sum of the events'
	 * periods ("cpu-clock"/"nanoseconds"): values2[node] for the stack
	 * ending at node (nodes at or past nvalues2 count 0). NULL: none.
	 */
	const uint64_t *values2;
	size_t nvalues2;
	const char *type2, *unit2;
	/*
	 * pprof: the binaries (path, hex build-id or "") and, by strtab name
	 * id, 1 + the index of the binary a frame name comes from (0: none).
	 * A location's mapping is its (outermost) function's.
	 */
	const struct export_mapping *mappings;
	size_t nmappings;
	const uint32_t *name_mapping;
	size_t nname_mapping;
};

struct export_mapping {
	const char *file;
	const char *build_id;
};

/* 0, or -EIO. */
int speedscope_write(FILE *f, const struct trie *t, const struct export_opts *o);
/* 0, -EIO, or -ENOMEM/-EINVAL from zlib. */
int pprof_write(FILE *f, const struct trie *t, const struct export_opts *o);
/*
 * pprof from a profile by address (perf.data input): mappings with their
 * address ranges, file offsets, paths and build-ids (files first, by dso
 * id); one location per sampled address with its lines, inlined calls
 * first; functions with name, system (mangled) name, file and start line;
 * one sample per distinct (thread, stack) with "comm", "pid" and "tid"
 * labels. Values: the count, and the periods when o->type2 is set. The
 * mapping/values2 fields of 'o' are not used.
 */
int pprof_write_locprof(FILE *f, const struct locprof *lp, const struct export_opts *o);

/* Write n bytes as the inside of a JSON string (no quotes), escaped as above. */
void json_put_escaped(FILE *f, const char *s, size_t n);

#endif
