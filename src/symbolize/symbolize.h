/*
 * symbolize: addresses to names (symbolize, L5).
 *
 * Given a process and an address (user or kernel), finds the mapping,
 * the dso and the symbol, the way perf script shows them: the symbol name
 * and offset, the dso path, and the address relative to the dso (the
 * link-time virtual address for files, the absolute address for the
 * kernel). Results are cached per (dso, address), so each distinct
 * address is resolved once per run. C++ and Rust names of user code are
 * demangled as perf shows them (no parameter lists: "toplev::main"),
 * unless no_demangle is set; kernel names are left alone, as perf does.
 */
#ifndef KILN_SYMBOLIZE_SYMBOLIZE_H
#define KILN_SYMBOLIZE_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/hashmap.h"
#include "base/strtab.h"
#include "base/vec.h"
#include "dso/dso.h"
#include "proc/proc.h"

#define SYM_NONE UINT32_MAX

struct sym {
	uint32_t name;   /* strtab id of the symbol, SYM_NONE if unknown */
	uint32_t dso;    /* dso id, SYM_NONE if the address is in no mapping */
	uint64_t symoff; /* address - symbol start */
	uint64_t addr;   /* dso-relative address (kernel: absolute) */
	uint64_t pc;     /* the address perf script prints: file offset in a mapped file, else absolute */
	bool kernel;
};

struct symbolizer {
	struct machine *m;   /* borrowed */
	struct strtab *strs; /* borrowed */
	struct hashmap cache; /* hash(dso, addr) -> index in 'entries' */
	VEC(struct sym) entries;
	VEC(uint64_t) entry_keys; /* the file offset each entry was resolved for */
	uint64_t lookups, misses;
	bool no_demangle;     /* show C++/Rust names as mangled in the binary */
	struct hashmap demangled; /* raw name id -> demangled name id */
};

void symbolizer_init(struct symbolizer *s, struct machine *m, struct strtab *strs);
void symbolizer_release(struct symbolizer *s);
/* Resolve 'ip' in pid's address space (or the kernel's). Always fills *out. */
void symbolize(struct symbolizer *s, uint32_t pid, uint64_t ip, bool kernel, struct sym *out);

/* The basename of the dso a symbol lies in ("libc.so.6", "[kernel.kallsyms]"),
 * or NULL if the address was in no mapping. Borrowed. */
const char *sym_dso_basename(const struct symbolizer *s, const struct sym *sym);
/* The dso's full path as recorded, or NULL. Borrowed. */
const char *sym_dso_path(const struct symbolizer *s, const struct sym *sym);

#endif
