/*
 * linecache unit tests (aggregate, L6): a kept line is found only where
 * its bytes stand whole, followed by '\n' or the end of the text; lines
 * sharing their first LINECACHE_KEY bytes, or differing only in the flag,
 * are told apart; a remembered follower that no longer matches falls back
 * to the table; the bounds refuse what they say.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "aggregate/linecache.h"

#define A "\tffffffff81000000 do_syscall_64+0x1f ([kernel.kallsyms])"
#define B "\tffffffff81000000 do_syscall_64+0x1f (/boot/vmlinux)"
#define C "\t           23fa2 [unknown] (/usr/bin/true)"

static uint32_t put(struct linecache *c, uint32_t prev, const char *s, bool flag, uint32_t v)
{
	return linecache_put(c, prev, s, strlen(s), flag, &v, 1);
}

/* The value found for the line at the start of text, or 0 if none. */
static uint32_t find(struct linecache *c, uint32_t prev, const char *text, bool flag)
{
	struct linecache_line l;
	if (!linecache_find(c, prev, text, strlen(text), flag, &l))
		return 0;
	assert_int_equal(l.count, 1);
	assert_true(l.len < strlen(text) ? text[l.len] == '\n' : l.len == strlen(text));
	return l.vals[0];
}

static void test_whole_lines(void **state)
{
	(void)state;
	struct linecache c;
	linecache_init(&c);
	assert_int_equal(find(&c, 0, A "\n", false), 0);
	uint32_t a = put(&c, 0, A, false, 1);
	assert_int_not_equal(a, 0);
	assert_int_not_equal(put(&c, 0, B, false, 2), 0); /* same first 32 bytes */
	assert_int_not_equal(put(&c, 0, A, true, 3), 0);  /* same bytes, other flag */
	assert_int_equal(find(&c, 0, A "\n" C, false), 1);
	assert_int_equal(find(&c, 0, A, false), 1); /* the text's end ends the line */
	assert_int_equal(find(&c, 0, B "\n", false), 2);
	assert_int_equal(find(&c, 0, A "\n", true), 3);
	assert_int_equal(find(&c, 0, A "x\n", false), 0); /* longer: another line */
	assert_int_equal(find(&c, 0, "\tffffffff81000000 do_syscall_64+0x1f\n", false), 0);
	assert_int_equal(find(&c, 0, "short\n", false), 0);
	linecache_release(&c);
}

static void test_followers(void **state)
{
	(void)state;
	struct linecache c;
	linecache_init(&c);
	uint32_t a = put(&c, 0, A, false, 1);
	uint32_t b = put(&c, a, B, false, 2); /* B followed A */
	put(&c, 0, C, false, 3);
	struct linecache_line l;
	/* A's follower is B; C after A is found through the table, and
	 * becomes A's follower. */
	assert_true(linecache_find(&c, a, B "\n", strlen(B "\n"), false, &l));
	assert_int_equal(l.id, b);
	assert_true(linecache_find(&c, a, C "\n", strlen(C "\n"), false, &l));
	assert_int_equal(l.vals[0], 3);
	assert_true(linecache_find(&c, a, C, strlen(C), false, &l));
	assert_int_equal(l.vals[0], 3);
	assert_true(linecache_find(&c, a, B, strlen(B), false, &l));
	assert_int_equal(l.vals[0], 2);
	linecache_release(&c);
}

static void test_bounds(void **state)
{
	(void)state;
	struct linecache c;
	char line[LINECACHE_LINE + 2];
	uint32_t v[LINECACHE_VALUES + 1] = { 0 };
	linecache_init(&c);
	assert_int_equal(linecache_put(&c, 0, "\t1 a (b)", 8, false, v, 1), 0); /* too short */
	memset(line, 'x', sizeof(line));
	assert_int_equal(linecache_put(&c, 0, line, LINECACHE_LINE + 1, false, v, 1), 0);
	assert_int_not_equal(linecache_put(&c, 0, line, LINECACHE_LINE, false, v, 1), 0);
	assert_int_equal(linecache_put(&c, 0, A, strlen(A), false, v, LINECACHE_VALUES + 1), 0);
	assert_int_not_equal(linecache_put(&c, 0, A, strlen(A), false, v, LINECACHE_VALUES), 0);
	/* Many lines: the table grows and keeps finding each. */
	char buf[64];
	for (uint32_t i = 0; i < 10000; i++) {
		int n = snprintf(buf, sizeof(buf), "\t%16x some_function_%u (/lib/x.so)", i, i);
		assert_int_not_equal(linecache_put(&c, 0, buf, (size_t)n, false, &i, 1), 0);
	}
	for (uint32_t i = 0; i < 10000; i += 7) {
		int n = snprintf(buf, sizeof(buf), "\t%16x some_function_%u (/lib/x.so)\n", i, i);
		struct linecache_line l;
		assert_true(linecache_find(&c, 0, buf, (size_t)n, false, &l));
		assert_int_equal(l.vals[0], i);
		assert_int_equal(l.len, (size_t)n - 1);
	}
	linecache_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_lines),
		cmocka_unit_test(test_followers),
		cmocka_unit_test(test_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
