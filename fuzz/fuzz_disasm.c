/*
 * fuzz_disasm: machine code through disasm_bytes (annotate): the first
 * byte picks the architecture (x86-64, i386, AArch64, ARM), the rest is
 * the code at 0x1000, with a symbol lookup naming every target. Checked
 * beyond "no crash": the instructions tile the range in order, each is
 * found by disasm_find at its first and last byte, its text is
 * terminated within its buffers, and a label is the target of some jump
 * inside the range.
 */
#include <stdlib.h>
#include <string.h>

#include "annotate/disasm.h"
#include "fuzz/fuzz.h"

static const char *name_all(void *ctx, uint64_t vaddr, uint64_t *start)
{
	(void)ctx;
	*start = vaddr & ~(uint64_t)0xff;
	return "a_rather_long_symbol_name_that_fills_the_operand_text_buffer_quickly_"
	       "and_then_some_more_to_be_sure_it_truncates_cleanly";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	if (size < 2)
		return 0;
	enum disasm_arch arch = (enum disasm_arch)(data[0] % 4);
	uint8_t *code = fuzz_copy(data + 1, size - 1);
	struct disasm d;
	char text[DISASM_MNEMONIC_MAX + DISASM_OPS_MAX + 8];
	fuzz_check(disasm_bytes(&d, arch, code, 0x1000, size - 1, name_all, NULL) == 0);
	uint64_t at = 0x1000;
	for (size_t i = 0; i < d.insns.n; i++) {
		const struct disasm_insn *in = &d.insns.v[i];
		fuzz_check(in->addr == at && in->len >= 1);
		fuzz_check(memchr(in->mnemonic, 0, sizeof(in->mnemonic)) != NULL);
		fuzz_check(memchr(in->ops, 0, sizeof(in->ops)) != NULL);
		fuzz_check(disasm_find(&d, in->addr) == i);
		fuzz_check(disasm_find(&d, in->addr + in->len - 1) == i);
		fuzz_check(disasm_insn_text(in, text, sizeof(text)) < sizeof(text));
		if (in->flags & DISASM_LABEL) {
			bool hit = false;
			for (size_t j = 0; j < d.insns.n; j++)
				hit |= (d.insns.v[j].flags & DISASM_INSIDE) &&
				       d.insns.v[j].target == in->addr;
			fuzz_check(hit);
		}
		at += in->len;
	}
	fuzz_check(at == 0x1000 + size - 1);
	fuzz_check(disasm_find(&d, 0xfff) == SIZE_MAX);
	disasm_release(&d);
	free(code);
	return 0;
}
