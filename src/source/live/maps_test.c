/*
 * maps unit tests (source/live, L2): this process's real /proc/self/maps,
 * the fields of crafted lines, bad lines counted, and the line cap hit
 * exactly (MAPS_MAX_LINE bytes parse, one more is skipped and counted).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/live/maps.h"

struct got {
	struct maps_entry v[4096];
	size_t n;
};

static int keep(void *arg, const struct maps_entry *e)
{
	struct got *g = arg;
	if (g->n < 4096)
		g->v[g->n++] = *e;
	return 0;
}

static bool name_is(const struct maps_entry *e, const char *s)
{
	return e->name_len == strlen(s) && !memcmp(e->name, s, e->name_len);
}

static void test_proc_self(void **state)
{
	(void)state;
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof(text), f);
	fclose(f);
	assert_true(n > 0 && n < sizeof(text));
	static struct got g;
	struct maps_stats st;
	assert_int_equal(maps_parse(text, n, keep, &g, &st), 0);
	assert_int_equal(st.bad, 0);
	assert_int_equal(st.long_lines, 0);
	assert_int_equal(st.lines, g.n);
	bool stack = false, exe = false;
	for (size_t i = 0; i < g.n; i++) {
		stack |= name_is(&g.v[i], "[stack]");
		exe |= g.v[i].perms[2] == 'x' && g.v[i].name_len > 9 &&
		       !memcmp(g.v[i].name + g.v[i].name_len - 9, "unit_maps", 9);
	}
	assert_true(stack);
	assert_true(exe);
}

static void test_fields(void **state)
{
	(void)state;
	static const char text[] =
		"00400000-00452000 r-xp 0001f000 08:02 173521      /usr/bin/a b (deleted)\n"
		"7f0000000000-7f0000001000 rw-s 00000000 fd:1f 18446744073709551615\n"
		"garbage\n"
		"2000-1000 r-xp 0 0:0 0 /backwards\n"
		"1000-2000 r-xp 0 0:0 18446744073709551616 /inode-overflow\n"
		"1000-2000 r-x 0 0:0 0 /three-perms\n"
		"10000000000000000-20000000000000000 r-xp 0 0:0 0 /17-digits\n"
		"1000-2000 r-xp 0 0:0 0";
	static struct got g;
	g.n = 0;
	struct maps_stats st;
	assert_int_equal(maps_parse(text, sizeof(text) - 1, keep, &g, &st), 0);
	assert_int_equal(st.lines, 8);
	assert_int_equal(st.bad, 5);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.v[0].start, 0x400000);
	assert_int_equal(g.v[0].end, 0x452000);
	assert_int_equal(g.v[0].pgoff, 0x1f000);
	assert_int_equal(g.v[0].maj, 8);
	assert_int_equal(g.v[0].min, 2);
	assert_int_equal(g.v[0].ino, 173521);
	assert_string_equal(g.v[0].perms, "r-xp");
	assert_true(name_is(&g.v[0], "/usr/bin/a b (deleted)"));
	assert_int_equal(g.v[1].ino, UINT64_MAX);
	assert_int_equal(g.v[1].min, 0x1f);
	assert_int_equal(g.v[1].name_len, 0);
	assert_int_equal(g.v[2].name_len, 0); /* no newline at the end, no name */
}

/* One maps line of exactly 'len' bytes (path padded with 'a'). */
static char *line_of(size_t len)
{
	static const char head[] = "1000-2000 r-xp 00000000 08:02 1 /";
	char *s = malloc(len + 1);
	memcpy(s, head, strlen(head));
	memset(s + strlen(head), 'a', len - strlen(head));
	s[len] = '\n';
	return s;
}

static void test_line_cap(void **state)
{
	(void)state;
	static struct got g;
	struct maps_stats st;
	char *s = line_of(MAPS_MAX_LINE);
	g.n = 0;
	assert_int_equal(maps_parse(s, MAPS_MAX_LINE + 1, keep, &g, &st), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(st.long_lines, 0);
	assert_int_equal(g.v[0].name_len, MAPS_MAX_LINE - strlen("1000-2000 r-xp 00000000 08:02 1 "));
	free(s);
	s = line_of(MAPS_MAX_LINE + 1);
	g.n = 0;
	assert_int_equal(maps_parse(s, MAPS_MAX_LINE + 2, keep, &g, &st), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(st.lines, 1);
	assert_int_equal(st.long_lines, 1);
	free(s);
}

static int stop_at_first(void *arg, const struct maps_entry *e)
{
	(void)arg;
	(void)e;
	return -42;
}

static void test_callback_stops(void **state)
{
	(void)state;
	static const char text[] = "1000-2000 r-xp 0 0:0 0 /a\n2000-3000 r-xp 0 0:0 0 /b\n";
	struct maps_stats st;
	assert_int_equal(maps_parse(text, sizeof(text) - 1, stop_at_first, NULL, &st), -42);
	assert_int_equal(st.lines, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proc_self),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_line_cap),
		cmocka_unit_test(test_callback_stops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
