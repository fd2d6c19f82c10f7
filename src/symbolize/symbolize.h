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
#include "base/hugebuf.h"
#include "base/strtab.h"
#include "base/vec.h"
#include "dso/dso.h"
#include "proc/proc.h"
#include "symbolize/srcline.h"

#define SYM_NONE UINT32_MAX

struct sym {
	uint32_t name;   /* strtab id of the symbol's display name, SYM_NONE if unknown */
	uint32_t raw;    /* strtab id of the name as the binary spells it (mangled), SYM_NONE */
	uint32_t dso;    /* dso id, SYM_NONE if the address is in no mapping */
	uint64_t symoff; /* address - symbol start */
	uint64_t addr;   /* dso-relative address (kernel: absolute) */
	uint64_t pc;     /* the address perf script prints: file offset in a mapped file, else absolute */
	bool kernel;
	uint32_t entry; /* the symbolizer's cache entry that answered (0, 1, 2...
			 * for the symbolizer's life), SYM_NONE when uncached (JIT) */
};

struct symbolizer {
	struct machine *m;   /* borrowed */
	struct strtab *strs; /* borrowed */
	struct hashmap cache; /* hash(dso, addr) -> index in 'entries' */
	HVEC(struct sym) entries;    /* huge pages once large (base/hugebuf.h) */
	HVEC(uint64_t) entry_keys; /* the file offset each entry was resolved for */
	uint64_t lookups, misses;
	bool no_demangle;     /* show C++/Rust names as mangled in the binary */
	struct hashmap demangled; /* raw name id -> demangled name id */
	struct hashmap srcline_texts; /* (file id << 32 | line) -> "file:line" id */
	struct srclines src;      /* DWARF lines and inline chains */
	VEC(uint32_t) a2l_fails;  /* per dso: perf's failed-lookup count + 1 (0: had a success) */
	VEC(uint8_t) no_srcline;  /* per dso: perf gave up on source lines */
};

void symbolizer_init(struct symbolizer *s, struct machine *m, struct strtab *strs);
void symbolizer_release(struct symbolizer *s);
/* Empty the (dso, address) cache and what is kept per dso (source lines),
 * so a live view's stays bounded and dso ids may be reused: entry ids
 * start again from 0 (data a caller keyed by them must go too). */
void symbolizer_forget(struct symbolizer *s);
/* Resolve 'ip' in pid's address space (or the kernel's). Always fills *out. */
void symbolize(struct symbolizer *s, uint32_t pid, uint64_t ip, bool kernel, struct sym *out);

/*
 * Inline frames and source lines, as perf 6.1 shows them (from addr2line
 * -i -f answers, see srcline.h).
 */
struct sym_inline {
	uint32_t name;    /* the frame's name (demangled as perf demangles) */
	uint32_t srcline; /* "file:line" (basename; "??:0" when unknown) */
	bool inlined;     /* perf prints " (inlined)" and no dso: the name is not the symbol's */
};
/*
 * perf's inline expansion of a user frame (append_inlines): the frames
 * that replace 'sym', innermost first, at most 'cap'; 0 when perf shows
 * the frame as it is (no symbol, not a file, no DWARF or symbol answer).
 */
size_t symbolize_inlines(struct symbolizer *s, const struct sym *sym, struct sym_inline *out,
			 size_t cap);

enum sym_srcline {
	SYM_SRCLINE_TEXT,  /* print the text */
	SYM_SRCLINE_QUIET, /* perf prints nothing (no mapping, or "??:0") */
	SYM_SRCLINE_FAIL,  /* perf prints "<dso short name>[<addr in hex>]" */
};
/* perf's source line of a frame that was not expanded (map__fprintf_srcline):
 * *text gets the "file:line" id for SYM_SRCLINE_TEXT. */
enum sym_srcline symbolize_srcline(struct symbolizer *s, const struct sym *sym, uint32_t *text);

/*
 * The frames of a symbolized address with their source positions, for the
 * exports (pprof's lines, speedscope's frame sources): exactly the frames
 * folded stacks and perf script show for it, so every output names an
 * address alike. Innermost first, at most 'cap':
 *  - with 'inlines', symbolize_inlines' frames when it expands the
 *    address (addr2line's records: each function's name, file and line);
 *  - else the symbol alone: its display name, its name in the binary, and
 *    the file:line of the address in the function holding it (addr2line's
 *    outermost record, when there is one);
 *  - none when the address has no symbol: past the end of the symbol
 *    before it (st_size; a sizeless symbol ends where the next starts),
 *    perf script prints "[unknown]" and folded stacks the binary's name,
 *    whatever DWARF or addr2line's previous-symbol rule would answer.
 */
struct sym_line {
	uint32_t name; /* display name (demangled unless no_demangle), as folded stacks name it */
	uint32_t raw;  /* the name in the binary (mangled) */
	uint32_t file; /* strtab id of the file's basename, SRCLINE_NONE */
	uint32_t line; /* 0: unknown */
	uint16_t rec;  /* the addr2line record it was read from (innermost first) */
	uint16_t nrec; /* how many records addr2line gave (0: none, file and line unknown) */
};
size_t symbolize_lines(struct symbolizer *s, const struct sym *sym, bool inlines,
		       struct sym_line *out, size_t cap);
/* The declarations of the functions covering a user frame's address,
 * innermost first (srclines_decl). Not cached. */
size_t symbolize_decls(struct symbolizer *s, const struct sym *sym, struct srcline_decl *out,
		       size_t cap);

/* The name perf shows for a user-space name id as the binary spells it:
 * demangled when it is a C++ or Rust name, unless no_demangle (cached). */
uint32_t symbolize_display_name(struct symbolizer *s, uint32_t raw);

/* The basename of the dso a symbol lies in ("libc.so.6", "[kernel.kallsyms]"),
 * or NULL if the address was in no mapping. Borrowed. */
const char *sym_dso_basename(const struct symbolizer *s, const struct sym *sym);
/* The dso's full path as recorded, or NULL. Borrowed. */
const char *sym_dso_path(const struct symbolizer *s, const struct sym *sym);

#endif
