/*
 * Unit tests for the debug-file and JIT parsers (dso, L2): debugfile,
 * unpack, perfmap, jitdump. Real files made by binutils: a program built
 * with -g, its debug file, that file with zlib, zstd and zlib-gnu
 * (.zdebug) compressed sections, and a Fedora-style MiniDebugInfo payload;
 * compared byte for byte with the uncompressed sections. Then the parsers
 * get every truncation of their inputs in exact-size allocations.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "dso/debugfile.h"
#include "dso/dso.h"
#include "dso/elf_image.h"
#include "dso/jitdump.h"
#include "dso/perfmap.h"
#include "dso/unpack.h"

static char dir[64];
static bool have_zstd; /* objcopy can write zstd sections */

static const char prog_src[] = "#include <stdio.h>\n"
			       "static int __attribute__((noinline)) hidden_helper(int x)\n"
			       "{ return x * 3 + 1; }\n"
			       "int main(int c, char **v) { (void)v; printf(\"%d\\n\", "
			       "hidden_helper(c)); return 0; }\n";

static int run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/kiln-dbgtest-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	FILE *f;
	char path[128];
	snprintf(path, sizeof(path), "%s/p.c", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(prog_src, f);
	fclose(f);
	if (run("cd %s && cc -O1 -g -o p p.c && objcopy --only-keep-debug p p.debug && "
		"objcopy --compress-debug-sections=zlib p.debug p.zlib && "
		"objcopy --compress-debug-sections=zlib-gnu p.debug p.zgnu && "
		"strip -o p.stripped p && objcopy --add-gnu-debuglink=p.debug p.stripped p.linked",
		dir))
		return -1;
	have_zstd = run("cd %s && objcopy --compress-debug-sections=zstd p.debug p.zstd 2>/dev/null",
			dir) == 0;
	/* MiniDebugInfo as Fedora makes it: the function symbols .dynsym lacks,
	 * in a symbol-only ELF, xz-compressed into .gnu_debugdata. */
	if (run("cd %s && nm -D p --format=posix --defined-only | awk '{print $1}' | sort > dyn && "
		"nm p --format=posix --defined-only | awk '$2==\"T\"||$2==\"t\"{print $1}' | sort > "
		"funcs && comm -13 dyn funcs > keep && objcopy --only-keep-debug p mini && "
		"objcopy -S --remove-section .gdb_index --remove-section .comment "
		"--keep-symbols=keep mini mini2 && xz -c mini2 > mini.xz && "
		"strip --strip-all -R .comment -o p.mini p && "
		"objcopy --add-section .gnu_debugdata=mini.xz p.mini",
		dir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	run("rm -rf %s", dir);
	return 0;
}

static struct elf_image *open_in_dir(const char *name)
{
	char path[128];
	struct elf_image *img;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int err = elf_image_open(&img, path);
	if (err)
		fail_msg("%s: %s", path, err_last()->msg);
	return img;
}

/* Every debug section of 'name' decompresses to the bytes of p.debug's. */
static void same_sections(const char *name)
{
	static const char *const secs[] = { ".debug_info", ".debug_line", ".debug_abbrev",
					     ".debug_str", ".debug_frame" };
	struct elf_image *plain = open_in_dir("p.debug"), *z = open_in_dir(name);
	int compared = 0;
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
		struct elf_section a, b;
		if (!elf_image_section(plain, secs[i], &a))
			continue;
		assert_true(elf_image_section(z, secs[i], &b));
		assert_int_equal(a.size, b.size);
		assert_memory_equal(a.data, b.data, a.size);
		/* Asked again: the cached bytes. */
		struct elf_section c;
		assert_true(elf_image_section(z, secs[i], &c));
		assert_ptr_equal(c.data, b.data);
		compared++;
	}
	assert_true(compared >= 3);
	/* Symbols are not compressed: the same table either way. */
	assert_int_equal(elf_image_nsyms(plain), elf_image_nsyms(z));
	elf_image_free(plain);
	elf_image_free(z);
}

static void test_compressed_sections(void **state)
{
	(void)state;
	same_sections("p.zlib");
	same_sections("p.zgnu");
	if (have_zstd)
		same_sections("p.zstd");
	else
		printf("note: objcopy cannot write zstd sections; zstd not compared\n");
}

/* A section's raw bytes (as stored): its offset and size, from readelf. */
static bool raw_section(const char *file, const char *sec, long *off, long *size)
{
	char cmd[512], line[512];
	snprintf(cmd, sizeof(cmd), "readelf -SW %s/%s 2>/dev/null", dir, file);
	FILE *p = popen(cmd, "r");
	bool found = false;
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p)) {
		char name[128], type[64];
		unsigned long addr, o, sz;
		const char *b = strchr(line, ']');
		if (!found && b && sscanf(b + 1, "%127s %63s %lx %lx %lx", name, type, &addr, &o, &sz) == 5 &&
		    !strcmp(name, sec)) {
			*off = (long)o;
			*size = (long)sz;
			found = true;
		}
	}
	pclose(p);
	return found;
}

static uint8_t *slurp(const char *name, size_t *len)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = xmalloc((size_t)n + 1);
	assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return p;
}

/* Every prefix of a compressed section fails cleanly (no crash, an error
 * with a message), and the whole one succeeds. */
static void test_truncated_streams(void **state)
{
	(void)state;
	long off, size;
	size_t len;
	assert_true(raw_section("p.zlib", ".debug_info", &off, &size));
	uint8_t *file = slurp("p.zlib", &len);
	assert_true(off > 0 && size > 24 && (size_t)(off + size) <= len);
	for (long n = 0; n <= size; n += n < 64 ? 1 : 7) {
		uint8_t *copy = xmalloc((size_t)n + 1), *out = NULL;
		memcpy(copy, file + off, (size_t)n);
		size_t outlen;
		err_clear();
		int err = unpack_chdr(copy, (size_t)n, true, &out, &outlen);
		if (n < size) {
			assert_int_equal(err, -EBADMSG);
			assert_true(err_last()->msg[0] != '\0');
		}
		free(out);
		free(copy);
	}
	uint8_t *out;
	size_t outlen;
	assert_int_equal(unpack_chdr(file + off, (size_t)size, true, &out, &outlen), 0);
	free(out);
	/* A header that claims more than the limit is refused before any work. */
	uint8_t hdr[24] = { 1 };
	memset(hdr + 8, 0xff, 8);
	assert_int_equal(unpack_chdr(hdr, sizeof(hdr), true, &out, &outlen), -EBADMSG);
	assert_non_null(strstr(err_last()->msg, "limit"));
	free(file);
}

static void test_debuglink(void **state)
{
	(void)state;
	struct elf_image *img = open_in_dir("p.linked");
	struct elf_section sec;
	struct debuglink dl;
	assert_true(elf_image_section(img, ".gnu_debuglink", &sec));
	assert_int_equal(debuglink_parse(sec.data, sec.size, &dl), 0);
	assert_string_equal(dl.name, "p.debug");
	size_t len;
	uint8_t *dbg = slurp("p.debug", &len);
	assert_int_equal(debuglink_crc(dbg, len), dl.crc);
	dbg[len / 2] ^= 1;
	assert_int_not_equal(debuglink_crc(dbg, len), dl.crc);
	free(dbg);
	/* Truncations of the section: all refused except the whole. */
	for (size_t n = 0; n < sec.size; n++) {
		uint8_t *c = xmalloc(n + 1);
		memcpy(c, sec.data, n);
		assert_int_equal(debuglink_parse(c, n, &dl), -EBADMSG);
		free(c);
	}
	static const uint8_t slash[] = "../x\0\0\0\0\1\2\3\4";
	assert_int_equal(debuglink_parse(slash, sizeof(slash) - 1, &dl), -EBADMSG);
	elf_image_free(img);
}

/*
 * A binary whose symbols come from its debug file keeps its PLT stubs'
 * names: the debug file has no PLT contents, so they are taken from the
 * binary (perf does the same). libbfd (libbinutils-dbg) or libc
 * (libc6-dbg): every stub of .plt/.plt.sec the binary names is named the
 * same through the dso registry.
 */
static void test_debug_file_plt(void **state)
{
	(void)state;
	static const char *const bins[] = { "/usr/lib/x86_64-linux-gnu/libbfd-2.40-system.so",
					    "/usr/lib/x86_64-linux-gnu/libc.so.6" };
	size_t checked = 0;
	for (size_t b = 0; b < sizeof(bins) / sizeof(*bins); b++) {
		struct dso_set ds;
		dso_set_init(&ds);
		struct dso *d = dso_set_get(&ds, dso_set_intern(&ds, bins[b]));
		const struct elf_image *bin = dso_image(&ds, d);
		char path[4096];
		if (!bin || !dso_symbols(&ds, d) || !dso_symbols_path(&ds, d, path, sizeof(path)) ||
		    !strcmp(path, bins[b])) {
			dso_set_release(&ds);
			continue; /* no debug file here */
		}
		const struct elf_image *sym = dso_symbols(&ds, d);
		assert_true(sym != bin);
		static const char *const secs[] = { ".plt", ".plt.sec" };
		for (size_t k = 0; k < 2; k++) {
			struct elf_section plt;
			if (!elf_image_section(bin, secs[k], &plt))
				continue;
			for (uint64_t a = plt.vaddr; a < plt.vaddr + plt.size; a += 16) {
				uint64_t s1, s2;
				const char *want = elf_image_lookup(bin, a, &s1);
				size_t n = want ? strlen(want) : 0;
				if (n < 4 || strcmp(want + n - 4, "@plt") || s1 != a)
					continue;
				const char *got = elf_image_lookup(sym, a, &s2);
				assert_non_null(got);
				assert_string_equal(got, want);
				assert_int_equal(s2, a);
				checked++;
			}
		}
		dso_set_release(&ds);
	}
	if (!checked)
		skip(); /* neither debug package installed */
	assert_true(checked > 20);
}

static void test_minidebuginfo(void **state)
{
	(void)state;
	struct elf_image *img = open_in_dir("p.mini");
	uint64_t start;
	struct elf_section sec;
	assert_true(elf_image_section(img, ".gnu_debugdata", &sec));
	struct elf_image *mini;
	assert_int_equal(minidebug_open(&mini, sec.data, sec.size), 0);
	/* The full binary tells where hidden_helper is. */
	struct elf_image *full = open_in_dir("p");
	uint64_t addr = 0;
	for (uint64_t a = 0; a < 0x100000 && !addr; a++) {
		const char *n = elf_image_lookup(full, a, &start);
		if (n && !strcmp(n, "hidden_helper"))
			addr = start;
	}
	assert_true(addr != 0);
	assert_null(elf_image_lookup(img, addr, &start));
	const char *n = elf_image_lookup(mini, addr, &start);
	assert_non_null(n);
	assert_string_equal(n, "hidden_helper");
	size_t before = elf_image_nsyms(img);
	elf_image_add_symbols(img, mini);
	assert_true(elf_image_nsyms(img) > before);
	elf_image_free(mini);
	n = elf_image_lookup(img, addr + 1, &start); /* names were copied */
	assert_non_null(n);
	assert_string_equal(n, "hidden_helper");
	assert_int_equal(start, addr);
	/* Truncated xz: errors, never a crash. */
	for (size_t k = 0; k < sec.size; k += 1 + k / 8) {
		uint8_t *c = xmalloc(k + 1);
		memcpy(c, sec.data, k);
		assert_int_not_equal(minidebug_open(&mini, c, k), 0);
		free(c);
	}
	elf_image_free(full);
	elf_image_free(img);
}

static const char *look(const struct perfmap *pm, uint64_t ip)
{
	uint64_t start;
	return perfmap_lookup(pm, ip, &start);
}

static void test_perfmap(void **state)
{
	(void)state;
	static const char text[] = "1000 10 LazyCompile:*a /x.js:1\n"
				   "0x2000 0x20 Lcom/Foo;::bar\n"
				   "3000 0 zero_size\n"
				   "bad line\n"
				   "4000 10\n"          /* too short for a name: skipped */
				   "5000 100 outer\n"
				   "5010 10 inner\n"    /* overlaps outer: starts later, wins */
				   "1000 10 newer_a\n"; /* same start as the first: later wins */
	struct perfmap *pm;
	assert_int_equal(perfmap_parse(&pm, text, sizeof(text) - 1), 0);
	assert_int_equal(perfmap_count(pm), 7);
	assert_string_equal(look(pm, 0x1000), "newer_a");
	assert_string_equal(look(pm, 0x100f), "newer_a");
	assert_null(look(pm, 0x1010));
	assert_string_equal(look(pm, 0x201f), "Lcom/Foo;::bar");
	assert_string_equal(look(pm, 0x3000), "zero_size");
	assert_null(look(pm, 0x3001));
	assert_null(look(pm, 0x4005));
	assert_string_equal(look(pm, 0x5005), "outer");
	assert_string_equal(look(pm, 0x5015), "inner");
	assert_string_equal(look(pm, 0x5050), "outer");
	perfmap_free(pm);
	/* The last line without '\n' loses its last byte, as in perf. */
	static const char last[] = "1000 10 name";
	assert_int_equal(perfmap_parse(&pm, last, sizeof(last) - 1), 0);
	assert_string_equal(look(pm, 0x1000), "nam");
	perfmap_free(pm);
	/* Every truncation parses without reading past it. */
	for (size_t n = 0; n < sizeof(text); n++) {
		char *c = xmalloc(n + 1);
		memcpy(c, text, n);
		assert_int_equal(perfmap_parse(&pm, c, n), 0);
		assert_true(perfmap_count(pm) <= 7);
		perfmap_free(pm);
		free(c);
	}
}

static void test_perfmap_owner(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	FILE *f = fopen(path, "w");
	fputs("1000 10 fun\n2000 10 f\n", f);
	fclose(f);
	struct perfmap *pm;
	assert_int_equal(perfmap_load(&pm, path, 0), 0);
	assert_string_equal(look(pm, 0x1000), "fun");
	assert_null(look(pm, 0x2000)); /* perf skips names under 3 bytes */
	perfmap_free(pm);
	char link[160];
	snprintf(link, sizeof(link), "%s/perf-2.map", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(perfmap_load(&pm, link, 0), -EPERM); /* symlinks are refused */
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 12345, 12345), 0);
		assert_int_equal(perfmap_load(&pm, path, 0), -EPERM);
		assert_non_null(strstr(err_last()->msg, "owned by uid 12345"));
		/* ... unless the process it describes runs as that user. */
		pid_t child = fork();
		if (child == 0) {
			if (setuid(12345))
				_exit(1);
			pause();
			_exit(0);
		}
		usleep(100000);
		assert_int_equal(perfmap_load(&pm, path, (uint32_t)child), 0);
		perfmap_free(pm);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
}

static size_t put_load(uint8_t *p, uint64_t addr, uint64_t size, const char *name)
{
	size_t nl = strlen(name) + 1, total = 56 + nl;
	memset(p, 0, total);
	uint32_t id = 0, t = (uint32_t)total;
	memcpy(p, &id, 4);
	memcpy(p + 4, &t, 4);
	memcpy(p + 24, &addr, 8);
	memcpy(p + 32, &addr, 8);
	memcpy(p + 40, &size, 8);
	memcpy(p + 56, name, nl);
	return total;
}

static void test_jitdump(void **state)
{
	(void)state;
	uint8_t buf[512] = { 0 };
	uint32_t hdr[4] = { 0x4A695444, 1, 40, 62 };
	memcpy(buf, hdr, sizeof(hdr));
	size_t n = 40;
	n += put_load(buf + n, 0x1000, 0x10, "first");
	n += put_load(buf + n, 0x2000, 0x20, "second");
	/* JIT_CODE_MOVE of "first" from 0x1000 to 0x3000. */
	uint8_t *m = buf + n;
	uint32_t id = 1, total = 64;
	uint64_t oldaddr = 0x1000, newaddr = 0x3000, size = 0x10;
	memcpy(m, &id, 4);
	memcpy(m + 4, &total, 4);
	memcpy(m + 32, &oldaddr, 8);
	memcpy(m + 40, &newaddr, 8);
	memcpy(m + 48, &size, 8);
	n += 64;
	struct perfmap *pm;
	assert_int_equal(jitdump_parse(&pm, buf, n), 0);
	assert_string_equal(look(pm, 0x1005), "first");
	assert_string_equal(look(pm, 0x201f), "second");
	assert_string_equal(look(pm, 0x3003), "first");
	perfmap_free(pm);
	/* Truncations: a short header is an error; a torn record keeps the rest. */
	for (size_t k = 0; k < n; k++) {
		uint8_t *c = xmalloc(k + 1);
		memcpy(c, buf, k);
		int err = jitdump_parse(&pm, c, k);
		if (k < 40) {
			assert_int_equal(err, -EBADMSG);
		} else {
			assert_int_equal(err, 0);
			assert_true(perfmap_count(pm) <= 3);
			perfmap_free(pm);
		}
		free(c);
	}
	buf[0] ^= 0xff;
	assert_int_equal(jitdump_parse(&pm, buf, n), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compressed_sections),
		cmocka_unit_test(test_truncated_streams),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_debug_file_plt),
		cmocka_unit_test(test_minidebuginfo),
		cmocka_unit_test(test_perfmap),
		cmocka_unit_test(test_perfmap_owner),
		cmocka_unit_test(test_jitdump),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
