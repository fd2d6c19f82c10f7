/*
 * strtab: string interning with an open-addressing table of ids (base, L0).
 * Bytes live in append-only chunks, so pointers handed out never move.
 *
 * A string is stored as [length][bytes][NUL]: the length is one byte
 * below 255; else four bytes (host order) then a 255 byte. Its location
 * names the first byte of 'bytes', so the length is read backwards:
 *
 *     short:  | n | bytes... | 0 |         long:  | n (4) | 255 | bytes... | 0 |
 *                 ^ loc                                          ^ loc
 *
 * A string too long for one chunk gets a chunk of its own, which takes a
 * chunk number like any other (and is full).
 */
#include "base/strtab.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/xalloc.h"

#define LONG_MARK 255u

void strtab_init(struct strtab *t)
{
	memset(t, 0, sizeof(*t));
}

void strtab_release(struct strtab *t)
{
	for (size_t i = 0; i < t->nchunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	free(t->locs);
	free(t->slots);
	strtab_init(t);
}

static const char *at(const struct strtab *t, uint32_t loc)
{
	return t->chunks[loc >> 16] + (loc & 0xffff);
}

static uint32_t len_at(const char *p)
{
	uint8_t b = (uint8_t)p[-1];
	if (b != LONG_MARK)
		return b;
	uint32_t n;
	memcpy(&n, p - 5, 4);
	return n;
}

static uint32_t store(struct strtab *t, const char *s, size_t n)
{
	size_t head = n < LONG_MARK ? 1 : 5, need = head + n + 1;
	if (n > UINT32_MAX - 6)
		xalloc_die("a string over 4 GiB");
	if (!t->nchunks || STRTAB_CHUNK - t->chunk_used < need) {
		if (t->nchunks == STRTAB_MAX_CHUNKS)
			xalloc_die("string table over 4 GiB");
		size_t cap = need > STRTAB_CHUNK ? need : STRTAB_CHUNK;
		XREALLOC_ARRAY(t->chunks, t->nchunks + 1);
		t->chunks[t->nchunks++] = xmalloc(cap);
		t->chunk_used = 0;
	}
	uint32_t off = t->chunk_used;
	char *p = t->chunks[t->nchunks - 1] + off;
	if (head == 1) {
		p[0] = (char)n;
	} else {
		uint32_t n32 = (uint32_t)n;
		memcpy(p, &n32, 4);
		p[4] = (char)LONG_MARK;
	}
	memcpy(p + head, s, n);
	p[head + n] = '\0';
	/* A chunk of its own is full; 'off' stays below STRTAB_CHUNK. */
	t->chunk_used = need > STRTAB_CHUNK ? STRTAB_CHUNK : (uint32_t)(off + need);
	return (t->nchunks - 1) << 16 | (uint32_t)(off + head);
}

static uint64_t load8(const char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static uint32_t load4(const char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* memcmp(a, b, n) == 0 inline: names are short, and a call into libc
 * costs more than the compare. Loads stay inside both strings (the last
 * one overlaps the one before). */
static bool same_bytes(const char *a, const char *b, size_t n)
{
	if (n >= 8) {
		for (size_t i = 0; i + 8 < n; i += 8)
			if (load8(a + i) != load8(b + i))
				return false;
		return load8(a + n - 8) == load8(b + n - 8);
	}
	if (n >= 4)
		return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* A slot: 3 bits of the hash over the id + 1 (ids are below 2^29). */
#define SLOT_TAG(h) ((uint32_t)((h) >> 61) << 29)
#define SLOT_ID(s) (((s) & ((UINT32_C(1) << 29) - 1)) - 1)
_Static_assert(STRTAB_MAX_ID < (UINT32_C(1) << 29), "an id + 1 fits a slot's 29 bits");

__attribute__((noinline)) static void grow_slots(struct strtab *t)
{
	size_t cap = t->slots ? (t->mask + 1) * 2 : 1024;
	uint32_t *slots;
	XALLOC_ARRAY(slots, cap);
	for (uint32_t id = 0; id < t->n; id++) {
		const char *p = at(t, t->locs[id]);
		uint64_t h = hash_str(p, len_at(p));
		size_t i = h & (cap - 1);
		while (slots[i])
			i = (i + 1) & (cap - 1);
		slots[i] = SLOT_TAG(h) | (id + 1);
	}
	free(t->slots);
	t->slots = slots;
	t->mask = cap - 1;
}

uint32_t strtab_intern(struct strtab *t, const char *s, size_t n)
{
	return strtab_intern_hashed(t, s, n, hash_str(s, n));
}

/*
 * A new string at empty slot i: its id. Apart from the lookup, so that
 * finding a string already there (most calls) is a small function.
 */
__attribute__((noinline)) static uint32_t add_new(struct strtab *t, const char *s, size_t n,
						  size_t i, uint32_t tag)
{
	if (t->n == STRTAB_MAX_ID)
		xalloc_die("string table over its ids");
	if (t->n == t->cap) {
		t->cap = t->cap ? (t->cap > STRTAB_MAX_ID / 2 ? STRTAB_MAX_ID : t->cap * 2) : 256;
		XREALLOC_ARRAY(t->locs, t->cap);
	}
	uint32_t id = t->n++;
	t->locs[id] = store(t, s, n);
	t->slots[i] = tag | (id + 1);
	return id;
}

uint32_t strtab_intern_hashed(struct strtab *t, const char *s, size_t n, uint64_t h)
{
	if (!t->slots || ((size_t)t->n + 1) * 4 > (t->mask + 1) * 3)
		grow_slots(t);
	uint32_t tag = SLOT_TAG(h);
	size_t i = h & t->mask;
	while (t->slots[i]) {
		if ((t->slots[i] & ~((UINT32_C(1) << 29) - 1)) == tag) {
			uint32_t id = SLOT_ID(t->slots[i]);
			const char *p = at(t, t->locs[id]);
			if (len_at(p) == n && same_bytes(p, s, n))
				return id;
		}
		i = (i + 1) & t->mask;
	}
	return add_new(t, s, n, i, tag);
}

uint32_t strtab_intern_str(struct strtab *t, const char *s)
{
	return strtab_intern(t, s, strlen(s));
}

const char *strtab_get(const struct strtab *t, uint32_t id)
{
	assert(id < t->n);
	return at(t, t->locs[id]);
}

uint32_t strtab_len(const struct strtab *t, uint32_t id)
{
	assert(id < t->n);
	return len_at(at(t, t->locs[id]));
}
