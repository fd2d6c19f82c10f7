/*
 * cfi and dwarf unit tests (unwind, L4): the limits of cfi.h and
 * unwind.h, each hit exactly (at the limit: works; one past: the
 * documented error), on .eh_frame bytes built here, and the unwinding
 * loop (dwarf_unwind_regs) on synthetic frame-pointer stacks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/cfi.h"
#include "unwind/dwarf.h"

/* ---- an .eh_frame with one CIE and one FDE, built in memory ---- */

struct sec {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct sec *s, const void *d, size_t n)
{
	if (!n)
		return;
	if (s->n + n > s->cap) {
		s->cap = (s->n + n) * 2 + 64;
		s->p = realloc(s->p, s->cap);
		assert_non_null(s->p);
	}
	memcpy(s->p + s->n, d, n);
	s->n += n;
}

static void put_u32(struct sec *s, uint32_t v) { put(s, &v, 4); }
static void put_u64(struct sec *s, uint64_t v) { put(s, &v, 8); }

#define FDE_START 0x1000u
#define FDE_LEN 0x100u

/* CIE "zR" (absolute 8-byte pointers), code align 1, data align -8, RA 16:
 * CFA = rsp + 8, RA at CFA - 8. Then an FDE for [FDE_START, +FDE_LEN)
 * with 'insn' as its instructions. */
static struct sec eh_frame(const uint8_t *insn, size_t n)
{
	static const uint8_t cie_body[] = {
		1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x00, /* version .. aug data (R = absptr) */
		0x0c, 7, 8, 0x90, 1,                  /* def_cfa rsp+8; offset r16 cfa-8 */
	};
	struct sec s = { 0 };
	put_u32(&s, 4 + sizeof(cie_body));
	put_u32(&s, 0); /* CIE id */
	put(&s, cie_body, sizeof(cie_body));
	size_t fde_len = 4 + 8 + 8 + 1 + n;
	assert_true(fde_len < 0xfffffff0u);
	put_u32(&s, (uint32_t)fde_len);
	put_u32(&s, (uint32_t)(s.n)); /* back to the CIE at 0 */
	put_u64(&s, FDE_START);
	put_u64(&s, FDE_LEN);
	put(&s, "", 1); /* augmentation data length 0 */
	put(&s, insn, n);
	put_u32(&s, 0); /* terminator */
	return s;
}

/* An .eh_frame of the CIE above and n FDEs of 0x80 bytes each, the i-th
 * at FDE_START + 0x100 * (order[i] + 1), no instructions. */
static struct sec eh_frame_many(const size_t *order, size_t n)
{
	struct sec s = eh_frame(NULL, 0);
	s.n -= 4; /* the terminator goes last */
	for (size_t i = 0; i < n; i++) {
		put_u32(&s, 4 + 8 + 8 + 1);
		put_u32(&s, (uint32_t)s.n); /* back to the CIE at 0 */
		put_u64(&s, FDE_START + 0x100 * (order[i] + 1));
		put_u64(&s, 0x80);
		put(&s, "", 1);
	}
	put_u32(&s, 0);
	return s;
}

/* k identical CIEs, then an FDE for [FDE_START, +FDE_LEN) of the last one
 * with def_cfa_offset 16. */
static struct sec eh_frame_cies(size_t k)
{
	static const uint8_t cie_body[] = {
		1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x00, 0x0c, 7, 8, 0x90, 1,
	};
	static const uint8_t insn[] = { 0x0e, 16 };
	struct sec s = { 0 };
	size_t last = 0;
	for (size_t i = 0; i < k; i++) {
		last = s.n;
		put_u32(&s, 4 + sizeof(cie_body));
		put_u32(&s, 0);
		put(&s, cie_body, sizeof(cie_body));
	}
	put_u32(&s, 4 + 8 + 8 + 1 + sizeof(insn));
	put_u32(&s, (uint32_t)(s.n - last)); /* back to the last CIE */
	put_u64(&s, FDE_START);
	put_u64(&s, FDE_LEN);
	put(&s, "", 1);
	put(&s, insn, sizeof(insn));
	put_u32(&s, 0);
	return s;
}

/* A table's CIE initial rows are kept up to CFI_CIE_ROWS_MAX CIEs; past
 * that each lookup makes its own: the same row either way. */
static void test_cie_rows_cap(void **state)
{
	(void)state;
	static const size_t ks[] = { 1, 2, CFI_CIE_ROWS_MAX, CFI_CIE_ROWS_MAX + 1 };
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		struct sec s = eh_frame_cies(ks[i]);
		struct cfi_table *t = cfi_table_build(s.p, s.n, 0, false);
		struct cfi_row row;
		for (int round = 0; round < 2; round++) {
			assert_int_equal(cfi_find_row(t, FDE_START + 4, &row), 0);
			assert_false(row.cfa_is_expr);
			assert_int_equal(row.cfa_reg, 7);
			assert_int_equal(row.cfa_off, 16);
			assert_int_equal(row.regs[CFI_RA].kind, CFI_RULE_OFFSET);
			assert_int_equal(row.regs[CFI_RA].off, -8);
		}
		cfi_table_free(t);
		free(s.p);
	}
}

static void test_fdes_sorted(void **state)
{
	(void)state;
	/* 1000 FDEs in a scrambled order: the index holds them by start. */
	enum { N = 1000 };
	static size_t order[N];
	for (size_t i = 0; i < N; i++)
		order[i] = (i * 7919) % N; /* 7919 is prime: a permutation */
	struct sec s = eh_frame_many(order, N);
	struct cfi_table *t = cfi_table_build(s.p, s.n, 0, false);
	assert_int_equal(cfi_table_count(t), N + 1); /* and eh_frame()'s own at FDE_START */
	uint64_t prev = 0;
	for (size_t i = 0; i < N + 1; i++) {
		uint64_t start, end;
		cfi_table_fde(t, i, &start, &end);
		assert_true(i == 0 || start > prev);
		prev = start;
	}
	cfi_table_free(t);
	free(s.p);
}

/*
 * GCC's usual form: CIE "zR" with pc-relative signed 4-byte pointers
 * (0x1b), section at link-time address 'vaddr'; FDEs for [FDE_START +
 * 0x100 * i, +0x80) with a def_cfa_offset instruction each, the last one
 * cut 'cut' bytes short (its pointers then run past the FDE's end).
 */
static struct sec eh_frame_pcrel(uint64_t vaddr, size_t n, size_t cut)
{
	static const uint8_t cie_body[] = {
		1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b, /* R = pcrel | sdata4 */
		0x0c, 7, 8, 0x90, 1,
	};
	struct sec s = { 0 };
	put_u32(&s, 4 + sizeof(cie_body));
	put_u32(&s, 0);
	put(&s, cie_body, sizeof(cie_body));
	for (size_t i = 0; i < n; i++) {
		size_t len = 4 + 4 + 4 + 1 + 2 - (i + 1 == n ? cut : 0);
		put_u32(&s, (uint32_t)len);
		put_u32(&s, (uint32_t)s.n); /* back to the CIE at 0 */
		uint64_t field = vaddr + s.n;
		int32_t rel = (int32_t)(int64_t)(FDE_START + 0x100 * i - field);
		uint8_t rest[] = { 0x80, 0, 0, 0, 0, 0x0e, 16 }; /* range, aug len 0, def_cfa_offset 16 */
		put(&s, &rel, 4);
		put(&s, rest, len - 8);
	}
	put_u32(&s, 0);
	return s;
}

static void test_fdes_pcrel(void **state)
{
	(void)state;
	uint64_t vaddr = 0x200000; /* the section above the code: negative offsets */
	struct sec s = eh_frame_pcrel(vaddr, 3, 0);
	struct cfi_table *t = cfi_table_build(s.p, s.n, vaddr, false);
	assert_int_equal(cfi_table_count(t), 3);
	for (size_t i = 0; i < 3; i++) {
		uint64_t start, end;
		cfi_table_fde(t, i, &start, &end);
		assert_int_equal(start, FDE_START + 0x100 * i);
		assert_int_equal(end, FDE_START + 0x100 * i + 0x80);
	}
	struct cfi_row row;
	assert_int_equal(cfi_find_row(t, FDE_START + 0x210, &row), 0);
	assert_int_equal(row.cfa_reg, 7);
	assert_int_equal(row.cfa_off, 16); /* the FDE's own instruction ran */
	assert_int_equal(cfi_find_row(t, FDE_START + 0x190, &row), -ENOENT);
	cfi_table_free(t);
	free(s.p);
	/* An FDE too short for its range and augmentation length is not indexed. */
	s = eh_frame_pcrel(vaddr, 3, 6);
	t = cfi_table_build(s.p, s.n, vaddr, false);
	assert_int_equal(cfi_table_count(t), 2);
	cfi_table_free(t);
	free(s.p);
}

/* The row at FDE_START + 0x10 for these FDE instructions. */
static int row_for(const uint8_t *insn, size_t n, struct cfi_row *row)
{
	struct sec s = eh_frame(insn, n);
	struct cfi_table *t = cfi_table_build(s.p, s.n, 0, false);
	assert_int_equal(cfi_table_count(t), 1);
	int err = cfi_find_row(t, FDE_START + 0x10, row);
	cfi_table_free(t);
	free(s.p);
	return err;
}

static void test_plain_row(void **state)
{
	(void)state;
	static const uint8_t insn[] = { 0x41, 0x0e, 16, 0x86, 2 }; /* advance 1; cfa+16; rbp at -16 */
	struct cfi_row row;
	assert_int_equal(row_for(insn, sizeof(insn), &row), 0);
	assert_int_equal(row.cfa_reg, 7);
	assert_int_equal(row.cfa_off, 16);
	assert_int_equal(row.regs[6].kind, CFI_RULE_OFFSET);
	assert_int_equal(row.regs[6].off, -16);
	assert_int_equal(row.regs[CFI_RA].off, -8);
}

/* remember_state nested 'depth' times, then as many restore_state. */
static int remember(unsigned depth)
{
	size_t n = 2 * (size_t)depth;
	uint8_t *insn = malloc(n + 1);
	memset(insn, 0x0a, depth);
	memset(insn + depth, 0x0b, depth);
	struct cfi_row row;
	int err = row_for(insn, n, &row);
	free(insn);
	return err;
}

static void test_remember_state_depth(void **state)
{
	(void)state;
	assert_int_equal(remember(CFI_MAX_STATE_DEPTH), 0);
	assert_int_equal(remember(CFI_MAX_STATE_DEPTH + 1), -EBADMSG);
	/* A restore with nothing remembered is malformed too. */
	static const uint8_t lone_restore[] = { 0x0b };
	struct cfi_row row;
	assert_int_equal(row_for(lone_restore, 1, &row), -EBADMSG);
}

static void test_cfa_ops(void **state)
{
	(void)state;
	struct cfi_row row;
	/* The CIE's 2 instructions are counted apart from the FDE's. */
	size_t n = CFI_MAX_CFA_OPS;
	uint8_t *nops = calloc(n + 1, 1);
	assert_int_equal(row_for(nops, n, &row), 0);
	assert_int_equal(row_for(nops, n + 1, &row), -EBADMSG);
	free(nops);
}

static void test_register_rules_bounded(void **state)
{
	(void)state;
	/* offset_extended for DWARF register 200 and register 17: parsed, ignored. */
	static const uint8_t insn[] = { 0x05, 0xc8, 0x01, 3, 0x05, 17, 4, 0x09, 100, 3 };
	struct cfi_row row;
	assert_int_equal(row_for(insn, sizeof(insn), &row), 0);
	for (unsigned r = 0; r < CFI_RA; r++)
		assert_int_equal(row.regs[r].kind, CFI_RULE_SAME);
}

static void test_offset_overflow_wraps(void **state)
{
	(void)state;
	/* offset_extended_sf r6 with factored offset INT64_MIN/8 - 1: the
	 * product with -8 overflows int64; it must wrap, not trap (UBSan). */
	static const uint8_t insn[] = { 0x11, 6, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0x7f,
					0x0e, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	struct cfi_row row;
	assert_int_equal(row_for(insn, sizeof(insn), &row), 0);
	assert_int_equal(row.regs[6].kind, CFI_RULE_OFFSET);
}

/* ---- DWARF expressions ---- */

static bool no_mem(void *ctx, uint64_t addr, uint64_t *val)
{
	(void)ctx;
	(void)addr;
	(void)val;
	return false;
}

static int eval(const uint8_t *e, size_t n, uint64_t *res)
{
	uint64_t regs[CFI_NREGS] = { 0 };
	return cfi_eval(e, n, regs, (1u << CFI_NREGS) - 1, false, 0, no_mem, NULL, res);
}

static void test_expr_ops(void **state)
{
	(void)state;
	uint64_t r;
	/* lit1 then DW_OP_nop: CFI_MAX_EXPR_OPS operations in all is fine, one more is not. */
	uint8_t e[CFI_MAX_EXPR_OPS + 1];
	e[0] = 0x31;
	memset(e + 1, 0x96, sizeof(e) - 1);
	assert_int_equal(eval(e, CFI_MAX_EXPR_OPS, &r), 0);
	assert_int_equal(r, 1);
	assert_int_equal(eval(e, CFI_MAX_EXPR_OPS + 1, &r), -EINVAL);
	/* lit1; bra -4: an endless loop, stopped by the budget. */
	static const uint8_t loop[] = { 0x31, 0x28, 0xfc, 0xff };
	assert_int_equal(eval(loop, sizeof(loop), &r), -EINVAL);
}

static void test_expr_stack(void **state)
{
	(void)state;
	uint64_t r;
	uint8_t e[CFI_MAX_EXPR_STACK + 1];
	memset(e, 0x33, sizeof(e)); /* lit3 */
	assert_int_equal(eval(e, CFI_MAX_EXPR_STACK, &r), 0);
	assert_int_equal(r, 3);
	assert_int_equal(eval(e, CFI_MAX_EXPR_STACK + 1, &r), -EINVAL);
}

static void test_expr_int64_min(void **state)
{
	(void)state;
	uint64_t r;
	/* const8s INT64_MIN; const1s -1; div: wraps to INT64_MIN (no SIGFPE). */
	static const uint8_t div[] = { 0x0e, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x09, 0xff, 0x1b };
	assert_int_equal(eval(div, sizeof(div), &r), 0);
	assert_int_equal(r, 1ULL << 63);
	static const uint8_t abs[] = { 0x0e, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x19 };
	assert_int_equal(eval(abs, sizeof(abs), &r), 0);
	assert_int_equal(r, 1ULL << 63);
}

/* ---- the unwinding loop: frames per stack ---- */

/* Every pc is mapped; no CFI, so each step follows the frame pointer. */
static bool fp_only(void *ctx, uint64_t pc, struct dwarf_where *w)
{
	(void)ctx;
	*w = (struct dwarf_where){ .key = 1, .t = NULL, .delta = 0, .lo = pc, .hi = pc };
	return true;
}

#define STACK_BASE 0x7ff000000000ull

/* A frame-pointer chain of 'frames' frames (the leaf included), the
 * outermost one's return address 0. */
static void fp_unwind(size_t frames, struct unwind_stack *st)
{
	size_t words = 2 * frames + 2;
	uint64_t *stack = calloc(words, 8);
	for (size_t i = 0; i + 1 < frames; i++) {
		stack[2 * i] = STACK_BASE + 16 * (i + 1); /* saved rbp: the next frame */
		stack[2 * i + 1] = 0x400000 + 0x10 * (i + 1); /* return address */
	}
	uint64_t regs[CFI_NREGS] = { 0 };
	regs[7] = STACK_BASE;  /* rsp */
	regs[6] = STACK_BASE;  /* rbp */
	regs[CFI_RA] = 0x400000;
	struct unwinder u;
	unwinder_init(&u, NULL);
	memset(st, 0, sizeof(*st));
	dwarf_unwind_regs(&u, fp_only, NULL, regs, (1u << 7) | (1u << 6) | (1u << CFI_RA),
			  (const uint8_t *)stack, words * 8, st);
	unwinder_release(&u);
	free(stack);
}

static void test_frames_per_stack(void **state)
{
	(void)state;
	static struct unwind_stack st;
	fp_unwind(10, &st);
	assert_int_equal(st.n, 10);
	assert_false(st.truncated);
	assert_int_equal(st.frames[9].ip, 0x400000 + 0x10 * 9 - 1);
	fp_unwind(UNWIND_MAX_FRAMES, &st);
	assert_int_equal(st.n, UNWIND_MAX_FRAMES);
	assert_false(st.truncated);
	fp_unwind(UNWIND_MAX_FRAMES + 1, &st);
	assert_int_equal(st.n, UNWIND_MAX_FRAMES);
	assert_true(st.truncated);
	fp_unwind(5000, &st);
	assert_int_equal(st.n, UNWIND_MAX_FRAMES);
	assert_true(st.truncated);
}

/* One CFI row for every pc in [FDE_START, FDE_START + FDE_LEN). */
static bool one_fde(void *ctx, uint64_t pc, struct dwarf_where *w)
{
	/* a binary per sample: distinct cache keys */
	*w = (struct dwarf_where){ .key = (uint32_t)(pc / FDE_LEN),
				   .t = ctx,
				   .delta = FDE_START + pc % FDE_LEN - pc,
				   .lo = pc,
				   .hi = pc };
	return true;
}

static void test_row_cache_cap(void **state)
{
	(void)state;
	/* CFA = rsp + 8, RA at CFA - 8: each sample's leaf returns to 0, the end. */
	struct sec s = eh_frame(NULL, 0);
	struct cfi_table *t = cfi_table_build(s.p, s.n, 0, false);
	struct unwinder u;
	unwinder_init(&u, NULL);
	uint64_t zero = 0;
	static struct unwind_stack st;
	for (uint64_t i = 0; i < DWARF_ROW_CACHE_MAX + 100; i++) {
		uint64_t regs[CFI_NREGS] = { 0 };
		regs[7] = 0x7000;
		regs[CFI_RA] = FDE_START + FDE_LEN * i;
		memset(&st, 0, sizeof(st));
		dwarf_unwind_regs(&u, one_fde, t, regs, (1u << 7) | (1u << CFI_RA),
				  (const uint8_t *)&zero, 8, &st);
		assert_int_equal(st.n, 1);
	}
	assert_int_equal(u.nrows, DWARF_ROW_CACHE_MAX);
	assert_int_equal(u.row_misses, DWARF_ROW_CACHE_MAX + 100);
	unwinder_release(&u);
	cfi_table_free(t);
	free(s.p);
}

/* Unwind one frame whose row saves RA and the registers 'saved' (in
 * that order below the CFA), twice; the caller's registers come back the
 * same from the row computed and from the cached one. Returns how many
 * rows were cached. */
static size_t crow_unwind(const uint8_t *saved, size_t n)
{
	uint8_t insn[2 + 2 * 16] = { 0x0e, 8 * 12 }; /* def_cfa_offset 96 */
	size_t ni = 2;
	uint64_t stack[12] = { 0 }; /* RA (0: the end) at CFA - 8 = word 11 */
	for (size_t i = 0; i < n; i++) {
		insn[ni++] = (uint8_t)(0x80 | saved[i]); /* offset: reg at CFA - 8 * (i + 2) */
		insn[ni++] = (uint8_t)(i + 2);
		stack[12 - (i + 2)] = 0x1000 + saved[i];
	}
	struct sec s = eh_frame(insn, ni);
	struct cfi_table *t = cfi_table_build(s.p, s.n, 0, false);
	struct unwinder u;
	unwinder_init(&u, NULL);
	static struct unwind_stack st;
	for (int round = 0; round < 2; round++) {
		uint64_t regs[CFI_NREGS] = { 0 };
		regs[7] = 0x7000;
		regs[CFI_RA] = FDE_START + 0x10;
		memset(&st, 0, sizeof(st));
		dwarf_unwind_regs(&u, one_fde, t, regs, (1u << 7) | (1u << CFI_RA),
				  (const uint8_t *)stack, sizeof(stack), &st);
		assert_int_equal(st.n, 1);
		assert_int_equal(regs[7], 0x7000 + 96); /* SP: the CFA */
		for (size_t i = 0; i < n; i++)
			assert_int_equal(regs[saved[i]], 0x1000 + saved[i]);
	}
	size_t cached = u.nrows;
	unwinder_release(&u);
	cfi_table_free(t);
	free(s.p);
	return cached;
}

static void test_crow_ops_cap(void **state)
{
	(void)state;
	/* RA and 7 registers: CFI_CROW_OPS value rules, cached. */
	static const uint8_t seven[] = { 0, 1, 2, 3, 4, 5, 6 };
	assert_int_equal(CFI_CROW_OPS, 8);
	assert_int_equal(crow_unwind(seven, sizeof(seven)), 1);
	/* One more: computed at each lookup, same registers. */
	static const uint8_t eight[] = { 0, 1, 2, 3, 4, 5, 6, 8 };
	assert_int_equal(crow_unwind(eight, sizeof(eight)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_row),
		cmocka_unit_test(test_remember_state_depth),
		cmocka_unit_test(test_cfa_ops),
		cmocka_unit_test(test_register_rules_bounded),
		cmocka_unit_test(test_offset_overflow_wraps),
		cmocka_unit_test(test_expr_ops),
		cmocka_unit_test(test_expr_stack),
		cmocka_unit_test(test_expr_int64_min),
		cmocka_unit_test(test_frames_per_stack),
		cmocka_unit_test(test_row_cache_cap),
		cmocka_unit_test(test_crow_ops_cap),
		cmocka_unit_test(test_fdes_sorted),
		cmocka_unit_test(test_cie_rows_cap),
		cmocka_unit_test(test_fdes_pcrel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
