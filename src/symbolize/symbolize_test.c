/*
 * symbolize unit tests (symbolize, L5): the exports' lines for an address
 * (symbolize_lines) name it as its symbol does. A crafted ELF with
 * .dynsym alone (no .symtab, no DWARF: a stripped binary's shape) is
 * mapped into a process; for addresses inside a sized symbol, inside a
 * sizeless one (which ends where the next symbol starts, perf's
 * symbols__fixup_end), and past the end of sized ones, symbolize() gives
 * the symbol or none (perf's "[unknown]"), and symbolize_lines, with and
 * without inline frames, one line with that symbol's display and raw
 * names, or none: addr2line's rule (the symbol before the address,
 * whatever its size) must not leak into pprof's locations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/strtab.h"
#include "dso/dso.h"
#include "proc/proc.h"
#include "symbolize/symbolize.h"

#define TEXT_ADDR 0x1000u
#define TEXT_SIZE 0x400u
#define DYNSYM_OFF 0x1400u
#define DYNSTR_OFF 0x1480u
#define SHSTR_OFF 0x1500u
#define SHDR_OFF 0x1540u
#define NSEC 5
#define FILE_SIZE (SHDR_OFF + NSEC * 64)

static void put(uint8_t *p, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void shdr(uint8_t *img, unsigned i, uint32_t name, uint32_t type, uint64_t flags,
		 uint64_t addr, uint64_t off, uint64_t size, uint32_t link, uint32_t info,
		 uint64_t entsize)
{
	uint8_t *s = img + SHDR_OFF + i * 64;
	put(s, 4, name);
	put(s + 4, 4, type);
	put(s + 8, 8, flags);
	put(s + 16, 8, addr);
	put(s + 24, 8, off);
	put(s + 32, 8, size);
	put(s + 40, 4, link);
	put(s + 44, 4, info);
	put(s + 48, 8, 1);
	put(s + 56, 8, entsize);
}

struct csym {
	const char *name;
	uint64_t value, size;
};

/* A shared-object-shaped ELF64 x86-64 file: one PT_LOAD mapping the whole
 * file at address 0 (file offset = link-time address), .text at
 * TEXT_ADDR, and the functions 'syms' in .dynsym only. */
static void write_elf(const char *path, const struct csym *syms, size_t n)
{
	static uint8_t img[FILE_SIZE];
	memset(img, 0, sizeof(img));
	memcpy(img, "\177ELF", 4);
	img[4] = 2; /* ELFCLASS64 */
	img[5] = 1; /* little-endian */
	img[6] = 1;
	put(img + 16, 2, 3);  /* ET_DYN */
	put(img + 18, 2, 62); /* EM_X86_64 */
	put(img + 20, 4, 1);
	put(img + 32, 8, 64);       /* e_phoff */
	put(img + 40, 8, SHDR_OFF); /* e_shoff */
	put(img + 52, 2, 64);
	put(img + 54, 2, 56);
	put(img + 56, 2, 1);
	put(img + 58, 2, 64);
	put(img + 60, 2, NSEC);
	put(img + 62, 2, 4); /* e_shstrndx */
	uint8_t *ph = img + 64;
	put(ph, 4, 1);     /* PT_LOAD */
	put(ph + 4, 4, 5); /* R X */
	put(ph + 32, 8, FILE_SIZE);
	put(ph + 40, 8, FILE_SIZE);
	put(ph + 48, 8, 0x1000);
	memset(img + TEXT_ADDR, 0x90, TEXT_SIZE);
	size_t str = 1;
	assert_true((n + 1) * 24 <= DYNSTR_OFF - DYNSYM_OFF);
	for (size_t i = 0; i < n; i++) {
		uint8_t *s = img + DYNSYM_OFF + (i + 1) * 24;
		size_t len = strlen(syms[i].name) + 1;
		assert_true(DYNSTR_OFF + str + len <= SHSTR_OFF);
		memcpy(img + DYNSTR_OFF + str, syms[i].name, len);
		put(s, 4, str);
		s[4] = 0x12; /* STB_GLOBAL, STT_FUNC */
		put(s + 6, 2, 1);
		put(s + 8, 8, syms[i].value);
		put(s + 16, 8, syms[i].size);
		str += len;
	}
	static const char shstr[] = "\0.text\0.dynsym\0.dynstr\0.shstrtab";
	memcpy(img + SHSTR_OFF, shstr, sizeof(shstr));
	shdr(img, 1, 1, 1 /* PROGBITS */, 6 /* ALLOC|EXEC */, TEXT_ADDR, TEXT_ADDR, TEXT_SIZE, 0, 0, 0);
	shdr(img, 2, 7, 11 /* DYNSYM */, 2, DYNSYM_OFF, DYNSYM_OFF, (n + 1) * 24, 3, 1, 24);
	shdr(img, 3, 15, 3 /* STRTAB */, 2, DYNSTR_OFF, DYNSTR_OFF, str, 0, 0, 0);
	shdr(img, 4, 23, 3, 0, 0, SHSTR_OFF, sizeof(shstr), 0, 0, 0);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(img, 1, sizeof(img), f), sizeof(img));
	assert_int_equal(fclose(f), 0);
}

#define PID 4242
#define BASE 0x7f0000000000ull

struct fixture {
	char path[64];
	struct strtab strs;
	struct dso_set dsos;
	struct machine m;
	struct symbolizer sz;
};

static void setup(struct fixture *fx, const struct csym *syms, size_t n)
{
	snprintf(fx->path, sizeof(fx->path), "/tmp/kiln-locprof-XXXXXX");
	int fd = mkstemp(fx->path);
	assert_true(fd >= 0);
	close(fd);
	write_elf(fx->path, syms, n);
	strtab_init(&fx->strs);
	dso_set_init(&fx->dsos);
	machine_init(&fx->m, &fx->strs, &fx->dsos);
	symbolizer_init(&fx->sz, &fx->m, &fx->strs);
	struct event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = PERF_RECORD_MMAP2;
	ev.u.mmap.pid = ev.u.mmap.tid = PID;
	ev.u.mmap.start = BASE;
	ev.u.mmap.len = FILE_SIZE;
	ev.u.mmap.pgoff = 0;
	ev.u.mmap.prot = 5;
	ev.u.mmap.filename = fx->path;
	machine_apply(&fx->m, &ev);
}

static void teardown(struct fixture *fx)
{
	symbolizer_release(&fx->sz);
	machine_release(&fx->m);
	dso_set_release(&fx->dsos);
	strtab_release(&fx->strs);
	unlink(fx->path);
}

/*
 * The name symbolize_lines gives link-time address 'vaddr' (with and
 * without inline frames: the same), or NULL for none; checked against
 * symbolize()'s symbol. *raw: the name in the binary.
 */
static const char *line_name(struct fixture *fx, uint64_t vaddr, const char **raw)
{
	struct sym sym;
	symbolize(&fx->sz, PID, BASE + vaddr, false, &sym);
	assert_int_not_equal(sym.dso, SYM_NONE);
	assert_int_equal(sym.addr, vaddr);
	const char *name = NULL;
	for (int inl = 0; inl < 2; inl++) {
		struct sym_line ln[SRCLINE_MAX_INLINE];
		size_t n = symbolize_lines(&fx->sz, &sym, inl, ln, SRCLINE_MAX_INLINE);
		if (sym.name == SYM_NONE) {
			assert_int_equal(n, 0);
			continue;
		}
		assert_int_equal(n, 1);
		assert_int_equal(ln[0].name, sym.name);
		assert_int_equal(ln[0].raw, sym.raw);
		name = strtab_get(&fx->strs, ln[0].name);
		*raw = strtab_get(&fx->strs, ln[0].raw);
		/* perf's inline expansion, where there is any, names it alike. */
		struct sym_inline in[SRCLINE_MAX_INLINE];
		size_t k = symbolize_inlines(&fx->sz, &sym, in, SRCLINE_MAX_INLINE);
		assert_true(k <= 1);
		if (k)
			assert_int_equal(in[0].name, sym.name);
	}
	return name;
}

static void test_symbol_sizes(void **state)
{
	(void)state;
	static const struct csym syms[] = {
		{ "sized_fn", 0x1000, 0x10 },
		{ "sizeless_fn", 0x1100, 0 },
		{ "_Z9next_funcv", 0x1200, 0x20 },
	};
	struct fixture fx;
	setup(&fx, syms, 3);
	const char *raw = NULL;
	assert_string_equal(line_name(&fx, 0x1000, &raw), "sized_fn");
	assert_string_equal(line_name(&fx, 0x100f, &raw), "sized_fn");
	assert_string_equal(raw, "sized_fn");
	/* Past sized_fn's end: no name (addr2line would say sized_fn). */
	assert_null(line_name(&fx, 0x1010, &raw));
	assert_null(line_name(&fx, 0x1050, &raw));
	assert_null(line_name(&fx, 0x10ff, &raw));
	/* A sizeless symbol reaches the next one. */
	assert_string_equal(line_name(&fx, 0x1100, &raw), "sizeless_fn");
	assert_string_equal(line_name(&fx, 0x11ff, &raw), "sizeless_fn");
	/* The display name is demangled, the raw one is the binary's. */
	assert_string_equal(line_name(&fx, 0x1210, &raw), "next_func");
	assert_string_equal(raw, "_Z9next_funcv");
	assert_null(line_name(&fx, 0x1220, &raw));
	assert_null(line_name(&fx, 0x13f0, &raw));
	teardown(&fx);
}

/* A BPF program's address: its KSYMBOL's name, the offset into it, a kernel
 * frame whose dso is named as the symbol; the same once cached. */
static void test_ksymbol(void **state)
{
	(void)state;
	struct strtab strs;
	struct dso_set dsos;
	struct machine m;
	struct symbolizer sz;
	strtab_init(&strs);
	dso_set_init(&dsos);
	machine_init(&m, &strs, &dsos);
	symbolizer_init(&sz, &m, &strs);
	struct event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = PERF_RECORD_KSYMBOL;
	ev.u.ksymbol.addr = 0xffffffffc0000600u;
	ev.u.ksymbol.len = 0x1000;
	ev.u.ksymbol.name = "bpf_prog_121a30d8739cc33d_on_exit";
	machine_apply(&m, &ev);
	for (int round = 0; round < 2; round++) {
		struct sym sym;
		symbolize(&sz, 7, 0xffffffffc0000a69u, true, &sym);
		assert_true(sym.kernel);
		assert_int_not_equal(sym.name, SYM_NONE);
		assert_string_equal(strtab_get(&strs, sym.name), "bpf_prog_121a30d8739cc33d_on_exit");
		assert_int_equal(sym.symoff, 0x469);
		assert_true(sym.pc == 0xffffffffc0000a69u);
		assert_string_equal(sym_dso_basename(&sz, &sym), "bpf_prog_121a30d8739cc33d_on_exit");
	}
	symbolizer_release(&sz);
	machine_release(&m);
	dso_set_release(&dsos);
	strtab_release(&strs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ksymbol),
		cmocka_unit_test(test_symbol_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
