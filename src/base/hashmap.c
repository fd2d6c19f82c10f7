/* hashmap: u64 -> u64 open-addressing map with linear probing (base, L0). */
#include "base/hashmap.h"

#include <stdlib.h>
#include <string.h>

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

uint64_t hash_str(const void *p, size_t n)
{
	const char *s = p;
	uint64_t h = HASH_STR_SEED;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = hash_str_word(h, w);
	}
	if (i < n) {
		uint64_t w = 0;
		memcpy(&w, s + i, n - i);
		h = hash_str_word(h, w);
	}
	return hash_str_end(h, n);
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
	m->n = m->mask = 0;
	m->has_empty = false;
	m->empty_val = 0;
}

void hashmap_release(struct hashmap *m)
{
	free(m->slots);
	hashmap_init(m);
}

/* Slots are re-inserted in slot order, so the layout only depends on the
 * keys and their order of insertion. */
static void rehash(struct hashmap *m, size_t cap)
{
	struct hashmap old = *m;
	XALLOC_ARRAY(m->slots, cap);
	for (size_t i = 0; i < cap; i++)
		m->slots[i].key = HASHMAP_EMPTY;
	m->mask = cap - 1;
	m->n = old.has_empty;
	if (old.slots) {
		for (size_t i = 0; i <= old.mask; i++)
			if (old.slots[i].key != HASHMAP_EMPTY)
				hashmap_put(m, old.slots[i].key, old.slots[i].val);
	}
	free(old.slots);
}

uint64_t *hashmap_slot(struct hashmap *m, uint64_t key, uint64_t dflt, bool *inserted)
{
	if (key == HASHMAP_EMPTY) {
		if (inserted)
			*inserted = !m->has_empty;
		if (!m->has_empty) {
			m->has_empty = true;
			m->empty_val = dflt;
			m->n++;
		}
		return &m->empty_val;
	}
	if (!m->slots || (m->n + 1) * 4 > (m->mask + 1) * 3)
		rehash(m, m->slots ? (m->mask + 1) * 2 : 16);
	size_t i = mix(key) & m->mask;
	while (m->slots[i].key != HASHMAP_EMPTY) {
		if (m->slots[i].key == key) {
			if (inserted)
				*inserted = false;
			return &m->slots[i].val;
		}
		i = (i + 1) & m->mask;
	}
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
	if (key == HASHMAP_EMPTY) {
		if (m->has_empty && val)
			*val = m->empty_val;
		return m->has_empty;
	}
	if (!m->slots)
		return false;
	size_t i = mix(key) & m->mask;
	for (;; i = (i + 1) & m->mask) {
		uint64_t k = m->slots[i].key;
		if (k == key) {
			if (val)
				*val = m->slots[i].val;
			return true;
		}
		if (k == HASHMAP_EMPTY)
			return false;
	}
}

bool hashmap_next(const struct hashmap *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	size_t cap = m->slots ? m->mask + 1 : 0;
	for (; *pos < cap; ++*pos)
		if (m->slots[*pos].key != HASHMAP_EMPTY) {
			*key = m->slots[*pos].key;
			*val = m->slots[*pos].val;
			++*pos;
			return true;
		}
	if (*pos == cap && m->has_empty) { /* the key HASHMAP_EMPTY comes last */
		*key = HASHMAP_EMPTY;
		*val = m->empty_val;
		++*pos;
		return true;
	}
	return false;
}
