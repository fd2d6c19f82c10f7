/*
 * fuzz_cfi: .eh_frame / .debug_frame bytes through the CFI index and the
 * CFA programs (unwind/cfi.c), and the DWARF expressions the rows hold
 * through cfi_eval.
 *
 * Input: byte 0 (bit 0: .debug_frame, else .eh_frame), bytes 1..8 the
 * section's link-time address (little-endian), then the section. For every
 * FDE (up to 512) the row at its first, middle and last address is
 * computed, and every expression in a found row is evaluated with made-up
 * registers and the section itself as readable memory. Checked beyond "no
 * crash": FDEs are sorted, non-empty and bounded in number by the bytes
 * (an FDE takes at least 8 of them); a lookup inside an FDE never answers
 * -ENOENT; a found row's CFA register is one CFI_NREGS covers and its
 * expressions lie inside the section; lookups outside every FDE answer
 * -ENOENT; an evaluation reads memory at most CFI_MAX_EXPR_OPS times.
 */
#include <errno.h>

#include "fuzz/fuzz.h"
#include "unwind/cfi.h"

struct mem {
	const uint8_t *p;
	size_t n;
	uint64_t base;
	unsigned reads;
};

static bool read_mem(void *ctx, uint64_t addr, uint64_t *val)
{
	struct mem *m = ctx;
	m->reads++;
	if (addr < m->base || addr - m->base > m->n || m->n - (addr - m->base) < 8)
		return false;
	memcpy(val, m->p + (addr - m->base), 8);
	return true;
}

static void in_section(const struct mem *m, const uint8_t *p, size_t n)
{
	fuzz_check(p >= m->p && p <= m->p + m->n && n <= (size_t)(m->p + m->n - p));
}

static void eval(struct mem *m, const uint8_t *e, size_t n, bool initial, uint64_t cfa)
{
	uint64_t regs[CFI_NREGS], r;
	for (unsigned i = 0; i < CFI_NREGS; i++)
		regs[i] = m->base + 8 * i;
	in_section(m, e, n);
	m->reads = 0;
	int err = cfi_eval(e, n, regs, 0x1ffffu & ~(1u << 5), initial, cfa, read_mem, m, &r);
	fuzz_check(err == 0 || err == -EINVAL);
	fuzz_check(m->reads <= CFI_MAX_EXPR_OPS);
}

static void probe(const struct cfi_table *t, struct mem *m, uint64_t pc, bool inside)
{
	struct cfi_row row;
	int err = cfi_find_row(t, pc, &row);
	if (inside)
		fuzz_check(err == 0 || err == -EBADMSG);
	else
		fuzz_check(err == -ENOENT);
	if (err)
		return;
	if (row.cfa_is_expr)
		eval(m, row.cfa_expr, row.cfa_expr_len, false, 0);
	else
		fuzz_check(row.cfa_reg < CFI_NREGS);
	for (unsigned i = 0; i < CFI_NREGS; i++) {
		const struct cfi_rule *r = &row.regs[i];
		if (r->kind == CFI_RULE_EXPR || r->kind == CFI_RULE_VAL_EXPR)
			eval(m, r->expr, r->expr_len, true, m->base + 64);
		if (r->kind == CFI_RULE_REG)
			fuzz_check(r->reg < CFI_NREGS);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	if (size < 9)
		return 0;
	bool debug_frame = data[0] & 1;
	uint64_t vaddr = fuzz_u64(data + 1, 8);
	size_t n = size - 9;
	uint8_t *sec = fuzz_copy(data + 9, n);
	struct cfi_table *t = cfi_table_build(sec, n, vaddr, debug_frame);
	struct mem m = { sec, n, vaddr, 0 };
	size_t count = cfi_table_count(t);
	fuzz_check(count <= n / 8);
	uint64_t prev = 0;
	for (size_t i = 0; i < count; i++) {
		uint64_t s, e;
		cfi_table_fde(t, i, &s, &e);
		fuzz_check(s < e);
		fuzz_check(i == 0 || s >= prev);
		prev = s;
		if (i >= 512)
			continue;
		probe(t, &m, s, true);
		probe(t, &m, s + (e - s) / 2, true);
		probe(t, &m, e - 1, true);
	}
	if (count) {
		uint64_t s, e;
		cfi_table_fde(t, 0, &s, &e);
		if (s > 0)
			probe(t, &m, s - 1, false);
		/* Past the FDE that ends last: nothing covers it. */
		uint64_t hi = 0;
		for (size_t i = 0; i < count; i++) {
			cfi_table_fde(t, i, &s, &e);
			if (e > hi)
				hi = e;
		}
		probe(t, &m, hi, false);
	} else {
		probe(t, &m, vaddr, false);
	}
	cfi_table_free(t);
	free(sec);
	return 0;
}
