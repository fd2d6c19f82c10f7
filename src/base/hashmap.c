/* hashmap: u64 -> u64 open-addressing map with linear probing (base, L0). */
#include "base/hashmap.h"

#include <stdlib.h>

#include "base/xalloc.h"

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

uint64_t hash_mix2(uint64_t a, uint64_t b)
{
	return mix(a ^ mix(b + 0x9e3779b97f4a7c15ULL));
}

uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void hashmap_init(struct hashmap *m)
{
	m->slots = NULL;
	m->used = NULL;
	m->n = m->mask = 0;
}

void hashmap_release(struct hashmap *m)
{
	free(m->slots);
	free(m->used);
	hashmap_init(m);
}

static void rehash(struct hashmap *m, size_t cap)
{
	struct hashmap old = *m;
	XALLOC_ARRAY(m->slots, cap);
	XALLOC_ARRAY(m->used, cap);
	m->mask = cap - 1;
	m->n = 0;
	if (old.used) {
		for (size_t i = 0; i <= old.mask; i++)
			if (old.used[i])
				hashmap_put(m, old.slots[i].key, old.slots[i].val);
	}
	free(old.slots);
	free(old.used);
}

uint64_t *hashmap_slot(struct hashmap *m, uint64_t key, uint64_t dflt, bool *inserted)
{
	if (!m->used || (m->n + 1) * 4 > (m->mask + 1) * 3)
		rehash(m, m->used ? (m->mask + 1) * 2 : 16);
	size_t i = mix(key) & m->mask;
	while (m->used[i]) {
		if (m->slots[i].key == key) {
			if (inserted)
				*inserted = false;
			return &m->slots[i].val;
		}
		i = (i + 1) & m->mask;
	}
	m->used[i] = 1;
	m->slots[i].key = key;
	m->slots[i].val = dflt;
	m->n++;
	if (inserted)
		*inserted = true;
	return &m->slots[i].val;
}

void hashmap_put(struct hashmap *m, uint64_t key, uint64_t val)
{
	*hashmap_slot(m, key, val, NULL) = val;
}

bool hashmap_get(const struct hashmap *m, uint64_t key, uint64_t *val)
{
	if (!m->used)
		return false;
	size_t i = mix(key) & m->mask;
	while (m->used[i]) {
		if (m->slots[i].key == key) {
			if (val)
				*val = m->slots[i].val;
			return true;
		}
		i = (i + 1) & m->mask;
	}
	return false;
}

bool hashmap_next(const struct hashmap *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	for (; m->used && *pos <= m->mask; ++*pos)
		if (m->used[*pos]) {
			*key = m->slots[*pos].key;
			*val = m->slots[*pos].val;
			++*pos;
			return true;
		}
	return false;
}
