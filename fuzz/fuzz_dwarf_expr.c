/*
 * fuzz_dwarf_expr: one DWARF expression through cfi_eval (unwind/cfi.c),
 * with registers and readable memory from the input.
 *
 * Input: byte 0 flags (bit 0: push an initial value, as register rules
 * do; bit 1: register 5 unknown), bytes 1..2 the expression's length L
 * (little-endian, clipped to what is there), then the expression, then
 * the memory: its bytes are readable at 0x10000, and register r holds
 * 0x10000 + 8 * r. Checked beyond "no crash": the result is 0 or -EINVAL,
 * the evaluation stays inside the expression (ASan: it is an exact-size
 * copy) and reads memory at most CFI_MAX_EXPR_OPS times; the same input
 * gives the same result twice.
 */
#include <errno.h>

#include "fuzz/fuzz.h"
#include "unwind/cfi.h"

#define BASE 0x10000u

struct mem {
	const uint8_t *p;
	size_t n;
	unsigned reads;
};

static bool read_mem(void *ctx, uint64_t addr, uint64_t *val)
{
	struct mem *m = ctx;
	m->reads++;
	if (addr < BASE || addr - BASE > m->n || m->n - (addr - BASE) < 8)
		return false;
	memcpy(val, m->p + (addr - BASE), 8);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	if (size < 3)
		return 0;
	uint8_t flags = data[0];
	size_t len = (size_t)data[1] | (size_t)data[2] << 8;
	if (len > size - 3)
		len = size - 3;
	uint8_t *expr = fuzz_copy(data + 3, len);
	uint8_t *mem = fuzz_copy(data + 3 + len, size - 3 - len);
	struct mem m = { mem, size - 3 - len, 0 };
	uint64_t regs[CFI_NREGS];
	for (unsigned i = 0; i < CFI_NREGS; i++)
		regs[i] = BASE + 8 * i;
	uint32_t valid = (1u << CFI_NREGS) - 1;
	if (flags & 2)
		valid &= ~(1u << 5);
	bool initial = flags & 1;
	uint64_t r1 = 0, r2 = 0;
	int e1 = cfi_eval(expr, len, regs, valid, initial, BASE + 16, read_mem, &m, &r1);
	fuzz_check(e1 == 0 || e1 == -EINVAL);
	fuzz_check(m.reads <= CFI_MAX_EXPR_OPS);
	int e2 = cfi_eval(expr, len, regs, valid, initial, BASE + 16, read_mem, &m, &r2);
	fuzz_check(e1 == e2 && (e1 || r1 == r2));
	free(expr);
	free(mem);
	return 0;
}
