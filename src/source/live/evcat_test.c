/* Tests for -e lists: names, cache events, groups, modifiers, errors, close names. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "source/live/evcat.h"

static void test_names(void **state)
{
	(void)state;
	struct evcat_event *v = NULL;
	size_t n = 0;
	char *bad = NULL;
	assert_int_equal(evcat_parse("cycles,cs,L1-dcache-load-misses,LLC-stores,r1a2,branches:u",
				     &v, &n, &bad),
			 0);
	assert_int_equal(n, 6);
	assert_int_equal(v[0].attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(v[0].attr.config, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(v[1].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(v[1].attr.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	assert_string_equal(v[1].name, "cs");
	assert_int_equal(v[2].attr.type, PERF_TYPE_HW_CACHE);
	/* L1D | OP_READ << 8 | RESULT_MISS << 16 */
	assert_int_equal(v[2].attr.config, PERF_COUNT_HW_CACHE_L1D |
						   PERF_COUNT_HW_CACHE_OP_READ << 8 |
						   PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	assert_int_equal(v[3].attr.config, PERF_COUNT_HW_CACHE_LL |
						   PERF_COUNT_HW_CACHE_OP_WRITE << 8 |
						   PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16);
	assert_int_equal(v[4].attr.type, PERF_TYPE_RAW);
	assert_int_equal(v[4].attr.config, 0x1a2);
	assert_true(v[5].attr.exclude_kernel && !v[5].attr.exclude_user);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(v[i].leader, -1);
	evcat_events_free(v, n);
	assert_null(bad);
}

static void test_groups(void **state)
{
	(void)state;
	struct evcat_event *v = NULL;
	size_t n = 0;
	assert_int_equal(evcat_parse("page-faults,{cycles,instructions}:k,{task-clock}", &v, &n,
				     NULL),
			 0);
	assert_int_equal(n, 4);
	assert_int_equal(v[0].leader, -1);
	assert_int_equal(v[1].leader, 1);
	assert_int_equal(v[2].leader, 1);
	assert_true(v[1].attr.exclude_user && v[2].attr.exclude_user);
	assert_string_equal(v[2].name, "instructions"); /* perf keeps the member's own name */
	assert_int_equal(v[3].leader, -1); /* a group of one is no group */
	assert_string_equal(v[3].name, "task-clock");
	evcat_events_free(v, n);
}

static void test_errors(void **state)
{
	(void)state;
	static const char *const bad_specs[] = { "nosuchevent", "{cycles,instructions",
						 "cycles:q", "nosuchpmu/config=1/", "L1-icache-stores" };
	for (size_t i = 0; i < sizeof(bad_specs) / sizeof(bad_specs[0]); i++) {
		struct evcat_event *v = NULL;
		size_t n = 0;
		char *bad = NULL;
		assert_int_not_equal(evcat_parse(bad_specs[i], &v, &n, &bad), 0);
		evcat_events_free(v, n);
		free(bad);
	}
	char *bad = NULL;
	struct evcat_event *v = NULL;
	size_t n = 0;
	assert_int_not_equal(evcat_parse("cycles,page-fault", &v, &n, &bad), 0);
	assert_string_equal(bad, "page-fault");
	free(bad);
	evcat_events_free(v, n);
}

static void test_closest(void **state)
{
	(void)state;
	assert_int_equal(evcat_distance("kitten", "sitting"), 3);
	assert_int_equal(evcat_distance("", "abc"), 3);
	assert_int_equal(evcat_distance("same", "same"), 0);
	char *c = evcat_closest("page-fault");
	assert_non_null(c);
	assert_string_equal(c, "page-faults");
	free(c);
	c = evcat_closest("instrucions:u");
	assert_non_null(c);
	assert_string_equal(c, "instructions");
	free(c);
	assert_null(evcat_closest("zzzzzzzzzzzzzzzzzzzz"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_closest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
