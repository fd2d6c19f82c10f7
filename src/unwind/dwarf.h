/*
 * dwarf: user stacks from sampled registers and a stack copy, through
 * DWARF CFI (unwind, L4).
 *
 * For samples recorded with --call-graph dwarf (PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER), the kernel gives the user registers at the
 * sample and a copy of the user stack from SP upward. Each step finds the
 * CFI row for the pc (.eh_frame of the mapped binary, else .debug_frame
 * of it or its debug file), computes the CFA and the caller's registers
 * reading memory only from the copy, and moves to the return address;
 * where there is no CFI it tries the frame pointer. It stops at an
 * undefined return address (the outermost frame), at no progress, when
 * the copy runs out (the stack is then marked truncated), or at the frame
 * cap. CFI tables are built once per binary and kept for the run.
 *
 * Caller frames are reported at return address - 1 (inside the call), as
 * perf reports them, so symbols and lines belong to the calling function.
 */
#ifndef KILN_UNWIND_DWARF_H
#define KILN_UNWIND_DWARF_H

#include <stdbool.h>
#include <stdint.h>

#include "base/hashmap.h"
#include "base/vec.h"
#include "event/event.h"
#include "proc/proc.h"
#include "unwind/cfi.h"
#include "unwind/unwind.h"

/* Rows cached per unwinder (docs/LIMITS.md); past it, rows are recomputed
 * for each lookup instead of cached: same results, more time. */
#define DWARF_ROW_CACHE_MAX (1u << 16)

/* Rules a cached row holds beside its copies (docs/LIMITS.md); a row with
 * more is recomputed at each lookup (same results, more time). */
#define CFI_CROW_OPS 8

/*
 * A cached CFI row, compact (64 bytes with its key) and ready to run: the
 * registers the caller keeps as they are (a mask), then only the rules
 * that compute a value (saved at CFA + off, CFA + off, another register).
 * Cached for rows without DWARF expressions, with a 32-bit CFA offset,
 * 16-bit register offsets and at most CFI_CROW_OPS such rules (nearly
 * all).
 */
struct cfi_crow {
	uint64_t pc;  /* the (dso, pc) it answers */
	uint32_t dso; /* + 1; 0: a free slot */
	int32_t cfa_off;
	uint8_t cfa_reg;
	uint8_t signal_frame;
	uint8_t ra_kind, sp_kind; /* the RA's and SP's rule kinds (the step's end) */
	uint32_t keep;            /* registers whose value carries over when known */
	uint8_t nops;
	uint8_t direct; /* no rule reads a register: each value may be stored as computed */
	uint8_t nsaved; /* ops[0, nsaved) are "saved at CFA + off", the rest after them */
	int16_t lo_off, hi_off; /* the least and greatest off of those */
	struct cfi_crow_op {
		int16_t off;
		uint8_t reg;  /* the register it sets */
		uint8_t rule; /* kind (3 bits) << 5 | source register (5 bits) */
	} ops[CFI_CROW_OPS];
};

struct unwinder {
	struct machine *m;      /* borrowed */
	struct hashmap tables;  /* dso id -> index+1 in 'cfi' (0: none) */
	/* The last table_for answer (frames of a stack are mostly in one dso):
	 * its dso id + 1 (0: none yet), image and table. */
	uint32_t memo_dso;
	const struct elf_image *memo_img;
	const struct cfi_table *memo_t;
	VEC(struct cfi_table *) cfi;
	/* Cached rows by (dso, pc), in place (a lookup reads one cache line
	 * mostly): open addressing, linear probing, a power-of-two size. */
	struct cfi_crow *rows;
	size_t rows_mask;   /* size - 1, or 0 before the first row */
	size_t rows_mapped; /* hugebuf_zalloc's mapping size for rows (base/hugebuf.h), 0: calloc's */
	size_t nrows;
	uint64_t samples, truncated, no_cfi_steps, fp_steps, row_hits, row_misses;
	char *foreign_arch;      /* recorded on this other architecture: no DWARF unwinding */
	uint64_t foreign_samples; /* samples whose stack copy was not unwound for that reason */
};

void unwinder_init(struct unwinder *u, struct machine *m);
/* Free dso 'id''s CFI table before its image goes (dso_set_retire): the id
 * is not asked again until unwinder_forget. */
void unwinder_forget_dso(struct unwinder *u, uint32_t id);
/* Drop every table and cached row (dso ids are about to be reused). */
void unwinder_forget(struct unwinder *u);
void unwinder_release(struct unwinder *u);
/* The architecture the profile was recorded on (perf's HEADER_ARCH, uname
 * -m; NULL if unknown: taken as x86_64). Register numbering and CFI
 * here are x86_64's: samples of any other architecture keep their
 * callchain (or ip) only, with one warning, and are counted in
 * foreign_samples. */
void unwinder_set_arch(struct unwinder *u, const char *arch);
/* The whole stack of a sample, leaf first: the kernel callchain, then the
 * user frames unwound from its registers and stack copy (or the user part
 * of its callchain when it has no stack copy). */
void unwinder_sample(struct unwinder *u, const struct event *ev, struct unwind_stack *st);

/*
 * Where a pc lies, for dwarf_unwind_regs(): false if it is in no known
 * mapping (the stack ends there); else key names its binary (the row
 * cache is keyed by it), t is the binary's CFI (NULL: none, use the frame
 * pointer) and the pc's link-time address in it is pc + delta. Every pc
 * of [lo, hi) has the same answer (the same key, t and delta) for the
 * rest of the stack, so the unwinder asks again only outside it (lo = hi:
 * ask for every pc).
 */
struct dwarf_where {
	uint32_t key;
	const struct cfi_table *t;
	uint64_t delta;
	uint64_t lo, hi;
};
typedef bool (*dwarf_lookup_fn)(void *ctx, uint64_t pc, struct dwarf_where *w);

/*
 * The unwinding loop itself, free of perf.data and /proc (unwinder_sample
 * uses it; fuzz_unwind drives it with synthetic CFI): from registers in
 * DWARF numbering (bit r of 'valid' set when regs[r] is known; the return
 * address register holds the pc) and the stack copy 'stack' of 'size'
 * bytes that starts at regs[7] (rsp), push the user frames onto 'st'. Reads
 * memory only inside the copy. Stops at UNWIND_MAX_FRAMES frames (the
 * stack is then marked truncated), at an undefined return address, a
 * return address of 0, no stack-pointer progress (except after a signal
 * frame), or when the copy runs out (marked truncated). 'regs' is
 * clobbered. The unwinder's 'm' is not used here.
 */
void dwarf_unwind_regs(struct unwinder *u, dwarf_lookup_fn lookup, void *ctx,
		       uint64_t regs[CFI_NREGS], uint32_t valid, const uint8_t *stack, uint64_t size,
		       struct unwind_stack *st);

#endif
