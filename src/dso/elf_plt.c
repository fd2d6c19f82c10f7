/*
 * elf_plt: "name@plt" symbols for x86 PLT stubs (dso, L2), which have no
 * symbols of their own: lazy stubs in .plt/.plt.sec named from
 * .rela.plt, non-lazy ones in .plt.got from the GOT slot they jump
 * through, as objdump and perf name them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/search.h"
#include "base/sort.h"
#include "base/xalloc.h"
#include "dso/elf_int.h"

/* ---- PLT ---- */

struct rel {
	uint64_t offset, addend;
	uint32_t sym, type;
	bool has_addend;
};

static void read_rel(const struct elf_image *img, const struct table *t, bool rela, size_t i,
		     struct rel *r)
{
	const uint8_t *p = t->p + i * t->entsize;
	uint64_t info;

	r->offset = rdw(img, p);
	info = rdw(img, p + (img->is64 ? 8 : 4));
	if (img->is64) {
		r->sym = (uint32_t)(info >> 32);
		r->type = (uint32_t)info;
	} else {
		r->sym = (uint32_t)(info >> 8);
		r->type = (uint32_t)(info & 0xff);
	}
	r->has_addend = rela;
	r->addend = rela ? rdw(img, p + (img->is64 ? 16 : 8)) : 0;
}

static inline uint64_t rel_offset(const struct rel *r)
{
	return r->offset;
}

/* By offset, equal offsets in table order (the sort is stable). */
RADIX_DEFINE(sort_rels, struct rel, rel_offset)

/*
 * A relocation section and its symbol table (sh_link). Returns the
 * relocations read into a fresh array (caller frees), or NULL.
 */
static struct rel *read_rels(struct elf_parse *ps, size_t idx, struct table *syms, size_t *n)
{
	const struct elf_image *img = ps->img;
	bool rela = ps->sh[idx].type == SHT_RELA;
	size_t recsz = rela ? (img->is64 ? 24 : 12) : (img->is64 ? 16 : 8);
	struct table t;
	struct rel *r;

	*n = 0;
	if (!elf_table_open(ps, idx, recsz, false, &t) || ps->sh[idx].link >= ps->shnum ||
	    !elf_symtab_open(ps, ps->sh[idx].link, syms) || t.n == 0)
		return NULL;
	XALLOC_ARRAY(r, t.n);
	for (size_t i = 0; i < t.n; i++)
		read_rel(img, &t, rela, i, &r[i]);
	sort_rels(r, t.n);
	*n = t.n;
	return r;
}

static const char *rel_sym_name(struct elf_parse *ps, const struct table *syms, uint32_t idx)
{
	struct rawsym s;

	if (idx == 0 || idx >= syms->n)
		return NULL;
	elf_read_sym(ps->img, syms, idx, &s);
	const char *name = elf_str_at(syms->str, syms->strsz, s.name);
	return name && *name ? name : NULL;
}

static void add_plt(struct elf_parse *ps, uint64_t addr, uint64_t size, const char *name,
		    const struct shdr *sec)
{
	size_t n = strlen(name);
	char *s = xmalloc(n + sizeof("@plt")); /* name + "@plt", without printf's cost */

	memcpy(s, name, n);
	memcpy(s + n, "@plt", sizeof("@plt"));
	VEC_PUSH(&ps->img->owned, s);
	elf_add_cand(ps, addr, size, s, STB_GLOBAL, sec);
}

/*
 * Lazy PLT stubs from .rela.plt (.rel.plt on i386). Entry i sits at
 * .plt + 16 * (i + 1) after the 16-byte PLT0, or at .plt.sec + 16 * i
 * when the IBT layout splits the stubs into .plt.sec. The i-th stub uses
 * the i-th GOT slot, so relocations are taken in r_offset (GOT) order:
 * with IFUNCs the linker does not emit them in PLT order (glibc's libc.so
 * is such a case), which is why perf sorts them too.
 */
static void synth_plt(struct elf_parse *ps)
{
	size_t relidx, pltidx, n;
	uint64_t first;
	struct table syms;
	struct rel *r;

	relidx = elf_find_section(ps, ".rela.plt", SHT_RELA);
	if (!relidx)
		relidx = elf_find_section(ps, ".rel.plt", SHT_REL);
	if (!relidx)
		return;
	pltidx = elf_find_section(ps, ".plt.sec", SHT_PROGBITS);
	first = 0;
	if (!pltidx) {
		pltidx = elf_find_section(ps, ".plt", SHT_PROGBITS);
		first = 1; /* skip PLT0 */
	}
	if (!pltidx || ps->sh[pltidx].size % X86_PLT_ENTRY)
		return;
	r = read_rels(ps, relidx, &syms, &n);
	if (!r)
		return;

	const struct shdr *plt = &ps->sh[pltidx];
	uint64_t slots = plt->size / X86_PLT_ENTRY;
	unsigned irelative = ps->img->machine == EM_X86_64 ? R_X86_64_IRELATIVE : R_386_IRELATIVE;
	for (size_t i = 0; i < n && first + i < slots; i++) {
		uint64_t addr = plt->addr + (first + i) * X86_PLT_ENTRY;
		if (r[i].type == R_X86_JUMP_SLOT) {
			const char *name = rel_sym_name(ps, &syms, r[i].sym);
			if (name)
				add_plt(ps, addr, X86_PLT_ENTRY, name, plt);
		} else if (r[i].type == irelative) {
			/* No symbol: name it by the resolver, as objdump does. */
			char buf[40] = "*ABS*";
			if (r[i].has_addend)
				snprintf(buf, sizeof(buf), "*ABS*+%#" PRIx64, r[i].addend);
			add_plt(ps, addr, X86_PLT_ENTRY, buf, plt);
		}
	}
	free(r);
}

/*
 * The GOT slot a .plt.got stub jumps through, decoded from its first
 * instruction (after an optional endbr and bnd prefix):
 *   ff 25 disp32   jmp *disp(%rip) on x86_64, jmp *abs32 on i386
 *   ff a3 disp32   jmp *disp(%ebx) on i386 (PIC, ebx = GOT base)
 */
static bool pltgot_target(struct elf_parse *ps, const uint8_t *p, size_t n, uint64_t addr,
			  uint64_t *got)
{
	size_t i = 0;

	if (n >= 4 && p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && (p[3] == 0xfa || p[3] == 0xfb))
		i = 4;
	if (i < n && p[i] == 0xf2)
		i++;
	if (n - i < 6 || p[i] != 0xff)
		return false;
	uint32_t disp = le32(p + i + 2);
	if (ps->img->is64 && p[i + 1] == 0x25) {
		*got = addr + i + 6 + (uint64_t)(int64_t)(int32_t)disp;
		return true;
	}
	if (!ps->img->is64 && p[i + 1] == 0x25) {
		*got = disp;
		return true;
	}
	if (!ps->img->is64 && p[i + 1] == 0xa3) {
		size_t gotidx = elf_find_section(ps, ".got.plt", 0);
		if (!gotidx)
			gotidx = elf_find_section(ps, ".got", 0);
		if (!gotidx)
			return false;
		*got = (ps->sh[gotidx].addr + disp) & 0xffffffffu;
		return true;
	}
	return false;
}

/*
 * Non-lazy stubs in .plt.got jump through GOT slots that .rela.dyn fills
 * with GLOB_DAT (or JUMP_SLOT) relocations; name each stub after the
 * symbol of the relocation at its slot, as objdump and perf do.
 */
static void synth_plt_got(struct elf_parse *ps)
{
	size_t idx = elf_find_section(ps, ".plt.got", SHT_PROGBITS), relidx, n;
	const uint8_t *p;
	size_t len;
	struct table syms;
	struct rel *r;

	if (!idx || !elf_sec_data(ps, idx, &p, &len))
		return;
	const struct shdr *sec = &ps->sh[idx];
	uint64_t ent = sec->entsize == 8 || sec->entsize == 16 ? sec->entsize : 8;
	relidx = elf_find_section(ps, ".rela.dyn", SHT_RELA);
	if (!relidx)
		relidx = elf_find_section(ps, ".rel.dyn", SHT_REL);
	if (!relidx)
		return;
	r = read_rels(ps, relidx, &syms, &n);
	if (!r)
		return;
	for (uint64_t off = 0; off + ent <= len; off += ent) {
		uint64_t got;
		if (!pltgot_target(ps, p + off, (size_t)ent, sec->addr + off, &got))
			continue;
		/* r is sorted by offset: binary search for the slot. */
		size_t lo = LOWER_BOUND(r, n, struct rel, offset, got);
		for (; lo < n && r[lo].offset == got; lo++) {
			if (r[lo].type != R_X86_GLOB_DAT && r[lo].type != R_X86_JUMP_SLOT)
				continue;
			const char *name = rel_sym_name(ps, &syms, r[lo].sym);
			if (name) {
				add_plt(ps, sec->addr + off, ent, name, sec);
				break;
			}
		}
	}
	free(r);
}

static bool x86(const struct elf_image *img)
{
	return img->machine == EM_X86_64 || img->machine == EM_386;
}

void elf_plt_synth(struct elf_parse *ps)
{
	if (!x86(ps->img))
		return;
	synth_plt(ps);
	synth_plt_got(ps);
}
