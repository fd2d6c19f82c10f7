/* Unit tests for base/hugebuf: growth across the mapping threshold, contents kept, zeroed tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/hugebuf.h"

/* Pushed one by one from empty past several huge pages: every element
 * kept through the moves; malloc's below HUGEBUF_MIN, a whole number of
 * aligned huge pages after. */
static void test_push_across_threshold(void **state)
{
	(void)state;
	HVEC(uint64_t) a = { 0 };
	size_t n = 3 * HUGEBUF_PAGE / sizeof(uint64_t) + 17;
	bool was_malloc = false;
	for (size_t i = 0; i < n; i++) {
		HVEC_PUSH(&a, i * 2654435761u);
		if (a.cap * sizeof(uint64_t) < HUGEBUF_MIN) {
			assert_int_equal(a.mapped, 0);
			was_malloc = true;
		} else {
			assert_int_not_equal(a.mapped, 0);
			assert_int_equal(a.mapped % HUGEBUF_PAGE, 0);
			assert_int_equal((uintptr_t)a.v % HUGEBUF_PAGE, 0);
			assert_true(a.cap * sizeof(uint64_t) <= a.mapped);
		}
	}
	assert_true(was_malloc);
	assert_int_equal(a.n, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(a.v[i], i * 2654435761u);
	HVEC_FREE(&a);
	assert_null(a.v);
	assert_int_equal(a.cap, 0);
	assert_int_equal(a.mapped, 0);
}

/* A large reservation maps at once; elements of an odd size fill it to
 * its capacity without another move, and growing past it keeps them. */
static void test_reserve_then_grow(void **state)
{
	(void)state;
	struct rec {
		uint32_t a, b, c;
	};
	HVEC(struct rec) r = { 0 };
	HVEC_RESERVE(&r, 200000);
	assert_true(r.cap >= 200000);
	assert_int_not_equal(r.mapped, 0);
	size_t cap = r.cap;
	const void *v = r.v;
	for (size_t i = 0; i < cap; i++)
		HVEC_PUSH(&r, ((struct rec){ (uint32_t)i, (uint32_t)~i, 7 }));
	assert_ptr_equal(r.v, v);
	HVEC_PUSH(&r, ((struct rec){ 1, 2, 3 }));
	assert_true(r.cap > cap);
	for (size_t i = 0; i < cap; i++) {
		assert_int_equal(r.v[i].a, (uint32_t)i);
		assert_int_equal(r.v[i].b, (uint32_t)~i);
		assert_int_equal(r.v[i].c, 7);
	}
	assert_int_equal(r.v[cap].c, 3);
	/* A reservation below the current capacity changes nothing. */
	HVEC_RESERVE(&r, 10);
	assert_int_equal(r.n, cap + 1);
	HVEC_FREE(&r);
	HVEC_FREE(&r); /* freeing an empty one is harmless */
}

/* Zeroed tables, small (calloc's) and large (a mapping), both freed by hugebuf_free. */
static void test_zalloc(void **state)
{
	(void)state;
	size_t sizes[] = { 1, 100, HUGEBUF_MIN / 8 - 1, HUGEBUF_MIN / 8, 3 * HUGEBUF_PAGE / 8 + 5 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t mapped;
		uint64_t *t = hugebuf_zalloc(sizes[k], sizeof(uint64_t), &mapped);
		assert_non_null(t);
		assert_int_equal(mapped != 0, sizes[k] * 8 >= HUGEBUF_MIN);
		for (size_t i = 0; i < sizes[k]; i++)
			assert_int_equal(t[i], 0);
		t[sizes[k] - 1] = 1;
		hugebuf_free(t, mapped);
	}
	hugebuf_free(NULL, 0);
	/* Scratch: writable over its whole size, small or large. */
	size_t scratch[] = { 0, 10, HUGEBUF_MIN - 1, HUGEBUF_MIN, HUGEBUF_PAGE + 1 };
	for (size_t k = 0; k < sizeof(scratch) / sizeof(scratch[0]); k++) {
		size_t mapped;
		unsigned char *p = hugebuf_alloc(scratch[k], &mapped);
		assert_non_null(p);
		assert_int_equal(mapped != 0, scratch[k] >= HUGEBUF_MIN);
		assert_true(mapped == 0 || mapped >= scratch[k]);
		memset(p, 0xa5, scratch[k]);
		hugebuf_free(p, mapped);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_push_across_threshold),
		cmocka_unit_test(test_reserve_then_grow),
		cmocka_unit_test(test_zalloc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
