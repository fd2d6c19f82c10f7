/*
 * Unit tests for elf_expand (dso, L2): real files compressed by binutils
 * (a program built with -g, zlib and zstd; this machine's libc debug file,
 * big enough for the second thread) expanded and compared section by
 * section with `objcopy --decompress-debug-sections`; skipped sections;
 * every truncation and flipped compressed bytes in exact-size copies.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "dso/elf_expand.h"

static char dir[64];

static int run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct stat st;
	fstat(fileno(f), &st);
	uint8_t *p = xmalloc(st.st_size ? (size_t)st.st_size : 1);
	*n = fread(p, 1, (size_t)st.st_size, f);
	fclose(f);
	return p;
}

/* A section of an ELF64 image by name: its header, or NULL. */
static const Elf64_Shdr *section(const uint8_t *p, size_t n, const char *name)
{
	const Elf64_Ehdr *eh = (const void *)p;
	assert_true(n >= sizeof(*eh) && eh->e_shoff + eh->e_shnum * sizeof(Elf64_Shdr) <= n);
	const Elf64_Shdr *sh = (const void *)(p + eh->e_shoff);
	const Elf64_Shdr *str = &sh[eh->e_shstrndx];
	for (size_t i = 1; i < eh->e_shnum; i++)
		if (!strcmp((const char *)p + str->sh_offset + sh[i].sh_name, name))
			return &sh[i];
	return NULL;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/kiln-expand-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	char path[128];
	snprintf(path, sizeof(path), "%s/p.c", dir);
	FILE *f = fopen(path, "w");
	fputs("#include <stdio.h>\nstatic int h(int x) { return x * 3; }\n"
	      "int main(int c, char **v) { (void)v; printf(\"%d\\n\", h(c)); return 0; }\n",
	      f);
	fclose(f);
	if (run("cd %s && gcc -g -O1 -o p p.c && objcopy --compress-debug-sections=zlib p p.zlib && "
		"objcopy --decompress-debug-sections p.zlib p.plain",
		dir))
		return -1;
	/* zstd needs a binutils that writes it; the test says so when not. */
	if (!run("cd %s && objcopy --compress-debug-sections=zstd p p.zstd 2>/dev/null", dir))
		run("cd %s && objcopy --decompress-debug-sections p.zstd p.zplain", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	run("rm -rf %s", dir);
	return 0;
}

/* Expand 'file' and compare every .debug_* section with 'plain'. */
static size_t check_against(const char *file, const char *plain)
{
	size_t n, pn, outlen;
	uint8_t *p = slurp(file, &n), *q = slurp(plain, &pn), *out;
	assert_non_null(p);
	assert_non_null(q);
	assert_int_equal(elf_expand_check(p, n, NULL, 0), 0);
	assert_int_equal(elf_expand(p, n, NULL, 0, &out, &outlen), 0);
	const Elf64_Ehdr *eh = (const void *)q;
	const Elf64_Shdr *sh = (const void *)(q + eh->e_shoff);
	const Elf64_Shdr *str = &sh[eh->e_shstrndx];
	size_t compared = 0;
	for (size_t i = 1; i < eh->e_shnum; i++) {
		const char *name = (const char *)q + str->sh_offset + sh[i].sh_name;
		if (strncmp(name, ".debug_", 7) || sh[i].sh_type == SHT_NOBITS)
			continue;
		const Elf64_Shdr *x = section(out, outlen, name);
		assert_non_null(x);
		assert_false(x->sh_flags & SHF_COMPRESSED);
		assert_int_equal(x->sh_size, sh[i].sh_size);
		assert_true(x->sh_offset + x->sh_size <= outlen);
		assert_memory_equal(out + x->sh_offset, q + sh[i].sh_offset, sh[i].sh_size);
		compared++;
	}
	free(out);
	free(p);
	free(q);
	return compared;
}

static void test_zlib_and_zstd(void **state)
{
	(void)state;
	char a[128], b[128];
	snprintf(a, sizeof(a), "%s/p.zlib", dir);
	snprintf(b, sizeof(b), "%s/p.plain", dir);
	assert_true(check_against(a, b) >= 4); /* info, abbrev, line, str at least */
	snprintf(a, sizeof(a), "%s/p.zstd", dir);
	snprintf(b, sizeof(b), "%s/p.zplain", dir);
	if (access(a, R_OK) == 0)
		assert_true(check_against(a, b) >= 4);
	else
		print_message("objcopy here cannot write zstd sections: zstd case not run\n");
}

/* This machine's libc debug file (libc6-dbg): megabytes of zlib data, so
 * the biggest section goes to the second thread. */
static void test_libc_debug_file(void **state)
{
	(void)state;
	char cmd[512], path[256] = "";
	snprintf(cmd, sizeof(cmd),
		 "readelf -n /lib/x86_64-linux-gnu/libc.so.6 | awk '/Build ID/ { print $3 }'");
	FILE *f = popen(cmd, "r");
	char id[128] = "";
	if (f && fgets(id, sizeof(id), f))
		id[strcspn(id, "\n")] = '\0';
	if (f)
		pclose(f);
	if (strlen(id) > 2)
		snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
	if (!path[0] || access(path, R_OK)) {
		print_message("no libc debug file (libc6-dbg): skipped\n");
		skip();
	}
	char plain[128];
	snprintf(plain, sizeof(plain), "%s/libc.plain", dir);
	assert_int_equal(run("objcopy --decompress-debug-sections %s %s", path, plain), 0);
	assert_true(check_against(path, plain) >= 6);
}

static bool skip_line(const char *name)
{
	return !strcmp(name, ".debug_line");
}

static void test_skip(void **state)
{
	(void)state;
	char a[128];
	snprintf(a, sizeof(a), "%s/p.zlib", dir);
	size_t n, outlen;
	uint8_t *p = slurp(a, &n), *out;
	assert_int_equal(elf_expand(p, n, skip_line, 0, &out, &outlen), 0);
	assert_null(section(out, outlen, ".debug_line")); /* nameless and empty now */
	assert_non_null(section(out, outlen, ".debug_info"));
	free(out);
	/* Loaded contents left out: .text keeps its header (address, size)
	 * without its bytes; the DWARF is all there. */
	const Elf64_Shdr *text = section(p, n, ".text");
	assert_non_null(text);
	size_t full;
	assert_int_equal(elf_expand(p, n, NULL, 0, &out, &full), 0);
	free(out);
	assert_int_equal(elf_expand(p, n, NULL, ELF_EXPAND_DROP_LOADED, &out, &outlen), 0);
	const Elf64_Shdr *t2 = section(out, outlen, ".text");
	assert_non_null(t2);
	assert_int_equal(t2->sh_type, SHT_NOBITS);
	assert_int_equal(t2->sh_size, text->sh_size);
	assert_int_equal(t2->sh_addr, text->sh_addr);
	assert_true(outlen + text->sh_size <= full);
	assert_non_null(section(out, outlen, ".debug_line"));
	free(out);
	free(p);
}

static void test_nothing_to_do(void **state)
{
	(void)state;
	char a[128];
	snprintf(a, sizeof(a), "%s/p.plain", dir);
	size_t n, outlen;
	uint8_t *p = slurp(a, &n), *out = NULL;
	assert_int_equal(elf_expand(p, n, NULL, 0, &out, &outlen), -ENOENT);
	assert_int_equal(elf_expand((const uint8_t *)"not an elf", 10, NULL, 0, &out, &outlen), -ENOENT);
	assert_int_equal(elf_expand_check(p, n, NULL, 0), -ENOENT);
	assert_int_equal(elf_expand_check((const uint8_t *)"not an elf", 10, NULL, 0), -ENOENT);
	assert_null(out);
	free(p);
}

/* Every prefix, and every byte of .debug_info's compressed data flipped,
 * each from an exact-size copy: no crash, no read past the end, and a
 * flipped byte never gives a "good" image with wrong bytes silently. */
static void test_cut_and_flipped(void **state)
{
	(void)state;
	char a[128];
	snprintf(a, sizeof(a), "%s/p.zlib", dir);
	size_t n, outlen;
	uint8_t *p = slurp(a, &n), *out;
	for (size_t cut = 0; cut < n; cut += cut < 4096 ? 1 : 97) {
		uint8_t *c = xmalloc(cut ? cut : 1);
		memcpy(c, p, cut);
		int rc = elf_expand(c, cut, NULL, 0, &out, &outlen);
		assert_true(rc == 0 || rc == -ENOENT || rc == -EBADMSG || rc == -E2BIG);
		/* The headers-only check agrees: nothing to expand, or something. */
		int ck = elf_expand_check(c, cut, NULL, 0);
		assert_true(rc != 0 || ck == 0);
		assert_true(ck != -ENOENT || rc == -ENOENT);
		if (rc == 0)
			free(out);
		free(c);
	}
	const Elf64_Shdr *info = section(p, n, ".debug_info");
	assert_non_null(info);
	assert_true(info->sh_flags & SHF_COMPRESSED);
	uint8_t *good;
	size_t goodlen;
	assert_int_equal(elf_expand(p, n, NULL, 0, &good, &goodlen), 0);
	const Elf64_Shdr *ginfo = section(good, goodlen, ".debug_info");
	assert_non_null(ginfo);
	size_t bad = 0;
	for (size_t i = sizeof(Elf64_Chdr) + 2; i < info->sh_size; i++) {
		uint8_t *c = xmalloc(n);
		memcpy(c, p, n);
		c[info->sh_offset + i] ^= 0x5a;
		int rc = elf_expand(c, n, NULL, 0, &out, &outlen);
		if (rc == 0) { /* accepted only if the bytes came out right (the checksum) */
			const Elf64_Shdr *x = section(out, outlen, ".debug_info");
			assert_non_null(x);
			assert_int_equal(x->sh_size, ginfo->sh_size);
			assert_memory_equal(out + x->sh_offset, good + ginfo->sh_offset, x->sh_size);
			free(out);
		} else if (rc == -EBADMSG)
			bad++;
		assert_true(rc == 0 || rc == -EBADMSG);
		free(c);
	}
	assert_true(bad > 0);
	free(good);
	/* The message names the section and the offset. */
	uint8_t *c = xmalloc(n);
	memcpy(c, p, n);
	memset(c + info->sh_offset + sizeof(Elf64_Chdr), 0xff, 8);
	assert_int_equal(elf_expand(c, n, NULL, 0, &out, &outlen), -EBADMSG);
	assert_non_null(strstr(err_last()->msg, "compressed data"));
	assert_int_equal(err_last()->offset, info->sh_offset);
	free(c);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zlib_and_zstd), cmocka_unit_test(test_libc_debug_file),
		cmocka_unit_test(test_skip),	      cmocka_unit_test(test_nothing_to_do),
		cmocka_unit_test(test_cut_and_flipped),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
