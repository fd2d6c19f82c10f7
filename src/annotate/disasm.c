/*
 * disasm: Capstone decodes, this file writes the text (annotate, L6).
 *
 * Capstone 4's AT&T printer differs from objdump's in the details a
 * reader compares ("xorq $3, %rdi" for "xor $0x3,%rdi"), so x86
 * operands are written here from Capstone's operand details in
 * objdump's forms; the mnemonic is Capstone's, with the size suffix
 * dropped where objdump drops it (see x86_mnemonic). One Capstone handle
 * per call, one instruction buffer reused for the whole range; Capstone
 * is loaded on the first call (annotate/csload.h).
 */
#include "annotate/disasm.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "annotate/csload.h"
#include "base/err.h"
#include "base/search.h"

enum {
	EM_386 = 3,
	EM_ARM = 40,
	EM_X86_64 = 62,
	EM_AARCH64 = 183,
};

/* A bounded string being appended to; overflow truncates. */
struct sbuf {
	char *p;
	size_t cap, n;
};

static void sb_put(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;

	if (b->n + 1 >= b->cap)
		return;
	va_start(ap, fmt);
	int w = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
	va_end(ap);
	if (w > 0)
		b->n = b->n + (size_t)w < b->cap ? b->n + (size_t)w : b->cap - 1;
}

const char *disasm_elf_sym(void *ctx, uint64_t vaddr, uint64_t *start)
{
	return elf_image_lookup(ctx, vaddr, start);
}

int disasm_arch_of(const struct elf_image *img, enum disasm_arch *out)
{
	switch (elf_image_machine(img)) {
	case EM_X86_64:
		*out = DISASM_X86_64;
		return 0;
	case EM_386:
		*out = DISASM_I386;
		return 0;
	case EM_AARCH64:
		*out = DISASM_AARCH64;
		return 0;
	case EM_ARM:
		*out = DISASM_ARM;
		return 0;
	}
	return err_set(-ENOTSUP, "no disassembler for ELF machine %u", elf_image_machine(img));
}

/* "1230 <outer+0x20>", as objdump writes a direct target. */
static void put_target(struct sbuf *b, uint64_t target, disasm_sym_fn sym, void *ctx)
{
	uint64_t start = 0;
	const char *name = sym ? sym(ctx, target, &start) : NULL;

	sb_put(b, "%" PRIx64, target);
	if (name && target == start)
		sb_put(b, " <%s>", name);
	else if (name)
		sb_put(b, " <%s+0x%" PRIx64 ">", name, target - start);
}

/* ---- x86 ---- */

static bool is_x86_seg_prefix(uint8_t c)
{
	return c == 0x2e || c == 0x36 || c == 0x3e || c == 0x26;
}

/* The legacy prefix bytes before the opcode (and REX): how many 0x66, and
 * the last segment override among cs/ss/ds/es (0: none). */
static void x86_prefixes(const cs_insn *in, unsigned *n66, uint8_t *seg)
{
	*n66 = 0;
	*seg = 0;
	for (size_t i = 0; i < in->size; i++) {
		uint8_t c = in->bytes[i];
		if (c == 0x66)
			(*n66)++;
		else if (is_x86_seg_prefix(c))
			*seg = c;
		else if (c != 0xf0 && c != 0xf2 && c != 0xf3 && c != 0x64 && c != 0x65 && c != 0x67)
			break;
	}
}

static const char *x86_seg_name(uint8_t c)
{
	switch (c) {
	case 0x2e:
		return "cs";
	case 0x36:
		return "ss";
	case 0x3e:
		return "ds";
	default:
		return "es";
	}
}

static uint64_t size_mask(unsigned size)
{
	return size && size < 8 ? (UINT64_C(1) << (8 * size)) - 1 : UINT64_MAX;
}

/* A general-purpose (or segment) register, not a vector, mask or x87 one. */
static bool is_gpr(csh h, x86_reg r)
{
	const char *n = csl_reg_name(h, r);
	return n && strncmp(n, "xmm", 3) && strncmp(n, "ymm", 3) && strncmp(n, "zmm", 3) &&
	       strncmp(n, "st", 2) && strncmp(n, "mm", 2) && !(n[0] == 'k' && n[1] && !n[2]);
}

static bool x86_is_branch(csh h, const cs_insn *in)
{
	return csl_insn_group(h, in, CS_GRP_JUMP) || csl_insn_group(h, in, CS_GRP_CALL);
}

/*
 * objdump's mnemonic: Capstone's AT&T one ("xorq", "retq", "rep stosq")
 * loses its size suffix, as objdump's does, when a register operand gives
 * the size, when there is no operand, and on stack and branch
 * instructions (whose size the mode gives); it keeps it when only memory
 * and immediates are there ("movl $0x0,-0x4(%rbp)", "nopw"). The suffix
 * is what Capstone's AT&T name has beyond the instruction's plain name
 * (cs_insn_name), so "movzbl" or "cltq" stay whole.
 */
static void x86_mnemonic(csh h, const cs_insn *in, bool has_reg, unsigned nops, struct sbuf *b)
{
	const char *mn = in->mnemonic;
	const char *word = strrchr(mn, ' ');
	word = word ? word + 1 : mn;
	const char *name = csl_insn_name(h, in->id);
	size_t wl = strlen(word), nl = name ? strlen(name) : 0;
	bool suffixed = name && wl == nl + 1 && !strncmp(word, name, nl) && strchr("bwlq", word[nl]);
	bool strip = false;

	if (suffixed)
		strip = has_reg || nops == 0 || x86_is_branch(h, in) ||
			csl_insn_group(h, in, CS_GRP_RET) || !strncmp(name, "push", 4) ||
			!strncmp(name, "pop", 3);
	/* stos/lods/scas name their register operand: objdump drops the suffix. */
	if (!suffixed && has_reg && wl == 5 &&
	    (!strncmp(word, "stos", 4) || !strncmp(word, "lods", 4) || !strncmp(word, "scas", 4)))
		strip = true;
	/* Capstone's prefix words, as objdump spells them. */
	for (const char *p = mn; p < word;) {
		const char *sp = strchr(p, ' ');
		size_t n = (size_t)(sp - p);
		if (n == 5 && !strncmp(p, "repne", 5))
			sb_put(b, "repnz ");
		else if (n == 4 && !strncmp(p, "repe", 4))
			sb_put(b, "repz ");
		else
			sb_put(b, "%.*s ", (int)n, p);
		p = sp + 1;
	}
	/* With REX.W, 0F 6E/7E move 64 bits: objdump says movq. */
	if (!strcmp(word, "movd") && (in->detail->x86.rex & 8))
		word = "movq";
	sb_put(b, "%.*s", (int)(strip ? wl - 1 : wl), word);
}

static void x86_mem(csh h, const cs_insn *in, const cs_x86_op *op, bool mode64, bool seg_as_word,
		    struct sbuf *b)
{
	const cs_x86 *x = &in->detail->x86;
	const x86_op_mem *m = &op->mem;
	bool has_disp = x->encoding.disp_offset != 0;

	if (m->segment != X86_REG_INVALID && !seg_as_word)
		sb_put(b, "%%%s:", csl_reg_name(h, m->segment));
	if (m->base == X86_REG_INVALID && m->index == X86_REG_INVALID) {
		uint64_t a = (uint64_t)m->disp;
		sb_put(b, "0x%" PRIx64, mode64 ? a : (a & 0xffffffffu));
		return;
	}
	if (has_disp) {
		if (m->disp < 0)
			sb_put(b, "-0x%" PRIx64, -(uint64_t)m->disp);
		else
			sb_put(b, "0x%" PRIx64, (uint64_t)m->disp);
	}
	sb_put(b, "(");
	if (m->base != X86_REG_INVALID)
		sb_put(b, "%%%s", csl_reg_name(h, m->base));
	if (m->index != X86_REG_INVALID)
		sb_put(b, ",%%%s,%d", csl_reg_name(h, m->index), m->scale);
	sb_put(b, ")");
}

/* movs, stos, lods, scas, cmps, ins, outs with their size letter. */
static bool x86_string_op(const cs_insn *in)
{
	static const char *const ops[] = { "movs", "stos", "lods", "scas", "cmps", "ins", "outs" };
	const char *w = strrchr(in->mnemonic, ' ');
	w = w ? w + 1 : in->mnemonic;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i]);
		if (!strncmp(w, ops[i], n) && strlen(w) == n + 1 && strchr("bwlq", w[n]))
			return true;
	}
	return false;
}

/* Capstone's operand text of a string instruction as objdump writes it:
 * no space after commas, the implied segments named ("%es:(%rdi)"). */
static void x86_string_ops(const char *ops, struct sbuf *b)
{
	for (const char *p = ops; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		while (n && *p == ' ')
			p++, n--;
		if (p != ops)
			sb_put(b, ",");
		if ((n == 6 && (!strncmp(p, "(%rdi)", 6) || !strncmp(p, "(%edi)", 6))))
			sb_put(b, "%%es:");
		else if ((n == 6 && (!strncmp(p, "(%rsi)", 6) || !strncmp(p, "(%esi)", 6))))
			sb_put(b, "%%ds:");
		sb_put(b, "%.*s", (int)n, p);
		p = end ? end + 1 : NULL;
	}
}

/* True if some operand of an AT&T operand text is a register (not memory). */
static bool x86_text_has_reg(const char *ops)
{
	for (const char *p = ops; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		while (n && *p == ' ')
			p++, n--;
		if (n && *p == '%' && !memchr(p, '(', n) && !memchr(p, ':', n))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* A shift or rotate by %cl (D2/D3) whose details do not list %cl. */
static bool x86_shift_cl_hidden(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	if (x->opcode[0] != 0xd2 && x->opcode[0] != 0xd3)
		return false;
	for (unsigned i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_REG && x->operands[i].reg == X86_REG_CL)
			return false;
	return true;
}

static void x86_format(csh h, const cs_insn *in, bool mode64, disasm_sym_fn sym, void *ctx,
		     struct disasm_insn *out)
{
	const cs_x86 *x = &in->detail->x86;
	struct sbuf mb = { out->mnemonic, sizeof(out->mnemonic), 0 };
	struct sbuf ob = { out->ops, sizeof(out->ops), 0 };
	bool branch = x86_is_branch(h, in);
	bool has_reg = false, has_gpr = false, has_vreg = false, has_mem = false, rip = false;
	unsigned n66, nops = 0;
	uint8_t seg;
	int64_t rip_disp = 0;

	x86_prefixes(in, &n66, &seg);
	if (n66 == 1 && in->size == 2 && in->bytes[1] == 0x90) {
		/* 66 90: Capstone's "nop", objdump's "xchg %ax,%ax". */
		snprintf(out->mnemonic, sizeof(out->mnemonic), "xchg");
		snprintf(out->ops, sizeof(out->ops), "%%ax,%%ax");
		return;
	}
	/* In 64-bit mode a cs/ss/ds/es override does nothing: objdump names
	 * it before the mnemonic ("cs nopw", "notrack jmp"). */
	bool seg_word = mode64 && seg;
	for (unsigned i = 1; i < n66; i++)
		sb_put(&mb, "data16 ");
	if (seg_word && seg == 0x3e && branch && x->op_count && x->operands[0].type != X86_OP_IMM)
		sb_put(&mb, "notrack ");
	else if (seg_word)
		sb_put(&mb, "%s ", x86_seg_name(seg));

	if (x86_string_op(in)) {
		/* Capstone's details lack the implicit operands objdump prints
		 * ("%eax,%es:(%rdi)"); its text has them. */
		x86_string_ops(in->op_str, &ob);
		has_reg = x86_text_has_reg(in->op_str);
		nops = in->op_str[0] != 0;
		x86_mnemonic(h, in, has_reg, nops, &mb);
		return;
	}
	if (x86_shift_cl_hidden(in)) {
		/* D2/D3 on memory: Capstone's details drop the %cl count. */
		sb_put(&ob, "%%cl");
		nops++;
	}
	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		/* The shift-by-one forms (D0/D1) have no immediate in objdump. */
		if (op->type == X86_OP_IMM && op->imm == 1 && (x->opcode[0] == 0xd0 || x->opcode[0] == 0xd1))
			continue;
		if (nops++)
			sb_put(&ob, ",");
		switch (op->type) {
		case X86_OP_REG:
			if (is_gpr(h, op->reg))
				has_gpr = true;
			else
				has_vreg = true;
			sb_put(&ob, "%s%%%s", branch ? "*" : "", csl_reg_name(h, op->reg));
			break;
		case X86_OP_IMM:
			if (branch) {
				out->target = (uint64_t)op->imm;
				out->flags |= DISASM_TARGET;
				put_target(&ob, out->target, sym, ctx);
			} else {
				sb_put(&ob, "$0x%" PRIx64, (uint64_t)op->imm & size_mask(op->size));
			}
			break;
		case X86_OP_MEM:
			has_mem = true;
			if (branch)
				sb_put(&ob, "*");
			/* The override named as a word is not the operand's. */
			x86_mem(h, in, op, mode64, seg_word && op->mem.segment != X86_REG_FS &&
					      op->mem.segment != X86_REG_GS, &ob);
			if (op->mem.base == X86_REG_RIP) {
				rip = true;
				rip_disp = op->mem.disp;
			}
			break;
		default:
			break;
		}
	}
	/* A vector register does not size a memory operand
	 * ("cvtsi2sdl -0x13c(%rcx),%xmm0"). */
	has_reg = has_gpr || (has_vreg && !has_mem);
	x86_mnemonic(h, in, has_reg, nops, &mb);
	if (rip) {
		sb_put(&ob, "        # ");
		put_target(&ob, in->address + in->size + (uint64_t)rip_disp, sym, ctx);
	}
}

/* ---- AArch64 and ARM: Capstone's text, objdump's direct targets ---- */

static void arm_format(csh h, const cs_insn *in, bool a64, disasm_sym_fn sym, void *ctx,
		     struct disasm_insn *out)
{
	struct sbuf mb = { out->mnemonic, sizeof(out->mnemonic), 0 };
	struct sbuf ob = { out->ops, sizeof(out->ops), 0 };
	bool have = false;
	int64_t imm = 0;

	sb_put(&mb, "%s", in->mnemonic);
	if (csl_insn_group(h, in, CS_GRP_JUMP) || csl_insn_group(h, in, CS_GRP_CALL)) {
		if (a64) {
			const cs_arm64 *x = &in->detail->arm64;
			for (unsigned i = 0; i < x->op_count; i++)
				if (x->operands[i].type == ARM64_OP_IMM) {
					have = true;
					imm = x->operands[i].imm;
				}
		} else {
			const cs_arm *x = &in->detail->arm;
			for (unsigned i = 0; i < x->op_count; i++)
				if (x->operands[i].type == ARM_OP_IMM) {
					have = true;
					imm = x->operands[i].imm;
				}
		}
	}
	const char *hash = have ? strrchr(in->op_str, '#') : NULL;
	if (!hash) {
		sb_put(&ob, "%s", in->op_str);
		return;
	}
	/* "b.ne #0x4004d0" -> "b.ne 4004d0 <f+0x10>"; "cbz x0, #0x..." keeps its register. */
	sb_put(&ob, "%.*s", (int)(hash - in->op_str), in->op_str);
	out->target = (uint64_t)imm;
	out->flags |= DISASM_TARGET;
	put_target(&ob, out->target, sym, ctx);
}

/* ---- the range ---- */

/* Capstone 4 puts AArch64's and ARM's bl/blr/blx in the jump group only. */
static bool is_call(csh h, enum disasm_arch arch, const cs_insn *in)
{
	if (arch == DISASM_AARCH64)
		return in->id == ARM64_INS_BL || in->id == ARM64_INS_BLR;
	if (arch == DISASM_ARM)
		return in->id == ARM_INS_BL || in->id == ARM_INS_BLX;
	return csl_insn_group(h, in, CS_GRP_CALL);
}

static int open_handle(enum disasm_arch arch, csh *h)
{
	cs_arch a;
	cs_mode m;

	switch (arch) {
	case DISASM_X86_64:
		a = CS_ARCH_X86, m = CS_MODE_64;
		break;
	case DISASM_I386:
		a = CS_ARCH_X86, m = CS_MODE_32;
		break;
	case DISASM_AARCH64:
		a = CS_ARCH_ARM64, m = CS_MODE_ARM;
		break;
	case DISASM_ARM:
		a = CS_ARCH_ARM, m = CS_MODE_ARM;
		break;
	default:
		return err_set(-ENOTSUP, "no disassembler for architecture %d", (int)arch);
	}
	int err = csl_load();
	if (err)
		return err;
	cs_err e = csl_open(a, m, h);
	if (e != CS_ERR_OK)
		return err_set(-ENOTSUP, "capstone: %s", csl_strerror(e));
	csl_option(*h, CS_OPT_DETAIL, CS_OPT_ON);
	if (a == CS_ARCH_X86)
		csl_option(*h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	return 0;
}

static void mark_labels(struct disasm *d)
{
	for (size_t i = 0; i < d->insns.n; i++) {
		struct disasm_insn *in = &d->insns.v[i];
		if (!(in->flags & DISASM_TARGET) || in->target < d->start ||
		    in->target - d->start >= d->size)
			continue;
		in->flags |= DISASM_INSIDE;
		size_t t = disasm_find(d, in->target);
		if ((in->flags & DISASM_JUMP) && t != SIZE_MAX && d->insns.v[t].addr == in->target)
			d->insns.v[t].flags |= DISASM_LABEL;
	}
}

int disasm_bytes(struct disasm *d, enum disasm_arch arch, const uint8_t *code, uint64_t start,
		 size_t size, disasm_sym_fn sym, void *sym_ctx)
{
	csh h;
	int err;

	memset(d, 0, sizeof(*d));
	d->arch = arch;
	d->start = start;
	d->size = size;
	if (size == 0 || size > DISASM_MAX_BYTES)
		return err_set(-EINVAL, "cannot disassemble %zu bytes at %#" PRIx64, size, start);
	err = open_handle(arch, &h);
	if (err)
		return err;
	cs_insn *in = csl_malloc(h);
	const uint8_t *p = code;
	size_t left = size;
	uint64_t addr = start;
	while (left) {
		struct disasm_insn *o = VEC_PUSH_ZERO(&d->insns);
		const uint8_t *at = p;
		if (!csl_disasm_iter(h, &p, &left, &addr, in)) {
			/* Undecodable: one byte, as objdump's "(bad)". */
			o->addr = addr;
			o->len = 1;
			o->flags = DISASM_BAD;
			snprintf(o->mnemonic, sizeof(o->mnemonic), "(bad)");
			p = at + 1;
			left--;
			addr++;
			continue;
		}
		o->addr = in->address;
		o->len = (uint8_t)in->size;
		if (is_call(h, arch, in))
			o->flags |= DISASM_CALL;
		else if (csl_insn_group(h, in, CS_GRP_JUMP))
			o->flags |= DISASM_JUMP;
		if (csl_insn_group(h, in, CS_GRP_RET))
			o->flags |= DISASM_RET;
		if (arch == DISASM_X86_64 || arch == DISASM_I386)
			x86_format(h, in, arch == DISASM_X86_64, sym, sym_ctx, o);
		else
			arm_format(h, in, arch == DISASM_AARCH64, sym, sym_ctx, o);
	}
	csl_free(in, 1);
	csl_close(&h);
	mark_labels(d);
	return 0;
}

int disasm_range(struct disasm *d, const struct elf_image *code, uint64_t start, uint64_t size,
		 disasm_sym_fn sym, void *sym_ctx)
{
	enum disasm_arch arch = DISASM_X86_64; /* set by disasm_arch_of (GCC -O3 cannot tell) */
	const uint8_t *bytes;
	int err;

	memset(d, 0, sizeof(*d));
	d->start = start;
	d->size = size;
	err = disasm_arch_of(code, &arch);
	if (err)
		return err;
	if (size == 0 || size > DISASM_MAX_BYTES)
		return err_set(-EINVAL, "cannot disassemble %" PRIu64 " bytes at %#" PRIx64, size,
			       start);
	if (elf_image_code(code, start, size, &bytes))
		return err_set(-ENODATA, "no code bytes for %#" PRIx64 "-%#" PRIx64
			       " in the file (a debug-only file has none)",
			       start, start + size);
	return disasm_bytes(d, arch, bytes, start, (size_t)size, sym, sym_ctx);
}

void disasm_release(struct disasm *d)
{
	VEC_FREE(&d->insns);
}

size_t disasm_find(const struct disasm *d, uint64_t addr)
{
	size_t i = UPPER_BOUND(d->insns.v, d->insns.n, struct disasm_insn, addr, addr);
	if (i == 0)
		return SIZE_MAX;
	const struct disasm_insn *in = &d->insns.v[i - 1];
	return addr - in->addr < in->len ? i - 1 : SIZE_MAX;
}

size_t disasm_insn_text(const struct disasm_insn *in, char *buf, size_t len)
{
	int w = in->ops[0] ? snprintf(buf, len, "%-6s %s", in->mnemonic, in->ops)
			   : snprintf(buf, len, "%s", in->mnemonic);
	return w < 0 ? 0 : (size_t)w;
}
