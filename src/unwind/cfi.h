/*
 * cfi: DWARF call frame information from .eh_frame / .debug_frame
 * (unwind, L4).
 *
 * cfi_table_build() indexes a section once: every FDE's [pc_begin,
 * pc_end) and where its CIE and instructions are, sorted by address (an
 * FDE that overlaps one before it is dropped: the first, longest wins).
 * cfi_find_row() runs the CIE's and FDE's instructions up to a pc and
 * returns the rule row that holds there: how to compute the CFA and where
 * each register (DWARF numbers 0-16, 16 = return address) was saved.
 *
 * The parser takes (pointer, length) and the section's link-time address;
 * every read is bounds-checked, CFA programs are bounded (rows, the
 * remember-state stack), and bad entries are skipped, so any bytes give
 * an index and lookups, never a crash. x86_64 only (8-byte addresses).
 */
#ifndef KILN_UNWIND_CFI_H
#define KILN_UNWIND_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CFI_NREGS 17 /* DWARF x86_64 registers 0..16 (16 = return address) */
#define CFI_RA 16

/* Limits (docs/LIMITS.md). Rules for registers >= CFI_NREGS are parsed and
 * ignored, so the rule set never grows with the input. */
#define CFI_MAX_STATE_DEPTH 64  /* DW_CFA_remember_state nesting; deeper: -EBADMSG */
#define CFI_MAX_CFA_OPS 100000  /* CFA instructions run per lookup (CIE + FDE); more: -EBADMSG */
#define CFI_MAX_EXPR_OPS 1000   /* DWARF expression operations executed; more: -EINVAL */
#define CFI_CIE_ROWS_MAX 1024   /* CIEs whose initial rows a table keeps; more: made per lookup */
#define CFI_MAX_EXPR_STACK 64   /* DWARF expression stack entries; more: -EINVAL */

enum cfi_rule_kind {
	CFI_RULE_SAME = 0, /* no rule: callee-saved keeps its value, others unknown */
	CFI_RULE_UNDEF,    /* undefined (for the RA: the outermost frame) */
	CFI_RULE_OFFSET,   /* saved at CFA + off */
	CFI_RULE_VAL_OFFSET, /* value is CFA + off */
	CFI_RULE_REG,      /* in register 'reg' */
	CFI_RULE_EXPR,     /* saved at the address the expression gives */
	CFI_RULE_VAL_EXPR, /* value is the expression's result */
	CFI_RULE_EXPLICIT_SAME, /* DW_CFA_same_value */
};

struct cfi_rule {
	uint8_t kind;
	uint8_t reg;
	int64_t off;
	const uint8_t *expr;
	size_t expr_len;
};

struct cfi_row {
	bool cfa_is_expr;
	uint8_t cfa_reg;
	int64_t cfa_off;
	const uint8_t *cfa_expr;
	size_t cfa_expr_len;
	struct cfi_rule regs[CFI_NREGS];
	bool signal_frame; /* the CIE has the 'S' augmentation */
};

struct cfi_table;

/* Index 'len' bytes of .eh_frame (debug_frame=false) or .debug_frame
 * (true) whose first byte is at link-time address 'vaddr'. Always
 * succeeds (an unreadable section gives an empty index). */
struct cfi_table *cfi_table_build(const uint8_t *data, size_t len, uint64_t vaddr, bool debug_frame);
void cfi_table_free(struct cfi_table *t);
size_t cfi_table_count(const struct cfi_table *t);
/* The i-th FDE's [start, end) in address order (i < cfi_table_count). */
void cfi_table_fde(const struct cfi_table *t, size_t i, uint64_t *start, uint64_t *end);
/* The row that holds at link-time address 'pc'. 0, -ENOENT if no FDE
 * covers it, or -EBADMSG if its instructions are malformed. */
int cfi_find_row(const struct cfi_table *t, uint64_t pc, struct cfi_row *row);

/*
 * Evaluate a DWARF expression (the subset CFI uses: constants, breg,
 * arithmetic, comparisons, deref, skip/bra) with 'initial' pushed first
 * (the CFA, for register rules). Registers come from regs[]/valid (DWARF
 * numbering); memory reads go through read_mem, which returns false for
 * addresses it cannot read. Bounded: at most CFI_MAX_EXPR_OPS operations
 * (backward skip/bra included), CFI_MAX_EXPR_STACK stack entries.
 * 0 with *result, or -EINVAL.
 */
typedef bool (*cfi_read_fn)(void *ctx, uint64_t addr, uint64_t *val);
int cfi_eval(const uint8_t *expr, size_t len, const uint64_t *regs, uint32_t valid,
	     bool push_initial, uint64_t initial, cfi_read_fn read_mem, void *ctx, uint64_t *result);

#endif
