/*
 * symhist: a perf.data's samples by symbol and address, for annotate
 * (pipeline, L8).
 *
 * A session consumer (pipeline/session.h) that resolves each sample's ip
 * in the sample's cpumode (session_symbolize: cached per dso and
 * address) and adds it, with its period, to the histogram of its
 * (event, dso, symbol): how many samples and how much period fell on
 * each link-time address, as perf annotate's symbol histograms count
 * them. No stacks are unwound. Samples without a symbol (no mapping, a
 * binary that is missing or has no symbol there, JIT code) are counted
 * per dso, not annotated.
 *
 * symhist_annotate then builds one group's annotation (annotate.h) with
 * the session's source lines and strings.
 *
 * Invariants once symhist_load returned:
 *  1. groups are in perf annotate's order: by event (the file's attr
 *     order), then hottest first: the largest period that one command
 *     (comm) spent in the symbol, as perf's (comm, dso, symbol) entries
 *     rank, then total period, name, dso path and address;
 *  2. a group's samples (its 'first'..'first + n' in 'samples') are in
 *     address order, one per distinct address, and add up to the group's
 *     'samples' and 'period'.
 */
#ifndef KILN_PIPELINE_SYMHIST_H
#define KILN_PIPELINE_SYMHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "annotate/annotate.h"
#include "base/err.h"
#include "base/vec.h"
#include "pipeline/session.h"

struct symhist_group {
	uint32_t attr;      /* index of its event in s->attrs */
	uint32_t dso;       /* dso id */
	uint64_t start;     /* the symbol's link-time address (kernel: as recorded) */
	uint64_t end;       /* its end (exclusive); 0 when unknown (kernel) */
	uint32_t name, raw; /* display name and name in the binary (strtab ids) */
	bool kernel;
	uint64_t samples, period;
	uint64_t rank;      /* the largest period of one comm in it */
	size_t first, n;    /* its samples in symhist.samples */
};

struct symhist_dso_miss {
	uint32_t dso;
	uint64_t samples;
};

struct symhist_event {
	char name[128];     /* as perf names it: "cpu-clock:ppp", "cycles:u" */
	uint64_t samples, period;
};

struct symhist {
	VEC(struct symhist_group) groups;
	VEC(struct annotate_sample) samples;
	VEC(struct symhist_event) events; /* by attr index */
	/* Samples whose ip had no symbol, by dso (dso id order). */
	VEC(struct symhist_dso_miss) misses;
	uint64_t nsamples;       /* every sample read */
	uint64_t unresolved;     /* with no mapping or symbol at all (hypervisor, unmapped) */
	uint64_t lost, unknown_records;
	bool partial;            /* the input broke part-way: err holds why */
	struct err_report err;
};

void symhist_init(struct symhist *h);
void symhist_release(struct symhist *h);

/*
 * The session options annotate reads a perf.data with: line tables
 * wanted (not names only). The caller sets input, env, symfs, debug_dir,
 * no_demangle.
 */
void symhist_session_opts(struct session_opts *so);

/*
 * Read session 's' into 'h' (initialised). 0, or a negative errno
 * (err_last() says why); an input that broke part-way returns 0 with
 * h->partial set and the message in h->err.
 */
int symhist_load(struct session *s, struct symhist *h);

struct symhist_annotate_opts {
	struct source_opts src;
	bool no_source;
};

/*
 * Build the annotation of group 'g' into *a (annotation_build: release
 * it with annotation_release, also after an error). A kernel symbol gets
 * -ENODATA (kiln reads no kernel code); the other errors are
 * annotation_build's (-ENOENT no binary, -ENODATA no code bytes,
 * -ENOTSUP a machine kiln cannot decode, -EINVAL an empty range), with
 * err_last() saying why.
 */
int symhist_annotate(struct session *s, const struct symhist *h, const struct symhist_group *g,
		     const struct symhist_annotate_opts *o, struct annotation *a);

/* The name to show for a raw function name id (demangled unless the
 * session keeps names mangled): annotate_text's func_name hook, ctx is
 * the session. */
const char *symhist_func_name(void *ctx, uint32_t id);

#endif
