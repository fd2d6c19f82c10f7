/*
 * vec: typed growable arrays as macros (base, L0).
 *
 * A vector is any struct with members 'v' (element pointer), 'n' (count)
 * and 'cap' (capacity); VEC(T) declares one inline. Elements move when the
 * vector grows, so keep indexes (uint32_t), not pointers, into a vector
 * that may still grow. Zero-initialised vectors are empty and valid.
 */
#ifndef KILN_BASE_VEC_H
#define KILN_BASE_VEC_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "base/xalloc.h"

#define VEC(T)                                                                                    \
	struct {                                                                                  \
		T *v;                                                                             \
		size_t n, cap;                                                                    \
	}

static inline void vec_grow_(void **v, size_t *cap, size_t want, size_t elsz)
{
	if (want <= *cap)
		return;
	size_t c = *cap ? *cap : 8;
	while (c < want)
		c *= 2;
	*v = xreallocarray(*v, c, elsz);
	*cap = c;
}

/* Make room for at least 'want' elements in total (an expression). */
#define VEC_RESERVE(vec, want)                                                                    \
	vec_grow_((void **)&(vec)->v, &(vec)->cap, (want), sizeof((vec)->v[0]))

/* Append one element (an lvalue or expression of the element type). */
#define VEC_PUSH(vec, x)                                                                          \
	do {                                                                                      \
		VEC_RESERVE((vec), (vec)->n + 1);                                                 \
		(vec)->v[(vec)->n++] = (x);                                                       \
	} while (0)

/* Append one zeroed element and evaluate to a pointer to it. */
#define VEC_PUSH_ZERO(vec)                                                                        \
	(VEC_RESERVE((vec), (vec)->n + 1),                                                        \
	 memset(&(vec)->v[(vec)->n], 0, sizeof((vec)->v[0])), &(vec)->v[(vec)->n++])

#define VEC_FREE(vec)                                                                             \
	do {                                                                                      \
		free((vec)->v);                                                                   \
		(vec)->v = NULL;                                                                  \
		(vec)->n = (vec)->cap = 0;                                                        \
	} while (0)

#endif
