/*
 * hugebuf: large growable arrays in huge pages (base, L0).
 *
 * A page fault costs microseconds (more in a virtual machine), and an
 * array grown by realloc pays it twice: the new block's pages fault while
 * the old one is copied into them. An HVEC is a VEC (base/vec.h) whose
 * storage, once it reaches HUGEBUF_MIN bytes, moves into an anonymous
 * mapping of its own: aligned to HUGEBUF_PAGE and advised for transparent
 * huge pages (MADV_HUGEPAGE, a hint: where the system refuses, pages are
 * the usual 4 KiB), so one fault maps 2 MiB; grown by moving its pages
 * (mremap), never by copying them. Below HUGEBUF_MIN it is malloc's, so
 * small arrays cost no more than a VEC. A mapping is address space until
 * touched: reserving a generous bound costs only the pages written.
 *
 * Every allocation failure ends the process as xalloc's do (one error
 * line, XALLOC_EXIT); a mapping refused falls back to realloc.
 * Zero-initialised HVECs are empty and valid; elements move when the
 * array grows (keep indexes, not pointers). Not thread-safe: one owner.
 */
#ifndef KILN_BASE_HUGEBUF_H
#define KILN_BASE_HUGEBUF_H

#include <stdbool.h>
#include <stddef.h>

/* The huge page size mappings are aligned to and rounded up to. */
#define HUGEBUF_PAGE ((size_t)2 << 20)
/* Arrays of this many bytes or more live in a mapping: below, a huge page
 * would be cleared for fewer bytes than its faults would cost. */
#define HUGEBUF_MIN ((size_t)1 << 20)

#define HVEC(T)                                                                                   \
	struct {                                                                                  \
		T *v;                                                                             \
		size_t n, cap;                                                                    \
		size_t mapped; /* bytes of the mapping holding v, 0 while malloc's */             \
	}

/*
 * Room for at least 'want' elements of 'elsz' bytes in the array *v of
 * *cap elements (its first elements kept), doubling as a VEC does; past
 * HUGEBUF_MIN bytes in a huge-page mapping of *mapped bytes.
 */
void hugebuf_grow(void **v, size_t *cap, size_t *mapped, size_t want, size_t elsz);
/* A zeroed array of nmemb elements of elsz bytes (a table to fill, not to
 * grow): past HUGEBUF_MIN bytes a huge-page mapping of *mapped bytes, else
 * calloc's (*mapped 0). */
void *hugebuf_zalloc(size_t nmemb, size_t elsz, size_t *mapped);
/* Scratch of 'bytes' bytes, contents undefined: past HUGEBUF_MIN a
 * huge-page mapping of *mapped bytes, else malloc's (*mapped 0). */
void *hugebuf_alloc(size_t bytes, size_t *mapped);
/* Free an array hugebuf_grow, hugebuf_zalloc or hugebuf_alloc made (NULL: nothing). */
void hugebuf_free(void *v, size_t mapped);
/* A mapping of 'bytes' (a multiple of HUGEBUF_PAGE) at a HUGEBUF_PAGE
 * boundary, advised for huge pages (a hint), for callers that grow or
 * advise it themselves (munmap frees it); NULL if refused. */
void *hugebuf_map(size_t bytes);
/*
 * Map the whole pages inside [p, p + n) writable now, in one call
 * (MADV_POPULATE_WRITE, Linux 5.14), instead of a page fault each as they
 * are first written (a few microseconds apiece in a virtual machine): for
 * memory about to be written whole. Anonymous memory stays as it was
 * (zero if fresh). False where the kernel refuses (then pages fault as
 * usual).
 */
bool hugebuf_populate(void *p, size_t n);
/* mremap(p, old, bytes, MREMAP_MAYMOVE) for a mapping of one's own
 * (MAP_FAILED if refused); a copy under ThreadSanitizer, which does not
 * see mremap free the old range. */
void *hugebuf_remap(void *p, size_t old, size_t bytes);

/* Make room for at least 'want' elements in total. */
#define HVEC_RESERVE(vec, want)                                                                   \
	do {                                                                                      \
		if ((want) > (vec)->cap)                                                          \
			hugebuf_grow((void **)&(vec)->v, &(vec)->cap, &(vec)->mapped, (want),     \
				     sizeof((vec)->v[0]));                                        \
	} while (0)

/* Append one element. */
#define HVEC_PUSH(vec, x)                                                                         \
	do {                                                                                      \
		HVEC_RESERVE((vec), (vec)->n + 1);                                                \
		(vec)->v[(vec)->n++] = (x);                                                       \
	} while (0)

#define HVEC_FREE(vec)                                                                            \
	do {                                                                                      \
		hugebuf_free((vec)->v, (vec)->mapped);                                            \
		(vec)->v = NULL;                                                                  \
		(vec)->n = (vec)->cap = (vec)->mapped = 0;                                        \
	} while (0)

#endif
