/*
 * dwarf_elf: DWARF sections from fuzz input, written as an ELF file and
 * read through srclines_a2l (fuzz/). See dwarf_elf.h.
 */
#include "fuzz/dwarf_elf.h"

#include <dwarf.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/strtab.h"
#include "dso/dso.h"
#include "fuzz/fuzz.h"
#include "symbolize/srcline.h"

#define MAX_QUERIES 256
#define MAX_SYMS 16
#define NEAR 0x10000 /* scanned words this close to a given address are queried */

static const char *const sec_names[DS_N] = {
	".debug_info",	 ".debug_abbrev",   ".debug_line",	 ".debug_str",
	".debug_line_str", ".debug_ranges",   ".debug_rnglists", ".debug_aranges",
	".debug_addr",	 ".debug_str_offsets", ".debug_loclists",
};

typedef VEC(uint8_t) bytes;

static void put(bytes *b, const void *p, size_t n)
{
	VEC_RESERVE(b, b->n + n);
	if (n)
		memcpy(b->v + b->n, p, n);
	b->n += n;
}

static void pad(bytes *b, size_t align)
{
	static const uint8_t zero[16];
	put(b, zero, (align - b->n % align) % align);
}

void dwarf_input_split(struct dwarf_input *in, const uint8_t *data, size_t size)
{
	memset(in, 0, sizeof(*in));
	size_t at = 0;
	while (at < size) {
		unsigned kind = data[at] % 16;
		size_t len = at + 1 < size ? data[at + 1] : 0;
		if (at + 2 < size)
			len |= (size_t)data[at + 2] << 8;
		at += 3;
		if (at > size)
			break;
		if (len > size - at)
			len = size - at;
		if (kind < DS_N) {
			put((bytes *)&in->sec[kind], data + at, len);
		} else if (kind == DWARF_KIND_ADDRS) {
			for (size_t i = 0; i + 8 <= len; i += 8)
				VEC_PUSH(&in->addrs, fuzz_u64(data + at + i, 8));
		}
		at += len;
	}
}

void dwarf_input_free(struct dwarf_input *in)
{
	for (int i = 0; i < DS_N; i++)
		VEC_FREE(&in->sec[i]);
	VEC_FREE(&in->addrs);
	VEC_FREE(&in->queries);
}

static void query_one(struct dwarf_input *in, uint64_t a)
{
	if (in->queries.n >= MAX_QUERIES)
		return;
	for (size_t i = 0; i < in->queries.n; i++)
		if (in->queries.v[i] == a)
			return;
	VEC_PUSH(&in->queries, a);
}

void dwarf_input_query(struct dwarf_input *in, uint64_t base)
{
	static const uint64_t off[] = { 0, 1, 5, 0x11 };
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		query_one(in, base + off[i]);
}

static void scan_words(struct dwarf_input *in, const bytes *s, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i + 8 <= s->n && in->queries.n < MAX_QUERIES; i++) {
		uint64_t w = fuzz_u64(s->v + i, 8);
		if (w >= lo && w <= hi)
			dwarf_input_query(in, w);
	}
}

void dwarf_input_scan(struct dwarf_input *in)
{
	const bytes *line = (const bytes *)&in->sec[DS_LINE];
	/* DW_LNE_set_address: 0, length 9 (or 5), opcode 2, the address. */
	for (size_t i = 0; i + 3 < line->n && in->queries.n < MAX_QUERIES; i++) {
		const uint8_t *p = line->v + i;
		if (p[0] == 0 && p[2] == DW_LNE_set_address && (p[1] == 9 || p[1] == 5) &&
		    i + 2 + p[1] <= line->n)
			dwarf_input_query(in, fuzz_u64(p + 3, p[1] - 1u));
	}
	if (!in->addrs.n)
		return;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < in->addrs.n; i++) {
		lo = in->addrs.v[i] < lo ? in->addrs.v[i] : lo;
		hi = in->addrs.v[i] > hi ? in->addrs.v[i] : hi;
	}
	lo = lo > NEAR ? lo - NEAR : 0;
	hi = hi < UINT64_MAX - NEAR ? hi + NEAR : UINT64_MAX;
	static const int scanned[] = { DS_INFO, DS_ADDR, DS_RANGES, DS_RNGLISTS };
	for (size_t k = 0; k < sizeof(scanned) / sizeof(scanned[0]); k++)
		scan_words(in, (const bytes *)&in->sec[scanned[k]], lo, hi);
}

/* ---- the ELF file ---- */

struct elfw {
	bytes file, shstr, sym, symstr;
	Elf64_Shdr sh[DS_N + 8];
	unsigned nsh;
};

static uint32_t name_of(struct elfw *w, const char *name)
{
	uint32_t at = (uint32_t)w->shstr.n;
	put(&w->shstr, name, strlen(name) + 1);
	return at;
}

static unsigned add_section(struct elfw *w, uint32_t name, uint32_t type, uint64_t flags,
			    const void *data, size_t n, size_t align)
{
	Elf64_Shdr *s = &w->sh[w->nsh];
	memset(s, 0, sizeof(*s));
	s->sh_name = name;
	s->sh_type = type;
	s->sh_flags = flags;
	s->sh_addralign = align;
	pad(&w->file, align);
	s->sh_offset = w->file.n;
	s->sh_size = n;
	if (type != SHT_NOBITS)
		put(&w->file, data, n);
	return w->nsh++;
}

static void add_sym(struct elfw *w, const char *name, unsigned char info, uint16_t shndx,
		    uint64_t value, uint64_t size)
{
	Elf64_Sym s = { 0 };
	s.st_name = (uint32_t)w->symstr.n;
	put(&w->symstr, name, strlen(name) + 1);
	s.st_info = info;
	s.st_shndx = shndx;
	s.st_value = value;
	s.st_size = size;
	put(&w->sym, &s, sizeof(s));
}

/* ET_DYN x86-64: .text (NOBITS over every query), the DWARF sections, a symbol table. */
static void build_elf(const struct dwarf_input *in, bytes *out)
{
	struct elfw w = { 0 };
	Elf64_Ehdr eh = { 0 };
	put(&w.file, &eh, sizeof(eh));
	put(&w.shstr, "", 1);
	memset(&w.sh[0], 0, sizeof(w.sh[0]));
	w.nsh = 1;

	uint64_t lo = 0x1000, hi = 0x1fff;
	for (size_t i = 0; i < in->queries.n; i++) {
		uint64_t q = in->queries.v[i];
		if (!i || q < lo)
			lo = q;
		if (!i || q > hi)
			hi = q;
	}
	unsigned text = add_section(&w, name_of(&w, ".text"), SHT_NOBITS, SHF_ALLOC | SHF_EXECINSTR, NULL,
				    0, 16);
	w.sh[text].sh_addr = lo;
	w.sh[text].sh_size = hi - lo + 1 ? hi - lo + 1 : UINT64_MAX;
	for (int k = 0; k < DS_N; k++)
		if (in->sec[k].n)
			add_section(&w, name_of(&w, sec_names[k]), SHT_PROGBITS, 0, in->sec[k].v, in->sec[k].n, 1);

	put(&w.symstr, "", 1);
	add_sym(&w, "", 0, 0, 0, 0);
	add_sym(&w, "fuzz.c", ELF64_ST_INFO(STB_LOCAL, STT_FILE), SHN_ABS, 0, 0);
	for (size_t i = 0; i < in->addrs.n && i < MAX_SYMS; i++) {
		char name[16];
		snprintf(name, sizeof(name), "f%zu", i);
		add_sym(&w, name, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), (uint16_t)text,
			in->addrs.v[i], 0x20);
	}
	unsigned symtab = add_section(&w, name_of(&w, ".symtab"), SHT_SYMTAB, 0, w.sym.v, w.sym.n, 8);
	unsigned strtab = add_section(&w, name_of(&w, ".strtab"), SHT_STRTAB, 0, w.symstr.v, w.symstr.n, 1);
	w.sh[symtab].sh_entsize = sizeof(Elf64_Sym);
	w.sh[symtab].sh_link = strtab;
	w.sh[symtab].sh_info = 2; /* first global */
	uint32_t shname = name_of(&w, ".shstrtab"); /* before the bytes are placed */
	unsigned shstrndx = add_section(&w, shname, SHT_STRTAB, 0, w.shstr.v, w.shstr.n, 1);

	pad(&w.file, 8);
	uint64_t shoff = w.file.n;
	put(&w.file, w.sh, sizeof(w.sh[0]) * w.nsh);
	Elf64_Ehdr *e = (Elf64_Ehdr *)w.file.v;
	memcpy(e->e_ident, ELFMAG, SELFMAG);
	e->e_ident[EI_CLASS] = ELFCLASS64;
	e->e_ident[EI_DATA] = ELFDATA2LSB;
	e->e_ident[EI_VERSION] = EV_CURRENT;
	e->e_type = ET_DYN;
	e->e_machine = EM_X86_64;
	e->e_version = EV_CURRENT;
	e->e_ehsize = sizeof(Elf64_Ehdr);
	e->e_shoff = shoff;
	e->e_shentsize = sizeof(Elf64_Shdr);
	e->e_shnum = (uint16_t)w.nsh;
	e->e_shstrndx = (uint16_t)shstrndx;
	*out = w.file;
	VEC_FREE(&w.shstr);
	VEC_FREE(&w.sym);
	VEC_FREE(&w.symstr);
}

/* One memfd for the whole run, rewritten for each input. */
static int write_file(const bytes *b, char *path, size_t len)
{
	static int fd = -1;
	if (fd < 0)
		fd = memfd_create("kiln-fuzz-dwarf", MFD_CLOEXEC);
	fuzz_check(fd >= 0);
	fuzz_check(ftruncate(fd, 0) == 0);
	for (size_t at = 0; at < b->n;) {
		ssize_t k = pwrite(fd, b->v + at, b->n - at, (off_t)at);
		fuzz_check(k > 0);
		at += (size_t)k;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* Every record's strings exist; returns their total length (so reads happen). */
static size_t touch(const struct strtab *strs, const struct a2l_rec *r, size_t n)
{
	size_t sum = 0;
	fuzz_check(n <= SRCLINE_MAX_INLINE);
	for (size_t i = 0; i < n; i++) {
		fuzz_check(r[i].func == SRCLINE_NONE || r[i].func < strs->n);
		fuzz_check(r[i].file == SRCLINE_NONE || r[i].file < strs->n);
		if (r[i].func != SRCLINE_NONE)
			sum += strlen(strtab_get(strs, r[i].func));
		if (r[i].file != SRCLINE_NONE)
			sum += strlen(strtab_get(strs, r[i].file));
	}
	return sum;
}

/* FUZZ_DWARF_PRINT=1: each answer as addr2line -a -i -f would print it. */
static void print(const struct strtab *strs, uint64_t addr, const struct a2l_rec *r, size_t n)
{
	printf("0x%016llx\n", (unsigned long long)addr);
	if (!n)
		printf("??\n??:0\n");
	for (size_t i = 0; i < n; i++)
		printf("%s\n%s:%u\n", r[i].func == SRCLINE_NONE ? "??" : strtab_get(strs, r[i].func),
		       r[i].file == SRCLINE_NONE ? "??" : strtab_get(strs, r[i].file), r[i].line);
}

size_t dwarf_input_run(struct dwarf_input *in)
{
	bytes elf;
	char path[64];
	build_elf(in, &elf);
	write_file(&elf, path, sizeof(path));
	VEC_FREE(&elf);

	struct dso_set ds;
	struct strtab strs;
	struct srclines sl, fresh;
	setenv("KILN_CACHE_DIR", "off", 1); /* inputs are not debug files worth keeping */
	dso_set_init(&ds);
	strtab_init(&strs);
	uint32_t id = dso_set_intern(&ds, path);
	srclines_init(&sl, &ds, &strs);
	VEC(struct a2l_rec) seen = { 0 };
	VEC(size_t) counts = { 0 };
	volatile size_t sum = 0;
	for (size_t i = 0; i < in->queries.n; i++) {
		const struct a2l_rec *r;
		size_t n = srclines_a2l(&sl, id, in->queries.v[i], &r);
		sum += touch(&strs, r, n);
		if (getenv("FUZZ_DWARF_PRINT"))
			print(&strs, in->queries.v[i], r, n);
		VEC_PUSH(&counts, n);
		for (size_t k = 0; k < n; k++)
			VEC_PUSH(&seen, r[k]);
	}
	/* Asked again: the cached records, unchanged. */
	for (size_t i = 0, at = 0; i < in->queries.n; at += counts.v[i], i++) {
		const struct a2l_rec *r;
		size_t n = srclines_a2l(&sl, id, in->queries.v[i], &r);
		fuzz_check(n == counts.v[i]);
		fuzz_check(!n || !memcmp(r, seen.v + at, n * sizeof(*r)));
	}
	/* A fresh reader of the same file: the same answers. */
	srclines_init(&fresh, &ds, &strs);
	for (size_t i = 0, at = 0; i < in->queries.n; at += counts.v[i], i++) {
		const struct a2l_rec *r;
		size_t n = srclines_a2l(&fresh, id, in->queries.v[i], &r);
		fuzz_check(n == counts.v[i]);
		fuzz_check(!n || !memcmp(r, seen.v + at, n * sizeof(*r)));
	}
	/* Names only (folded stacks' inline frames): srcline's own scan of the
	 * line programs for the addresses they cover instead of libdw's rows. */
	struct srclines names;
	srclines_init(&names, &ds, &strs);
	names.names_only = true;
	VEC_FREE(&counts);
	seen.n = 0;
	for (size_t i = 0; i < in->queries.n; i++) {
		const struct a2l_rec *r;
		size_t n = srclines_a2l(&names, id, in->queries.v[i], &r);
		sum += touch(&strs, r, n);
		VEC_PUSH(&counts, n);
		for (size_t k = 0; k < n; k++)
			VEC_PUSH(&seen, r[k]);
	}
	for (size_t i = 0, at = 0; i < in->queries.n; at += counts.v[i], i++) {
		const struct a2l_rec *r;
		size_t n = srclines_a2l(&names, id, in->queries.v[i], &r);
		fuzz_check(n == counts.v[i]);
		fuzz_check(!n || !memcmp(r, seen.v + at, n * sizeof(*r)));
	}
	srclines_release(&names);
	(void)sum;
	size_t total = seen.n; /* names-only records */
	VEC_FREE(&seen);
	VEC_FREE(&counts);
	srclines_release(&fresh);
	srclines_release(&sl);
	dso_set_release(&ds);
	strtab_release(&strs);
	return total;
}
