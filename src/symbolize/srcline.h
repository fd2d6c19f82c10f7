/*
 * srcline: source lines and inline chains from DWARF (symbolize, L5).
 *
 * For an address in a binary, gives what `addr2line -i -f` (binutils
 * 2.40, the tool perf 6.1 runs per address) prints, read in-process
 * by kiln's DWARF readers (dwline.h, dwinfo.h): the innermost function and the file:line of the address,
 * then, when the address lies in inlined code, one record per caller
 * (the caller's name and the call site's file:line), outermost last.
 *
 * The file read is the one the dso registry takes symbols from: the
 * debug file found by build-id, else the binary. Each file is opened once
 * and indexed lazily: compilation units by address range at open, then a
 * unit's line table and function DIEs (subprograms, inlined subroutines)
 * the first time an address falls in it (a partial unit, read only to
 * see whether an abstract origin's unit reads, keeps neither); symbol and
 * function names are interned when they first answer. Results are
 * cached per (dso, address). The answers follow binutils' rules where they differ from a
 * plain DWARF reading, so perf's text can be matched:
 *  - names prefer DW_AT_linkage_name, follow DW_AT_abstract_origin and
 *    DW_AT_specification; the innermost function is named from the ELF
 *    symbol table when its DWARF name is not a linkage name (C++ without
 *    one) or when no function DIE covers the address;
 *  - a unit that refers into a dwz supplementary file (DW_FORM_GNU_ref_alt)
 *    gives nothing, as binutils cannot follow it; the symbol table answers
 *    instead (with the STT_FILE name of local symbols as the file);
 *  - no DWARF and no symbol before the address: no record.
 * Every DWARF read is bounded (DIE depth, origin chains, inline depth,
 * each value by its unit or section); a malformed unit gives nothing,
 * never a crash. A file with compressed debug sections is read as its
 * expanded image, from the cache of such images when it is there
 * (dso/dcache.h). libdw reads only the declarations srclines_decl gives.
 */
#ifndef KILN_SYMBOLIZE_SRCLINE_H
#define KILN_SYMBOLIZE_SRCLINE_H

#include <stddef.h>
#include <stdint.h>

#include "base/hashmap.h"
#include "base/strtab.h"
#include "base/vec.h"
#include "dso/dso.h"

#define SRCLINE_NONE UINT32_MAX
#define SRCLINE_MAX_INLINE 64 /* records per address, innermost first */

/* One line of addr2line's answer: a function and a place. */
struct a2l_rec {
	uint32_t func; /* strtab id of the raw (mangled) name, SRCLINE_NONE: "??" */
	uint32_t file; /* strtab id of the file's basename, SRCLINE_NONE: "??" */
	uint32_t line; /* 0: unknown */
};

struct srcfile;

struct a2l_key {
	uint32_t dso;
	uint32_t n; /* records */
	uint64_t addr;
	size_t at; /* first record in 'recs' */
};

struct srclines {
	struct dso_set *dsos; /* borrowed */
	struct strtab *strs;  /* borrowed */
	VEC(struct srcfile *) files; /* by dso id; NULL until first asked */
	struct hashmap cache;        /* hash(dso, addr) -> index in 'keys' */
	VEC(struct a2l_key) keys;
	VEC(struct a2l_rec) recs;
	uint64_t lookups, misses;
	/* Set before the first lookup when only function names are wanted
	 * (inline chains for folded stacks): line tables are then not read,
	 * only which addresses they cover, and records carry no file:line. */
	bool names_only;
	/* Set when each address is asked once (annotate: every instruction of
	 * a function): answers are not kept, only the last one. */
	bool uncached;
};

void srclines_init(struct srclines *sl, struct dso_set *dsos, struct strtab *strs);
void srclines_release(struct srclines *sl);
/* Close dso 'id''s file (its image is about to go: dso_set_retire); its
 * cached answers stay until srclines_forget. */
void srclines_forget_dso(struct srclines *sl, uint32_t id);
/* Drop every file and answer (dso ids are about to be reused); the
 * names_only and uncached settings stay. */
void srclines_forget(struct srclines *sl);
/*
 * addr2line -i -f for link-time address 'vaddr' of file dso 'dso': the
 * number of records (0 when addr2line answers "??" / "??:0"), stored in
 * *out (valid until the next call).
 */
size_t srclines_a2l(struct srclines *sl, uint32_t dso, uint64_t vaddr, const struct a2l_rec **out);

/* Where a function is declared (DW_AT_decl_file, DW_AT_decl_line). */
struct srcline_decl {
	uint32_t file; /* strtab id of the path as the line table names it, SRCLINE_NONE */
	uint32_t line; /* 0: unknown */
};
/*
 * The declarations of the function DIEs (subprograms and inlined
 * subroutines) that cover link-time address 'vaddr' of file dso 'dso',
 * innermost first, at most 'cap': read from the unit srclines_a2l finds
 * for the address, walking down the DIE tree (bounded depth and width),
 * following abstract origins. Not cached: callers keep what they need.
 * 0 when there is no DWARF for the address.
 */
size_t srclines_decl(struct srclines *sl, uint32_t dso, uint64_t vaddr, struct srcline_decl *out,
		     size_t cap);
/*
 * The file table of the unit srclines_a2l finds for 'vaddr' (the paths as
 * DWARF spells them, in table order), each handed to fn; read through the
 * file's open DWARF handle, so annotating many functions of one binary
 * opens and decompresses it once. 0, or -ENOENT when there is no DWARF
 * unit for the address.
 */
int srclines_unit_files(struct srclines *sl, uint32_t dso, uint64_t vaddr,
			void (*fn)(void *ctx, const char *path), void *ctx);

#endif
