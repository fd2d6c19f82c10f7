/*
 * hashmap: u64 key -> u64 value, open addressing (base, L0).
 *
 * The workhorse map for ids: pid -> process index, (parent, frame) -> trie
 * child, event id -> attr index. Keys are arbitrary u64 values (every value
 * is allowed, including 0 and ~0). Iteration order depends on hashing, so
 * callers that print must sort first.
 */
#ifndef KILN_BASE_HASHMAP_H
#define KILN_BASE_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashmap_slot {
	uint64_t key, val; /* side by side: a lookup touches one cache line */
};

/*
 * A free slot holds the key HASHMAP_EMPTY, so a lookup reads one array
 * (one cache line, mostly); the key HASHMAP_EMPTY itself, when put in the
 * map, lives beside the slots ('has_empty', 'empty_val').
 */
#define HASHMAP_EMPTY UINT64_C(0xb5ad4eceda1ce2a9)

struct hashmap {
	struct hashmap_slot *slots;
	size_t n;    /* entries */
	size_t mask; /* capacity - 1 (capacity is a power of two), or 0 if unallocated */
	bool has_empty;
	uint64_t empty_val;
};

void hashmap_init(struct hashmap *m);
void hashmap_release(struct hashmap *m);
/* Insert or overwrite. */
void hashmap_put(struct hashmap *m, uint64_t key, uint64_t val);
/* Returns true and sets *val if present. */
bool hashmap_get(const struct hashmap *m, uint64_t key, uint64_t *val);
/* Returns a pointer to the value slot for key, inserting 'dflt' if absent;
 * *inserted says which. Valid until the next insertion. */
uint64_t *hashmap_slot(struct hashmap *m, uint64_t key, uint64_t dflt, bool *inserted);
/* Iteration in slot order (not a stable order: sort before printing).
 * Start with *pos = 0; returns false when done. */
bool hashmap_next(const struct hashmap *m, size_t *pos, uint64_t *key, uint64_t *val);
/* Mix two u64 into one key (for composite keys). */
uint64_t hash_mix2(uint64_t a, uint64_t b);
/* FNV-1a over bytes (its values are part of outputs: SVG colours). */
uint64_t hash_bytes(const void *p, size_t n);
/* A faster hash of bytes, eight a step, for tables whose order nothing
 * prints (string interning, line caches): values may change between
 * versions. */
uint64_t hash_str(const void *p, size_t n);

/*
 * hash_str in steps, for a caller that finds where a string ends while
 * hashing it (the length is mixed in last):
 *
 *   uint64_t h = HASH_STR_SEED;
 *   h = hash_str_word(h, w);   for each 8 bytes, little-endian, in order;
 *                              the last 1-7 bytes zero-padded to a word
 *   hash_str_end(h, n) == hash_str(s, n)
 */
#define HASH_STR_SEED 0x243f6a8885a308d3ULL
#define HASH_STR_K 0x9e3779b97f4a7c15ULL
static inline uint64_t hash_str_word(uint64_t h, uint64_t w)
{
	h = (h ^ w) * HASH_STR_K;
	return h ^ (h >> 32);
}
static inline uint64_t hash_str_end(uint64_t h, size_t n)
{
	h = (h ^ ((uint64_t)n * HASH_STR_K)) * 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 29;
	h *= 0x94d049bb133111ebULL;
	return h ^ (h >> 32);
}

#endif
