/*
 * annotate: one function's samples on its instructions and source lines
 * (annotate, L6).
 *
 * Given the sampled addresses of one symbol of one file dso with their
 * counts (samples or periods, the caller's choice), builds what perf
 * annotate shows: the disassembly (disasm.h) with each instruction's
 * count and share of the symbol's total, the source position of each
 * instruction (srcline.h's addr2line answer: the innermost function and
 * file:line, and how deep in inlined code it is), totals per source line,
 * and the text of those lines when the source file is found.
 *
 * Invariants of a built struct annotation:
 *  1. insns[i] describes dis.insns.v[i]; counts of addresses outside
 *     every instruction (a sample mid-instruction cannot happen; one
 *     outside the symbol can) are in 'outside', not in any instruction;
 *  2. total = sum of insns[].count + outside, so shares of the symbol
 *     sum to 100 (within rounding) whenever outside is 0;
 *  3. lines[] holds every source line with samples, hottest first, then
 *     by file name and line number: deterministic.
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

/* One sampled address (link-time, as symbolize's sym.addr) and its count. */
struct annotate_sample {
	uint64_t addr;
	uint64_t count;
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
	uint64_t count;
	uint32_t file;  /* strtab id of the innermost position's file basename, SRCLINE_NONE */
	uint32_t line;  /* 0: unknown */
	uint32_t func;  /* strtab id of the innermost function (raw name), SRCLINE_NONE */
	uint16_t depth; /* inlined frames around it (addr2line records - 1) */
	int32_t src;    /* index in 'sources' of its file's text, -1 */
};

struct annotate_line {
	uint32_t file, line; /* as in annotate_insn */
	uint64_t count;
	uint32_t insns;      /* instructions at this line */
	int32_t src;         /* index in 'sources', -1 */
};

struct annotation {
	struct disasm dis;
	VEC(struct annotate_insn) insns;
	VEC(struct annotate_line) lines;
	struct source_set sources;
	VEC(char *) notes; /* "source file inlines.c not found", ... */
	uint64_t total, outside;
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

/* 100 * count / total, 0 when total is 0. */
double annotate_percent(uint64_t count, uint64_t total);

#endif
