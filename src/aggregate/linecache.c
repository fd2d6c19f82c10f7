/*
 * linecache: repeated lines by their first bytes, confirmed whole
 * (aggregate, L6). Open addressing over LINECACHE_KEY bytes and the flag;
 * entries with equal keys sit in the same probe run, so a lookup walks
 * the run until a slot is empty, comparing the entries whose tag matches.
 */
#include "aggregate/linecache.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#define FOLLOWER LINECACHE_FOLLOWER /* an entry's word with its follower's id */
#define HEAD LINECACHE_HEAD         /* words before an entry's values */

/* The hash of a line's first LINECACHE_KEY bytes and its flag:
 * independent multiplies (no chain through the words), then mixed. */
static uint64_t key_hash(const char *s, bool flag)
{
	uint64_t w[4];
	memcpy(w, s, sizeof(w));
	uint64_t h = w[0] * 0x9e3779b97f4a7c15ULL + w[1] * 0xc2b2ae3d27d4eb4fULL +
		     w[2] * 0x165667b19e3779f9ULL + w[3] * 0xd6e8feb86659fd93ULL + flag;
	h ^= h >> 32;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 29;
	return h;
}

static const char *entry_bytes(const uint32_t *e)
{
	return (const char *)(e + HEAD + (e[1] >> 1));
}

void linecache_init(struct linecache *c)
{
	memset(c, 0, sizeof(*c));
}

void linecache_release(struct linecache *c)
{
	free(c->slots);
	VEC_FREE(&c->arena);
	linecache_init(c);
}

static bool found(struct linecache *c, uint32_t prev, uint32_t id, struct linecache_line *out)
{
	const uint32_t *e = c->arena.v + (id - 1);
	if (prev)
		c->arena.v[prev - 1 + FOLLOWER] = id;
	out->id = id;
	out->count = e[1] >> 1;
	out->len = e[0];
	out->vals = e + HEAD;
	return true;
}

bool linecache_find(struct linecache *c, uint32_t prev, const char *s, size_t avail, bool flag,
		    struct linecache_line *out)
{
	return (prev && linecache_follows(c, prev, s, avail, flag, out)) ||
	       linecache_search(c, prev, s, avail, flag, out);
}

bool linecache_search(struct linecache *c, uint32_t prev, const char *s, size_t avail, bool flag,
		      struct linecache_line *out)
{
	if (!c->n || avail < LINECACHE_KEY)
		return false;
	uint32_t next = prev ? c->arena.v[prev - 1 + FOLLOWER] : 0;
	uint64_t h = key_hash(s, flag), tag = h >> 32;
	for (size_t i = (size_t)h & c->mask; c->slots[i]; i = (i + 1) & c->mask) {
		if (c->slots[i] >> 32 != tag)
			continue;
		uint32_t id = (uint32_t)c->slots[i];
		if (id != next && linecache_entry_is(c->arena.v + (id - 1), s, avail, flag))
			return found(c, prev, id, out);
	}
	return false;
}

static void slot_insert(uint64_t *slots, size_t mask, uint64_t h, uint32_t at)
{
	size_t i = (size_t)h & mask;
	while (slots[i])
		i = (i + 1) & mask;
	slots[i] = (h >> 32) << 32 | ((uint64_t)at + 1); /* the entry's id */
}

/* Room for one more entry, the slots at most half full. */
static void room(struct linecache *c)
{
	if (c->slots && (c->n + 1) * 2 <= c->mask + 1)
		return;
	size_t cap = c->slots ? (c->mask + 1) * 2 : 4096;
	uint64_t *slots = xcalloc(cap, sizeof(*slots));
	for (size_t at = 0; at < c->arena.n;) {
		const uint32_t *e = c->arena.v + at;
		slot_insert(slots, cap - 1, key_hash(entry_bytes(e), e[1] & 1), (uint32_t)at);
		at += HEAD + (e[1] >> 1) + (e[0] + 3) / 4;
	}
	free(c->slots);
	c->slots = slots;
	c->mask = cap - 1;
}

uint32_t linecache_put(struct linecache *c, uint32_t prev, const char *s, size_t n, bool flag,
		       const uint32_t *vals, size_t count)
{
	if (n < LINECACHE_KEY || n > LINECACHE_LINE || count > LINECACHE_VALUES ||
	    c->n >= LINECACHE_MAX || c->bytes + n > LINECACHE_BYTES)
		return 0;
	room(c);
	size_t at = c->arena.n, words = HEAD + count + (n + 3) / 4;
	VEC_RESERVE(&c->arena, at + words);
	uint32_t *e = c->arena.v + at;
	e[0] = (uint32_t)n;
	e[1] = (uint32_t)count << 1 | flag;
	e[FOLLOWER] = 0;
	if (count)
		memcpy(e + HEAD, vals, count * sizeof(*vals));
	e[words - 1] = 0; /* the padding after the bytes */
	memcpy((char *)(e + HEAD + count), s, n);
	c->arena.n = at + words;
	c->n++;
	c->bytes += n;
	slot_insert(c->slots, c->mask, key_hash(s, flag), (uint32_t)at);
	if (prev)
		c->arena.v[prev - 1 + FOLLOWER] = (uint32_t)at + 1;
	return (uint32_t)at + 1;
}
