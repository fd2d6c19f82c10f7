/*
 * udwarf_int: what udwarf.c (probe definitions) shares with uinfo.c (-V,
 * -L, -F, -l's places) inside the probe module. Not a public interface.
 */
#ifndef KILN_PROBE_UDWARF_INT_H
#define KILN_PROBE_UDWARF_INT_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>

#include "base/buf.h"
#include "probe/probe.h"

/* A binary opened by libdwfl, with its DWARF when it has some. */
struct ubin {
	const char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;
	GElf_Addr ebias; /* module address = ELF vaddr + ebias */
	Dwarf *dw;
	Dwarf_Addr dbias; /* module address = DWARF address + dbias */
};

/* An out-of-line instance of a function. */
struct func {
	Dwarf_Die die, cu;
	Dwarf_Addr entry; /* DWARF address */
};

struct func_search {
	const char *name, *file;
	struct func *v;
	size_t n;
	bool inlined; /* found only as inline instances or declarations */
	Dwarf_Die cu;
};

/* A probe point: its function (NULL: a symbol without DWARF) and address. */
struct point {
	struct func *f; /* or NULL (symbol only) */
	GElf_Addr addr; /* module address */
	int rel_line;
};

/* A probe address with its scopes, for reading variables. */
struct place {
	struct ubin *b;
	struct func *f;
	Dwarf_Addr pc;      /* DWARF address */
	Dwarf_Die *scopes;  /* innermost first */
	int nscopes;
};

int ud_ubin_open(const char *path, struct ubin *b);
void ud_ubin_close(struct ubin *b);
/* The module address of file offset off. */
bool ud_offset_addr(const struct ubin *b, uint64_t off, GElf_Addr *a);
/* Every out-of-line DWARF instance of 'name' (in a CU named like 'file'). */
void ud_funcs_find(const struct ubin *b, const char *name, const char *file, struct func_search *fs);
/* The probe points of spec s (*fs owns the funcs, *out is heap). 0 or -errno with err_last(). */
int ud_find_points(struct ubin *b, const struct probe_spec *s, struct func_search *fs,
		   struct point **out, size_t *n, unsigned *notes);
/* Where variable v is at the place. 0 or -errno with err_last(). */
int ud_var_loc(struct place *pl, Dwarf_Die *v, const char *name, struct probe_loc *loc);
/* perf -V's name of a type into b. */
void ud_type_name(Dwarf_Die *t, struct buf *b, int depth);
Dwarf_Die *ud_die_type(Dwarf_Die *d, Dwarf_Die *out);
int ud_decl_line(Dwarf_Die *d);
const char *ud_cu_file(Dwarf_Die *cu);

#endif
