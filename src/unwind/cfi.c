/*
 * cfi: .eh_frame/.debug_frame indexing, CFA programs and DWARF
 * expressions (unwind, L4). See cfi.h. Encodings follow the LSB
 * .eh_frame description and DWARF 4 §6.4.
 */
#include "unwind/cfi.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/hugebuf.h"
#include "base/sort.h"
#include "base/vec.h"
#include "base/xalloc.h"

#define MAX_STATE_DEPTH CFI_MAX_STATE_DEPTH
#define MAX_CFA_OPS CFI_MAX_CFA_OPS
#define MAX_EXPR_OPS CFI_MAX_EXPR_OPS
#define MAX_EXPR_STACK CFI_MAX_EXPR_STACK

struct fde_ent {
	uint64_t start, end;    /* [start, end) link-time pcs */
	uint32_t cie;           /* index into cies */
	uint32_t insn_off;      /* FDE instructions: offset in the section */
	uint32_t insn_len;
};

/* The smallest FDE of .eh_frame (length, CIE pointer, 4-byte pc and
 * range, augmentation length, padded to 4): a large section's FDEs get
 * room for its length over it at once. */
#define FDE_MIN_BYTES 20

struct cie_ent {
	uint32_t insn_off, insn_len; /* initial instructions */
	uint64_t code_align;
	int64_t data_align;
	uint8_t ra_reg;
	uint8_t fde_enc;
	bool signal_frame;
	bool has_z;
	uint32_t offset; /* where the CIE starts (to find it from FDEs) */
};

struct cfi_table {
	const uint8_t *data;
	size_t len;
	uint64_t vaddr;
	HVEC(struct fde_ent) fdes; /* reserved for the section's most: huge pages when large */
	VEC(struct cie_ent) cies;
	/* Each CIE's initial row (its instructions run once) and the error
	 * running them gave, by CIE index. */
	struct cfi_row *cie_rows;
	int *cie_errs;
};

/* ---- a bounded reader over the section ---- */

struct rd {
	const uint8_t *base, *p, *end;
	bool bad;
};

static uint64_t rd_u(struct rd *r, size_t n)
{
	if (r->p > r->end || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
		return 0;
	}
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t rd_uleb_long(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	for (;;) {
		if (r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		uint8_t b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		else if (b & 0x7f)
			r->bad = true; /* overlong: bits beyond 64 */
		shift += 7;
		if (!(b & 0x80))
			return v;
		if (shift > 70) {
			r->bad = true;
			return 0;
		}
	}
}

static int64_t rd_sleb_long(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;
	do {
		if (r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (shift > 70) {
			r->bad = true;
			return 0;
		}
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* LEB128s of one byte (most operands of CFA instructions) read inline;
 * longer ones (and the end of the section) by the loops above. */
static inline uint64_t rd_uleb(struct rd *r)
{
	if (r->p < r->end && !(*r->p & 0x80))
		return *r->p++;
	return rd_uleb_long(r);
}

static inline int64_t rd_sleb(struct rd *r)
{
	if (r->p < r->end && !(*r->p & 0x80)) {
		uint8_t b = *r->p++;
		return (int64_t)(b & 0x40 ? (uint64_t)b | ~(uint64_t)0x7f : (uint64_t)b);
	}
	return rd_sleb_long(r);
}

/* A DW_EH_PE-encoded pointer; 'vaddr' is the link-time address of r->p. */
static uint64_t rd_ptr(struct rd *r, uint8_t enc, uint64_t vaddr, bool apply_rel)
{
	if (enc == 0xff)
		return 0;
	uint64_t v;
	switch (enc & 0x0f) {
	case 0x00: v = rd_u(r, 8); break;
	case 0x01: v = rd_uleb(r); break;
	case 0x02: v = rd_u(r, 2); break;
	case 0x03: v = rd_u(r, 4); break;
	case 0x04: v = rd_u(r, 8); break;
	case 0x09: v = (uint64_t)rd_sleb(r); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)rd_u(r, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)rd_u(r, 4); break;
	case 0x0c: v = rd_u(r, 8); break;
	default:
		r->bad = true;
		return 0;
	}
	if (!apply_rel)
		return v;
	switch (enc & 0x70) {
	case 0x00:
		break;
	case 0x10: /* pcrel */
		v += vaddr;
		break;
	default: /* textrel, datarel, funcrel, aligned: not used for FDE pcs on x86_64 */
		r->bad = true;
		break;
	}
	if (enc & 0x80) /* indirect: would need to read memory */
		r->bad = true;
	return v;
}

static uint64_t at_vaddr(const struct cfi_table *t, const struct rd *r)
{
	return t->vaddr + (uint64_t)(r->p - t->data);
}

/* ---- index ---- */

static int parse_cie(struct cfi_table *t, size_t off, const uint8_t *end, bool debug_frame,
		     struct cie_ent *c)
{
	struct rd r = { t->data, t->data + off, end, false };
	(void)debug_frame;
	if (r.p >= end)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->offset = (uint32_t)off;
	uint8_t version = (uint8_t)rd_u(&r, 1);
	if (version != 1 && version != 3 && version != 4)
		return -EINVAL;
	const uint8_t *aug = r.p;
	const uint8_t *nul = memchr(r.p, 0, (size_t)(r.end - r.p));
	if (!nul)
		return -EINVAL;
	r.p = nul + 1;
	if (aug[0] == 'e' && aug[1] == 'h') /* ancient GCC "eh": a pointer follows */
		rd_u(&r, 8);
	if (version == 4) {
		uint8_t addr_size = (uint8_t)rd_u(&r, 1);
		rd_u(&r, 1); /* segment size */
		if (addr_size != 8)
			return -EINVAL;
	}
	c->code_align = rd_uleb(&r);
	c->data_align = rd_sleb(&r);
	uint64_t ra = version == 1 ? rd_u(&r, 1) : rd_uleb(&r);
	if (ra >= CFI_NREGS)
		return -EINVAL;
	c->ra_reg = (uint8_t)ra;
	if (aug[0] == 'z') {
		c->has_z = true;
		uint64_t alen = rd_uleb(&r);
		if (r.bad || alen > (uint64_t)(r.end - r.p))
			return -EINVAL;
		struct rd a = { t->data, r.p, r.p + alen, false };
		for (const uint8_t *ch = aug + 1; *ch; ch++) {
			switch (*ch) {
			case 'R':
				c->fde_enc = (uint8_t)rd_u(&a, 1);
				break;
			case 'P': {
				uint8_t enc = (uint8_t)rd_u(&a, 1);
				rd_ptr(&a, enc & 0x7f, 0, false);
				break;
			}
			case 'L':
				rd_u(&a, 1);
				break;
			case 'S':
				c->signal_frame = true;
				break;
			default:
				break; /* unknown letters: the length lets us skip them */
			}
		}
		r.p += alen;
	} else if (aug[0] != '\0' && !(aug[0] == 'e' && aug[1] == 'h')) {
		return -EINVAL; /* unknown augmentation without a length: cannot parse */
	}
	if (r.bad)
		return -EINVAL;
	c->insn_off = (uint32_t)(r.p - t->data);
	c->insn_len = (uint32_t)(end - r.p);
	return 0;
}

/* A total order (start, then the longer first, then section order), so
 * the index does not depend on the sort's handling of equal keys. */
static inline bool fde_less(const struct fde_ent *x, const struct fde_ent *y)
{
	if (x->start != y->start)
		return x->start < y->start;
	if (x->end != y->end)
		return x->end > y->end;
	return x->insn_off < y->insn_off;
}

static inline uint64_t fde_start(const struct fde_ent *f)
{
	return f->start;
}

RADIX_DEFINE(sort_by_start, struct fde_ent, fde_start)

/* FDEs sorted by fde_less (a big binary has 50,000, often far from
 * sorted): by start (a radix sort), then each run of one start (rare) by
 * the rest of fde_less. */
static void sort_fdes(struct fde_ent *v, size_t n)
{
	sort_by_start(v, n);
	for (size_t i = 1; i < n; i++) {
		struct fde_ent x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1].start == x.start && fde_less(&x, &v[j - 1]); j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Keep FDEs that do not overlap one kept before them (sorted order):
 * well-formed CFI has no overlaps, and without them the binary search
 * finds the one FDE that covers a pc. */
static void drop_overlaps(struct cfi_table *t)
{
	size_t k = 0;
	for (size_t i = 0; i < t->fdes.n; i++) {
		if (k && t->fdes.v[i].start < t->fdes.v[k - 1].end)
			continue;
		t->fdes.v[k++] = t->fdes.v[i];
	}
	t->fdes.n = k;
}

/* Index an FDE covering [pc, pc + range) whose instructions are [insn,
 * end); an empty or wrapping range is skipped. */
static void add_fde(struct cfi_table *t, uint64_t pc, uint64_t range, size_t ci,
		    const uint8_t *insn, const uint8_t *end)
{
	if (!range || pc + range <= pc)
		return;
	HVEC_RESERVE(&t->fdes, t->fdes.n + 1);
	struct fde_ent *f = &t->fdes.v[t->fdes.n++];
	f->start = pc;
	f->end = pc + range;
	f->cie = (uint32_t)ci;
	f->insn_off = (uint32_t)(insn - t->data);
	f->insn_len = (uint32_t)(end - insn);
}

/*
 * The usual .eh_frame FDE (GCC's and LLVM's): pc-relative signed 4-byte
 * pointers (DW_EH_PE_pcrel | sdata4) and a one-byte augmentation length,
 * read directly: what the general path (rd_ptr, rd_uleb) gives for it,
 * at a fifth of the instructions (a big binary has 50,000 FDEs). False
 * for any other form: the general path reads it.
 */
static bool fde_fast(struct cfi_table *t, const struct cie_ent *c, const uint8_t *p,
		     const uint8_t *end, size_t ci)
{
	if (c->fde_enc != 0x1b || !c->has_z || end - p < 9 || p[8] >= 0x80 || p[8] > end - p - 9)
		return false;
	uint64_t pc = t->vaddr + (uint64_t)(p - t->data) + (uint64_t)(int64_t)(int32_t)le32(p);
	uint64_t range = (uint64_t)(int64_t)(int32_t)le32(p + 4);
	add_fde(t, pc, range, ci, p + 9 + p[8], end);
	return true;
}

static void initial_rows(struct cfi_table *t);

struct cfi_table *cfi_table_build(const uint8_t *data, size_t len, uint64_t vaddr, bool debug_frame)
{
	struct cfi_table *t = xcalloc(1, sizeof(*t));
	t->data = data;
	t->len = len > UINT32_MAX ? UINT32_MAX : len;
	t->vaddr = vaddr;
	if (t->len / FDE_MIN_BYTES * sizeof(struct fde_ent) >= HUGEBUF_MIN) /* a large table: */
		HVEC_RESERVE(&t->fdes, t->len / FDE_MIN_BYTES); /* in huge pages, never copied */
	struct rd r = { data, data, data + t->len, false };
	while (!r.bad && r.p < r.end) {
		size_t start = (size_t)(r.p - data);
		uint64_t length = rd_u(&r, 4);
		if (r.bad)
			break;
		if (length == 0) {
			if (!debug_frame)
				break; /* .eh_frame terminator */
			continue;
		}
		if (length == 0xffffffff)
			break; /* 64-bit DWARF: not produced for x86_64 CFI; stop */
		if (length > (uint64_t)(r.end - r.p) || length < 4)
			break; /* past the section, or too short for its CIE id */
		const uint8_t *end = r.p + length;
		size_t id_pos = (size_t)(r.p - data);
		uint32_t id = (uint32_t)rd_u(&r, 4);
		bool is_cie = debug_frame ? id == 0xffffffff : id == 0;
		if (is_cie) {
			struct cie_ent c;
			if (parse_cie(t, (size_t)(r.p - data), end, debug_frame, &c) == 0) {
				c.offset = (uint32_t)start;
				VEC_PUSH(&t->cies, c);
			}
		} else {
			/* The CIE: .eh_frame counts back from the id field; .debug_frame
			 * gives a section offset. */
			uint64_t cie_off = debug_frame ? id : (uint64_t)id_pos - id;
			size_t ci = t->cies.n;
			for (size_t i = t->cies.n; i-- > 0;) {
				if (t->cies.v[i].offset == cie_off) {
					ci = i;
					break;
				}
			}
			if (ci == t->cies.n && cie_off < start) {
				/* A CIE we have not kept (bad), or one placed after: try to parse it. */
				struct rd cr = { data, data + cie_off, r.end, false };
				uint64_t clen = rd_u(&cr, 4);
				if (!cr.bad && clen >= 4 && clen != 0xffffffff &&
				    clen <= (uint64_t)(cr.end - cr.p)) {
					rd_u(&cr, 4);
					struct cie_ent c;
					if (parse_cie(t, (size_t)(cr.p - data), data + cie_off + 4 + clen,
						      debug_frame, &c) == 0) {
						c.offset = (uint32_t)cie_off;
						VEC_PUSH(&t->cies, c);
						ci = t->cies.n - 1;
					}
				}
			}
			/* The usual form read directly (fde_fast), any other here. */
			if (ci < t->cies.n &&
			    (debug_frame || !fde_fast(t, &t->cies.v[ci], r.p, end, ci))) {
				const struct cie_ent *c = &t->cies.v[ci];
				uint8_t enc = debug_frame ? 0x00 : c->fde_enc;
				struct rd fr = { data, r.p, end, false };
				uint64_t pc = rd_ptr(&fr, enc, at_vaddr(t, &fr), true);
				uint64_t range = rd_ptr(&fr, enc & 0x0f, 0, false);
				if (c->has_z) {
					uint64_t alen = rd_uleb(&fr);
					if (alen > (uint64_t)(fr.end - fr.p))
						fr.bad = true;
					else
						fr.p += alen;
				}
				if (!fr.bad)
					add_fde(t, pc, range, ci, fr.p, end);
			}
		}
		r.p = end;
	}
	sort_fdes(t->fdes.v, t->fdes.n);
	drop_overlaps(t);
	initial_rows(t);
	return t;
}

void cfi_table_free(struct cfi_table *t)
{
	if (!t)
		return;
	HVEC_FREE(&t->fdes);
	VEC_FREE(&t->cies);
	free(t->cie_rows);
	free(t->cie_errs);
	free(t);
}

size_t cfi_table_count(const struct cfi_table *t)
{
	return t->fdes.n;
}

void cfi_table_fde(const struct cfi_table *t, size_t i, uint64_t *start, uint64_t *end)
{
	*start = t->fdes.v[i].start;
	*end = t->fdes.v[i].end;
}

/* ---- CFA programs ---- */

/* A factored offset times the data alignment factor, wrapping as the
 * two's-complement machine does (the file may ask for any product; signed
 * overflow would be undefined). */
static int64_t scale(uint64_t v, int64_t align)
{
	return (int64_t)(v * (uint64_t)align);
}

static int run(const struct cfi_table *t, const struct cie_ent *c, uint32_t off, uint32_t len,
	       uint64_t loc, uint64_t pc, struct cfi_row *row, const struct cfi_row *initial,
	       bool fde_part)
{
	struct rd r = { t->data, t->data + off, t->data + off + len, false };
	struct cfi_row stack[MAX_STATE_DEPTH];
	size_t depth = 0;
	for (unsigned ops = 0; r.p < r.end; ops++) {
		if (ops >= MAX_CFA_OPS)
			return -EBADMSG;
		uint8_t op = (uint8_t)rd_u(&r, 1);
		uint8_t hi = op & 0xc0, lo = op & 0x3f;
		uint64_t reg, delta;
		int64_t soff;
		if (hi == 0x40) { /* advance_loc */
			delta = lo * c->code_align;
			goto advance;
		}
		if (hi == 0x80) { /* offset */
			reg = lo;
			soff = scale(rd_uleb(&r), c->data_align);
			goto set_offset;
		}
		if (hi == 0xc0) { /* restore */
			if (lo < CFI_NREGS && initial)
				row->regs[lo] = initial->regs[lo];
			else if (lo < CFI_NREGS)
				row->regs[lo].kind = CFI_RULE_SAME;
			continue;
		}
		switch (op) {
		case 0x00: /* nop */
			continue;
		case 0x01: { /* set_loc */
			uint64_t nl = rd_ptr(&r, c->fde_enc, at_vaddr(t, &r), true);
			if (fde_part && nl > pc)
				return r.bad ? -EBADMSG : 0;
			loc = nl;
			continue;
		}
		case 0x02:
			delta = rd_u(&r, 1) * c->code_align;
			goto advance;
		case 0x03:
			delta = rd_u(&r, 2) * c->code_align;
			goto advance;
		case 0x04:
			delta = rd_u(&r, 4) * c->code_align;
			goto advance;
		case 0x05: /* offset_extended */
			reg = rd_uleb(&r);
			soff = scale(rd_uleb(&r), c->data_align);
			goto set_offset;
		case 0x06: /* restore_extended */
			reg = rd_uleb(&r);
			if (reg < CFI_NREGS)
				row->regs[reg] = initial ? initial->regs[reg] : (struct cfi_rule){ 0 };
			continue;
		case 0x07: /* undefined */
			reg = rd_uleb(&r);
			if (reg < CFI_NREGS)
				row->regs[reg] = (struct cfi_rule){ .kind = CFI_RULE_UNDEF };
			continue;
		case 0x08: /* same_value */
			reg = rd_uleb(&r);
			if (reg < CFI_NREGS)
				row->regs[reg] = (struct cfi_rule){ .kind = CFI_RULE_EXPLICIT_SAME };
			continue;
		case 0x09: { /* register */
			reg = rd_uleb(&r);
			uint64_t r2 = rd_uleb(&r);
			if (reg < CFI_NREGS && r2 < CFI_NREGS)
				row->regs[reg] = (struct cfi_rule){ .kind = CFI_RULE_REG, .reg = (uint8_t)r2 };
			continue;
		}
		case 0x0a: /* remember_state */
			if (depth == MAX_STATE_DEPTH)
				return -EBADMSG;
			stack[depth++] = *row;
			continue;
		case 0x0b: /* restore_state */
			if (depth == 0)
				return -EBADMSG;
			{
				/* The CFA rule is not part of the remembered register state in
				 * practice GCC relies on it being restored too: restore all. */
				*row = stack[--depth];
			}
			continue;
		case 0x0c: /* def_cfa */
			reg = rd_uleb(&r);
			row->cfa_is_expr = false;
			row->cfa_reg = reg < 255 ? (uint8_t)reg : 255;
			row->cfa_off = (int64_t)rd_uleb(&r);
			continue;
		case 0x0d: /* def_cfa_register */
			reg = rd_uleb(&r);
			row->cfa_is_expr = false;
			row->cfa_reg = reg < 255 ? (uint8_t)reg : 255;
			continue;
		case 0x0e: /* def_cfa_offset */
			row->cfa_off = (int64_t)rd_uleb(&r);
			continue;
		case 0x0f: { /* def_cfa_expression */
			uint64_t n = rd_uleb(&r);
			if (n > (uint64_t)(r.end - r.p))
				return -EBADMSG;
			row->cfa_is_expr = true;
			row->cfa_expr = r.p;
			row->cfa_expr_len = (size_t)n;
			r.p += n;
			continue;
		}
		case 0x10:   /* expression */
		case 0x16: { /* val_expression */
			reg = rd_uleb(&r);
			uint64_t n = rd_uleb(&r);
			if (n > (uint64_t)(r.end - r.p))
				return -EBADMSG;
			if (reg < CFI_NREGS)
				row->regs[reg] = (struct cfi_rule){
					.kind = op == 0x10 ? CFI_RULE_EXPR : CFI_RULE_VAL_EXPR,
					.expr = r.p,
					.expr_len = (size_t)n,
				};
			r.p += n;
			continue;
		}
		case 0x11: /* offset_extended_sf */
			reg = rd_uleb(&r);
			soff = scale((uint64_t)rd_sleb(&r), c->data_align);
			goto set_offset;
		case 0x12: /* def_cfa_sf */
			reg = rd_uleb(&r);
			row->cfa_is_expr = false;
			row->cfa_reg = reg < 255 ? (uint8_t)reg : 255;
			row->cfa_off = scale((uint64_t)rd_sleb(&r), c->data_align);
			continue;
		case 0x13: /* def_cfa_offset_sf */
			row->cfa_off = scale((uint64_t)rd_sleb(&r), c->data_align);
			continue;
		case 0x14: /* val_offset */
			reg = rd_uleb(&r);
			soff = scale(rd_uleb(&r), c->data_align);
			if (reg < CFI_NREGS)
				row->regs[reg] = (struct cfi_rule){ .kind = CFI_RULE_VAL_OFFSET, .off = soff };
			continue;
		case 0x15: /* val_offset_sf */
			reg = rd_uleb(&r);
			soff = scale((uint64_t)rd_sleb(&r), c->data_align);
			if (reg < CFI_NREGS)
				row->regs[reg] = (struct cfi_rule){ .kind = CFI_RULE_VAL_OFFSET, .off = soff };
			continue;
		case 0x2e: /* GNU_args_size */
			rd_uleb(&r);
			continue;
		case 0x2f: /* GNU_negative_offset_extended */
			reg = rd_uleb(&r);
			soff = scale(-rd_uleb(&r), c->data_align);
			goto set_offset;
		default:
			return -EBADMSG;
		}
	advance:
		if (r.bad)
			return -EBADMSG;
		if (fde_part && loc + delta > pc)
			return 0; /* the row in force at pc is complete */
		loc += delta;
		continue;
	set_offset:
		if (reg < CFI_NREGS)
			row->regs[reg] = (struct cfi_rule){ .kind = CFI_RULE_OFFSET, .off = soff };
		continue;
	}
	return r.bad ? -EBADMSG : 0;
}

/* The row CIE i's initial instructions make in *row (they hold no
 * location that matters: only an FDE's instructions stop at a pc). */
static int cie_row(const struct cfi_table *t, size_t i, struct cfi_row *row)
{
	const struct cie_ent *c = &t->cies.v[i];
	memset(row, 0, sizeof(*row));
	row->signal_frame = c->signal_frame;
	return run(t, c, c->insn_off, c->insn_len, 0, 0, row, NULL, false);
}

/* Every CIE's initial row, made once, unless there are more CIEs than
 * CFI_CIE_ROWS_MAX (then each lookup makes its own). */
static void initial_rows(struct cfi_table *t)
{
	if (!t->cies.n || t->cies.n > CFI_CIE_ROWS_MAX)
		return;
	t->cie_rows = xcalloc(t->cies.n, sizeof(*t->cie_rows));
	t->cie_errs = xcalloc(t->cies.n, sizeof(*t->cie_errs));
	for (size_t i = 0; i < t->cies.n; i++)
		t->cie_errs[i] = cie_row(t, i, &t->cie_rows[i]);
}

int cfi_find_row(const struct cfi_table *t, uint64_t pc, struct cfi_row *row)
{
	size_t lo = 0, hi = t->fdes.n;
	while (lo < hi) { /* last FDE with start <= pc */
		size_t mid = (lo + hi) / 2;
		if (t->fdes.v[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc >= t->fdes.v[lo - 1].end)
		return -ENOENT;
	const struct fde_ent *f = &t->fdes.v[lo - 1];
	const struct cie_ent *c = &t->cies.v[f->cie];
	struct cfi_row own;
	const struct cfi_row *initial = t->cie_rows ? &t->cie_rows[f->cie] : &own;
	int err = t->cie_rows ? t->cie_errs[f->cie] : cie_row(t, f->cie, &own);
	if (err)
		return err;
	*row = *initial;
	err = run(t, c, f->insn_off, f->insn_len, f->start, pc, row, initial, true);
	if (err)
		return err;
	if (row->cfa_is_expr ? !row->cfa_expr : row->cfa_reg >= CFI_NREGS)
		return -EBADMSG;
	return 0;
}

/* ---- expressions ---- */

int cfi_eval(const uint8_t *expr, size_t len, const uint64_t *regs, uint32_t valid,
	     bool push_initial, uint64_t initial, cfi_read_fn read_mem, void *ctx, uint64_t *result)
{
	uint64_t st[MAX_EXPR_STACK];
	size_t sp = 0;
	struct rd r = { expr, expr, expr + len, false };
#define PUSH(v)                                                                                   \
	do {                                                                                      \
		uint64_t v_ = (v);                                                                \
		if (sp == MAX_EXPR_STACK)                                                         \
			return -EINVAL;                                                           \
		st[sp++] = v_;                                                                    \
	} while (0)
#define NEED(n)                                                                                   \
	do {                                                                                      \
		if (sp < (n))                                                                     \
			return -EINVAL;                                                           \
	} while (0)
	if (push_initial)
		PUSH(initial);
	for (unsigned ops = 0; r.p < r.end; ops++) {
		if (ops >= MAX_EXPR_OPS)
			return -EINVAL;
		uint8_t op = (uint8_t)rd_u(&r, 1);
		uint64_t a, b;
		if (op >= 0x30 && op <= 0x4f) { /* lit0..31 */
			PUSH((uint64_t)(op - 0x30));
			continue;
		}
		if (op >= 0x50 && op <= 0x6f) { /* reg0..31: value of register */
			unsigned reg = op - 0x50;
			if (reg >= CFI_NREGS || !(valid & (1u << reg)))
				return -EINVAL;
			PUSH(regs[reg]);
			continue;
		}
		if (op >= 0x70 && op <= 0x8f) { /* breg0..31 */
			unsigned reg = op - 0x70;
			int64_t off = rd_sleb(&r);
			if (reg >= CFI_NREGS || !(valid & (1u << reg)))
				return -EINVAL;
			PUSH(regs[reg] + (uint64_t)off);
			continue;
		}
		switch (op) {
		case 0x03: PUSH(rd_u(&r, 8)); break;                          /* addr */
		case 0x06: NEED(1); if (!read_mem(ctx, st[sp - 1], &st[sp - 1])) return -EINVAL; break; /* deref */
		case 0x08: PUSH(rd_u(&r, 1)); break;                          /* const1u */
		case 0x09: PUSH((uint64_t)(int64_t)(int8_t)rd_u(&r, 1)); break;
		case 0x0a: PUSH(rd_u(&r, 2)); break;
		case 0x0b: PUSH((uint64_t)(int64_t)(int16_t)rd_u(&r, 2)); break;
		case 0x0c: PUSH(rd_u(&r, 4)); break;
		case 0x0d: PUSH((uint64_t)(int64_t)(int32_t)rd_u(&r, 4)); break;
		case 0x0e: PUSH(rd_u(&r, 8)); break;
		case 0x0f: PUSH(rd_u(&r, 8)); break;
		case 0x10: PUSH(rd_uleb(&r)); break;                          /* constu */
		case 0x11: PUSH((uint64_t)rd_sleb(&r)); break;                /* consts */
		case 0x12: NEED(1); PUSH(st[sp - 1]); break;                  /* dup */
		case 0x13: NEED(1); sp--; break;                              /* drop */
		case 0x14: NEED(2); PUSH(st[sp - 2]); break;                  /* over */
		case 0x15: a = rd_u(&r, 1); NEED(a + 1); PUSH(st[sp - 1 - a]); break; /* pick */
		case 0x16: NEED(2); a = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = a; break; /* swap */
		case 0x17: NEED(3); a = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = st[sp - 3]; st[sp - 3] = a; break; /* rot */
		case 0x19: NEED(1); if ((int64_t)st[sp - 1] < 0) st[sp - 1] = -st[sp - 1]; break; /* abs (INT64_MIN stays) */
		case 0x1a: NEED(2); b = st[--sp]; st[sp - 1] &= b; break;   /* and */
		case 0x1b: /* div, signed; INT64_MIN / -1 wraps instead of trapping */
			NEED(2); b = st[--sp];
			if (!b)
				return -EINVAL;
			st[sp - 1] = b == UINT64_MAX ? -st[sp - 1] : (uint64_t)((int64_t)st[sp - 1] / (int64_t)b);
			break;
		case 0x1c: NEED(2); b = st[--sp]; st[sp - 1] -= b; break;   /* minus */
		case 0x1d: NEED(2); b = st[--sp]; if (!b) return -EINVAL; st[sp - 1] %= b; break; /* mod */
		case 0x1e: NEED(2); b = st[--sp]; st[sp - 1] *= b; break;   /* mul */
		case 0x1f: NEED(1); st[sp - 1] = -st[sp - 1]; break;          /* neg */
		case 0x20: NEED(1); st[sp - 1] = ~st[sp - 1]; break;          /* not */
		case 0x21: NEED(2); b = st[--sp]; st[sp - 1] |= b; break;   /* or */
		case 0x22: NEED(2); b = st[--sp]; st[sp - 1] += b; break;   /* plus */
		case 0x23: NEED(1); st[sp - 1] += rd_uleb(&r); break;       /* plus_uconst */
		case 0x24: NEED(2); b = st[--sp]; st[sp - 1] = b < 64 ? st[sp - 1] << b : 0; break; /* shl */
		case 0x25: NEED(2); b = st[--sp]; st[sp - 1] = b < 64 ? st[sp - 1] >> b : 0; break; /* shr */
		case 0x26: NEED(2); b = st[--sp]; st[sp - 1] = (uint64_t)((int64_t)st[sp - 1] >> (b < 63 ? b : 63)); break; /* shra */
		case 0x27: NEED(2); b = st[--sp]; st[sp - 1] ^= b; break;   /* xor */
		case 0x29: NEED(2); b = st[--sp]; st[sp - 1] = st[sp - 1] == b; break; /* eq */
		case 0x2a: NEED(2); b = st[--sp]; st[sp - 1] = (int64_t)st[sp - 1] >= (int64_t)b; break; /* ge */
		case 0x2b: NEED(2); b = st[--sp]; st[sp - 1] = (int64_t)st[sp - 1] > (int64_t)b; break; /* gt */
		case 0x2c: NEED(2); b = st[--sp]; st[sp - 1] = (int64_t)st[sp - 1] <= (int64_t)b; break; /* le */
		case 0x2d: NEED(2); b = st[--sp]; st[sp - 1] = (int64_t)st[sp - 1] < (int64_t)b; break; /* lt */
		case 0x2e: NEED(2); b = st[--sp]; st[sp - 1] = st[sp - 1] != b; break; /* ne */
		case 0x2f:   /* skip */
		case 0x28: { /* bra */
			int16_t off = (int16_t)rd_u(&r, 2);
			bool take = true;
			if (op == 0x28) {
				NEED(1);
				take = st[--sp] != 0;
			}
			if (take) {
				if ((off < 0 && (size_t)-off > (size_t)(r.p - expr)) ||
				    (off > 0 && (size_t)off > (size_t)(r.end - r.p)))
					return -EINVAL;
				r.p += off;
			}
			break;
		}
		case 0x90: { /* regx */
			uint64_t reg = rd_uleb(&r);
			if (reg >= CFI_NREGS || !(valid & (1u << reg)))
				return -EINVAL;
			PUSH(regs[reg]);
			break;
		}
		case 0x92: { /* bregx */
			uint64_t reg = rd_uleb(&r);
			int64_t off = rd_sleb(&r);
			if (reg >= CFI_NREGS || !(valid & (1u << reg)))
				return -EINVAL;
			PUSH(regs[reg] + (uint64_t)off);
			break;
		}
		case 0x96: /* nop */
			break;
		default:
			return -EINVAL;
		}
		if (r.bad)
			return -EINVAL;
	}
	NEED(1);
	*result = st[sp - 1];
	return 0;
#undef PUSH
#undef NEED
}
