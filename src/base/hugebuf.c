/* hugebuf: large growable arrays in huge pages (base, L0). */
#include "base/hugebuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/xalloc.h"

/* 'bytes' rounded up to a whole number of huge pages (0 on overflow). */
static size_t huge_round(size_t bytes)
{
	if (bytes > SIZE_MAX - HUGEBUF_PAGE)
		return 0;
	return (bytes + HUGEBUF_PAGE - 1) & ~(HUGEBUF_PAGE - 1);
}

void *hugebuf_map(size_t bytes)
{
	char *p = mmap(NULL, bytes + HUGEBUF_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	size_t head = (HUGEBUF_PAGE - ((uintptr_t)p & (HUGEBUF_PAGE - 1))) & (HUGEBUF_PAGE - 1);
	if (head)
		munmap(p, head);
	munmap(p + head + bytes, HUGEBUF_PAGE - head);
#ifdef MADV_HUGEPAGE
	(void)madvise(p + head, bytes, MADV_HUGEPAGE); /* a hint: fine if refused */
#endif
	return p + head;
}

/*
 * ThreadSanitizer does not see mremap free the range it moves pages from:
 * a later mapping there, written by another thread, looks like a race on
 * the old bytes. Under it, moves are copies and munmaps, which it sees.
 */
#if defined(__SANITIZE_THREAD__)
#define COPY_MOVES 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define COPY_MOVES 1
#endif
#endif

bool hugebuf_populate(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	size_t head = (size_t)(-(uintptr_t)p & 4095);
	if (n <= head)
		return false;
	n = (n - head) & ~(size_t)4095;
	return n && madvise((char *)p + head, n, MADV_POPULATE_WRITE) == 0;
#else
	(void)p;
	(void)n;
	return false;
#endif
}

void *hugebuf_remap(void *p, size_t old, size_t bytes)
{
#ifdef COPY_MOVES
	void *q = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (q == MAP_FAILED)
		return MAP_FAILED;
	memcpy(q, p, old < bytes ? old : bytes);
	munmap(p, old);
	return q;
#else
	return mremap(p, old, bytes, MREMAP_MAYMOVE);
#endif
}

/* Move a mapping of 'old' bytes into a new one of 'bytes' (its pages moved,
 * not copied; the new one aligned as hugebuf_map's); NULL if refused. */
static void *remap_aligned(void *p, size_t old, size_t bytes)
{
	void *q = hugebuf_map(bytes);
	if (!q)
		return NULL;
#ifdef COPY_MOVES
	memcpy(q, p, old);
	munmap(p, old);
#else
	if (mremap(p, old, old, MREMAP_MAYMOVE | MREMAP_FIXED, q) == MAP_FAILED) {
		munmap(q, bytes);
		return NULL;
	}
#endif
	return q;
}

void hugebuf_grow(void **v, size_t *cap, size_t *mapped, size_t want, size_t elsz)
{
	if (want <= *cap)
		return;
	size_t c = *cap ? *cap : 8;
	while (c < want) {
		if (c > SIZE_MAX / 2 / elsz)
			xalloc_die("growing an array");
		c *= 2;
	}
	size_t bytes = c * elsz;
	size_t round = bytes >= HUGEBUF_MIN ? huge_round(bytes) : 0;
	void *q = NULL;
	if (round && *mapped)
		q = remap_aligned(*v, *mapped, round);
	else if (round && (q = hugebuf_map(round)) != NULL) {
		if (*cap)
			memcpy(q, *v, *cap * elsz);
		free(*v);
	}
	if (q) {
		*v = q;
		*cap = round / elsz;
		*mapped = round;
		return;
	}
	if (*mapped) { /* a mapping refused: on in malloc's memory */
		void *m = xmalloc(bytes);
		memcpy(m, *v, *cap * elsz);
		munmap(*v, *mapped);
		*mapped = 0;
		*v = m;
	} else {
		*v = xreallocarray(*v, c, elsz);
	}
	*cap = c;
}

/* A mapping for 'bytes' if they are HUGEBUF_MIN or more (*mapped its
 * size), else NULL (*mapped 0): the caller then takes malloc's. */
static void *map_if_large(size_t bytes, size_t *mapped)
{
	size_t round = bytes >= HUGEBUF_MIN ? huge_round(bytes) : 0;
	void *p = round ? hugebuf_map(round) : NULL;
	*mapped = p ? round : 0;
	return p;
}

void *hugebuf_zalloc(size_t nmemb, size_t elsz, size_t *mapped)
{
	if (elsz && nmemb > SIZE_MAX / elsz)
		xalloc_die("allocating a table");
	void *p = map_if_large(nmemb * elsz, mapped);
	return p ? p : xcalloc(nmemb, elsz);
}

void *hugebuf_alloc(size_t bytes, size_t *mapped)
{
	void *p = map_if_large(bytes, mapped);
	return p ? p : xmalloc(bytes);
}

void hugebuf_free(void *v, size_t mapped)
{
	if (mapped)
		munmap(v, mapped);
	else
		free(v);
}
