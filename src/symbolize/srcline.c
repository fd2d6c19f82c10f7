/*
 * srcline: addr2line's answers from kiln's DWARF readers, indexed per file and cached
 * per (dso, address) (symbolize, L5). See srcline.h for the rules.
 */
#include "symbolize/srcline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mapguard.h"
#include "base/search.h"
#include "base/sort.h"
#include "base/xalloc.h"
#include "dso/dcache.h"
#include "dso/elf_expand.h"
#include "symbolize/dwbytes.h"
#include "symbolize/dwinfo.h"
#include "symbolize/dwline.h"
#include "symbolize/srcline_int.h"

void srclines_init(struct srclines *sl, struct dso_set *dsos, struct strtab *strs)
{
	memset(sl, 0, sizeof(*sl));
	sl->dsos = dsos;
	sl->strs = strs;
	hashmap_init(&sl->cache);
}

static void unit_free(struct unit *u)
{
	VEC_FREE(&u->lines);
	VEC_FREE(&u->funcs);
	VEC_FREE(&u->ranges);
	VEC_FREE(&u->maxhigh);
	VEC_FREE(&u->files);
}

static void srcfile_free(struct srcfile *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->units.n; i++)
		unit_free(&f->units.v[i]);
	VEC_FREE(&f->units);
	VEC_FREE(&f->uranges);
	VEC_FREE(&f->umaxhigh);
	VEC_FREE(&f->unranged);
	VEC_FREE(&f->secs);
	HVEC_FREE(&f->syms);
	VEC_FREE(&f->rows.v);
	VEC_FREE(&f->unit_of);
	if (f->dw) {
		dwinfo_close(&f->di);
		dwarf_end(f->dw);
	}
	mapguard_remove(f->guard);
	if (f->elf)
		elf_end(f->elf);
	if (f->image_cached)
		dcache_unmap(f->image, f->image_len);
	else
		free(f->image);
	if (f->fd >= 0)
		close(f->fd);
	free(f);
}

void srclines_release(struct srclines *sl)
{
	for (size_t i = 0; i < sl->files.n; i++)
		srcfile_free(sl->files.v[i]);
	VEC_FREE(&sl->files);
	VEC_FREE(&sl->keys);
	VEC_FREE(&sl->recs);
	hashmap_release(&sl->cache);
}

void srclines_forget_dso(struct srclines *sl, uint32_t id)
{
	if (id < sl->files.n) {
		srcfile_free(sl->files.v[id]);
		sl->files.v[id] = NULL;
	}
}

void srclines_forget(struct srclines *sl)
{
	struct srclines keep = *sl;
	srclines_release(sl);
	srclines_init(sl, keep.dsos, keep.strs);
	sl->names_only = keep.names_only;
	sl->uncached = keep.uncached;
}

/* ---- DWARF units ---- */

/* By low address, then unit (equal ones in their order: the sort is stable). */
static inline bool urange_less(const struct urange *x, const struct urange *y)
{
	return x->low != y->low ? x->low < y->low : x->unit < y->unit;
}

SORT_DEFINE(sort_uranges, struct urange, urange_less)

/* A unit DIE's attributes that index_units reads (the first of each). */
struct cu_attrs {
	struct dwinfo *di;
	const struct dwdie *d;
	struct dwpc pc;
	bool has_lang, has_stmt;
	uint64_t lang, stmt;
};

static bool cu_attr(void *arg, const struct dwattr *a)
{
	struct cu_attrs *c = arg;
	dwpc_note(&c->pc, a);
	if (a->at == DW_AT_language && !c->has_lang)
		c->has_lang = dwinfo_udata(c->di, c->d, a, &c->lang);
	else if (a->at == DW_AT_stmt_list && !c->has_stmt) {
		c->has_stmt = true;
		if (!dwinfo_udata(c->di, c->d, a, &c->stmt))
			c->stmt = UINT64_MAX; /* no program: dwline_open says so */
	}
	return true;
}

struct range_sink {
	struct srcfile *f;
	uint32_t unit;
	size_t n;
};

static void add_urange(void *arg, uint64_t lo, uint64_t hi)
{
	struct range_sink *rs = arg;
	if (hi > lo) {
		struct urange r = { lo, hi, rs->unit };
		VEC_PUSH(&rs->f->uranges, r);
		rs->n++;
	}
}

/* Every compile and partial unit, with the address ranges of the former. */
static void index_units(struct srcfile *f)
{
	struct dwinfo *di = &f->di;
	VEC_RESERVE(&f->units, di->units.n); /* grown once: units are big */
	VEC_RESERVE(&f->unit_of, di->units.n);
	f->unit_of.n = di->units.n;
	if (di->units.n) /* else no array yet: memset of NULL is undefined */
		memset(f->unit_of.v, 0xff, di->units.n * sizeof(*f->unit_of.v));
	for (uint32_t k = 0; k < di->units.n; k++) {
		const struct dwunit *du = &di->units.v[k];
		struct dwdie cu;
		if (!dwinfo_unit_die(di, k, &cu) || cu.null ||
		    (cu.ab.tag != DW_TAG_compile_unit && cu.ab.tag != DW_TAG_partial_unit))
			continue;
		struct cu_attrs c = { .di = di, .d = &cu };
		dwinfo_attrs(di, &cu, cu_attr, &c, NULL); /* a bad attribute: what came before it */
		uint32_t ui = (uint32_t)f->units.n;
		struct unit *u = VEC_PUSH_ZERO(&f->units);
		u->off = du->die;
		u->dwu = k;
		u->version = du->version;
		u->asize = du->asize;
		u->lang = c.has_lang ? (int)c.lang : 0;
		u->stmt_list = c.has_stmt;
		u->stmt_off = c.has_stmt ? c.stmt : UINT64_MAX;
		f->unit_of.v[k] = ui;
		u->partial = cu.ab.tag == DW_TAG_partial_unit;
		if (u->partial) /* never searched by address */
			continue;
		struct range_sink rs = { f, ui, 0 };
		dwinfo_ranges(di, &cu, &c.pc, MAX_RANGES_PER_DIE * 16, add_urange, &rs);
		if (!rs.n)
			VEC_PUSH(&f->unranged, ui);
	}
	if (f->uranges.n)
		sort_uranges(f->uranges.v, f->uranges.n);
	VEC_RESERVE(&f->umaxhigh, f->uranges.n);
	uint64_t m = 0;
	for (size_t i = 0; i < f->uranges.n; i++) {
		m = f->uranges.v[i].high > m ? f->uranges.v[i].high : m;
		f->umaxhigh.v[i] = m;
	}
	f->umaxhigh.n = f->uranges.n;
}

/* binutils' non_mangled(): languages whose DW_AT_name is the symbol name. */
static bool non_mangled(int lang)
{
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_Ada83:
	case DW_LANG_Cobol74:
	case DW_LANG_Cobol85:
	case DW_LANG_Fortran77:
	case DW_LANG_Pascal83:
	case DW_LANG_C99:
	case DW_LANG_Ada95:
	case DW_LANG_PLI:
	case DW_LANG_UPC:
	case DW_LANG_C11:
		return true;
	default:
		return false;
	}
}

static bool is_alt_ref(unsigned form)
{
	return form == DW_FORM_GNU_ref_alt || form == DW_FORM_ref_sup4 || form == DW_FORM_ref_sup8;
}

static bool is_alt_str(unsigned form)
{
	return form == DW_FORM_GNU_strp_alt || form == DW_FORM_strp_sup;
}

static bool is_str_form(unsigned form)
{
	switch (form) {
	case DW_FORM_string:
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_strx:
	case DW_FORM_strx1:
	case DW_FORM_strx2:
	case DW_FORM_strx3:
	case DW_FORM_strx4:
	case DW_FORM_GNU_str_index:
	case DW_FORM_GNU_strp_alt:
	case DW_FORM_strp_sup:
		return true;
	default:
		return false;
	}
}

/* The name binutils reads for a function DIE, in attribute order. */
struct namestate {
	struct srclines *sl;
	struct srcfile *f;
	const struct dwdie *die; /* the DIE whose attributes are being read */
	uint32_t origin_unit; /* the unit of the DIE being read (UINT32_MAX: unknown) */
	const char *name;
	bool is_linkage;
	bool fail;
	int lang;
	unsigned depth;
	/* of the function DIE itself */
	uint64_t call_file, call_line;
	bool has_call_file;
	struct dwpc pc;
};

static const char *attr_str(struct namestate *ns, const struct dwattr *a)
{
	if (is_alt_str(a->form))
		return NULL; /* binutils cannot read the supplementary file */
	return dwinfo_str(&ns->f->di, ns->die, a);
}

/* The unit of dwinfo unit k, or UINT32_MAX (not a compile or partial unit). */
static uint32_t unit_of(const struct srcfile *f, uint32_t k)
{
	return k < f->unit_of.n ? f->unit_of.v[k] : UINT32_MAX;
}

/* The DW_AT_language of dwinfo unit k (0: none). */
static int unit_lang(struct srcfile *f, uint32_t k)
{
	uint32_t ui;
	if ((ui = unit_of(f, k)) != UINT32_MAX)
		return f->units.v[ui].lang;
	struct dwdie cu;
	if (!dwinfo_unit_die(&f->di, k, &cu) || cu.null)
		return 0;
	struct cu_attrs c = { .di = &f->di, .d = &cu };
	dwinfo_attrs(&f->di, &cu, cu_attr, &c, NULL);
	return c.has_lang ? (int)c.lang : 0;
}

static bool origin_attr(void *arg, const struct dwattr *a);

static void follow(struct namestate *ns, const struct dwattr *a)
{
	struct dwinfo *di = &ns->f->di;
	uint64_t off;
	uint32_t k;
	struct dwdie origin;
	if (is_alt_ref(a->form) || ns->depth + 1 >= MAX_ORIGIN_DEPTH ||
	    !dwinfo_ref(di, ns->die, a, &off) || (k = dwinfo_unit_at(di, off)) == UINT32_MAX ||
	    !dwinfo_die(di, k, off, &origin) || origin.null) {
		ns->fail = true;
		return;
	}
	int saved_lang = ns->lang;
	uint32_t saved_unit = ns->origin_unit;
	const struct dwdie *saved_die = ns->die;
	ns->lang = unit_lang(ns->f, k);
	ns->origin_unit = unit_of(ns->f, k);
	ns->die = &origin;
	ns->depth++;
	if (!dwinfo_attrs(di, &origin, origin_attr, ns, NULL))
		ns->fail = true;
	ns->depth--;
	ns->die = saved_die;
	ns->lang = saved_lang;
	ns->origin_unit = saved_unit;
}

static void name_attr(struct namestate *ns, const struct dwattr *a)
{
	if (a->at == DW_AT_name) {
		if (!ns->name && is_str_form(a->form)) {
			ns->name = attr_str(ns, a);
			if (non_mangled(ns->lang))
				ns->is_linkage = true;
		}
	} else if (a->at == DW_AT_linkage_name || a->at == DW_AT_MIPS_linkage_name) {
		if (is_str_form(a->form)) {
			ns->name = attr_str(ns, a);
			ns->is_linkage = true;
		}
	}
}

static bool unit_usable(struct srclines *sl, struct srcfile *f, uint32_t ui);

/* find_abstract_instance: name, linkage names and DW_AT_specification; a
 * DW_AT_decl_file makes binutils read the origin's whole unit, which must
 * then be readable too. */
static bool origin_attr(void *arg, const struct dwattr *a)
{
	struct namestate *ns = arg;
	if (a->at == DW_AT_specification)
		follow(ns, a);
	else if (a->at == DW_AT_decl_file)
		ns->fail |= ns->origin_unit == UINT32_MAX ||
			    !unit_usable(ns->sl, ns->f, ns->origin_unit);
	else
		name_attr(ns, a);
	return !ns->fail;
}

static bool func_attr(void *arg, const struct dwattr *a)
{
	struct namestate *ns = arg;
	uint64_t v;
	dwpc_note(&ns->pc, a);
	switch (a->at) {
	case DW_AT_abstract_origin:
	case DW_AT_specification:
		follow(ns, a);
		break;
	case DW_AT_call_file:
		if (dwinfo_udata(&ns->f->di, ns->die, a, &v)) {
			ns->call_file = v;
			ns->has_call_file = true;
		}
		break;
	case DW_AT_call_line:
		if (dwinfo_udata(&ns->f->di, ns->die, a, &v))
			ns->call_line = v;
		break;
	default:
		name_attr(ns, a);
	}
	return !ns->fail;
}

/* By low address, the longer first, then function (stable for the rest). */
static inline bool frange_less(const struct frange *x, const struct frange *y)
{
	if (x->low != y->low)
		return x->low < y->low;
	uint64_t lx = x->high - x->low, ly = y->high - y->low;
	if (lx != ly)
		return lx > ly;
	return x->func < y->func;
}

SORT_DEFINE(sort_franges, struct frange, frange_less)


static bool is_func_tag(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

struct frange_sink {
	struct unit *u; /* stable: the unit table never grows while units load */
	uint32_t func;
};

static void add_frange(void *arg, uint64_t lo, uint64_t hi)
{
	struct frange_sink *fs = arg;
	if (hi > lo) {
		struct frange r = { lo, hi, fs->func };
		VEC_PUSH(&fs->u->ranges, r);
	}
}

/* One function DIE: its name as binutils reads it, call site and ranges;
 * *next is set past it. */
static bool add_func(struct srclines *sl, struct srcfile *f, uint32_t ui, const struct dwdie *d,
		     int32_t parent, uint64_t *next)
{
	struct namestate ns = { .sl = sl, .f = f, .die = d, .lang = f->units.v[ui].lang,
				.origin_unit = UINT32_MAX };
	if (!dwinfo_attrs(&f->di, d, func_attr, &ns, next) || ns.fail)
		return false;
	struct unit *u = &f->units.v[ui];
	uint32_t fi = (uint32_t)u->funcs.n;
	struct func *fn = VEC_PUSH_ZERO(&u->funcs);
	fn->parent = parent;
	fn->raw = ns.name; /* interned when it names an address (func_name) */
	fn->name = SRCLINE_NONE;
	fn->is_linkage = ns.is_linkage;
	fn->inlined = d->ab.tag == DW_TAG_inlined_subroutine;
	fn->call_line = (uint32_t)ns.call_line;
	fn->call_file = SRCLINE_NONE;
	if (ns.has_call_file)
		fn->call_file = unit_file(sl, u, ns.call_file);
	struct frange_sink fs = { u, fi };
	if (!u->partial)
		dwinfo_ranges(&f->di, d, &ns.pc, MAX_RANGES_PER_DIE, add_frange, &fs);
	return true;
}

/*
 * Walk a unit's DIEs once, in the order they are stored: every function
 * DIE with its nearest enclosing function. Null entries close a level;
 * DIEs nested deeper than MAX_DIE_DEPTH are passed over.
 */
static bool load_funcs(struct srclines *sl, struct srcfile *f, uint32_t ui)
{
	struct dwinfo *di = &f->di;
	uint32_t k = f->units.v[ui].dwu;
	uint64_t end = di->units.v[k].end, at;
	struct dwdie d;
	if (!dwinfo_die(di, k, f->units.v[ui].off, &d) || d.null || !dwinfo_skip(di, &d, &at))
		return false;
	if (!d.ab.children)
		return true;
	int32_t *stack = xmalloc(sizeof(*stack) * (MAX_DIE_DEPTH + 1));
	size_t depth = 1; /* stack[depth - 1]: the nearest function around this level */
	stack[0] = -1;
	bool ok = true;
	while (depth > 0 && at < end) {
		if (!dwinfo_die(di, k, at, &d)) {
			ok = false;
			break;
		}
		if (d.null) {
			depth--;
			at = d.attrs;
			continue;
		}
		int32_t func = depth <= MAX_DIE_DEPTH ? stack[depth - 1] : -1;
		if (depth <= MAX_DIE_DEPTH && is_func_tag((int)d.ab.tag)) {
			if (f->units.v[ui].funcs.n >= MAX_UNIT_FUNCS ||
			    !add_func(sl, f, ui, &d, func, &at)) {
				ok = false;
				break;
			}
			func = (int32_t)(f->units.v[ui].funcs.n - 1);
		} else if (!dwinfo_skip(di, &d, &at)) {
			ok = false;
			break;
		}
		if (d.ab.children) {
			if (depth < MAX_DIE_DEPTH + 1)
				stack[depth] = func;
			depth++;
		}
	}
	free(stack);
	if (!ok)
		return false;
	struct unit *u = &f->units.v[ui];
	if (u->ranges.n) {
		sort_franges(u->ranges.v, u->ranges.n);
		VEC_RESERVE(&u->maxhigh, u->ranges.n);
		uint64_t m = 0;
		for (size_t i = 0; i < u->ranges.n; i++) {
			if (u->ranges.v[i].high > m)
				m = u->ranges.v[i].high;
			u->maxhigh.v[i] = m;
		}
		u->maxhigh.n = u->ranges.n;
	}
	return true;
}

#define MAX_UNIT_NESTING 64

/* comp_unit_maybe_decode_line_info: a line table, then every function DIE readable. */
static void load_unit(struct srclines *sl, struct srcfile *f, uint32_t ui)
{
	struct unit *u = &f->units.v[ui];
	u->loaded = true;
	if (!u->stmt_list || f->load_depth >= MAX_UNIT_NESTING) {
		u->broken = true;
		return;
	}
	u->loading = true;
	f->load_depth++;
	/* A partial unit's rows and function ranges are never looked up: only
	 * whether its DIEs read matters. */
	if (!u->partial && sl->names_only)
		srcline_load_coverage(f, u);
	else if (!u->partial)
		srcline_load_lines(sl, f, u);
	bool ok = load_funcs(sl, f, ui);
	f->load_depth--;
	u = &f->units.v[ui];
	u->loading = false;
	if (!ok) {
		u->broken = true;
		unit_free(u);
	}
}

static bool unit_usable(struct srclines *sl, struct srcfile *f, uint32_t ui)
{
	struct unit *u = &f->units.v[ui];
	if (u->loading)
		return true;
	if (!u->loaded)
		load_unit(sl, f, ui);
	return !f->units.v[ui].broken;
}

/* The innermost function covering addr (smallest range; the later DIE on ties). */
static int32_t unit_func(const struct unit *u, uint64_t addr)
{
	size_t lo = UPPER_BOUND(u->ranges.v, u->ranges.n, struct frange, low, addr);
	for (size_t i = lo; i-- > 0;) {
		if (u->maxhigh.v[i] <= addr)
			break;
		if (addr < u->ranges.v[i].high)
			return (int32_t)u->ranges.v[i].func;
	}
	return -1;
}

static const struct lrow *unit_line(const struct unit *u, uint64_t addr)
{
	size_t lo = UPPER_BOUND(u->lines.v, u->lines.n, struct lrow, addr, addr);
	if (!lo || lrow_end(&u->lines.v[lo - 1]) || lo == u->lines.n)
		return NULL; /* no row, or past the last row (no end of sequence after it) */
	return &u->lines.v[lo - 1];
}

struct hit {
	struct unit *u;
	int32_t func;
	const struct lrow *row;
};

static bool unit_lookup(struct srclines *sl, struct srcfile *f, uint32_t ui, uint64_t addr,
			struct hit *h)
{
	if (!unit_usable(sl, f, ui) || f->units.v[ui].loading)
		return false;
	struct unit *u = &f->units.v[ui];
	h->u = u;
	h->func = unit_func(u, addr);
	h->row = unit_line(u, addr);
	return h->func >= 0 || h->row;
}

/* _bfd_dwarf2_find_nearest_line: the first unit that knows the address. */
static bool dwarf_lookup(struct srclines *sl, struct srcfile *f, uint64_t addr, struct hit *h)
{
	if (!f->dw)
		return false;
	size_t lo = UPPER_BOUND(f->uranges.v, f->uranges.n, struct urange, low, addr);
	/* Candidate units in unit order (ranges seldom overlap; bounded scan
	 * back, over only the ranges that may still reach addr). */
	uint32_t cand[16];
	size_t nc = 0;
	for (size_t i = lo, k = 0; i-- > 0 && k < 4096 && nc < 16 && f->umaxhigh.v[i] > addr; k++)
		if (addr < f->uranges.v[i].high)
			cand[nc++] = f->uranges.v[i].unit;
	for (size_t i = 1; i < nc; i++) /* sort by unit index */
		for (size_t j = i; j > 0 && cand[j - 1] > cand[j]; j--) {
			uint32_t t = cand[j];
			cand[j] = cand[j - 1];
			cand[j - 1] = t;
		}
	for (size_t i = 0; i < nc; i++)
		if ((i == 0 || cand[i] != cand[i - 1]) && unit_lookup(sl, f, cand[i], addr, h))
			return true;
	for (size_t i = 0; i < f->unranged.n; i++)
		if (unit_lookup(sl, f, f->unranged.v[i], addr, h))
			return true;
	return false;
}

/*
 * libdw decompresses every DWARF section it knows when it opens a file.
 * Location lists, address tables, macros and name indexes are never read
 * here (libc's location lists alone are 1.4 MB decompressed), so they
 * are hidden from it: their names are cleared in libelf's in-memory copy
 * of the section headers (the file is not written).
 */
static bool unread_section(const char *name)
{
	static const char *const unread[] = {
		".debug_loc",	   ".debug_loclists", ".debug_aranges",  ".debug_macro",
		".debug_macinfo",  ".debug_pubnames", ".debug_pubtypes", ".debug_gnu_pubnames",
		".debug_gnu_pubtypes", ".debug_names", ".debug_frame",
	};
	char plain[64];
	if (!strncmp(name, ".zdebug_", 8)) { /* compressed the GNU way: as .debug_* */
		snprintf(plain, sizeof(plain), ".%s", name + 2);
		name = plain;
	}
	for (size_t i = 0; i < sizeof(unread) / sizeof(*unread); i++)
		if (!strcmp(name, unread[i]))
			return true;
	return false;
}

static void hide_unread_sections(struct srcfile *f)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(f->elf, &shstrndx) != 0)
		return;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(f->elf, scn));) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(f->elf, shstrndx, sh.sh_name)))
			continue;
		if (unread_section(name)) {
			sh.sh_name = 0;
			gelf_update_shdr(scn, &sh);
		}
	}
}

/*
 * The file is mapped read-only; after the symbols are indexed and libdw
 * has decompressed its sections into memory, most of its pages are not
 * read again. They are handed back (a later read faults them in from the
 * file again), so a big compressed debug file does not stay resident
 * twice.
 */
static void release_file_pages(struct srcfile *f)
{
	size_t size = 0;
	char *raw = elf_rawfile(f->elf, &size);
	long page = sysconf(_SC_PAGESIZE);
	if (!raw || !size || page <= 0 || ((uintptr_t)raw & (uintptr_t)(page - 1)))
		return;
	madvise(raw, size, MADV_DONTNEED);
}

/* The DWARF sections read here, as libdw holds them (decompressed). */
static void load_dwarf_secs(struct srcfile *f, struct dwinfo_secs *ds)
{
	static const char *const names[] = {
		".debug_info",	     ".debug_abbrev", ".debug_str",	".debug_line_str",
		".debug_str_offsets", ".debug_addr",	".debug_ranges", ".debug_rnglists",
		".debug_line",
	};
	struct dwinfo_sec line = { 0 };
	struct dwinfo_sec *slot[] = { &ds->info,	&ds->abbrev, &ds->str,	  &ds->line_str,
				      &ds->str_offsets, &ds->addr,   &ds->ranges, &ds->rnglists,
				      &line };
	size_t shstrndx;
	memset(ds, 0, sizeof(*ds));
	if (elf_getshdrstrndx(f->elf, &shstrndx) != 0)
		return;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(f->elf, scn));) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(f->elf, shstrndx, sh.sh_name)))
			continue;
		for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
			if (strcmp(name, names[i]) || slot[i]->p)
				continue;
			Elf_Data *d = elf_getdata(scn, NULL);
			if (d && d->d_buf) {
				slot[i]->p = d->d_buf;
				slot[i]->n = d->d_size;
			}
		}
	}
	f->lsecs.line = line.p;
	f->lsecs.line_len = line.n;
	f->lsecs.line_str = ds->line_str.p;
	f->lsecs.line_str_len = ds->line_str.n;
	f->lsecs.str = ds->str.p;
	f->lsecs.str_len = ds->str.n;
}

/*
 * A file with compressed debug sections is read as its expanded image
 * (dso/elf_expand.h: decompressed faster than libdw would, on two
 * threads, and without the sections never read here), kept in the cache
 * of expanded files (dso/dcache.h) for the next run. NULL: open the file
 * itself (nothing compressed, or the image could not be made; libdw then
 * gives what it can from the file, as before).
 */
static Elf *open_expanded(struct srcfile *f, const struct kiln_env *env)
{
	struct stat st;
	if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr))
		return NULL;
	size_t size = (size_t)st.st_size;
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, f->fd, 0);
	if (map == MAP_FAILED)
		return NULL;
	int guard = mapguard_add(map, size); /* the file may shrink meanwhile */
	uint8_t *img = NULL;
	size_t len = 0;
	bool cached = false;
	Elf *e = NULL;
	/* Only a file with something to expand is looked for in the cache. */
	int err = elf_expand_check(map, size, unread_section, ELF_EXPAND_DROP_LOADED);
	struct dcache_key key;
	if (!err) {
		dcache_key(&key, &st);
		if (dcache_get(env, &key, &img, &len) == 0) {
			if ((e = elf_memory((char *)img, len)))
				cached = true;
			else
				dcache_unmap(img, len); /* made again below */
		}
		if (!cached)
			err = elf_expand(map, size, unread_section, ELF_EXPAND_DROP_LOADED, &img, &len);
	}
	if (!err && !cached && mapguard_faulted(guard, NULL)) { /* it did: what was read is not the file */
		free(img);
		err = -EIO;
	}
	mapguard_remove(guard);
	munmap(map, size);
	if (err)
		return NULL;
	if (!cached) {
		if (!(e = elf_memory((char *)img, len))) {
			free(img);
			return NULL;
		}
		dcache_put(env, &key, img, len);
	}
	f->image = img;
	f->image_len = len;
	f->image_cached = cached;
	return e;
}

static struct srcfile *open_file(struct srclines *sl, uint32_t dso)
{
	while (sl->files.n <= dso)
		VEC_PUSH(&sl->files, NULL);
	if (sl->files.v[dso])
		return sl->files.v[dso];
	struct srcfile *f = xcalloc(1, sizeof(*f));
	f->fd = -1;
	f->guard = -1;
	sl->files.v[dso] = f;
	struct dso *d = dso_set_get(sl->dsos, dso);
	char path[4096];
	if (d->kind != DSO_FILE || !dso_symbols_path(sl->dsos, d, path, sizeof(path)))
		return f;
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f->fd < 0)
		return f;
	elf_version(EV_CURRENT);
	f->elf = open_expanded(f, sl->dsos->env);
	if (!f->elf)
		f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		if (f->elf)
			elf_end(f->elf);
		f->elf = NULL;
		return f;
	}
	/* libelf's mapping of the file, or the cached image: one that shrinks
	 * reads zeros, not SIGBUS. */
	size_t mapped = 0;
	char *raw = f->image ? NULL : elf_rawfile(f->elf, &mapped);
	if (f->image_cached)
		f->guard = mapguard_add(f->image, f->image_len);
	else
		f->guard = raw ? mapguard_add(raw, mapped) : -1;
	srcline_load_sections(f);
	srcline_load_symbols(sl, f);
	hide_unread_sections(f);
	f->dw = dwarf_begin_elf(f->elf, DWARF_C_READ, NULL);
	if (f->dw) {
		struct dwinfo_secs ds;
		load_dwarf_secs(f, &ds);
		dwinfo_open(&f->di, &ds);
		index_units(f);
	}
	if (!f->image)
		release_file_pages(f);
	return f;
}

/* A function's name id, interned the first time it names an address:
 * most function DIEs of a loaded unit never do. */
static uint32_t func_name(struct srclines *sl, struct func *fn)
{
	if (fn->name == SRCLINE_NONE && fn->raw)
		fn->name = strtab_intern_str(sl->strs, fn->raw);
	return fn->name;
}

/* addr2line's records for one address, appended to sl->recs. */
static size_t a2l(struct srclines *sl, struct srcfile *f, uint64_t addr)
{
	if (!f->elf)
		return 0;
	const struct asec *sec = NULL;
	for (size_t i = 0; i < f->secs.n && !sec; i++)
		if (addr >= f->secs.v[i].addr && addr - f->secs.v[i].addr < f->secs.v[i].size)
			sec = &f->secs.v[i];
	if (!sec)
		return 0;
	struct hit h = { 0 };
	bool found = dwarf_lookup(sl, f, addr, &h);
	struct func *fn = found && h.func >= 0 ? &h.u->funcs.v[h.func] : NULL;
	struct a2l_rec r = { SRCLINE_NONE, SRCLINE_NONE, 0 };
	if (h.row && found) {
		r.file = h.row->file;
		r.line = h.row->line;
	}
	if (fn && fn->is_linkage) {
		r.func = func_name(sl, fn);
	} else {
		struct fsym *s = srcline_find_function(f, sec->index, addr);
		if (s) {
			found = true;
			r.func = srcline_sym_name(sl, s);
			if (!(h.row && h.u))
				r.file = s->file;
		} else if (fn) {
			r.func = func_name(sl, fn);
		}
	}
	if (!found)
		return 0;
	VEC_PUSH(&sl->recs, r);
	size_t n = 1;
	/* The inliner chain: each caller's name, at the call site of its callee. */
	while (fn && fn->inlined && fn->parent >= 0 && n < SRCLINE_MAX_INLINE) {
		struct func *caller = &h.u->funcs.v[fn->parent];
		struct a2l_rec c = { func_name(sl, caller), fn->call_file, fn->call_line };
		VEC_PUSH(&sl->recs, c);
		n++;
		fn = caller;
	}
	return n;
}

size_t srclines_a2l(struct srclines *sl, uint32_t dso, uint64_t vaddr, const struct a2l_rec **out)
{
	sl->lookups++;
	uint64_t key = hash_mix2(dso, vaddr), idx;
	if (hashmap_get(&sl->cache, key, &idx)) {
		const struct a2l_key *k = &sl->keys.v[idx];
		if (k->dso == dso && k->addr == vaddr) {
			*out = sl->recs.v ? sl->recs.v + k->at : NULL;
			return k->n;
		}
	}
	sl->misses++;
	struct srcfile *f = open_file(sl, dso);
	if (sl->uncached)
		sl->recs.n = 0; /* the previous answer is no longer valid */
	size_t at = sl->recs.n;
	size_t n = a2l(sl, f, vaddr);
	if (sl->uncached) {
		*out = sl->recs.v ? sl->recs.v : NULL;
		return n;
	}
	struct a2l_key k = { dso, (uint32_t)n, vaddr, at };
	hashmap_put(&sl->cache, key, sl->keys.n);
	VEC_PUSH(&sl->keys, k);
	*out = sl->recs.v ? sl->recs.v + at : NULL; /* no records yet: no arithmetic on NULL */
	return n;
}

/* ---- function declarations (srclines_decl): appended API, for the exports ---- */

/* A DIE that may hold function definitions without covering addresses itself. */
static bool decl_container(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
	       tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_module;
}

/*
 * The function DIEs (subprograms, inlined subroutines) covering addr,
 * outermost first: a depth-first walk from the unit DIE that enters
 * containers (namespaces, classes) and the scopes that cover addr, and
 * skips everything else. Bounded depth and DIE count.
 */
#define DECL_MAX_DIES 4000000
static size_t decl_walk(Dwarf_Die *cu, uint64_t addr, Dwarf_Die *out, size_t cap)
{
	struct level {
		Dwarf_Die die;
		uint32_t nout; /* functions found above this level */
	} *st = xmalloc(sizeof(*st) * MAX_DIE_DEPTH);
	size_t n = 0, seen = 0;
	int depth = 0;
	if (dwarf_child(cu, &st[0].die) == 0) {
		st[0].nout = 0;
		depth = 1;
	}
	while (depth > 0 && seen++ < DECL_MAX_DIES) {
		struct level *lv = &st[depth - 1];
		int tag = dwarf_tag(&lv->die);
		bool scope = is_func_tag(tag) || tag == DW_TAG_lexical_block;
		bool enter = false;
		if (scope && dwarf_haspc(&lv->die, addr) == 1) {
			n = lv->nout;
			if (is_func_tag(tag) && n < cap)
				out[n++] = lv->die;
			enter = true;
		} else if (decl_container(tag)) {
			enter = true;
		}
		if (enter && depth < MAX_DIE_DEPTH && dwarf_child(&lv->die, &st[depth].die) == 0) {
			st[depth].nout = (uint32_t)(scope ? n : lv->nout);
			depth++;
			continue;
		}
		if (scope && enter)
			break; /* the innermost scope covering addr has no children left to try */
		while (depth > 0 && dwarf_siblingof(&st[depth - 1].die, &st[depth - 1].die) != 0)
			depth--;
	}
	free(st);
	return n;
}

size_t srclines_decl(struct srclines *sl, uint32_t dso, uint64_t vaddr, struct srcline_decl *out,
		     size_t cap)
{
	struct srcfile *f = open_file(sl, dso);
	struct hit h = { 0 };
	if (!f->dw || !dwarf_lookup(sl, f, vaddr, &h) || !h.u)
		return 0;
	Dwarf_Die cu;
	if (!dwarf_offdie(f->dw, h.u->off, &cu))
		return 0;
	Dwarf_Die dies[SRCLINE_MAX_INLINE];
	size_t n = decl_walk(&cu, vaddr, dies, cap < SRCLINE_MAX_INLINE ? cap : SRCLINE_MAX_INLINE);
	for (size_t i = 0; i < n; i++) { /* innermost first */
		Dwarf_Die *d = &dies[n - 1 - i];
		int line = 0;
		const char *file = dwarf_decl_file(d);
		out[i].file = file ? strtab_intern_str(sl->strs, file) : SRCLINE_NONE;
		out[i].line = dwarf_decl_line(d, &line) == 0 && line > 0 ? (uint32_t)line : 0;
	}
	return n;
}

int srclines_unit_files(struct srclines *sl, uint32_t dso, uint64_t vaddr,
			void (*fn)(void *ctx, const char *path), void *ctx)
{
	struct srcfile *f = open_file(sl, dso);
	struct hit h = { 0 };
	if (!f->dw || !dwarf_lookup(sl, f, vaddr, &h) || !h.u)
		return -ENOENT;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t n;
	if (!dwarf_offdie(f->dw, h.u->off, &cu) || dwarf_getsrcfiles(&cu, &files, &n) != 0)
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		const char *path = dwarf_filesrc(files, i, NULL, NULL);
		if (path)
			fn(ctx, path);
	}
	return 0;
}
