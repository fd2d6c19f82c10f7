/*
 * search: binary searches over arrays sorted by a u64 field (base, L0).
 *
 * The symbol tables, mappings, units, ranges and line rows of kiln are
 * arrays of structs sorted by an address-like uint64_t field; these find
 * where a key falls among them. UPPER_BOUND gives the index of the first
 * element whose field is above the key (so the element before it, if
 * any, is the last one at or below the key); LOWER_BOUND the first whose
 * field is at or above the key. Both return n when there is none. The
 * field must be a uint64_t (checked at compile time).
 */
#ifndef KILN_BASE_SEARCH_H
#define KILN_BASE_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline size_t search_u64(const void *base, size_t n, size_t stride, size_t off, uint64_t key,
				bool upper)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;
		memcpy(&k, b + mid * stride + off, sizeof(k));
		if (upper ? k <= key : k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* offsetof(type, field), failing to compile unless the field is 8 bytes. */
#define SEARCH_FIELD_(type, field) \
	(offsetof(type, field) + 0 * sizeof(char[sizeof(((type *)0)->field) == 8 ? 1 : -1]))

#define UPPER_BOUND(arr, n, type, field, key) \
	search_u64((arr), (n), sizeof(type), SEARCH_FIELD_(type, field), (key), true)
#define LOWER_BOUND(arr, n, type, field, key) \
	search_u64((arr), (n), sizeof(type), SEARCH_FIELD_(type, field), (key), false)

#endif
