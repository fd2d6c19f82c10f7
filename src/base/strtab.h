/*
 * strtab: string interning (base, L0).
 *
 * Names, paths and comms become uint32_t ids; equal strings get equal ids,
 * so later stages compare and hash ids instead of bytes. Ids are dense,
 * starting at 0 in insertion order. Strings may hold any bytes except NUL.
 * Returned pointers stay valid until the table is released (storage is
 * chunked and never moves).
 *
 * A string costs its bytes, its NUL, a length byte (five past 254 bytes),
 * a 4-byte location and a hash slot: a profile of distinct names is
 * mostly names. Limits: STRTAB_MAX_ID ids and STRTAB_MAX_CHUNKS chunks of
 * STRTAB_CHUNK bytes (4 GiB of short strings); past them the process
 * ends as on out-of-memory (xalloc_die).
 */
#ifndef KILN_BASE_STRTAB_H
#define KILN_BASE_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#define STRTAB_MAX_ID ((UINT32_C(1) << 29) - 1) /* ids are below it (29 bits: see trie_node) */
#define STRTAB_CHUNK (UINT32_C(1) << 16)
#define STRTAB_MAX_CHUNKS (UINT32_C(1) << 16)

struct strtab {
	char **chunks;     /* storage chunks, never reallocated */
	uint32_t nchunks;
	uint32_t chunk_used; /* bytes used in the last chunk */
	uint32_t *locs;    /* id -> chunk << 16 | offset of the string's first byte */
	uint32_t n, cap;   /* ids in use / allocated */
	/* hash table, at most 3/4 full: the hash's top 3 bits << 29 | id + 1
	 * (0 = empty), so most probes skip a string without reading it */
	uint32_t *slots;
	size_t mask;
};

void strtab_init(struct strtab *t);
void strtab_release(struct strtab *t);
/* Intern the n bytes at s (no NUL needed); returns its id. */
uint32_t strtab_intern(struct strtab *t, const char *s, size_t n);
uint32_t strtab_intern_str(struct strtab *t, const char *s);
/* strtab_intern with the bytes' hash_str (base/hashmap.h) already worked
 * out by the caller (one that hashes while it scans). */
uint32_t strtab_intern_hashed(struct strtab *t, const char *s, size_t n, uint64_t h);
/* The string for an id (NUL-terminated, borrowed). id must be < t->n. */
const char *strtab_get(const struct strtab *t, uint32_t id);
uint32_t strtab_len(const struct strtab *t, uint32_t id);

#endif
