/*
 * A binary that shrinks while its image is mapped (dso, L2): a copy of
 * this test program is opened with elf_image_open, cut to one page, and
 * then looked up everywhere and its sections read in full. The reads of
 * the lost pages give zeros (base/mapguard) instead of killing the
 * process, and elf_image_shrank reports the first lost page.
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

static void test_binary_shrinks(void **state)
{
	(void)state;
	char path[] = "/tmp/kiln-elfshrink-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *in = fopen("/proc/self/exe", "rb");
	assert_non_null(in);
	char buf[65536];
	size_t n, total = 0;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
		assert_int_equal(write(fd, buf, n), (ssize_t)n);
		total += n;
	}
	fclose(in);
	long ps = sysconf(_SC_PAGESIZE);
	assert_true(total > 4 * (size_t)ps);

	struct elf_image *img;
	assert_int_equal(elf_image_open(&img, path), 0);
	assert_true(elf_image_nsyms(img) > 10);
	uint64_t off;
	assert_false(elf_image_shrank(img, &off));
	struct elf_section text;
	assert_true(elf_image_section(img, ".text", &text));
	assert_int_equal(ftruncate(fd, ps), 0);

	/* Every lookup over .text, and every byte of a few sections. */
	size_t named = 0;
	for (uint64_t a = text.vaddr; a < text.vaddr + text.size; a += 64) {
		const char *name = elf_image_lookup(img, a, NULL);
		named += name && name[0];
	}
	static const char *const secs[] = { ".eh_frame", ".eh_frame_hdr", ".symtab", ".debug_info" };
	volatile uint8_t sum = 0;
	for (size_t k = 0; k < sizeof(secs) / sizeof(secs[0]); k++) {
		struct elf_section s;
		if (!elf_image_section(img, secs[k], &s))
			continue;
		for (size_t i = 0; i < s.size; i++)
			sum += s.data[i];
	}
	(void)sum;
	assert_true(elf_image_shrank(img, &off));
	assert_true(off >= (uint64_t)ps && off % (uint64_t)ps == 0);
	printf("cut to %ld bytes: %zu of the lookups still named, first lost page at 0x%llx\n", ps,
	       named, (unsigned long long)off);
	elf_image_free(img);
	close(fd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_binary_shrinks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
