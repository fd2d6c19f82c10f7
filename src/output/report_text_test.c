/*
 * report_text unit tests (output, L7): perf report -T's per-thread block
 * (threads in first-read order, values of one thread and event summed,
 * columns as wide as their widest value or name) and its bare header
 * without reads; the new key columns' cells.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/report_text.h"

static char *threads_text(const struct report_thread_value *v, size_t n,
			  const char *const *names, size_t nc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	report_text_threads(f, v, n, names, nc);
	fclose(f);
	return buf;
}

static void test_threads(void **state)
{
	(void)state;
	const char *names[] = { "cpu-clock", "page-faults" };
	struct report_thread_value v[] = {
		{ 12345, 12345, 0, 1000 }, { 7, 8, 0, 5 }, { 12345, 12345, 1, 3 },
		{ 12345, 12345, 0, 24 }, /* a second read of the same thread */
	};
	char *t = threads_text(v, 4, names, 2);
	assert_string_equal(t, "#   PID    TID  cpu-clock  page-faults\n"
			       "  12345  12345       1024            3\n"
			       "      7      8          5            0\n");
	free(t);
	t = threads_text(NULL, 0, NULL, 0);
	assert_string_equal(t, "# PID  TID\n");
	free(t);
}

static void test_key_cells(void **state)
{
	(void)state;
	struct strtab s;
	strtab_init(&s);
	struct hist h;
	struct hist_opts o = { .keys = { HIST_SYMOFF }, .nkeys = 1 };
	hist_init(&h, &o, &s);
	struct hist_key k = { .sym = strtab_intern_str(&s, "work"), .off = 0x1c,
			      .parent = HIST_NONE, .srcline = strtab_intern_str(&s, "a.c:5") };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	report_text_key(f, &h, HIST_SYMOFF, &k, 20, true);
	fputc('|', f);
	report_text_key(f, &h, HIST_PARENT, &k, 13, true);
	fputc('|', f);
	report_text_key(f, &h, HIST_SRCLINE, &k, 8, false);
	fputc('|', f);
	report_text_key(f, &h, HIST_SRCLINE, &k, 8, true);
	fclose(f);
	assert_string_equal(buf, "[.] work+0x1c|[other]      |a.c:5   |a.c:5");
	assert_string_equal(report_text_key_header(HIST_SRCFILE), "Source File");
	free(buf);
	hist_release(&h);
	strtab_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_key_cells),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
