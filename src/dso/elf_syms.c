/*
 * elf_syms: the ELF reader's symbol table (dso, L2): function symbols of
 * .symtab (or .dynsym), with the PLT stubs elf_plt.c adds, sorted into
 * one table with one name per address and an end for every symbol, as
 * perf chooses them. Every entry and name is checked against the bytes
 * present (elf_int.h's accessors).
 */
#include <string.h>

#include "base/sort.h"
#include "base/xalloc.h"
#include "dso/elf_int.h"

/* ---- symbol tables ---- */

/*
 * Validate a symbol (or relocation) table section and its string table
 * (the section in sh_link). sh_entsize below the record size, including 0,
 * makes the table invalid.
 */
bool elf_table_open(struct elf_parse *ps, size_t idx, size_t recsz, bool need_str,
		    struct table *t)
{
	const uint8_t *p;
	size_t n;

	memset(t, 0, sizeof(*t));
	if (!elf_sec_data(ps, idx, &p, &n) || ps->sh[idx].entsize < recsz ||
	    ps->sh[idx].entsize > n)
		return false;
	t->p = p;
	t->entsize = (size_t)ps->sh[idx].entsize;
	t->n = n / t->entsize;
	if (need_str) {
		size_t link = ps->sh[idx].link;
		const uint8_t *s;
		size_t sn;
		if (link >= ps->shnum || ps->sh[link].type != SHT_STRTAB ||
		    !elf_sec_data(ps, link, &s, &sn))
			return false;
		t->str = (const char *)s;
		t->strsz = sn;
	}
	return true;
}

bool elf_symtab_open(struct elf_parse *ps, size_t idx, struct table *t)
{
	return elf_table_open(ps, idx, ps->img->is64 ? 24 : 16, true, t);
}

void elf_read_sym(const struct elf_image *img, const struct table *t, size_t i,
		  struct rawsym *s)
{
	const uint8_t *p = t->p + i * t->entsize;
	uint8_t info;

	s->name = le32(p);
	if (img->is64) {
		info = p[4];
		s->shndx = rd16(p + 6);
		s->value = le64(p + 8);
		s->size = le64(p + 16);
	} else {
		s->value = le32(p + 4);
		s->size = le32(p + 8);
		info = p[12];
		s->shndx = rd16(p + 14);
	}
	s->type = info & 0xf;
	s->bind = info >> 4;
}

void elf_add_cand(struct elf_parse *ps, uint64_t start, uint64_t size, const char *name,
		  uint8_t bind, const struct shdr *sec)
{
	HVEC_RESERVE(&ps->cands, ps->cands.n + 1);
	struct cand *c = &ps->cands.v[ps->cands.n++];
	memset(c, 0, sizeof(*c));

	c->start = start;
	c->size = size;
	c->name = name;
	c->bind = bind;
	if (sec) {
		c->sec_start = sec->addr;
		c->sec_end = add_sat(sec->addr, sec->size);
	}
}

/*
 * Function symbols of one table: FUNC and GNU_IFUNC, and NOTYPE labels in
 * executable sections (assembly often leaves them untyped). Undefined,
 * absolute and other reserved section indexes are skipped, as are symbols
 * whose name is empty or not a terminated string inside the string table.
 */
static void collect_symbols(struct elf_parse *ps, size_t idx, const struct table *t)
{
	const uint8_t *xp = NULL;
	size_t xn = 0;

	HVEC_RESERVE(&ps->cands, ps->cands.n + t->n); /* at most one a symbol */
	/* SHN_XINDEX symbols keep their section index in SYMTAB_SHNDX. */
	for (size_t i = 1; i < ps->shnum; i++) {
		if (ps->sh[i].type == SHT_SYMTAB_SHNDX && ps->sh[i].link == idx &&
		    elf_sec_data(ps, i, &xp, &xn)) {
			xn /= 4;
			break;
		}
	}

	for (size_t i = 1; i < t->n; i++) {
		struct rawsym s;
		uint64_t shndx;
		elf_read_sym(ps->img, t, i, &s);
		if (s.type != STT_FUNC && s.type != STT_GNU_IFUNC && s.type != STT_NOTYPE)
			continue;
		if (s.shndx == SHN_XINDEX) {
			if (!xp || i >= xn)
				continue;
			shndx = le32(xp + 4 * i);
		} else if (s.shndx == SHN_UNDEF || s.shndx >= SHN_LORESERVE) {
			continue;
		} else {
			shndx = s.shndx;
		}
		if (shndx == SHN_UNDEF || shndx >= ps->shnum)
			continue;
		const struct shdr *sec = &ps->sh[shndx];
		if (s.type == STT_NOTYPE && !(sec->flags & SHF_EXECINSTR))
			continue;
		const char *name = elf_str_at(t->str, t->strsz, s.name);
		if (!name || !*name)
			continue;
		elf_add_cand(ps, s.value, s.size, name, s.bind, sec);
	}
}

/* ---- the final table ---- */

/* A candidate's start and index: the keys sorted instead of the
 * candidates (16 bytes moved a pass, not 48). */
struct cand_key {
	uint64_t start;
	size_t idx;
};

static inline uint64_t key_start(const struct cand_key *k)
{
	return k->start;
}

/* By start, then in the order seen (the sort is stable). */
RADIX_DEFINE(sort_cand_keys, struct cand_key, key_start)

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* True if 'b' should replace 'a' as the name of their shared address
 * (perf's choose_best_symbol); 'a' was seen first and wins ties. */
static bool cand_better(const struct cand *a, const struct cand *b)
{
	if (!!a->size != !!b->size)
		return b->size != 0;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return a->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return b->bind == STB_GLOBAL;
	size_t ua = underscores(a->name), ub = underscores(b->name);
	if (ua != ub)
		return ub < ua;
	return strlen(b->name) > strlen(a->name);
}

/*
 * Sort, keep one name per address, and give every symbol an end:
 *   1. a sized symbol ends at start + size;
 *   2. a sizeless one at the next symbol's start, as perf's
 *      symbols__fixup_end does, even past its own section (crti's _init
 *      covers the PLT header that follows .init until the first
 *      "name@plt");
 *   3. a last sizeless one at its section's end (start + 1 if the section
 *      says nothing useful), so every kept symbol has start < end.
 */
static void finish_symbols(struct elf_parse *ps)
{
	const struct cand *c = ps->cands.v;
	size_t n = ps->cands.n, k = 0, mapped;
	struct elf_image *img = ps->img;

	if (!n)
		return;
	struct cand_key *key = hugebuf_alloc(n * sizeof(*key), &mapped);
	for (size_t i = 0; i < n; i++)
		key[i] = (struct cand_key){ c[i].start, i };
	sort_cand_keys(key, n);
	for (size_t i = 0; i < n;) { /* key[k].idx: the kept candidate of the k-th start */
		size_t best = key[i].idx, j = i + 1;
		for (; j < n && key[j].start == key[i].start; j++)
			if (cand_better(&c[best], &c[key[j].idx]))
				best = key[j].idx;
		key[k++].idx = best;
		i = j;
	}

	XALLOC_ARRAY(img->syms.v, k);
	img->syms.cap = k;
	img->syms.n = k;
	for (size_t i = 0; i < k; i++) {
		const struct cand *ci = &c[key[i].idx];
		struct elf_sym *s = &img->syms.v[i];
		uint64_t end;
		bool in_sec = ci->sec_end > ci->start && ci->sec_start <= ci->start;
		if (ci->size) {
			end = add_sat(ci->start, ci->size);
		} else if (i + 1 < k) {
			end = c[key[i + 1].idx].start;
		} else {
			end = in_sec ? ci->sec_end : add_sat(ci->start, 1);
		}
		if (end <= ci->start) /* start == UINT64_MAX */
			end = ci->start;
		s->start = ci->start;
		s->end = end;
		s->name = ci->name;
	}
	hugebuf_free(key, mapped);
}

void elf_load_symbols(struct elf_parse *ps)
{
	struct table t;
	size_t idx = 0;

	for (size_t i = 1; i < ps->shnum && !idx; i++)
		if (ps->sh[i].type == SHT_SYMTAB && elf_symtab_open(ps, i, &t))
			idx = i;
	for (size_t i = 1; i < ps->shnum && !idx; i++)
		if (ps->sh[i].type == SHT_DYNSYM && elf_symtab_open(ps, i, &t))
			idx = i;
	if (idx)
		collect_symbols(ps, idx, &t);
	elf_plt_synth(ps);
	finish_symbols(ps);
}
