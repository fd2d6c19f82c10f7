/* Tests for the SVG writer's numbers: the same text as printf and llround give. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/svgnum.h"

/* num_round is llround for halves, near-halves and large values of both signs. */
static void test_round(void **state)
{
	static const double v[] = { 0.0,	 0.5,	     1.5,	  2.5,	     0.49999999999999994,
				    1e15 + 0.5, 4503599627370495.5, 123456.45, 7.0000001, 1e18 };
	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_int_equal(num_round(v[i]), llround(v[i]));
		assert_int_equal(num_round(-v[i]), llround(-v[i]));
	}
	for (int k = -20000; k <= 20000; k++) {
		double x = k / 7.0 * 10;
		assert_int_equal(num_round(x), llround(x));
	}
}

/* Digit counts and "%" PRIu64 around every power of ten and of two. */
static void test_u64(void **state)
{
	char want[32], got[NUM_MAX];
	uint64_t p = 1;

	(void)state;
	for (int i = 0; i < 64; i++) {
		for (int d = -1; d <= 1; d++) {
			uint64_t x = i < 20 ? p + (uint64_t)d : ((uint64_t)1 << i) + (uint64_t)d;
			snprintf(want, sizeof(want), "%" PRIu64, x);
			assert_int_equal(num_len(x), (int)strlen(want));
			*put_u64(got, x) = '\0';
			assert_string_equal(got, want);
		}
		if (i < 19)
			p *= 10;
	}
	*put_u64(got, UINT64_MAX) = '\0';
	assert_string_equal(got, "18446744073709551615");
}

static void test_fields(void **state)
{
	char b[NUM_MAX];

	(void)state;
	*put_tenths(b, 125) = '\0';
	assert_string_equal(b, "12.5");
	*put_tenths(b, -3) = '\0';
	assert_string_equal(b, "-0.3");
	*put_count(b, 1234567) = '\0';
	assert_string_equal(b, "1,234,567");
	*put_count(b, 999) = '\0';
	assert_string_equal(b, "999");
	*put_count(b, 0) = '\0';
	assert_string_equal(b, "0");
	*put_pct(b, 1, 3) = '\0';
	assert_string_equal(b, "33.33");
	*put_pct(b, 2, 3) = '\0';
	assert_string_equal(b, "66.67");
	*put_pct(b, 5, 0) = '\0';
	assert_string_equal(b, "0.00");
	*put_hundredths(b, "+", 5) = '\0';
	assert_string_equal(b, "+0.05");
	assert_string_equal(fmt_px(b, 15.04), "15.0");
	assert_string_equal(fmt_px(b, 15.05), "15.1");
	assert_string_equal(fmt_num(b, 7.08), "7.08");
	assert_string_equal(fmt_num(b, 12), "12");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round),
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_fields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
