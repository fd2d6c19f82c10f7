/*
 * source: the source files an annotation shows (annotate, L6).
 *
 * srcline.h answers with file basenames; the text needs the whole path,
 * which this reads from the file table of the compilation unit that
 * covers the function (libdw, on the dso's symbol file). A path is
 * rewritten for trees built elsewhere as objdump's --prefix-strip and
 * --prefix do (strip the first N directory components, then prepend the
 * prefix), and the file is read whole (regular files only, at most
 * SOURCE_MAX_BYTES) and split into lines. A file that cannot be read is
 * kept, marked not found, so the caller can say so and go on.
 */
#ifndef KILN_ANNOTATE_SOURCE_H
#define KILN_ANNOTATE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/vec.h"

#define SOURCE_MAX_BYTES (64u << 20)

struct source_opts {
	const char *prefix;    /* prepended to each path after stripping, or NULL */
	unsigned prefix_strip; /* leading directory components removed first */
};

struct source_file {
	char *path;   /* the path looked at (after the prefix rules), owned */
	char *text;   /* the file's bytes, NUL-terminated, or NULL when not found */
	size_t len;
	VEC(size_t) starts; /* offset of line N at starts[N - 1] */
	bool found;
};

struct source_set {
	VEC(struct source_file) v;
	VEC(char *) cu_paths; /* the unit's file paths, as DWARF spells them */
};

void source_set_init(struct source_set *s);
void source_set_release(struct source_set *s);
/*
 * Reads the file table of the compilation unit covering link-time
 * address 'vaddr' in ELF file 'path' (the symbol file: debug file or
 * binary) into s->cu_paths. 0, or -ENOENT when the file, its DWARF or
 * the unit is missing (cu_paths stays empty).
 */
int source_set_load_unit(struct source_set *s, const char *path, uint64_t vaddr);
/* The unit path whose last component is 'base' (first in table order), or NULL. */
const char *source_set_unit_path(const struct source_set *s, const char *base);
/*
 * The index in s->v of the file for DWARF path 'dwpath', read on first
 * use with the prefix rules of 'o'. Never fails: a file not read has
 * found = false.
 */
size_t source_set_add(struct source_set *s, const char *dwpath, const struct source_opts *o);
/* Line 'line' (1-based) of a found file, without its newline, or NULL. */
const char *source_line(const struct source_file *f, uint32_t line, size_t *len);
/* The path objdump's --prefix-strip N --prefix P would open for 'path',
 * into buf (truncated to len). */
void source_rewrite_path(const char *path, const struct source_opts *o, char *buf, size_t len);

#endif
