/*
 * dso limits (dso, L2), each hit exactly: ELF symbol names of up to
 * 16 KiB - 1 bytes are kept and longer ones dropped (a shared object
 * assembled here with both), and kallsyms names of up to 1024 bytes are
 * kept, longer lines counted as bad.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dso/elf_image.h"
#include "dso/kallsyms.h"

#define ELF_NAME_CAP 16384 /* elf_image.c NAME_MAX_LEN: a name and its NUL fit in it */
#define KSYM_NAME_CAP 1024 /* kallsyms.c KALLSYMS_MAX_NAME */

static char *name_of(size_t len, char c)
{
	char *s = malloc(len + 1);
	memset(s, c, len);
	s[0] = 'f';
	s[len] = '\0';
	return s;
}

static void test_elf_name_cap(void **state)
{
	(void)state;
	char dir[] = "/tmp/kiln-dsolim-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char src[64], so[64], cmd[256];
	snprintf(src, sizeof(src), "%s/n.s", dir);
	snprintf(so, sizeof(so), "%s/n.so", dir);
	char *too_long = name_of(ELF_NAME_CAP, 'a'), *longest = name_of(ELF_NAME_CAP - 1, 'b');
	FILE *f = fopen(src, "w");
	assert_non_null(f);
	/* Two sized functions 16 bytes apart: the long name first. */
	fprintf(f, ".text\n.globl %s\n.type %s,@function\n%s:\n.fill 16,1,0xc3\n.size %s,16\n",
		too_long, too_long, too_long, too_long);
	fprintf(f, ".globl %s\n.type %s,@function\n%s:\n.fill 16,1,0xc3\n.size %s,16\n", longest,
		longest, longest, longest);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -shared -nostdlib -o '%s' '%s'", so, src);
	assert_int_equal(system(cmd), 0);

	struct elf_image *img;
	assert_int_equal(elf_image_open(&img, so), 0);
	/* Find the two functions' addresses from the one name that is kept. */
	assert_int_equal(elf_image_nsyms(img), 1);
	uint64_t start = 0, found = 0;
	const char *name = NULL;
	for (uint64_t a = 0; a < 0x10000 && !name; a += 4)
		name = elf_image_lookup(img, a, &found);
	assert_non_null(name);
	assert_int_equal(strlen(name), ELF_NAME_CAP - 1);
	assert_string_equal(name, longest);
	/* The 16 bytes before it belong to the dropped name: nothing there. */
	assert_null(elf_image_lookup(img, found - 8, &start));
	elf_image_free(img);

	free(too_long);
	free(longest);
	unlink(so);
	unlink(src);
	rmdir(dir);
}

static void test_kallsyms_name_cap(void **state)
{
	(void)state;
	char *ok = name_of(KSYM_NAME_CAP, 'k'), *bad = name_of(KSYM_NAME_CAP + 1, 'x');
	size_t cap = 3 * KSYM_NAME_CAP + 128;
	char *text = malloc(cap);
	int n = snprintf(text, cap, "ffffffff81000000 T _text\nffffffff81000100 T %s\n"
				    "ffffffff81000200 T %s\nffffffff81000300 T _etext\n",
			 ok, bad);
	assert_true(n > 0 && (size_t)n < cap);
	struct kallsyms *ks = kallsyms_parse(text, (size_t)n);
	assert_int_equal(kallsyms_count(ks), 3);
	assert_int_equal(kallsyms_bad_lines(ks), 1);
	uint64_t a = 0;
	assert_true(kallsyms_find(ks, ok, &a));
	assert_int_equal(a, 0xffffffff81000100ull);
	assert_false(kallsyms_find(ks, bad, &a));
	kallsyms_free(ks);
	free(text);
	free(ok);
	free(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elf_name_cap),
		cmocka_unit_test(test_kallsyms_name_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
