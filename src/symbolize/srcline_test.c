/*
 * srcline unit tests (symbolize, L5): real files against binutils.
 *  - libc with its Debian debug file (libc6-dbg): hundreds of addresses
 *    spread over .text, each answered by srclines_a2l and by `addr2line -a
 *    -i -f` on the same debug file, compared record by record (function,
 *    file basename, line), inline chains included.
 *  - srclines_decl on this test binary: a function's declaration line
 *    and file;
 *  - this test binary (-g) with its DWARF sections bit-flipped and cut:
 *    every answer (srclines_a2l, srclines_decl) is bounded and nothing
 *    crashes (the sanitizer build checks the reads).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/vec.h"
#include "base/xalloc.h"
#include "dso/dso.h"
#include "dso/elf_image.h"
#include "symbolize/srcline.h"

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define NADDR 600

struct expect {
	uint64_t addr;
	size_t n;
	struct {
		char func[256], file[256];
		unsigned line;
	} r[SRCLINE_MAX_INLINE];
};

static void chomp(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/* "path/file.c:123 (discriminator 4)" -> "file.c", 123; "??:0" / "x:?" -> line 0. */
static void split_place(const char *s, char *file, size_t flen, unsigned *line)
{
	const char *colon = strrchr(s, ':');
	char path[4096];
	snprintf(path, sizeof(path), "%.*s", colon ? (int)(colon - s) : (int)strlen(s), s);
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t bl = strnlen(b, flen - 1);
	memcpy(file, b, bl);
	file[bl] = '\0';
	*line = colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
}

/* addr2line's answers for every address, parsed from its -a output. */
static size_t run_addr2line(const char *file, const uint64_t *addrs, size_t n, struct expect *ex)
{
	char in[64], cmd[4400];
	snprintf(in, sizeof(in), "/tmp/kiln-srcline-XXXXXX");
	int fd = mkstemp(in);
	if (fd < 0)
		return 0;
	FILE *f = fdopen(fd, "w");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%" PRIx64 "\n", addrs[i]);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "addr2line -a -i -f -e '%s' < '%s' 2>/dev/null", file, in);
	FILE *p = popen(cmd, "r");
	size_t k = 0;
	char fn[4096], place[4096];
	struct expect *cur = NULL;
	while (p && fgets(fn, sizeof(fn), p)) {
		chomp(fn);
		if (!strncmp(fn, "0x", 2)) {
			if (k == n)
				break;
			cur = &ex[k++];
			memset(cur, 0, sizeof(*cur));
			cur->addr = strtoull(fn, NULL, 16);
			continue;
		}
		if (!cur || !fgets(place, sizeof(place), p))
			break;
		chomp(place);
		if (cur->n == 0 && !strcmp(fn, "??") && !strcmp(place, "??:0"))
			continue; /* not found: no records */
		if (cur->n < SRCLINE_MAX_INLINE) {
			size_t fl = strnlen(fn, sizeof(cur->r[0].func) - 1);
			memcpy(cur->r[cur->n].func, fn, fl);
			cur->r[cur->n].func[fl] = '\0';
			split_place(place, cur->r[cur->n].file, sizeof(cur->r[0].file),
				    &cur->r[cur->n].line);
			cur->n++;
		}
	}
	if (p)
		pclose(p);
	unlink(in);
	return k;
}

static bool same(const struct strtab *strs, const struct a2l_rec *r, size_t n, const struct expect *e)
{
	if (n != e->n)
		return false;
	for (size_t i = 0; i < n; i++) {
		const char *fn = r[i].func == SRCLINE_NONE ? "??" : strtab_get(strs, r[i].func);
		const char *file = r[i].file == SRCLINE_NONE ? "??" : strtab_get(strs, r[i].file);
		if (strcmp(fn, e->r[i].func) || strcmp(file, e->r[i].file) || r[i].line != e->r[i].line)
			return false;
	}
	return true;
}

static void test_libc_vs_addr2line(void **state)
{
	(void)state;
	struct dso_set ds;
	struct strtab strs;
	dso_set_init(&ds);
	strtab_init(&strs);
	struct dso *d = dso_set_get(&ds, dso_set_intern(&ds, LIBC));
	char path[4096];
	const struct elf_image *img = dso_image(&ds, d);
	struct elf_section text;
	if (!img || !dso_symbols_path(&ds, d, path, sizeof(path)) || !strcmp(path, LIBC) ||
	    !elf_image_section(img, ".text", &text)) {
		dso_set_release(&ds);
		strtab_release(&strs);
		skip(); /* no libc debug file (libc6-dbg) */
	}
	uint64_t *addrs = xmalloc(sizeof(*addrs) * NADDR);
	for (size_t i = 0; i < NADDR; i++)
		addrs[i] = text.vaddr + (text.size / NADDR) * i + (i * 7919) % 61;
	struct expect *ex = xcalloc(NADDR, sizeof(*ex));
	size_t got = run_addr2line(path, addrs, NADDR, ex);
	if (got != NADDR) {
		free(ex);
		free(addrs);
		dso_set_release(&ds);
		strtab_release(&strs);
		skip(); /* addr2line missing */
	}
	struct srclines sl;
	srclines_init(&sl, &ds, &strs);
	size_t agree = 0, chains = 0, known = 0;
	for (size_t i = 0; i < NADDR; i++) {
		const struct a2l_rec *r;
		size_t n = srclines_a2l(&sl, 0, addrs[i], &r);
		known += n > 0;
		chains += n > 1;
		if (same(&strs, r, n, &ex[i])) {
			agree++;
		} else if (getenv("KILN_TEST_VERBOSE")) {
			fprintf(stderr, "%" PRIx64 ": kiln %zu records, addr2line %zu (%s %s:%u)\n",
				addrs[i], n, ex[i].n, ex[i].r[0].func, ex[i].r[0].file, ex[i].r[0].line);
		}
		/* A second lookup comes from the cache and is the same. */
		const struct a2l_rec *r2;
		assert_int_equal(srclines_a2l(&sl, 0, addrs[i], &r2), n);
		assert_ptr_equal(r2, r);
	}
	printf("libc: %zu of %d addresses equal addr2line -i -f (%zu known, %zu inline chains)\n",
	       agree, NADDR, known, chains);
	assert_true(known > NADDR * 9 / 10);
	assert_true(chains > 10);
	assert_true(agree * 100 >= (size_t)NADDR * 99);
	srclines_release(&sl);
	free(ex);
	free(addrs);
	dso_set_release(&ds);
	strtab_release(&strs);
}

/* Byte ranges of an ELF64 file's sections whose names start with 'prefix',
 * from its section headers. */
static size_t ranges_of(const uint8_t *b, size_t len, const char *prefix, size_t *off, size_t *size,
			size_t cap)
{
	if (len < 64)
		return 0;
	uint64_t shoff;
	uint16_t shentsize, shnum, shstrndx;
	memcpy(&shoff, b + 40, 8);
	memcpy(&shentsize, b + 58, 2);
	memcpy(&shnum, b + 60, 2);
	memcpy(&shstrndx, b + 62, 2);
	if (shentsize != 64 || shoff > len || (uint64_t)shnum * 64 > len - shoff || shstrndx >= shnum)
		return 0;
	uint64_t stroff;
	memcpy(&stroff, b + shoff + shstrndx * 64 + 24, 8);
	size_t n = 0;
	for (unsigned i = 0; i < shnum && n < cap; i++) {
		const uint8_t *sh = b + shoff + i * 64;
		uint32_t name;
		uint64_t o, s;
		memcpy(&name, sh, 4);
		memcpy(&o, sh + 24, 8);
		memcpy(&s, sh + 32, 8);
		if (stroff + name >= len || o > len || s > len - o || !s)
			continue;
		if (!strncmp((const char *)b + stroff + name, prefix, strlen(prefix))) {
			off[n] = o;
			size[n] = s;
			n++;
		}
	}
	return n;
}

/* A function whose declaration srclines_decl must find (its line below). */
static const unsigned decl_probe_line = __LINE__ + 1;
__attribute__((noinline)) static int decl_probe(int x)
{
	return x * 3 + 1;
}

extern char __executable_start;

/* srclines_decl on this test binary: the function at an address, with
 * its declaration's file and line. */
static void test_decl(void **state)
{
	(void)state;
	char exe[4096];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(k > 0);
	exe[k] = '\0';
	struct dso_set ds;
	struct strtab strs;
	struct srclines sl;
	dso_set_init(&ds);
	strtab_init(&strs);
	uint32_t id = dso_set_intern(&ds, exe);
	const struct elf_image *img = dso_image(&ds, dso_set_get(&ds, id));
	assert_non_null(img);
	/* The link-time address: PIE images are linked at 0. */
	uint64_t addr = (uint64_t)(uintptr_t)&decl_probe;
	uint64_t vaddr = elf_image_type(img) == 3 /* ET_DYN */ ? addr - (uint64_t)(uintptr_t)&__executable_start : addr;
	srclines_init(&sl, &ds, &strs);
	struct srcline_decl d[SRCLINE_MAX_INLINE];
	size_t n = srclines_decl(&sl, id, vaddr, d, SRCLINE_MAX_INLINE);
	assert_int_equal(decl_probe(1), 4);
	if (!n) { /* no DWARF in this build */
		srclines_release(&sl);
		dso_set_release(&ds);
		strtab_release(&strs);
		skip();
	}
	assert_int_equal(n, 1);
	assert_int_equal(d[0].line, decl_probe_line);
	assert_int_not_equal(d[0].file, SRCLINE_NONE);
	const char *file = strtab_get(&strs, d[0].file);
	assert_non_null(strstr(file, "srcline_test.c"));
	assert_int_equal(srclines_decl(&sl, id, vaddr, d, 0), 0); /* cap 0: nothing */
	srclines_release(&sl);
	dso_set_release(&ds);
	strtab_release(&strs);
}

/* /proc/self/exe's bytes. */
static void read_self(uint8_t **v, size_t *len)
{
	FILE *f = fopen("/proc/self/exe", "rb");
	assert_non_null(f);
	VEC(uint8_t) img = { 0 };
	uint8_t buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		for (size_t i = 0; i < n; i++)
			VEC_PUSH(&img, buf[i]);
	fclose(f);
	*v = img.v;
	*len = img.n;
}

/*
 * Copies of this test binary with bytes of the given sections overwritten
 * (0xff, or random), and every 5th round one section's second half zeroed:
 * source lines of addresses in our code stay bounded, without a crash
 * (nor, under ASan, a read out of bounds).
 */
static void corrupt_rounds(const uint8_t *img, size_t len, const size_t *off, const size_t *size,
			   size_t ns, int rounds, int bytes)
{
	char tmp[] = "/tmp/kiln-srcline-bad-XXXXXX";
	int fd = mkstemp(tmp);
	assert_true(fd >= 0);
	close(fd);
	uint64_t text = (uint64_t)(uintptr_t)&corrupt_rounds; /* somewhere in our code */
	srand(12345);
	for (int round = 0; round < rounds; round++) {
		uint8_t *copy = xmalloc(len);
		memcpy(copy, img, len);
		for (int k = 0; k < bytes; k++) {
			size_t s = (size_t)rand() % ns;
			size_t at = off[s] + (size_t)rand() % size[s];
			copy[at] = round % 3 == 0 ? 0xff : (uint8_t)rand();
		}
		if (round % 5 == 4) { /* a section cut short: zero its tail */
			size_t s = (size_t)rand() % ns;
			memset(copy + off[s] + size[s] / 2, 0, size[s] - size[s] / 2);
		}
		FILE *f = fopen(tmp, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(copy, 1, len, f), len);
		fclose(f);
		free(copy);
		struct dso_set ds;
		struct strtab strs;
		struct srclines sl;
		dso_set_init(&ds);
		strtab_init(&strs);
		uint32_t id = dso_set_intern(&ds, tmp);
		srclines_init(&sl, &ds, &strs);
		for (uint64_t a = 0; a < 4096 * 64; a += 4096 + 17) {
			const struct a2l_rec *r;
			size_t k = srclines_a2l(&sl, id, (a + (text & 0xffff)) & 0xfffff, &r);
			assert_true(k <= SRCLINE_MAX_INLINE);
			struct srcline_decl d[4];
			assert_true(srclines_decl(&sl, id, (a + (text & 0xffff)) & 0xfffff, d, 4) <= 4);
		}
		srclines_release(&sl);
		dso_set_release(&ds);
		strtab_release(&strs);
	}
	unlink(tmp);
}

static void test_corrupt_dwarf(void **state)
{
	(void)state;
	uint8_t *img;
	size_t len, off[32], size[32];
	read_self(&img, &len);
	size_t ns = ranges_of(img, len, ".debug_", off, size, 32);
	if (!ns) {
		free(img);
		skip(); /* built without DWARF */
	}
	corrupt_rounds(img, len, off, size, ns, 60, 40);
	free(img);
}

/* The symbol table and its names corrupted: names past the string table,
 * strings without their NUL, the table's last byte not NUL. */
static void test_corrupt_symtab(void **state)
{
	(void)state;
	uint8_t *img;
	size_t len, off[4], size[4];
	read_self(&img, &len);
	size_t ns = ranges_of(img, len, ".symtab", off, size, 2);
	ns += ranges_of(img, len, ".strtab", off + ns, size + ns, 2);
	if (ns < 2) {
		free(img);
		skip(); /* stripped */
	}
	img[off[1] + size[1] - 1] = 'x'; /* the last name unterminated in every round */
	corrupt_rounds(img, len, off, size, ns, 30, 400);
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libc_vs_addr2line),
		cmocka_unit_test(test_decl),
		cmocka_unit_test(test_corrupt_dwarf),
		cmocka_unit_test(test_corrupt_symtab),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
