/*
 * srcline_int: what the source-line reader's files share (symbolize, L5):
 * the per-file index (struct srcfile), its units, rows and symbols, and
 * the functions srcline.c calls in its two helpers: srcline_syms.c (the
 * ELF sections and symbol table, as binutils reads them) and
 * srcline_rows.c (a unit's line table: its rows, or only their
 * coverage). Not an API: only symbolize/srcline*.c include it.
 */
#ifndef KILN_SYMBOLIZE_SRCLINE_INT_H
#define KILN_SYMBOLIZE_SRCLINE_INT_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/hugebuf.h"
#include "base/strtab.h"
#include "base/vec.h"
#include "symbolize/dwinfo.h"
#include "symbolize/dwline.h"
#include "symbolize/srcline.h"

#define MAX_DIE_DEPTH 256     /* DIE nesting walked in a unit */
#define MAX_ORIGIN_DEPTH 100  /* abstract_origin/specification chain (binutils' limit) */
#define MAX_UNIT_FUNCS 2000000 /* function DIEs indexed per unit */
#define MAX_RANGES_PER_DIE 4096

/* A symbol binutils' elf_find_function may pick. */
struct fsym {
	uint64_t value, size;
	const char *raw;     /* the name in the symbol string table (libelf's copy) */
	uint32_t name, file; /* strtab ids; name: SRCLINE_NONE until first asked (srcline_sym_name),
			      * file: SRCLINE_NONE */
	uint32_t shndx;
	bool func;   /* STT_FUNC / STT_GNU_IFUNC */
	bool notype; /* STT_NOTYPE */
};

struct asec {
	uint64_t addr, size;
	uint32_t index;
};

/* A row of a unit's line table (16 bytes: a unit's table is kept whole). */
struct lrow {
	uint64_t addr;
	uint32_t line; /* 0: unknown (at most INT32_MAX), | LROW_END on an end-of-sequence row */
	uint32_t file; /* basename id; SRCLINE_NONE on an end-of-sequence row */
};

#define LROW_END 0x80000000u

static inline bool lrow_end(const struct lrow *r)
{
	return r->line & LROW_END;
}

/* A unit's rows while they are sorted (file: the file register's value,
 * until the unit's file names are known). */
struct lrows {
	VEC(struct lrow) v;
};

struct func {
	int32_t parent; /* nearest enclosing function, -1 for none */
	const char *raw; /* its raw (mangled) name in the section bytes, NULL: none */
	uint32_t name;   /* raw's strtab id once asked for (func_name), else SRCLINE_NONE */
	uint32_t call_file, call_line;
	bool inlined; /* DW_TAG_inlined_subroutine */
	bool is_linkage;
};

struct frange {
	uint64_t low, high;
	uint32_t func;
};

struct unit {
	Dwarf_Off off; /* of the unit DIE */
	bool loaded, broken;
	bool loading; /* being loaded (binutils answers "fine" when asked again meanwhile) */
	bool stmt_list;
	bool partial; /* DW_TAG_partial_unit: never searched by address, loaded only to
		       * see whether it is readable (an abstract origin's unit) */
	int lang;
	unsigned version, asize;
	uint32_t dwu;              /* its index among the dwinfo units */
	uint64_t stmt_off;         /* DW_AT_stmt_list */
	VEC(struct lrow) lines;
	VEC(struct func) funcs;
	VEC(struct frange) ranges; /* sorted by low, then longer first, then DIE order */
	VEC(uint64_t) maxhigh;     /* prefix maximum of ranges[].high */
	VEC(uint32_t) files;       /* file index -> basename id (call_file) */
};

struct urange {
	uint64_t low, high;
	uint32_t unit;
};

struct srcfile {
	int fd;
	int guard; /* libelf's mapping of the file in base/mapguard, or -1 */
	Elf *elf;
	uint8_t *image; /* the expanded file elf reads, or NULL (the file itself) */
	size_t image_len;
	bool image_cached; /* 'image' maps an entry of dso/dcache */
	Dwarf *dw;
	VEC(struct asec) secs;
	HVEC(struct fsym) syms; /* sorted by (shndx, value, idx); huge pages once large */
	VEC(struct unit) units;
	VEC(struct urange) uranges; /* sorted by low, then unit */
	VEC(uint64_t) umaxhigh;     /* prefix maximum of uranges[].high */
	VEC(uint32_t) unranged;     /* units with no address ranges */
	VEC(uint32_t) unit_of;      /* dwinfo unit index -> unit index (UINT32_MAX: none) */
	struct dwline_secs lsecs;   /* what line programs read */
	struct dwinfo di;           /* the DIEs (when 'dw') */
	struct lrows rows;          /* a unit's rows while they are sorted */
	unsigned load_depth;        /* units being loaded, nested */
};

static inline uint32_t unit_file(struct srclines *sl, const struct unit *u, size_t idx)
{
	return idx < u->files.n ? u->files.v[idx] : strtab_intern_str(sl->strs, "<unknown>");
}

/* srcline_syms.c: f's allocated sections, and its symbol table sorted by
 * (section, address, table order) (.dynsym when .symtab has none). */
void srcline_load_sections(struct srcfile *f);
void srcline_load_symbols(struct srclines *sl, struct srcfile *f);
/* The symbol binutils' elf_find_function names addr (in section shndx) by, or NULL. */
struct fsym *srcline_find_function(const struct srcfile *f, uint32_t shndx, uint64_t addr);
/* s's name id, interned the first time it is asked for. */
uint32_t srcline_sym_name(struct srclines *sl, struct fsym *s);

/* srcline_rows.c: u's line table rows (srcline_load_lines), or when only
 * names are wanted the rows that bound each sequence (srcline_load_coverage). */
void srcline_load_lines(struct srclines *sl, struct srcfile *f, struct unit *u);
void srcline_load_coverage(struct srcfile *f, struct unit *u);

#endif
