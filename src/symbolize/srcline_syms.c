/*
 * srcline_syms: a file's sections and symbol table as binutils reads them,
 * for the names srcline gives where DWARF names nothing (symbolize, L5).
 * See srcline_int.h.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "base/sort.h"
#include "base/xalloc.h"
#include "symbolize/srcline_int.h"

void srcline_load_sections(struct srcfile *f)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		struct asec a = { sh.sh_addr, sh.sh_size, (uint32_t)elf_ndxscn(scn) };
		VEC_PUSH(&f->secs, a);
	}
}

/* A symbol's sort key: by section, then address; 'pos' (its place in
 * table order) keeps equal keys in table order through the stable sort. */
struct fsym_key {
	uint64_t value;
	uint32_t shndx, pos;
};

static inline uint64_t key_value(const struct fsym_key *k)
{
	return k->value;
}

static inline uint64_t key_shndx(const struct fsym_key *k)
{
	return k->shndx;
}

RADIX_DEFINE(sort_by_value, struct fsym_key, key_value)
RADIX_DEFINE(sort_by_shndx, struct fsym_key, key_shndx)

/* The keys sorted by (shndx, value), equal keys in their order: by value,
 * then stably by section (a radix sort: a comparison sort took ~17
 * comparisons a symbol). */
static void fsym_keys_sort(struct fsym_key *k, size_t n)
{
	sort_by_value(k, n);
	sort_by_shndx(k, n);
}

/*
 * f->syms sorted by (shndx, value, table order): their 16-byte keys
 * sorted, then the symbols moved in place along the permutation's
 * cycles (no second symbol array).
 */
static void sort_syms(struct srcfile *f)
{
	struct fsym *v = f->syms.v;
	size_t n = f->syms.n;
	size_t mapped;
	struct fsym_key *k = hugebuf_alloc(n * sizeof(*k), &mapped);
	for (size_t i = 0; i < n; i++)
		k[i] = (struct fsym_key){ v[i].value, v[i].shndx, (uint32_t)i };
	fsym_keys_sort(k, n);
	for (size_t i = 0; i < n; i++) { /* slot j takes the symbol at k[j].pos */
		if (k[i].pos == i)
			continue;
		struct fsym first = v[i];
		size_t j = i;
		while (k[j].pos != i) {
			size_t from = k[j].pos;
			v[j] = v[from];
			k[j].pos = (uint32_t)j;
			j = from;
		}
		v[j] = first;
		k[j].pos = (uint32_t)j;
	}
	hugebuf_free(k, mapped);
}

/*
 * A symbol table's entries and names read straight from libelf's data
 * where it is plain (ELF64 symbols in host order; an uncompressed string
 * table), else through gelf_getsym and elf_strptr: the same answers
 * without a library call per symbol.
 */
struct symread {
	Elf *elf;
	Elf_Data *data;
	size_t link;        /* the string table's section index */
	bool syms64;        /* data->d_buf holds Elf64_Sym */
	const char *str;    /* the string table's bytes, or NULL: elf_strptr */
	size_t strsz;
};

static void symread_init(struct symread *r, Elf *elf, Elf_Data *data, size_t link)
{
	*r = (struct symread){ elf, data, link, false, NULL, 0 };
	r->syms64 = gelf_getclass(elf) == ELFCLASS64 && data->d_type == ELF_T_SYM && data->d_buf;
	Elf_Scn *scn = elf_getscn(elf, link);
	GElf_Shdr sh;
	Elf_Data *d;
	if (scn && gelf_getshdr(scn, &sh) && sh.sh_type == SHT_STRTAB &&
	    !(sh.sh_flags & SHF_COMPRESSED) && (d = elf_getdata(scn, NULL)) && d->d_buf &&
	    d->d_size == sh.sh_size && !elf_getdata(scn, d)) {
		r->str = d->d_buf;
		r->strsz = d->d_size;
	}
}

/* Symbol i, as gelf_getsym reads it; false past the data. */
static bool symread_sym(const struct symread *r, size_t i, GElf_Sym *s)
{
	if (!r->syms64)
		return gelf_getsym(r->data, (int)i, s) != NULL;
	if ((i + 1) * sizeof(Elf64_Sym) > r->data->d_size)
		return false;
	memcpy(s, (const char *)r->data->d_buf + i * sizeof(Elf64_Sym), sizeof(*s));
	return true;
}

/* The name at 'off', as elf_strptr finds it: inside the table and ended by
 * a NUL before the table's end (its last byte, usually); else NULL. */
static const char *symread_name(const struct symread *r, size_t off)
{
	if (!r->str)
		return elf_strptr(r->elf, r->link, off);
	if (off >= r->strsz)
		return NULL;
	if (r->str[r->strsz - 1] == '\0' || memchr(r->str + off, '\0', r->strsz - off - 1))
		return r->str + off;
	return NULL;
}

/* One symbol table: returns the number of symbols it has (beyond the null one). */
static size_t read_symtab(struct srclines *sl, struct srcfile *f, Elf_Scn *scn)
{
	GElf_Shdr sh;
	Elf_Data *data;
	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
		return 0;
	size_t n = sh.sh_size / sh.sh_entsize;
	if (n > 1 && sh.sh_size <= data->d_size) /* room for all: grown once */
		HVEC_RESERVE(&f->syms, f->syms.n + n - 1);
	enum { NOTHING, SYMBOL, FILE_AFTER_SYMBOL } state = NOTHING;
	uint32_t file = SRCLINE_NONE;
	bool have_file = false;
	struct symread rd;
	symread_init(&rd, f->elf, data, sh.sh_link);
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		if (!symread_sym(&rd, i, &s))
			break;
		int type = GELF_ST_TYPE(s.st_info), bind = GELF_ST_BIND(s.st_info);
		const char *name = symread_name(&rd, s.st_name);
		if (type == STT_FILE) {
			file = strtab_intern_str(sl->strs, name ? name : "");
			have_file = true;
			if (state == SYMBOL)
				state = FILE_AFTER_SYMBOL;
			continue;
		}
		if (state == NOTHING)
			state = SYMBOL;
		if (type == STT_SECTION || type == STT_OBJECT || type == STT_TLS ||
		    s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE)
			continue;
		if (!s.st_size && bind == STB_LOCAL && type == STT_NOTYPE &&
		    GELF_ST_VISIBILITY(s.st_other) == STV_HIDDEN)
			continue; /* annobin markers */
		struct fsym fs = {
			.value = s.st_value,
			.size = s.st_size,
			.raw = name ? name : "",
			.name = SRCLINE_NONE,
			.file = SRCLINE_NONE,
			.shndx = s.st_shndx,
			.func = type == STT_FUNC || type == STT_GNU_IFUNC,
			.notype = type == STT_NOTYPE,
		};
		if (have_file && (bind == STB_LOCAL || state != FILE_AFTER_SYMBOL))
			fs.file = file;
		HVEC_PUSH(&f->syms, fs);
	}
	return n > 0 ? n - 1 : 0;
}

void srcline_load_symbols(struct srclines *sl, struct srcfile *f)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	size_t got = 0;
	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !got)
			got = read_symtab(sl, f, scn);
		else if (sh.sh_type == SHT_DYNSYM && !dyn)
			dyn = scn;
	}
	if (!got && dyn) /* binutils: the dynamic symbols when .symtab has none */
		read_symtab(sl, f, dyn);
	if (f->syms.n)
		sort_syms(f);
}

/* binutils' better_fit, for symbols at the same address in table order. */
static bool better_fit(const struct fsym *cur, const struct fsym *s, uint64_t off)
{
	uint64_t csz = cur->size ? cur->size : 1, ssz = s->size ? s->size : 1;
	if (cur->value + csz <= off)
		return ssz > csz;
	if (s->value + ssz <= off)
		return false;
	if (cur->func != s->func)
		return s->func;
	if (cur->notype != s->notype)
		return cur->notype;
	return ssz < csz;
}

/* A symbol's name id, interned the first time it is asked for: most
 * symbols of a file never name an address. */
uint32_t srcline_sym_name(struct srclines *sl, struct fsym *s)
{
	if (s->name == SRCLINE_NONE)
		s->name = strtab_intern_str(sl->strs, s->raw);
	return s->name;
}

/* elf_find_function: the symbol binutils names an address by, or NULL. */
struct fsym *srcline_find_function(const struct srcfile *f, uint32_t shndx, uint64_t addr)
{
	size_t lo = 0, hi = f->syms.n;
	while (lo < hi) { /* first symbol past (shndx, addr) */
		size_t mid = lo + (hi - lo) / 2;
		const struct fsym *s = &f->syms.v[mid];
		if (s->shndx < shndx || (s->shndx == shndx && s->value <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || f->syms.v[lo - 1].shndx != shndx)
		return NULL;
	size_t first = lo - 1;
	uint64_t v = f->syms.v[first].value;
	while (first > 0 && f->syms.v[first - 1].shndx == shndx && f->syms.v[first - 1].value == v)
		first--;
	struct fsym *best = &f->syms.v[first];
	for (size_t i = first + 1; i < lo; i++)
		if (better_fit(best, &f->syms.v[i], addr))
			best = &f->syms.v[i];
	return best;
}
