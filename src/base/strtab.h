/*
 * strtab: string interning (base, L0).
 *
 * Names, paths and comms become uint32_t ids; equal strings get equal ids,
 * so later stages compare and hash ids instead of bytes. Ids are dense,
 * starting at 0 in insertion order. Strings may hold any bytes except NUL.
 * Returned pointers stay valid until the table is released (storage is
 * chunked and never moves).
 */
#ifndef KILN_BASE_STRTAB_H
#define KILN_BASE_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab {
	char **chunks;     /* storage chunks, never reallocated */
	size_t nchunks;
	size_t chunk_used; /* bytes used in the last chunk */
	size_t chunk_cap;  /* size of the last chunk */
	const char **strs; /* id -> string */
	uint32_t *lens;    /* id -> length */
	uint32_t n, cap;   /* ids in use / allocated */
	uint32_t *slots;   /* hash table of id+1 (0 = empty) */
	size_t mask;
};

void strtab_init(struct strtab *t);
void strtab_release(struct strtab *t);
/* Intern the n bytes at s (no NUL needed); returns its id. */
uint32_t strtab_intern(struct strtab *t, const char *s, size_t n);
uint32_t strtab_intern_str(struct strtab *t, const char *s);
/* The string for an id (NUL-terminated, borrowed). id must be < t->n. */
const char *strtab_get(const struct strtab *t, uint32_t id);
uint32_t strtab_len(const struct strtab *t, uint32_t id);

#endif
