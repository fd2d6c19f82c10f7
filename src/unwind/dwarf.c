/*
 * dwarf: the CFI unwinder over sampled registers and stack bytes (unwind,
 * L4). See dwarf.h.
 */
#include "unwind/dwarf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hugebuf.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "dso/dso.h"

/* perf register bit → DWARF number (x86_64); -1 for registers CFI never uses. */
static const int8_t perf_to_dwarf[24] = {
	0, 3, 2, 1, 4, 5, 6, 7, /* AX BX CX DX SI DI BP SP */
	16, -1, -1, -1, -1, -1, -1, -1, /* IP FLAGS CS SS DS ES FS GS */
	8, 9, 10, 11, 12, 13, 14, 15, /* R8..R15 */
};

#define DW_SP 7
#define DW_BP 6
/* Callee-saved registers (SysV x86_64) keep their value when CFI says nothing. */
#define CALLEE_SAVED ((1u << 3) | (1u << 6) | (1u << 12) | (1u << 13) | (1u << 14) | (1u << 15))

struct stackmem {
	const uint8_t *bytes;
	uint64_t base;  /* the copy holds [base, base + size) */
	uint64_t reads; /* size - 7: the offsets an 8-byte read may start at (0 if none) */
	bool ran_out;
};

static struct stackmem stackmem_of(const uint8_t *bytes, uint64_t base, uint64_t size)
{
	return (struct stackmem){ bytes, base, size >= 8 ? size - 7 : 0, false };
}

static bool read_stack(void *ctx, uint64_t addr, uint64_t *val)
{
	struct stackmem *s = ctx;
	if (addr < s->base || addr - s->base >= s->reads) {
		s->ran_out = true;
		return false;
	}
	memcpy(val, s->bytes + (addr - s->base), 8);
	return true;
}

/* Whether 8-byte reads at every address of [lo, hi] stay inside the copy. */
static bool in_copy(const struct stackmem *s, uint64_t lo, uint64_t hi)
{
	return lo <= hi && lo >= s->base && hi - s->base < s->reads;
}

void unwinder_init(struct unwinder *u, struct machine *m)
{
	memset(u, 0, sizeof(*u));
	u->m = m;
	hashmap_init(&u->tables);
}

void unwinder_set_arch(struct unwinder *u, const char *arch)
{
	free(u->foreign_arch);
	u->foreign_arch = arch && *arch && strcmp(arch, "x86_64") ? xstrdup(arch) : NULL;
}

void unwinder_release(struct unwinder *u)
{
	free(u->foreign_arch);
	u->foreign_arch = NULL;
	unwinder_forget(u);
	hashmap_release(&u->tables);
}

void unwinder_forget_dso(struct unwinder *u, uint32_t id)
{
	uint64_t v;
	if (u->memo_dso == id + 1)
		u->memo_dso = 0;
	if (!hashmap_get(&u->tables, id, &v) || !v)
		return;
	cfi_table_free(u->cfi.v[v - 1]);
	u->cfi.v[v - 1] = NULL;
	hashmap_put(&u->tables, id, 0);
}

void unwinder_forget(struct unwinder *u)
{
	for (size_t i = 0; i < u->cfi.n; i++)
		cfi_table_free(u->cfi.v[i]);
	VEC_FREE(&u->cfi);
	hashmap_release(&u->tables);
	hashmap_init(&u->tables);
	hugebuf_free(u->rows, u->rows_mapped);
	u->rows = NULL;
	u->rows_mask = u->nrows = u->rows_mapped = 0;
	u->memo_dso = 0;
}

/* The CFI of a dso (eh_frame first, else debug_frame), built on first use. */
static const struct cfi_table *table_for_dso(struct unwinder *u, uint32_t dso_id,
					     const struct elf_image **img_out);

/* table_for_dso, remembered for the last dso asked (a dso's image and
 * table never change once made). */
static const struct cfi_table *table_for(struct unwinder *u, uint32_t dso_id,
					 const struct elf_image **img_out)
{
	if (u->memo_dso != dso_id + 1) {
		u->memo_t = table_for_dso(u, dso_id, &u->memo_img);
		u->memo_dso = dso_id + 1;
	}
	*img_out = u->memo_img;
	return u->memo_t;
}

static const struct cfi_table *table_for_dso(struct unwinder *u, uint32_t dso_id,
					     const struct elf_image **img_out)
{
	struct dso_set *ds = u->m->dsos;
	struct dso *d = dso_set_get(ds, dso_id);
	const struct elf_image *img = dso_image(ds, d);
	*img_out = img;
	if (!img)
		return NULL;
	bool inserted;
	uint64_t *slot = hashmap_slot(&u->tables, dso_id, 0, &inserted);
	if (!inserted)
		return *slot ? u->cfi.v[*slot - 1] : NULL;
	struct elf_section sec;
	struct cfi_table *t = NULL;
	if (elf_image_section(img, ".eh_frame", &sec))
		t = cfi_table_build(sec.data, sec.size, sec.vaddr, false);
	if (!t || !cfi_table_count(t)) {
		const struct elf_image *dbg = dso_symbols(ds, d);
		if (dbg && elf_image_section(dbg, ".debug_frame", &sec)) {
			cfi_table_free(t);
			t = cfi_table_build(sec.data, sec.size, sec.vaddr, true);
		} else if (elf_image_section(img, ".debug_frame", &sec)) {
			cfi_table_free(t);
			t = cfi_table_build(sec.data, sec.size, sec.vaddr, true);
		}
	}
	/* The index is built: the section pages it read can go (rows read
	 * their FDEs again on demand). A debug file is only looked for when
	 * the binary has no .eh_frame: the readahead thread's unwinder would
	 * otherwise search, open and parse every one the symbolizer does. */
	elf_image_drop_pages(img);
	if (d->dbg_tried && d->symimg && d->symimg != img)
		elf_image_drop_pages(d->symimg);
	if (t) {
		VEC_PUSH(&u->cfi, t);
		*hashmap_slot(&u->tables, dso_id, 0, NULL) = u->cfi.n;
	}
	return t;
}

/* Rows are cached per (dso, pc): a profile revisits the same return
 * addresses over and over. Bounded: past the cap, rows are recomputed. */
#define ROW_CACHE_MAX DWARF_ROW_CACHE_MAX

_Static_assert(sizeof(struct cfi_crow) == 64, "a cached row fills one cache line");

/* A compact row's "saved at CFA + off" rules moved first (the order of
 * its rules does not matter: each sets its own register from the
 * callee's), with the range of their offsets. */
static void saved_first(struct cfi_crow *c)
{
	struct cfi_crow_op rest[CFI_CROW_OPS];
	unsigned nrest = 0;
	c->nsaved = 0;
	for (unsigned i = 0; i < c->nops; i++) {
		if (c->ops[i].rule >> 5 != CFI_RULE_OFFSET) {
			rest[nrest++] = c->ops[i];
			continue;
		}
		int16_t off = c->ops[i].off;
		if (!c->nsaved || off < c->lo_off)
			c->lo_off = off;
		if (!c->nsaved || off > c->hi_off)
			c->hi_off = off;
		c->ops[c->nsaved++] = c->ops[i];
	}
	memcpy(&c->ops[c->nsaved], rest, nrest * sizeof(rest[0]));
}

static bool compact(const struct cfi_row *row, struct cfi_crow *c)
{
	if (row->cfa_is_expr || row->cfa_off != (int32_t)row->cfa_off)
		return false;
	memset(c, 0, sizeof(*c));
	c->cfa_off = (int32_t)row->cfa_off;
	c->cfa_reg = row->cfa_reg;
	c->direct = 1;
	c->signal_frame = row->signal_frame;
	c->ra_kind = (uint8_t)row->regs[CFI_RA].kind;
	c->sp_kind = (uint8_t)row->regs[DW_SP].kind;
	for (unsigned r = 0; r < CFI_NREGS; r++) {
		const struct cfi_rule *rule = &row->regs[r];
		switch (rule->kind) {
		case CFI_RULE_SAME: /* plain_rule: callee-saved registers only */
			if (CALLEE_SAVED & (1u << r))
				c->keep |= 1u << r;
			continue;
		case CFI_RULE_EXPLICIT_SAME:
			c->keep |= 1u << r;
			continue;
		case CFI_RULE_REG:
			if (rule->reg >= CFI_NREGS)
				continue; /* never known: no value */
			break;
		case CFI_RULE_OFFSET:
		case CFI_RULE_VAL_OFFSET:
			break;
		case CFI_RULE_EXPR:
		case CFI_RULE_VAL_EXPR:
			return false;
		default:
			continue; /* undefined: no value */
		}
		if (c->nops == CFI_CROW_OPS || rule->off != (int16_t)rule->off)
			return false;
		c->ops[c->nops].off = (int16_t)rule->off;
		c->ops[c->nops].reg = (uint8_t)r;
		unsigned src = rule->kind == CFI_RULE_REG ? rule->reg : 0;
		if (rule->kind == CFI_RULE_REG)
			c->direct = 0;
		c->ops[c->nops].rule = (uint8_t)(rule->kind << 5 | src);
		c->nops++;
	}
	saved_first(c);
	return true;
}

/* The slot of (dso, pc) in the row table: its row, or the free slot
 * where it goes (Fibonacci hashing; the table is never full). */
static struct cfi_crow *row_slot(struct cfi_crow *rows, size_t mask, uint32_t dso, uint64_t pc)
{
	size_t i = (size_t)(((pc ^ (uint64_t)dso << 40) * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
	while (rows[i].dso && (rows[i].dso != dso + 1 || rows[i].pc != pc))
		i = (i + 1) & mask;
	return &rows[i];
}

/* Room for one more row: the table doubles past 3/4 full. */
static void rows_grow(struct unwinder *u)
{
	size_t cap = u->rows ? u->rows_mask + 1 : 0;
	if (cap && (u->nrows + 1) * 4 <= cap * 3)
		return;
	size_t ncap = cap ? cap * 2 : 1024, mapped;
	struct cfi_crow *nr = hugebuf_zalloc(ncap, sizeof(*nr), &mapped);
	for (size_t i = 0; i < cap; i++)
		if (u->rows[i].dso)
			*row_slot(nr, ncap - 1, u->rows[i].dso - 1, u->rows[i].pc) = u->rows[i];
	hugebuf_free(u->rows, u->rows_mapped);
	u->rows = nr;
	u->rows_mapped = mapped;
	u->rows_mask = ncap - 1;
}

/* The row at 'pc': a cached compact row in *cached (valid until the next
 * call), or else the full row in *row with *cached NULL. */
static int find_row(struct unwinder *u, const struct cfi_table *t, uint32_t dso, uint64_t pc,
		    struct cfi_row *row, const struct cfi_crow **cached)
{
	*cached = NULL;
	if (u->rows) {
		const struct cfi_crow *c = row_slot(u->rows, u->rows_mask, dso, pc);
		if (c->dso) {
			u->row_hits++;
			*cached = c;
			return 0;
		}
	}
	u->row_misses++;
	int err = cfi_find_row(t, pc, row);
	struct cfi_crow c;
	if (err || u->nrows >= ROW_CACHE_MAX || dso == UINT32_MAX || !compact(row, &c))
		return err;
	rows_grow(u);
	c.dso = dso + 1;
	c.pc = pc;
	*row_slot(u->rows, u->rows_mask, dso, pc) = c;
	u->nrows++;
	return 0;
}

/*
 * A register's value in the caller under a rule that needs no expression
 * (same value, offset or value-offset from the CFA, another register);
 * false when it has none (undefined, or what it needs is not known).
 */
static inline bool plain_rule(unsigned kind, unsigned r, unsigned reg, int64_t off, uint64_t cfa,
			      const uint64_t *regs, uint32_t valid, struct stackmem *mem, uint64_t *out)
{
	switch (kind) {
	case CFI_RULE_SAME:
		if (!(CALLEE_SAVED & (1u << r)))
			return false;
		/* fall through */
	case CFI_RULE_EXPLICIT_SAME:
		if (!(valid & (1u << r)))
			return false;
		*out = regs[r];
		return true;
	case CFI_RULE_OFFSET:
		return read_stack(mem, cfa + (uint64_t)off, out);
	case CFI_RULE_VAL_OFFSET:
		*out = cfa + (uint64_t)off;
		return true;
	case CFI_RULE_REG:
		if (reg >= CFI_NREGS || !(valid & (1u << reg)))
			return false;
		*out = regs[reg];
		return true;
	default:
		return false;
	}
}

/* A step with no return address: the outermost frame (-ENOENT), or
 * truncated when its rule needed a stack beyond the copy (-ERANGE). */
static int step_end(unsigned ra_kind, const struct stackmem *mem)
{
	return ra_kind != CFI_RULE_UNDEF && mem->ran_out ? -ERANGE : -ENOENT;
}

/*
 * The end of a step: without a return address the frame is the outermost
 * (-ENOENT), or truncated when its rule needed a stack beyond the copy
 * (-ERANGE); the caller's SP is the CFA (x86_64) unless CFI said
 * otherwise. Then the caller's registers replace regs.
 */
static int step_done(uint64_t *nregs, uint32_t nvalid, unsigned ra_kind, unsigned sp_kind,
		     uint64_t cfa, const struct stackmem *mem, uint64_t *regs, uint32_t *valid)
{
	if (!(nvalid & (1u << CFI_RA)))
		return step_end(ra_kind, mem);
	if (!(nvalid & (1u << DW_SP)) || sp_kind == CFI_RULE_SAME) {
		nregs[DW_SP] = cfa;
		nvalid |= 1u << DW_SP;
	}
	memcpy(regs, nregs, sizeof(uint64_t) * CFI_NREGS);
	*valid = nvalid;
	return 0;
}

/* One CFI step. Returns 0 and updates regs/valid, or -errno to stop. */
static int cfi_step(const struct cfi_row *row, uint64_t *regs, uint32_t *valid,
		    struct stackmem *mem)
{
	uint64_t cfa;
	if (row->cfa_is_expr) {
		if (cfi_eval(row->cfa_expr, row->cfa_expr_len, regs, *valid, false, 0, read_stack, mem,
			     &cfa))
			return -EINVAL;
	} else {
		if (!(*valid & (1u << row->cfa_reg)))
			return -EINVAL;
		cfa = regs[row->cfa_reg] + (uint64_t)row->cfa_off;
	}
	uint64_t nregs[CFI_NREGS];
	uint32_t nvalid = 0;
	for (unsigned r = 0; r < CFI_NREGS; r++) {
		const struct cfi_rule *rule = &row->regs[r];
		uint64_t v;
		bool ok;
		if (rule->kind == CFI_RULE_EXPR)
			ok = !cfi_eval(rule->expr, rule->expr_len, regs, *valid, true, cfa, read_stack, mem,
				       &v) &&
			     read_stack(mem, v, &v);
		else if (rule->kind == CFI_RULE_VAL_EXPR)
			ok = !cfi_eval(rule->expr, rule->expr_len, regs, *valid, true, cfa, read_stack, mem,
				       &v);
		else
			ok = plain_rule(rule->kind, r, rule->reg, rule->off, cfa, regs, *valid, mem, &v);
		if (ok) {
			nregs[r] = v;
			nvalid |= 1u << r;
		}
	}
	return step_done(nregs, nvalid, row->regs[CFI_RA].kind, row->regs[DW_SP].kind, cfa, mem, regs,
			 valid);
}

/* The end of a cached row's step, its values stored (step_done's rules;
 * on a stop, regs may hold some of the caller's values). */
static int crow_done(const struct cfi_crow *c, uint64_t cfa, uint32_t nvalid,
		     const struct stackmem *mem, uint64_t *regs, uint32_t *valid)
{
	if (!(nvalid & (1u << CFI_RA)))
		return step_end(c->ra_kind, mem);
	if (!(nvalid & (1u << DW_SP)) || c->sp_kind == CFI_RULE_SAME) {
		regs[DW_SP] = cfa;
		nvalid |= 1u << DW_SP;
	}
	*valid = nvalid;
	return 0;
}

/*
 * cfi_step() on a cached compact row: the same rules, the same result
 * (a compact row holds no expressions), with the kept registers copied
 * at once and only the rules that compute a value run.
 */
static int crow_step(const struct cfi_crow *c, uint64_t *regs, uint32_t *valid,
		     struct stackmem *mem)
{
	uint32_t v = *valid;
	if (!(v & (1u << c->cfa_reg)))
		return -EINVAL;
	uint64_t cfa = regs[c->cfa_reg] + (uint64_t)(int64_t)c->cfa_off;
	uint32_t nvalid = v & c->keep;
	if (c->direct) { /* no rule reads a register: store as they come */
		unsigned i = 0;
		if (c->nsaved && in_copy(mem, cfa + (uint64_t)(int64_t)c->lo_off,
					 cfa + (uint64_t)(int64_t)c->hi_off)) {
			/* every saved register inside the copy: read without checks */
			for (; i < c->nsaved; i++) {
				unsigned r = c->ops[i].reg;
				memcpy(&regs[r], mem->bytes + (cfa + (uint64_t)(int64_t)c->ops[i].off - mem->base), 8);
				nvalid |= 1u << r;
			}
		}
		for (; i < c->nops; i++) {
			unsigned r = c->ops[i].reg;
			if (plain_rule(c->ops[i].rule >> 5, r, 0, c->ops[i].off, cfa, regs, v, mem, &regs[r]))
				nvalid |= 1u << r;
		}
		return crow_done(c, cfa, nvalid, mem, regs, valid);
	}
	/* A rule reads the callee's registers: the values are all computed
	 * before any is stored. */
	uint64_t vals[CFI_CROW_OPS];
	uint32_t done = 0;
	for (unsigned i = 0; i < c->nops; i++) {
		unsigned rule = c->ops[i].rule;
		if (plain_rule(rule >> 5, c->ops[i].reg, rule & 31, c->ops[i].off, cfa, regs, v, mem,
			       &vals[i])) {
			nvalid |= 1u << c->ops[i].reg;
			done |= 1u << i;
		}
	}
	if (!(nvalid & (1u << CFI_RA)))
		return step_end(c->ra_kind, mem);
	for (unsigned i = 0; i < c->nops; i++)
		if (done & (1u << i))
			regs[c->ops[i].reg] = vals[i];
	return crow_done(c, cfa, nvalid, mem, regs, valid);
}

/* Frame-pointer step, where there is no CFI. */
static int fp_step(uint64_t *regs, uint32_t *valid, struct stackmem *mem)
{
	if (!(*valid & (1u << DW_BP)))
		return -EINVAL;
	uint64_t bp = regs[DW_BP], ra, nbp;
	if (bp & 7 || bp < regs[DW_SP] || !read_stack(mem, bp + 8, &ra) || !read_stack(mem, bp, &nbp))
		return -EINVAL;
	regs[CFI_RA] = ra;
	regs[DW_BP] = nbp;
	regs[DW_SP] = bp + 16;
	*valid = (1u << CFI_RA) | (1u << DW_BP) | (1u << DW_SP);
	return 0;
}

static void truncated(struct unwinder *u, struct unwind_stack *st)
{
	st->truncated = true;
	u->truncated++;
}

void dwarf_unwind_regs(struct unwinder *u, dwarf_lookup_fn lookup, void *ctx,
		       uint64_t regs[CFI_NREGS], uint32_t valid, const uint8_t *stack, uint64_t size,
		       struct unwind_stack *st)
{
	if (!(valid & (1u << CFI_RA)) || !(valid & (1u << DW_SP)))
		return;
	struct stackmem mem = stackmem_of(stack, regs[DW_SP], size);
	bool first = true, after_signal = false, same_sp = false;
	struct dwarf_where w = { 0 }; /* the last lookup's answer and its range */
	for (unsigned step = 0; step < UNWIND_MAX_FRAMES; step++) {
		uint64_t pc = regs[CFI_RA];
		/* Callers are looked up (and reported) inside the call instruction. */
		uint64_t at = first || after_signal ? pc : pc - 1;
		unwind_push(st, at, false);
		if (st->truncated) { /* the frame cap */
			u->truncated++;
			return;
		}
		first = false;
		if ((at < w.lo || at >= w.hi) && !lookup(ctx, at, &w))
			return;
		uint64_t old_sp = regs[DW_SP];
		int err = -ENOENT;
		struct cfi_row row;
		const struct cfi_crow *crow;
		mem.ran_out = false;
		if (w.t && find_row(u, w.t, w.key, at + w.delta, &row, &crow) == 0) {
			err = crow ? crow_step(crow, regs, &valid, &mem) : cfi_step(&row, regs, &valid, &mem);
			after_signal = crow ? crow->signal_frame != 0 : row.signal_frame;
			if (err == -ENOENT)
				return; /* the outermost frame */
			if (err == -ERANGE) {
				truncated(u, st);
				return;
			}
		}
		if (err) {
			u->no_cfi_steps++;
			mem.ran_out = false;
			err = fp_step(regs, &valid, &mem);
			if (err) {
				if (mem.ran_out)
					truncated(u, st);
				return;
			}
			u->fp_steps++;
			after_signal = false;
		}
		if (regs[CFI_RA] == 0)
			return;
		/* No progress: stop rather than loop. The SP may stay put once
		 * (a return address held in a register, as in __vfork after
		 * its pop), if the pc moves. */
		if (!after_signal && (regs[DW_SP] < old_sp ||
				      (regs[DW_SP] == old_sp && (same_sp || regs[CFI_RA] == pc))))
			return;
		same_sp = regs[DW_SP] == old_sp;
	}
	truncated(u, st); /* the frame cap */
}

/*
 * dwarf_lookup_fn over the process's recorded mappings. The machine does
 * not change while a stack is unwound, so an answer holds for every pc of
 * its range (a mapping's part in one PT_LOAD segment): frames of a stack
 * are mostly in one binary.
 */
struct sample_ctx {
	struct unwinder *u;
	uint32_t pid;
};

static bool lookup_map(void *ctx, uint64_t pc, struct dwarf_where *w)
{
	struct sample_ctx *c = ctx;
	const struct mapping *map = machine_find(c->u->m, c->pid, pc, false);
	if (!map)
		return false;
	const struct elf_image *img;
	w->key = map->dso;
	w->t = table_for(c->u, map->dso, &img);
	w->lo = w->hi = 0;
	uint64_t off = pc - map->start + map->pgoff, lo, hi, vaddr;
	if (!img) { /* no CFI anywhere in the mapping */
		w->lo = map->start;
		w->hi = map->end;
	} else if (elf_image_offset_segment(img, off, &vaddr, &lo, &hi)) {
		/* The mapping's pcs whose file offsets lie in [lo, hi) (none
		 * remembered if the offset wrapped: a corrupt pgoff). */
		if (off >= map->pgoff) {
			uint64_t span = map->end - map->start;
			w->lo = lo > map->pgoff ? map->start + (lo - map->pgoff) : map->start;
			w->hi = hi - map->pgoff < span ? map->start + (hi - map->pgoff) : map->end;
		}
		w->delta = vaddr - pc;
	} else {
		w->t = NULL;
	}
	return true;
}

static void unwind_user(struct unwinder *u, const struct event *ev, struct unwind_stack *st)
{
	const struct ev_sample *s = &ev->u.sample;
	uint64_t regs[CFI_NREGS] = { 0 };
	uint32_t valid = 0;
	/* The values come in the order of the mask's set bits. */
	size_t idx = 0;
	for (uint64_t m = s->user_regs_mask; m; m &= m - 1, idx++) {
		unsigned bit = (unsigned)__builtin_ctzll(m);
		if (bit >= 24)
			break;
		int d = perf_to_dwarf[bit];
		if (d >= 0) {
			regs[d] = ev_u64(s->user_regs, idx);
			valid |= 1u << d;
		}
	}
	struct sample_ctx c = { u, ev->sid.pid };
	dwarf_unwind_regs(u, lookup_map, &c, regs, valid, s->stack, s->stack_dyn_size, st);
}

void unwinder_sample(struct unwinder *u, const struct event *ev, struct unwind_stack *st)
{
	const struct ev_sample *s = &ev->u.sample;
	bool has_stack = s->user_abi && s->stack && s->stack_dyn_size;
	unwind_sample(ev, st);
	if (!has_stack)
		return;
	if (u->foreign_arch) {
		if (!u->foreign_samples++)
			log_warn("recorded on %s: DWARF unwinding is for x86_64 only; those user "
				 "stacks show the sampled ip only",
				 u->foreign_arch);
		return;
	}
	u->samples++;
	/* Keep the kernel part of the callchain; the user part comes from the stack copy. */
	size_t k = 0;
	while (k < st->n && st->frames[k].kernel)
		k++;
	st->n = k;
	unwind_user(u, ev, st);
}
