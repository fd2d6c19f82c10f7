/*
 * sanitize unit tests (base, L0): what passes (printable ASCII, TAB, LF,
 * valid UTF-8), what is escaped (C0, DEL, C1, bidi controls, invalid,
 * overlong and surrogate UTF-8), and sequences split across calls.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/sanitize.h"

static void check(const char *in, const char *want)
{
	struct buf out;
	buf_init(&out, 1 << 16);
	assert_int_equal(sanitize_term(in, strlen(in), false, &out), strlen(in));
	assert_string_equal(buf_str(&out), want);
	buf_release(&out);
}

static void test_passes(void **state)
{
	(void)state;
	check("plain ascii: <&>\"' ~\ttab\n", "plain ascii: <&>\"' ~\ttab\n");
	check("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5 \xe4\xb8\xad", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5 \xe4\xb8\xad");
}

static void test_escapes(void **state)
{
	(void)state;
	check("a\x1b[2Jb", "a\\x1b[2Jb");
	check("\x01\x7f\r", "\\x01\\x7f\\x0d");
	check("\xc2\x9b" "31m", "\\xc2\\x9b31m");             /* C1 CSI */
	check("x\xe2\x80\xaey", "x\\xe2\\x80\\xaey");           /* U+202E */
	check("\xe2\x81\xa6\xd8\x9c", "\\xe2\\x81\\xa6\\xd8\\x9c"); /* U+2066, U+061C */
	check("\xff\xfe", "\\xff\\xfe");
	check("\xc0\xaf", "\\xc0\\xaf");                       /* overlong '/' */
	check("\xed\xa0\x80", "\\xed\\xa0\\x80");              /* surrogate */
	check("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");     /* past U+10FFFF */
	check("\xe2\x82", "\\xe2\\x82");                       /* cut at the end */
}

static void test_split(void **state)
{
	(void)state;
	struct buf out;
	buf_init(&out, 1 << 10);
	/* "é" split over two calls: held back, then whole. */
	const char a[] = "x\xc3";
	size_t used = sanitize_term(a, 2, true, &out);
	assert_int_equal(used, 1);
	char b[] = "\xc3\xa9y";
	assert_int_equal(sanitize_term(b, 3, true, &out), 3);
	assert_string_equal(buf_str(&out), "x\xc3\xa9y");
	buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_passes),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_split),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
