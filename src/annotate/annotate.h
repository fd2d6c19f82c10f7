/*
 * annotate: one function's samples on its instructions and source lines
 * (annotate, L6).
 *
 * Given the sampled addresses of one symbol of one file dso with their
 * sample counts and periods, builds what perf annotate shows: the
 * disassembly (disasm.h) with each instruction's samples, period and
 * share of the symbol's period ("percent: local period"), the source
 * position of each
 * instruction (srcline.h's addr2line answer: the innermost function and
 * file:line, and how deep in inlined code it is), totals per source line,
 * and the text of those lines when the source file is found.
 *
 * Invariants of a built struct annotation:
 *  1. insns[i] describes dis.insns.v[i]; samples at addresses outside
 *     every instruction (outside the symbol's range) are in
 *     'outside_samples'/'outside_period', not in any instruction;
 *  2. samples = sum of insns[].samples + outside_samples, and the same
 *     for periods, so shares of the symbol sum to 100 (within rounding)
 *     whenever nothing was outside;
 *  3. lines[] holds every source line of the function's instructions,
 *     hottest (by period) first, then by file name and line number:
 *     deterministic.
 * A missing source file is a note (notes[]), not an error; so is a
 * missing line table (no positions at all).
 */
#ifndef KILN_ANNOTATE_ANNOTATE_H
#define KILN_ANNOTATE_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "annotate/disasm.h"
#include "annotate/source.h"
#include "base/strtab.h"
#include "base/vec.h"
#include "dso/dso.h"
#include "symbolize/srcline.h"

/* One sampled address (link-time, as symbolize's sym.addr): how many
 * samples hit it and the sum of their periods (perf counts a period of 1
 * per sample when the recording has none). */
struct annotate_sample {
	uint64_t addr;
	uint64_t samples;
	uint64_t period;
};

struct annotate_req {
	struct dso_set *dsos;    /* borrowed */
	uint32_t dso;            /* a DSO_FILE dso of 'dsos' */
	struct srclines *lines;  /* source positions, or NULL for none */
	struct strtab *strs;     /* borrowed: the strtab 'lines' interns into */
	uint64_t start, size;    /* the symbol's link-time range */
	const struct annotate_sample *samples; /* any order, duplicates added up */
	size_t nsamples;
	disasm_sym_fn sym;       /* names branch targets; NULL: the dso's symbols */
	void *sym_ctx;
	struct source_opts src;  /* where source files are looked for */
	bool no_source;          /* read no source text (positions still given) */
};

struct annotate_insn {
	uint64_t samples, period;
	uint32_t file;  /* strtab id of the innermost position's file basename, SRCLINE_NONE */
	uint32_t line;  /* 0: unknown */
	uint32_t func;  /* strtab id of the innermost function (raw name), SRCLINE_NONE */
	uint16_t depth; /* inlined frames around it (addr2line records - 1) */
	int32_t src;    /* index in 'sources' of its file's text, -1 */
};

struct annotate_line {
	uint32_t file, line; /* as in annotate_insn */
	uint64_t samples, period;
	uint32_t insns;      /* instructions at this line */
	int32_t src;         /* index in 'sources', -1 */
};

struct annotation {
	struct disasm dis;
	VEC(struct annotate_insn) insns;
	VEC(struct annotate_line) lines;
	struct source_set sources;
	VEC(char *) notes; /* "source file inlines.c not found", ... */
	uint64_t samples, period;                 /* of the symbol: all that was given */
	uint64_t outside_samples, outside_period; /* the part outside its range */
	uint32_t name; /* strtab id of the symbol's name, SRCLINE_NONE */
};

/*
 * Builds the annotation of req->start..+size. *a is initialized here;
 * release it with annotation_release, also after an error. Errors:
 * -ENOENT (no image for the dso), -ENODATA (its file has no code bytes:
 * a debug-only file), -ENOTSUP (a machine Capstone cannot decode),
 * -EINVAL (an empty or oversized range); err_last() says which.
 */
int annotation_build(struct annotation *a, const struct annotate_req *req);
void annotation_release(struct annotation *a);

/* 100 * part / whole, 0 when whole is 0. */
double annotate_percent(uint64_t part, uint64_t whole);

#endif
