/*
 * disasm: one function's machine code as instructions (annotate, L6).
 *
 * Reads the code bytes of a link-time range from an ELF image
 * (elf_image_code: the binary, never a debug-only file whose code
 * sections are NOBITS) and decodes them in-process with Capstone, never
 * by running a program. The architecture comes from the image's
 * e_machine: x86-64 and i386, AArch64, ARM (A32).
 *
 * x86 instructions are written as objdump -d writes them by default
 * (AT&T syntax, binutils 2.40), which is what perf annotate shows:
 * mnemonic without the size suffix when a register operand gives the
 * size ("mov %rsp,%rbp", "movl $0x0,-0x4(%rbp)"), hexadecimal
 * immediates and displacements, "0x0(%rax,%rax,1)" when the encoding
 * has a displacement, the prefixes objdump names ("cs nopw",
 * "data16", "notrack", "lock", "rep"), and a "# ADDR <sym+off>"
 * comment after a %rip-relative operand. Other architectures keep
 * Capstone's text. Branches and calls with a direct target print it as
 * objdump does, "1230 <outer+0x20>", the name from a caller-given
 * lookup; targets inside the range are marked so a view can label them
 * and draw arrows.
 */
#ifndef KILN_ANNOTATE_DISASM_H
#define KILN_ANNOTATE_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/vec.h"
#include "dso/elf_image.h"

enum disasm_arch {
	DISASM_X86_64,
	DISASM_I386,
	DISASM_AARCH64,
	DISASM_ARM,
};

enum disasm_flags {
	DISASM_JUMP = 1 << 0,    /* a jump (conditional or not) */
	DISASM_CALL = 1 << 1,    /* a call */
	DISASM_RET = 1 << 2,     /* a return */
	DISASM_TARGET = 1 << 3,  /* 'target' holds the direct branch or call target */
	DISASM_INSIDE = 1 << 4,  /* the target lies inside the disassembled range */
	DISASM_LABEL = 1 << 5,   /* some jump inside the range lands on this instruction */
	DISASM_BAD = 1 << 6,     /* bytes that do not decode: shown as "(bad)", one byte */
};

#define DISASM_MNEMONIC_MAX 32
#define DISASM_OPS_MAX 192

struct disasm_insn {
	uint64_t addr;   /* link-time address */
	uint64_t target; /* with DISASM_TARGET */
	uint8_t len;     /* bytes */
	uint8_t flags;   /* enum disasm_flags */
	char mnemonic[DISASM_MNEMONIC_MAX]; /* with objdump's prefixes: "cs nopw", "lock cmpxchg" */
	char ops[DISASM_OPS_MAX];           /* operands, "" when none */
};

/* A symbol name for an address (the function or label containing it), or
 * NULL; *start gets its start. Borrowed until the next call. */
typedef const char *(*disasm_sym_fn)(void *ctx, uint64_t vaddr, uint64_t *start);
/* A disasm_sym_fn over an ELF image's symbols: ctx is the image. */
const char *disasm_elf_sym(void *ctx, uint64_t vaddr, uint64_t *start);

struct disasm {
	enum disasm_arch arch;
	uint64_t start, size;
	VEC(struct disasm_insn) insns; /* in address order, covering [start, start + size) */
};

/* The architecture of an ELF image: 0, or -ENOTSUP (err_last() names the
 * machine) for one kiln cannot disassemble. */
int disasm_arch_of(const struct elf_image *img, enum disasm_arch *out);

/*
 * Disassembles [start, start + size) of 'code' (the binary: see
 * elf_image_code) into *d (initialized here; release with
 * disasm_release, also after an error). 'sym' (may be NULL) names
 * direct branch and call targets. Bytes that do not decode become
 * one-byte DISASM_BAD entries and decoding goes on after them.
 * 0, -ENODATA when the image lacks the code bytes (a debug-only file:
 * try the binary), -ENOTSUP for an unknown machine, -EINVAL for an empty
 * or oversized range (more than DISASM_MAX_BYTES); err_last() says which.
 */
#define DISASM_MAX_BYTES (16u << 20)
int disasm_range(struct disasm *d, const struct elf_image *code, uint64_t start, uint64_t size,
		 disasm_sym_fn sym, void *sym_ctx);
/* Disassembles raw bytes of a given architecture at 'start' (the same
 * rules; for tests and code without an image). */
int disasm_bytes(struct disasm *d, enum disasm_arch arch, const uint8_t *code, uint64_t start,
		 size_t size, disasm_sym_fn sym, void *sym_ctx);
void disasm_release(struct disasm *d);

/* The index of the instruction that contains 'addr', or SIZE_MAX. */
size_t disasm_find(const struct disasm *d, uint64_t addr);

/* The instruction as objdump prints it: the mnemonic padded to 6
 * columns, a space, the operands ("ret" alone when it has none). Always
 * NUL-terminated; returns the length it wanted (as snprintf). */
size_t disasm_insn_text(const struct disasm_insn *in, char *buf, size_t len);

#endif
