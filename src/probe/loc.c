/*
 * loc: DWARF location expressions → uprobe/kprobe fetch args (probe, L3).
 *
 * Pure translation, no libdw: the caller hands the operations libdw
 * decoded. Supported: a value in a register (DW_OP_regN, DW_OP_regx), in
 * memory at register + offset (DW_OP_bregN, DW_OP_bregx), or at frame base
 * + offset (DW_OP_fbreg, with a frame base of DW_OP_bregN or
 * DW_OP_call_frame_cfa, the CFA then being the CFI rule at the address).
 * Computed values (DW_OP_stack_value, DW_OP_entry_value, pieces...) are
 * refused: the kernel's fetch args cannot compute.
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "probe/probe.h"

static const char *const x86_64_regs[17] = { "ax", "dx", "cx", "bx", "si", "di", "bp", "sp", "r8",
					     "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip" };

const char *probe_dwarf_reg(unsigned r)
{
	return r < 17 ? x86_64_regs[r] : NULL;
}

/* The register of DW_OP_bregN/bregx op, with its offset; -1 if op is neither. */
static int breg_of(const struct probe_op *op, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*off = (int64_t)op->number;
		return op->atom - DW_OP_breg0;
	}
	if (op->atom == DW_OP_bregx) {
		*off = (int64_t)op->number2;
		return (int)op->number;
	}
	return -1;
}

static int set_reg_mem(struct probe_loc *loc, int reg, int64_t off)
{
	const char *name = probe_dwarf_reg((unsigned)reg);
	if (!name)
		return err_set(-EOPNOTSUPP, "DWARF register %d has no name in fetch args", reg);
	loc->in_mem = true;
	snprintf(loc->base, sizeof(loc->base), "%%%s", name);
	loc->offset = off;
	return 0;
}

int probe_loc_fetch(const struct probe_op *ops, size_t n, const struct probe_op *fb, size_t nfb,
		    const struct probe_op *cfa, size_t ncfa, struct probe_loc *loc)
{
	memset(loc, 0, sizeof(*loc));
	if (n == 0)
		return err_set(-ENOENT, "optimized out here (no location)");
	if (n > 1) {
		/* DW_OP_fbreg/breg followed by DW_OP_deref etc.: more than fetch args express */
		if (ops[1].atom == DW_OP_stack_value)
			return err_set(-EOPNOTSUPP, "a computed value here (DW_OP_stack_value)");
		return err_set(-EOPNOTSUPP, "a location of %zu operations (only a register, "
					    "register+offset or frame base+offset can be read)",
			       n);
	}
	const struct probe_op *op = &ops[0];
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31) {
		const char *name = probe_dwarf_reg(op->atom - DW_OP_reg0);
		if (!name)
			return err_set(-EOPNOTSUPP, "DWARF register %d has no name in fetch args",
				       op->atom - DW_OP_reg0);
		snprintf(loc->base, sizeof(loc->base), "%%%s", name);
		return 0;
	}
	if (op->atom == DW_OP_regx) {
		const char *name = probe_dwarf_reg((unsigned)op->number);
		if (!name)
			return err_set(-EOPNOTSUPP, "DWARF register %" PRIu64 " has no name in fetch args",
				       op->number);
		snprintf(loc->base, sizeof(loc->base), "%%%s", name);
		return 0;
	}
	int64_t off;
	int reg = breg_of(op, &off);
	if (reg >= 0)
		return set_reg_mem(loc, reg, off);
	if (op->atom == DW_OP_fbreg) {
		int64_t foff = (int64_t)op->number, boff;
		if (nfb != 1)
			return err_set(-EOPNOTSUPP, "a frame base kiln cannot express");
		reg = breg_of(&fb[0], &boff);
		if (reg >= 0)
			return set_reg_mem(loc, reg, boff + foff);
		if (fb[0].atom == DW_OP_call_frame_cfa) {
			if (ncfa != 1 || (reg = breg_of(&cfa[0], &boff)) < 0)
				return err_set(-EOPNOTSUPP, "no CFA rule of register+offset here");
			return set_reg_mem(loc, reg, boff + foff);
		}
		return err_set(-EOPNOTSUPP, "a frame base kiln cannot express (DWARF op 0x%x)",
			       fb[0].atom);
	}
	if (op->atom == DW_OP_addr)
		return err_set(-EOPNOTSUPP, "a global (DW_OP_addr): read it with @+FILEOFFSET");
	if (op->atom == DW_OP_entry_value || op->atom == DW_OP_GNU_entry_value)
		return err_set(-EOPNOTSUPP, "only known as its value at function entry (DW_OP_entry_value)");
	if (op->atom == DW_OP_implicit_value || op->atom == DW_OP_stack_value ||
	    (op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31) || op->atom == DW_OP_constu ||
	    op->atom == DW_OP_consts)
		return err_set(-EOPNOTSUPP, "a constant or computed value here");
	if (op->atom == DW_OP_piece)
		return err_set(-EOPNOTSUPP, "split over several places (DW_OP_piece)");
	return err_set(-EOPNOTSUPP, "a location kiln cannot express (DWARF op 0x%x)", op->atom);
}

static void mem_text(const char *base, int64_t off, char *out, size_t len)
{
	char num[32];
	snprintf(num, sizeof(num), "%s%" PRId64, off >= 0 ? "+" : "", off);
	size_t a = strlen(num), b = strlen(base);
	if (len < a + b + 3) {
		if (len)
			out[0] = '\0';
		return;
	}
	memcpy(out, num, a);
	out[a] = '(';
	memcpy(out + a + 1, base, b);
	out[a + b + 1] = ')';
	out[a + b + 2] = '\0';
}

int probe_loc_member(struct probe_loc *loc, bool arrow, int64_t off)
{
	if (arrow) {
		char v[sizeof(loc->base) + 32];
		probe_loc_text(loc, v, sizeof(v));
		size_t n = strlen(v);
		if (n >= sizeof(loc->base) - 1)
			return err_set(-E2BIG, "member access nested too deep");
		memcpy(loc->base, v, n + 1);
		loc->in_mem = true;
		loc->offset = off;
		return 0;
	}
	if (!loc->in_mem)
		return err_set(-EINVAL, "a structure held in a register: its members cannot be read");
	loc->offset += off;
	return 0;
}

void probe_loc_text(const struct probe_loc *loc, char *out, size_t len)
{
	if (loc->in_mem)
		mem_text(loc->base, loc->offset, out, len);
	else
		snprintf(out, len, "%s", loc->base);
}
