/*
 * elf_image unit tests (dso, L2): real binaries compared with binutils.
 * A small program is compiled into a temp dir with `cc -O2 -g`; it, /bin/ls,
 * libc and (when the toolchain can make one) a 32-bit shared object are
 * parsed and checked against nm (symbols), readelf (PT_LOADs, build-id)
 * and objdump (PLT labels). Then the parser is fed truncated and
 * bit-flipped copies, each in an exact-size allocation so the sanitizers
 * catch any read past the end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/vec.h"
#include "base/xalloc.h"
#include "dso/elf_image.h"

#define LIBC64 "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define LIBC32 "/usr/lib32/libc.so.6"
#define LS "/usr/bin/ls"

static char tmpdir[64];
static char prog[128];	   /* cc -O2 -g: .plt, .symtab */
static char prog_ibt[128]; /* -fcf-protection -z ibtplt: .plt.sec ("" if unavailable) */
static char so32[128];	   /* ELF32 i386 shared object ("" if unavailable) */

/* The test program. The assembly block builds alias groups whose winner
 * follows from one rule each (perf's choose_best_symbol):
 *   alias_global_ab       sized > weak, global > local, fewer '_', longer
 *   sized_local_second    sized beats sizeless (sizeless_first)
 *   tie_one / tie_two     equal on every rule: first in .symtab wins
 *   local_strong          non-weak beats weak (weak_global)
 * and lone_label, a sizeless NOTYPE label that must reach the next symbol. */
static const char prog_src[] =
	"#include <stdio.h>\n"
	"__asm__(\".pushsection .text, \\\"ax\\\", @progbits\\n\"\n"
	"\"\\t.p2align 4\\n\"\n"
	"\"\\t.globl alias_global_a\\n\\t.type alias_global_a, @function\\n\"\n"
	"\"\\t.weak alias_weak_with_longest_name\\n\"\n"
	"\"\\t.type alias_weak_with_longest_name, @function\\n\"\n"
	"\"\\t.globl __alias_underscored_long\\n\\t.type __alias_underscored_long, @function\\n\"\n"
	"\"\\t.globl alias_global_ab\\n\\t.type alias_global_ab, @function\\n\"\n"
	"\"\\t.type alias_local_abcdefghij, @function\\n\"\n"
	"\"alias_global_a:\\nalias_weak_with_longest_name:\\n__alias_underscored_long:\\n\"\n"
	"\"alias_global_ab:\\nalias_local_abcdefghij:\\n\"\n"
	"\"\\tnop\\n\\tnop\\n\\tnop\\n\\tret\\n\"\n"
	"\"\\t.size alias_global_a, 4\\n\\t.size alias_weak_with_longest_name, 4\\n\"\n"
	"\"\\t.size __alias_underscored_long, 4\\n\\t.size alias_global_ab, 4\\n\"\n"
	"\"\\t.size alias_local_abcdefghij, 4\\n\"\n"
	"\"\\t.p2align 4\\n\\t.globl sizeless_first\\nsizeless_first:\\n\"\n"
	"\"\\t.type sized_local_second, @function\\n\"\n"
	"\"sized_local_second:\\n\\tnop\\n\\tret\\n\\t.size sized_local_second, 2\\n\"\n"
	"\"\\t.p2align 4\\n\\t.globl lone_label\\nlone_label:\\n\\tnop\\n\\tnop\\n\\tnop\\n\\tret\\n\"\n"
	"\"\\t.p2align 4\\n\"\n"
	"\"\\t.globl tie_one\\n\\t.type tie_one, @function\\n\"\n"
	"\"\\t.globl tie_two\\n\\t.type tie_two, @function\\n\"\n"
	"\"tie_one:\\ntie_two:\\n\\tret\\n\\t.size tie_one, 1\\n\\t.size tie_two, 1\\n\"\n"
	"\"\\t.p2align 4\\n\"\n"
	"\"\\t.weak weak_global\\n\\t.type weak_global, @function\\n\"\n"
	"\"\\t.type local_strong, @function\\n\"\n"
	"\"weak_global:\\nlocal_strong:\\n\\tret\\n\\t.size weak_global, 1\\n\"\n"
	"\"\\t.size local_strong, 1\\n\"\n"
	"\".popsection\\n\");\n"
	"static int __attribute__((noinline)) helper(int x)\n"
	"{\n\treturn x * 3 + 1;\n}\n"
	"int main(int argc, char **argv)\n"
	"{\n\tputs(\"kiln\");\n\tprintf(\"%d %s\\n\", helper(argc), argv[0]);\n\treturn 0;\n}\n";

/* A 32-bit object needs no libc headers: compile and link it with ld. */
static const char so32_src[] = "int puts(const char *);\n"
			       "static int __attribute__((noinline)) f(int x) { return x * 3; }\n"
			       "int g(int c) { puts(\"x\"); return f(c); }\n";

/* ---- helpers ---- */

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static uint8_t *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			p = xrealloc(p, cap);
		}
		r = fread(p + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	fclose(f);
	*len = n;
	return p;
}

static bool exists(const char *path)
{
	return path[0] && access(path, R_OK) == 0;
}

/* An exact-size heap copy, so ASan flags any read past 'len'. */
static uint8_t *dup_exact(const uint8_t *p, size_t len)
{
	uint8_t *q = xmalloc(len ? len : 1);

	memcpy(q, p, len);
	return q;
}

struct nm_ent {
	uint64_t addr;
	char type;
	char name[256];
};

static int nm_cmp(const void *a, const void *b)
{
	const struct nm_ent *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

typedef VEC(struct nm_ent) nm_vec;

/* `nm [-D] --defined-only`, versions ("@GLIBC_2.2.5") cut off, sorted. */
static void load_nm(const char *path, bool dynamic, nm_vec *out)
{
	char cmd[512], line[512];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm %s --defined-only '%s' 2>/dev/null", dynamic ? "-D" : "",
		 path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		struct nm_ent e = { 0 };
		if (sscanf(line, "%" SCNx64 " %c %255s", &e.addr, &e.type, e.name) != 3)
			continue;
		char *at = strchr(e.name, '@');
		if (at)
			*at = '\0';
		VEC_PUSH(out, e);
	}
	pclose(f);
	qsort(out->v, out->n, sizeof(out->v[0]), nm_cmp);
}

static bool nm_has(const nm_vec *nm, uint64_t addr, const char *name)
{
	for (size_t i = 0; i < nm->n; i++)
		if (nm->v[i].addr == addr && strcmp(nm->v[i].name, name) == 0)
			return true;
	return false;
}

static uint64_t nm_addr(const nm_vec *nm, const char *name)
{
	for (size_t i = 0; i < nm->n; i++)
		if (strcmp(nm->v[i].name, name) == 0)
			return nm->v[i].addr;
	fail_msg("nm lists no '%s'", name);
	return 0;
}

struct range {
	uint64_t lo, hi;
};

typedef VEC(struct range) range_vec;

/* Executable sections (flag X) from `readelf -SW`. */
static void load_exec_ranges(const char *path, range_vec *out)
{
	char cmd[512], line[512], name[64], type[32], flags[16];
	uint64_t addr, off, size, es;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -SW '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		const char *p = strchr(line, ']');
		if (!p || !strchr(line, '['))
			continue;
		if (sscanf(p + 1, " %63s %31s %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %15s",
			   name, type, &addr, &off, &size, &es, flags) != 7)
			continue;
		if (strchr(flags, 'X')) {
			struct range r = { addr, addr + size };
			VEC_PUSH(out, r);
		}
	}
	pclose(f);
	assert_true(out->n > 0);
}

static bool in_ranges(const range_vec *r, uint64_t addr)
{
	for (size_t i = 0; i < r->n; i++)
		if (addr >= r->v[i].lo && addr < r->v[i].hi)
			return true;
	return false;
}

/*
 * Every function symbol nm lists (T, t, W, w, i) inside an executable
 * section must resolve, at its own address, to a symbol starting there
 * whose name nm lists at that address (our alias choice may differ from
 * the line we probed, not the address). W/w also cover weak data labels,
 * hence the section check.
 */
static size_t check_nm(const struct elf_image *img, const char *path, bool dynamic)
{
	nm_vec nm = { 0 };
	range_vec exec = { 0 };
	size_t checked = 0;

	load_nm(path, dynamic, &nm);
	load_exec_ranges(path, &exec);
	for (size_t i = 0; i < nm.n; i++) {
		const struct nm_ent *e = &nm.v[i];
		uint64_t start = 0;
		if (!strchr("TtWwi", e->type) || !in_ranges(&exec, e->addr))
			continue;
		const char *name = elf_image_lookup(img, e->addr, &start);
		if (!name || start != e->addr || !nm_has(&nm, e->addr, name))
			fail_msg("%s: %s at %#" PRIx64 ": got %s at %#" PRIx64, path, e->name,
				 e->addr, name ? name : "NULL", start);
		checked++;
	}
	print_message("%s: %zu nm function symbols match\n", path, checked);
	VEC_FREE(&nm);
	VEC_FREE(&exec);
	return checked;
}

/* offset -> vaddr through each `readelf -lW` LOAD line: its first byte, its
 * middle and its last byte; one byte past every segment maps nowhere
 * unless another segment starts there. Returns how many segments had
 * vaddr != offset. */
static size_t check_loads(const struct elf_image *img, const char *path)
{
	char cmd[512], line[512];
	size_t nload = 0, shifted = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -lW '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		uint64_t off, vaddr, paddr, filesz, got;
		char kind[32];
		if (sscanf(line, " %31s %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64, kind, &off,
			   &vaddr, &paddr, &filesz) != 5 ||
		    strcmp(kind, "LOAD") != 0)
			continue;
		(void)paddr;
		nload++;
		if (!filesz)
			continue;
		if (off != vaddr)
			shifted++;
		uint64_t probes[] = { 0, filesz / 2, filesz - 1 };
		for (size_t i = 0; i < 3; i++) {
			assert_true(elf_image_offset_to_vaddr(img, off + probes[i], &got));
			assert_int_equal(got, vaddr + probes[i]);
		}
	}
	pclose(f);
	assert_true(nload > 0);
	uint64_t got;
	assert_false(elf_image_offset_to_vaddr(img, UINT64_MAX - 1, &got));
	return shifted;
}

static void check_build_id(const struct elf_image *img, const char *path)
{
	char cmd[512], line[512], want[2 * ELF_BUILD_ID_MAX + 1] = "", have[sizeof(want)];
	uint8_t id[ELF_BUILD_ID_MAX];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!want[0])
			sscanf(line, " Build ID: %128[0-9a-f]", want);
	pclose(f);

	size_t n = elf_image_build_id(img, id);
	for (size_t i = 0; i < n; i++)
		snprintf(have + 2 * i, 3, "%02x", id[i]);
	have[2 * n] = '\0';
	assert_true(want[0]); /* all our inputs have one */
	assert_string_equal(have, want);
}

/* Every "<name@plt>:" label objdump prints in .plt, .plt.sec and .plt.got
 * must resolve to that name, from its first byte. Returns the count;
 * *found_puts says whether puts@plt was among them. */
static size_t check_plt(const struct elf_image *img, const char *path, bool *found_puts)
{
	char cmd[512], line[512], label[256];
	size_t checked = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	if (found_puts)
		*found_puts = false;
	while (fgets(line, sizeof(line), f)) {
		uint64_t addr, start = 0;
		size_t l;
		if (sscanf(line, "%" SCNx64 " <%255[^>]>:", &addr, label) != 2)
			continue;
		l = strlen(label);
		if (l < 4 || strcmp(label + l - 4, "@plt") != 0)
			continue; /* e.g. "<realloc@plt-0x10>", the PLT0 header */
		const char *name = elf_image_lookup(img, addr, &start);
		if (!name || start != addr || strcmp(name, label) != 0)
			fail_msg("%s: PLT %s at %#" PRIx64 ": got %s at %#" PRIx64, path, label,
				 addr, name ? name : "NULL", start);
		name = elf_image_lookup(img, addr + 1, &start);
		assert_non_null(name);
		assert_string_equal(name, label);
		if (found_puts && strcmp(label, "puts@plt") == 0)
			*found_puts = true;
		checked++;
	}
	pclose(f);
	print_message("%s: %zu objdump PLT labels match\n", path, checked);
	return checked;
}

static struct elf_image *open_ok(const char *path)
{
	struct elf_image *img = NULL;
	int err = elf_image_open(&img, path);

	if (err)
		fail_msg("elf_image_open(%s) = %d: %s", path, err, err_last()->msg);
	assert_non_null(img);
	return img;
}

static const char *lookup_at(const struct elf_image *img, uint64_t addr)
{
	uint64_t start = 0;
	const char *name = elf_image_lookup(img, addr, &start);

	assert_non_null(name);
	assert_int_equal(start, addr);
	return name;
}

/* ---- setup ---- */

static int group_setup(void **state)
{
	char src[160], cmd[1024], obj[160];

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/kiln-elf-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(src, sizeof(src), "%s/prog.c", tmpdir);
	snprintf(prog, sizeof(prog), "%s/prog", tmpdir);
	if (write_file(src, prog_src))
		return -1;
	snprintf(cmd, sizeof(cmd), "cc -O2 -g -o '%s' '%s'", prog, src);
	if (system(cmd) != 0)
		prog[0] = '\0';

	snprintf(prog_ibt, sizeof(prog_ibt), "%s/prog_ibt", tmpdir);
	snprintf(cmd, sizeof(cmd),
		 "cc -O2 -g -fcf-protection -Wl,-z,ibtplt -o '%s' '%s' 2>/dev/null && "
		 "readelf -SW '%s' | grep -q '\\.plt\\.sec'",
		 prog_ibt, src, prog_ibt);
	if (system(cmd) != 0)
		prog_ibt[0] = '\0';

	snprintf(src, sizeof(src), "%s/so32.c", tmpdir);
	snprintf(obj, sizeof(obj), "%s/so32.o", tmpdir);
	snprintf(so32, sizeof(so32), "%s/so32.so", tmpdir);
	if (write_file(src, so32_src))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "cc -m32 -O2 -g -fPIC -c -o '%s' '%s' 2>/dev/null && "
		 "ld -m elf_i386 -shared --build-id -o '%s' '%s' 2>/dev/null",
		 obj, src, so32, obj);
	if (system(cmd) != 0)
		so32[0] = '\0';
	return 0;
}

static int group_teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (tmpdir[0] && strncmp(tmpdir, "/tmp/kiln-elf-", 14) == 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			return -1;
	}
	return 0;
}

/* ---- tests on real binaries ---- */

static void test_prog(void **state)
{
	struct elf_image *img;
	nm_vec nm = { 0 };
	bool puts_found;

	(void)state;
	if (!prog[0])
		skip();
	img = open_ok(prog);
	assert_int_equal(elf_image_type(img), 3); /* ET_DYN: PIE */
	assert_true(check_nm(img, prog, false) >= 10);
	/* bfd puts the data segment one page above its file offset */
	assert_true(check_loads(img, prog) >= 1);
	check_build_id(img, prog);
	assert_true(check_plt(img, prog, &puts_found) >= 1);
	assert_true(puts_found);

	load_nm(prog, false, &nm);
	assert_string_equal(lookup_at(img, nm_addr(&nm, "main")), "main");
	assert_string_equal(lookup_at(img, nm_addr(&nm, "helper")), "helper");
	assert_string_equal(lookup_at(img, nm_addr(&nm, "alias_global_a")), "alias_global_ab");
	assert_string_equal(lookup_at(img, nm_addr(&nm, "sizeless_first")),
			    "sized_local_second");
	assert_string_equal(lookup_at(img, nm_addr(&nm, "weak_global")), "local_strong");

	/* A sized symbol ends at start + size: the alias group is 4 bytes,
	 * then padding up to the next 16-byte boundary belongs to nobody. */
	uint64_t a = nm_addr(&nm, "alias_global_a"), start;
	assert_non_null(elf_image_lookup(img, a + 3, &start));
	assert_null(elf_image_lookup(img, a + 4, &start));

	/* A sizeless label runs to the next symbol, padding included. */
	uint64_t lone = nm_addr(&nm, "lone_label"), tie = nm_addr(&nm, "tie_one");
	assert_true(tie > lone + 4);
	for (uint64_t x = lone; x < tie; x++) {
		const char *name = elf_image_lookup(img, x, &start);
		assert_non_null(name);
		assert_string_equal(name, "lone_label");
		assert_int_equal(start, lone);
	}

	/* tie_one/tie_two: the one listed first in .symtab. */
	char cmd[512], line[512], first[32] = "";
	bool in_symtab = false;
	snprintf(cmd, sizeof(cmd), "readelf -sW '%s'", prog);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "Symbol table '.symtab'"))
			in_symtab = true;
		if (in_symtab && !first[0] && strstr(line, " tie_one\n"))
			snprintf(first, sizeof(first), "tie_one");
		if (in_symtab && !first[0] && strstr(line, " tie_two\n"))
			snprintf(first, sizeof(first), "tie_two");
	}
	pclose(f);
	assert_true(first[0]);
	assert_string_equal(lookup_at(img, tie), first);

	/* Far outside everything. */
	assert_null(elf_image_lookup(img, 0, &start));
	assert_null(elf_image_lookup(img, UINT64_MAX, &start));
	VEC_FREE(&nm);
	elf_image_free(img);
}

static void test_prog_ibt(void **state)
{
	struct elf_image *img;
	bool puts_found;

	(void)state;
	if (!prog_ibt[0])
		skip();
	img = open_ok(prog_ibt);
	assert_true(check_nm(img, prog_ibt, false) >= 10);
	check_loads(img, prog_ibt);
	check_build_id(img, prog_ibt);
	assert_true(check_plt(img, prog_ibt, &puts_found) >= 1);
	assert_true(puts_found);
	elf_image_free(img);
}

/* Stripped PIE: .dynsym only, PLT and .plt.got stubs. */
static void test_ls(void **state)
{
	struct elf_image *img;

	(void)state;
	if (!exists(LS))
		skip();
	img = open_ok(LS);
	assert_true(elf_image_nsyms(img) > 0);
	check_nm(img, LS, true);
	check_loads(img, LS);
	check_build_id(img, LS);
	assert_true(check_plt(img, LS, NULL) >= 10);
	elf_image_free(img);
}

static void test_libc(void **state)
{
	struct elf_image *img;

	(void)state;
	if (!exists(LIBC64))
		skip();
	img = open_ok(LIBC64);
	assert_true(check_nm(img, LIBC64, true) >= 1000);
	check_loads(img, LIBC64);
	check_build_id(img, LIBC64);
	/* glibc's IFUNC relocations are out of PLT order in .rela.plt. */
	assert_true(check_plt(img, LIBC64, NULL) >= 10);
	elf_image_free(img);
}

/* ELF_IMAGE_NO_SYMBOLS: the same segments, sections and build-id, no
 * symbol (nor PLT name). */
static void test_no_symbols(void **state)
{
	(void)state;
	if (!exists(LIBC64))
		skip();
	struct elf_image *img = NULL, *full = open_ok(LIBC64);
	assert_int_equal(elf_image_open_flags(&img, LIBC64, ELF_IMAGE_NO_SYMBOLS), 0);
	assert_true(elf_image_nsyms(full) >= 1000);
	assert_int_equal(elf_image_nsyms(img), 0);
	check_loads(img, LIBC64);
	check_build_id(img, LIBC64);
	struct elf_section a, b;
	assert_true(elf_image_section(full, ".eh_frame", &a));
	assert_true(elf_image_section(img, ".eh_frame", &b));
	assert_int_equal(a.size, b.size);
	assert_int_equal(a.vaddr, b.vaddr);
	assert_memory_equal(a.data, b.data, a.size);
	uint64_t va, vb, lo, hi;
	assert_true(elf_image_offset_segment(img, a.vaddr & 0xfff, &vb, &lo, &hi));
	assert_true(elf_image_offset_to_vaddr(full, a.vaddr & 0xfff, &va));
	assert_int_equal(va, vb);
	assert_true(lo <= (a.vaddr & 0xfff) && (a.vaddr & 0xfff) < hi);
	elf_image_free(img);
	elf_image_free(full);
}

static void test_elf32(void **state)
{
	struct elf_image *img;
	bool puts_found;
	size_t n = 0;

	(void)state;
	if (exists(LIBC32)) {
		img = open_ok(LIBC32);
		assert_true(check_nm(img, LIBC32, true) >= 1000);
		check_loads(img, LIBC32);
		check_build_id(img, LIBC32);
		assert_true(check_plt(img, LIBC32, NULL) >= 5);
		elf_image_free(img);
		n++;
	}
	if (exists(so32)) {
		img = open_ok(so32);
		assert_true(check_nm(img, so32, false) >= 2);
		check_loads(img, so32);
		check_build_id(img, so32);
		assert_true(check_plt(img, so32, &puts_found) >= 1);
		assert_true(puts_found);
		elf_image_free(img);
		n++;
	}
	if (!n)
		skip();
}

static void test_open_errors(void **state)
{
	struct elf_image *img = (void *)1;
	char path[160];
	int fd;

	(void)state;
	assert_int_equal(elf_image_open(&img, "/nonexistent/kiln"), -ENOENT);
	assert_null(img);
	assert_int_equal(elf_image_open(&img, "/"), -EINVAL);
	assert_non_null(strstr(err_last()->msg, "'/'"));
	assert_int_equal(elf_image_open(&img, "/dev/null"), -EINVAL);
	assert_non_null(strstr(err_last()->msg, "/dev/null"));

	/* A FIFO with no writer: O_NONBLOCK keeps open() from hanging. */
	snprintf(path, sizeof(path), "%s/fifo", tmpdir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(elf_image_open(&img, path), -EINVAL);
	assert_non_null(strstr(err_last()->msg, path));

	snprintf(path, sizeof(path), "%s/empty", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(elf_image_open(&img, path), -EBADMSG);

	/* Not ELF: this source file. */
	snprintf(path, sizeof(path), "%s/prog.c", tmpdir);
	assert_int_equal(elf_image_open(&img, path), -EBADMSG);
	assert_null(img);
}

/* ---- hostile input ---- */

static uint64_t rng_state;

static uint64_t rng(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

/* Parse; on success use every accessor so a bad table would be touched. */
static int parse_and_use(const uint8_t *data, size_t len)
{
	struct elf_image *img = NULL;
	uint8_t *copy = dup_exact(data, len);
	int err = elf_image_parse(&img, copy, len);

	if (err) {
		assert_true(err < 0);
		assert_null(img);
		assert_true(err_last()->msg[0] != '\0' || err != -EBADMSG);
	} else {
		uint8_t id[ELF_BUILD_ID_MAX];
		uint64_t v, start, x;
		size_t n = elf_image_nsyms(img);

		assert_true(elf_image_build_id(img, id) <= ELF_BUILD_ID_MAX);
		(void)elf_image_type(img);
		for (x = 0; x < 0x6000; x += 7) {
			const char *name = elf_image_lookup(img, x, &start);
			if (name) {
				assert_true(start <= x);
				assert_true(strlen(name) < len + 16);
			}
			elf_image_offset_to_vaddr(img, x, &v);
		}
		elf_image_lookup(img, UINT64_MAX, &start);
		(void)n;
		elf_image_free(img);
	}
	free(copy);
	return err;
}

static void tally(int err, size_t *ok, size_t *bad)
{
	if (err)
		(*bad)++;
	else
		(*ok)++;
}

static void fuzz_file(const char *path, unsigned iterations)
{
	size_t len, ok = 0, bad = 0;
	uint8_t *data = read_whole(path, &len);

	assert_non_null(data);
	assert_true(len > 4096);

	/* Every truncated length in the first 4 KiB, then steps, then the
	 * last bytes one by one. */
	for (size_t l = 0; l <= 4096; l++)
		tally(parse_and_use(data, l), &ok, &bad);
	size_t step = len / 1500 > 61 ? len / 1500 : 61;
	for (size_t l = 4097; l < len; l += step)
		tally(parse_and_use(data, l), &ok, &bad);
	for (size_t l = len > 64 ? len - 64 : 0; l <= len; l++)
		tally(parse_and_use(data, l), &ok, &bad);
	assert_int_equal(parse_and_use(data, len), 0);
	assert_true(bad > 0);

	/* Random flips, mostly in the ELF, program and section headers. */
	bool is64 = data[4] == 2;
	uint64_t shoff = is64 ? (uint64_t)data[40] | (uint64_t)data[41] << 8 |
					(uint64_t)data[42] << 16 | (uint64_t)data[43] << 24 :
				(uint64_t)data[32] | (uint64_t)data[33] << 8 |
					(uint64_t)data[34] << 16 | (uint64_t)data[35] << 24;
	assert_true(shoff > 0 && shoff < len);
	rng_state = 0x9e3779b97f4a7c15ull;
	for (unsigned it = 0; it < iterations; it++) {
		uint8_t *copy = dup_exact(data, len);
		unsigned flips = 1 + (unsigned)(rng() % 4);
		for (unsigned k = 0; k < flips; k++) {
			uint64_t r = rng(), pos;
			switch (r % 10) {
			case 0:
			case 1:
			case 2:
			case 3:
				pos = (r >> 8) % (is64 ? 64 : 52);
				break;
			case 4:
			case 5:
				pos = (r >> 8) % 1024; /* program headers and notes */
				break;
			case 6:
			case 7:
			case 8:
				pos = shoff + (r >> 8) % (len - shoff);
				break;
			default:
				pos = (r >> 8) % len;
				break;
			}
			copy[pos] = (r >> 40) & 1 ? (uint8_t)(r >> 48) : copy[pos] ^ (1u << (r >> 56) % 8);
		}
		tally(parse_and_use(copy, len), &ok, &bad);
		free(copy);
	}
	print_message("%s: %zu parses ok, %zu rejected\n", path, ok, bad);
	free(data);
}

static void test_truncate_and_flip(void **state)
{
	(void)state;
	if (!prog[0])
		skip();
	fuzz_file(prog, 5000);
	if (exists(so32))
		fuzz_file(so32, 3000);
	if (exists(LS))
		fuzz_file(LS, 1000);
}

/* Little-endian field access for crafting ELF64 variants of 'prog'. */
static uint64_t get(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static void put(uint8_t *p, size_t n, uint64_t v)
{
	for (size_t i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint8_t *shdr_at(uint8_t *d, size_t i)
{
	return d + get(d + 40, 8) + i * get(d + 58, 2);
}

static size_t find_shdr(uint8_t *d, uint32_t type)
{
	size_t n = get(d + 60, 2);

	for (size_t i = 1; i < n; i++)
		if (get(shdr_at(d, i) + 4, 4) == type)
			return i;
	fail_msg("no section of type %u", type);
	return 0;
}

/* Parse a modified copy; returns the image (caller frees) or NULL, with *err. */
static struct elf_image *parse_copy(const uint8_t *d, size_t len, int *err)
{
	struct elf_image *img = NULL;

	*err = elf_image_parse(&img, d, len);
	return img;
}

/* Same symbol table and segments as the reference image, probed by nm. */
static void assert_same(const struct elf_image *a, const struct elf_image *b, const nm_vec *nm)
{
	uint64_t sa, sb, va, vb;

	assert_int_equal(elf_image_nsyms(a), elf_image_nsyms(b));
	for (size_t i = 0; i < nm->n; i++) {
		const char *na = elf_image_lookup(a, nm->v[i].addr, &sa);
		const char *nb = elf_image_lookup(b, nm->v[i].addr, &sb);
		assert_true((na == NULL) == (nb == NULL));
		if (na) {
			assert_string_equal(na, nb);
			assert_int_equal(sa, sb);
		}
	}
	for (uint64_t off = 0; off < 0x5000; off += 0x100) {
		bool ha = elf_image_offset_to_vaddr(a, off, &va);
		assert_int_equal(ha, elf_image_offset_to_vaddr(b, off, &vb));
		if (ha)
			assert_int_equal(va, vb);
	}
}

static void test_crafted(void **state)
{
	struct elf_image *ref, *img;
	uint8_t *orig, *d;
	size_t len;
	nm_vec nm = { 0 };
	int err;

	(void)state;
	if (!prog[0])
		skip();
	orig = read_whole(prog, &len);
	assert_non_null(orig);
	ref = parse_copy(orig, len, &err);
	assert_int_equal(err, 0);
	load_nm(prog, false, &nm);
	uint64_t shnum = get(orig + 60, 2), shstrndx = get(orig + 62, 2);
	uint64_t phnum = get(orig + 56, 2);

	/* Big-endian is refused by name. */
	d = dup_exact(orig, len);
	d[5] = 2;
	assert_null(parse_copy(d, len, &err));
	assert_int_equal(err, -EBADMSG);
	assert_non_null(strstr(err_last()->msg, "big-endian"));
	d[5] = 1;
	d[4] = 3; /* bad class */
	assert_null(parse_copy(d, len, &err));
	assert_int_equal(err, -EBADMSG);
	d[4] = 2;
	d[0] = 0x7e; /* bad magic */
	assert_null(parse_copy(d, len, &err));
	assert_int_equal(err, -EBADMSG);
	free(d);

	/* Extended numbering: e_shnum = 0 with the count in sh[0].sh_size,
	 * e_shstrndx = SHN_XINDEX with the index in sh[0].sh_link, and
	 * e_phnum = PN_XNUM with the count in sh[0].sh_info. */
	d = dup_exact(orig, len);
	put(d + 60, 2, 0);
	put(shdr_at(d, 0) + 32, 8, shnum);
	put(d + 62, 2, 0xffff);
	put(shdr_at(d, 0) + 40, 4, shstrndx);
	put(d + 56, 2, 0xffff);
	put(shdr_at(d, 0) + 44, 4, phnum);
	img = parse_copy(d, len, &err);
	assert_int_equal(err, 0);
	assert_same(ref, img, &nm);
	elf_image_free(img);
	/* ...with a count larger than the file can hold */
	put(shdr_at(d, 0) + 32, 8, UINT64_MAX / 2);
	assert_null(parse_copy(d, len, &err));
	assert_int_equal(err, -EBADMSG);
	put(shdr_at(d, 0) + 32, 8, shnum);
	put(shdr_at(d, 0) + 40, 4, 0x7fffffff); /* shstrndx out of range */
	assert_null(parse_copy(d, len, &err));
	assert_int_equal(err, -EBADMSG);
	free(d);

	/* Header tables outside the file, or with entries too small. */
	d = dup_exact(orig, len);
	put(d + 40, 8, len - 10);
	assert_null(parse_copy(d, len, &err));
	assert_int_equal(err, -EBADMSG);
	memcpy(d, orig, len);
	put(d + 58, 2, 0); /* e_shentsize */
	assert_null(parse_copy(d, len, &err));
	assert_int_equal(err, -EBADMSG);
	memcpy(d, orig, len);
	put(d + 54, 2, 0); /* e_phentsize */
	assert_null(parse_copy(d, len, &err));
	assert_int_equal(err, -EBADMSG);
	memcpy(d, orig, len);
	put(d + 56, 2, 0xfff0); /* e_phnum */
	assert_null(parse_copy(d, len, &err));
	assert_int_equal(err, -EBADMSG);
	memcpy(d, orig, len);
	put(d + 32, 8, UINT64_MAX - 8); /* e_phoff */
	assert_null(parse_copy(d, len, &err));
	assert_int_equal(err, -EBADMSG);
	free(d);

	/* .symtab with sh_entsize 0 is unusable: fall back to .dynsym (which
	 * has no 'main'), no division by zero. */
	uint64_t main_addr = nm_addr(&nm, "main"), start;
	d = dup_exact(orig, len);
	size_t symtab = find_shdr(d, 2);
	put(shdr_at(d, symtab) + 56, 8, 0);
	img = parse_copy(d, len, &err);
	assert_int_equal(err, 0);
	assert_true(elf_image_nsyms(img) < elf_image_nsyms(ref));
	assert_null(elf_image_lookup(img, main_addr, &start));
	elf_image_free(img);

	/* Every st_name past the string table: those symbols are skipped. */
	memcpy(d, orig, len);
	uint8_t *sh = shdr_at(d, symtab);
	uint64_t off = get(sh + 24, 8), size = get(sh + 32, 8);
	for (uint64_t i = 0; i + 24 <= size; i += 24)
		put(d + off + i, 4, 0xfffffff0u);
	img = parse_copy(d, len, &err);
	assert_int_equal(err, 0);
	assert_null(elf_image_lookup(img, main_addr, &start));
	elf_image_free(img);

	/* A string table without its final NUL: the last name is cut off,
	 * not read past the section. */
	memcpy(d, orig, len);
	sh = shdr_at(d, get(shdr_at(d, symtab) + 40, 4));
	d[get(sh + 24, 8) + get(sh + 32, 8) - 1] = 'x';
	img = parse_copy(d, len, &err);
	assert_int_equal(err, 0);
	elf_image_free(img);

	/* A symbol table claiming more bytes than the file has is ignored. */
	memcpy(d, orig, len);
	put(shdr_at(d, symtab) + 32, 8, UINT64_MAX - 100);
	img = parse_copy(d, len, &err);
	assert_int_equal(err, 0);
	elf_image_free(img);

	/* Build-id notes with absurd sizes: no id, no crash. */
	memcpy(d, orig, len);
	for (size_t i = 1; i < shnum; i++) {
		sh = shdr_at(d, i);
		if (get(sh + 4, 4) == 7 && get(sh + 32, 8) >= 12) {
			uint8_t *note = d + get(sh + 24, 8);
			put(note, 4, 0xfffffffc);
			put(note + 4, 4, 0xfffffffc);
		}
	}
	uint64_t phoff = get(d + 32, 8);
	for (size_t i = 0; i < phnum; i++) {
		uint8_t *ph = d + phoff + i * 56;
		if (get(ph, 4) == 4 && get(ph + 32, 8) >= 12)
			put(d + get(ph + 8, 8), 4, 0x7ffffffd); /* namesz */
	}
	img = parse_copy(d, len, &err);
	assert_int_equal(err, 0);
	uint8_t id[ELF_BUILD_ID_MAX];
	assert_int_equal(elf_image_build_id(img, id), 0);
	elf_image_free(img);

	/* A section index pointing past the table and SHN_XINDEX without a
	 * SYMTAB_SHNDX section: the symbols are skipped. */
	memcpy(d, orig, len);
	sh = shdr_at(d, symtab);
	off = get(sh + 24, 8);
	size = get(sh + 32, 8);
	for (uint64_t i = 24; i + 24 <= size; i += 24)
		put(d + off + i + 6, 2, (i / 24) % 2 ? 0xffff : 0xfeff);
	img = parse_copy(d, len, &err);
	assert_int_equal(err, 0);
	assert_null(elf_image_lookup(img, main_addr, &start));
	elf_image_free(img);

	free(d);
	VEC_FREE(&nm);
	elf_image_free(ref);
	free(orig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prog),
		cmocka_unit_test(test_prog_ibt),
		cmocka_unit_test(test_ls),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_no_symbols),
		cmocka_unit_test(test_elf32),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_crafted),
		cmocka_unit_test(test_truncate_and_flip),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
