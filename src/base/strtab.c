/*
 * strtab: string interning with an open-addressing table of ids (base, L0).
 * Bytes live in append-only chunks, so pointers handed out never move.
 */
#include "base/strtab.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/xalloc.h"

void strtab_init(struct strtab *t)
{
	memset(t, 0, sizeof(*t));
}

void strtab_release(struct strtab *t)
{
	for (size_t i = 0; i < t->nchunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	free(t->strs);
	free(t->lens);
	free(t->slots);
	strtab_init(t);
}

static char *store(struct strtab *t, const char *s, size_t n)
{
	if (!t->nchunks || t->chunk_cap - t->chunk_used < n + 1) {
		size_t cap = n + 1 > 65536 ? n + 1 : 65536;
		XREALLOC_ARRAY(t->chunks, t->nchunks + 1);
		t->chunks[t->nchunks++] = xmalloc(cap);
		t->chunk_cap = cap;
		t->chunk_used = 0;
	}
	char *p = t->chunks[t->nchunks - 1] + t->chunk_used;
	memcpy(p, s, n);
	p[n] = '\0';
	t->chunk_used += n + 1;
	return p;
}

static void grow_slots(struct strtab *t)
{
	size_t cap = t->slots ? (t->mask + 1) * 2 : 1024;
	uint32_t *slots;
	XALLOC_ARRAY(slots, cap);
	for (uint32_t id = 0; id < t->n; id++) {
		size_t i = hash_bytes(t->strs[id], t->lens[id]) & (cap - 1);
		while (slots[i])
			i = (i + 1) & (cap - 1);
		slots[i] = id + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = cap - 1;
}

uint32_t strtab_intern(struct strtab *t, const char *s, size_t n)
{
	if (!t->slots || ((size_t)t->n + 1) * 2 > t->mask + 1)
		grow_slots(t);
	size_t i = hash_bytes(s, n) & t->mask;
	while (t->slots[i]) {
		uint32_t id = t->slots[i] - 1;
		if (t->lens[id] == n && memcmp(t->strs[id], s, n) == 0)
			return id;
		i = (i + 1) & t->mask;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		XREALLOC_ARRAY(t->strs, t->cap);
		XREALLOC_ARRAY(t->lens, t->cap);
	}
	uint32_t id = t->n++;
	t->strs[id] = store(t, s, n);
	t->lens[id] = (uint32_t)n;
	t->slots[i] = id + 1;
	return id;
}

uint32_t strtab_intern_str(struct strtab *t, const char *s)
{
	return strtab_intern(t, s, strlen(s));
}

const char *strtab_get(const struct strtab *t, uint32_t id)
{
	assert(id < t->n);
	return t->strs[id];
}

uint32_t strtab_len(const struct strtab *t, uint32_t id)
{
	assert(id < t->n);
	return t->lens[id];
}
