/*
 * fuzz_unwind: the DWARF unwinder as a whole (unwind/dwarf.c,
 * dwarf_unwind_regs): CFI bytes + registers + stack bytes → frames.
 *
 * Input, little-endian: byte 0 flags (bit 0: the CFI is .debug_frame;
 * bit 1: no CFI at all, frame pointers only), u32 'valid' register mask,
 * u32 CFI length C, u64 the CFI's link-time address, 17 u64 registers
 * (DWARF numbering; 7 = rsp, the stack copy's address; 16 = the pc), then
 * C bytes of CFI, then the stack copy. Code is mapped at its link-time
 * addresses (every pc below 2^47 lies in the one binary). Checked beyond "no crash":
 * it terminates; at most UNWIND_MAX_FRAMES frames; every read stays inside the copy (ASan:
 * exact-size copies); the first frame is the pc; unwinding the same input
 * again through the warm row cache gives the same frames. With
 * FUZZ_UNWIND_PRINT set in the environment, the frames are printed.
 */
#include "fuzz/fuzz.h"
#include "unwind/dwarf.h"

#define HDR (1 + 4 + 4 + 8 + 8 * CFI_NREGS)

struct env {
	const struct cfi_table *t;
};

static bool lookup(void *ctx, uint64_t pc, struct dwarf_where *w)
{
	struct env *e = ctx;
	if (pc >= (1ULL << 47))
		return false;
	*w = (struct dwarf_where){ .key = 1, .t = e->t, .delta = 0, .lo = 0, .hi = 1ULL << 47 };
	return true;
}

static struct unwind_stack st1, st2;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	if (size < HDR)
		return 0;
	uint8_t flags = data[0];
	uint32_t valid = (uint32_t)fuzz_u64(data + 1, 4) & ((1u << CFI_NREGS) - 1);
	size_t clen = (size_t)(uint32_t)fuzz_u64(data + 5, 4);
	uint64_t regs0[CFI_NREGS], regs[CFI_NREGS];
	for (unsigned i = 0; i < CFI_NREGS; i++)
		regs0[i] = fuzz_u64(data + 17 + 8 * i, 8);
	uint64_t cfi_vaddr = fuzz_u64(data + 9, 8);
	size_t rest = size - HDR;
	if (clen > rest)
		clen = rest;
	uint8_t *cfi = fuzz_copy(data + HDR, clen);
	uint8_t *stack = fuzz_copy(data + HDR + clen, rest - clen);
	struct cfi_table *t = flags & 2 ? NULL : cfi_table_build(cfi, clen, cfi_vaddr, flags & 1);
	struct env e = { t };
	struct unwinder u;
	unwinder_init(&u, NULL);

	memcpy(regs, regs0, sizeof(regs));
	memset(&st1, 0, sizeof(st1));
	dwarf_unwind_regs(&u, lookup, &e, regs, valid, stack, rest - clen, &st1);
	fuzz_check(st1.n <= UNWIND_MAX_FRAMES);
	if (getenv("FUZZ_UNWIND_PRINT")) { /* to see what a seed reaches */
		fprintf(stderr, "%zu frames%s:", st1.n, st1.truncated ? " (truncated)" : "");
		for (size_t i = 0; i < st1.n; i++)
			fprintf(stderr, " %#llx", (unsigned long long)st1.frames[i].ip);
		fprintf(stderr, "\n");
	}
	if (st1.n)
		fuzz_check(st1.frames[0].ip == regs0[CFI_RA] && !st1.frames[0].kernel);

	memcpy(regs, regs0, sizeof(regs));
	memset(&st2, 0, sizeof(st2));
	dwarf_unwind_regs(&u, lookup, &e, regs, valid, stack, rest - clen, &st2);
	fuzz_check(st1.n == st2.n && st1.truncated == st2.truncated);
	for (size_t i = 0; i < st1.n; i++)
		fuzz_check(st1.frames[i].ip == st2.frames[i].ip);

	unwinder_release(&u);
	cfi_table_free(t);
	free(cfi);
	free(stack);
	return 0;
}
