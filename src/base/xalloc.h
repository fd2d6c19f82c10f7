/*
 * xalloc: allocation that never returns NULL (layer L0, base).
 *
 * Like git's xmalloc and Redis's zmalloc, these end the process on real
 * out-of-memory, so callers never check for NULL: one line
 * "error: out of memory (...)" on stderr and exit status XALLOC_EXIT (the
 * README's "operational failure"), never abort() or another signal. Bounded
 * memory is not their job: parsers check every length read from input
 * against the bytes that remain before allocating, and growable buffers
 * carry a ceiling (see buf.h).
 */
#ifndef KILN_BASE_XALLOC_H
#define KILN_BASE_XALLOC_H

#include <stddef.h>

#define XALLOC_EXIT 1

/* Print "error: out of memory (WHAT)" and exit with XALLOC_EXIT; when
 * several threads fail at once, only the first prints. */
_Noreturn void xalloc_die(const char *what);

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* realloc of nmemb * size bytes; dies as on OOM if the product overflows. */
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a fresh heap string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocate zeroed storage for n elements of *p; overflow-checked. */
#define XALLOC_ARRAY(p, n) ((p) = xcalloc((n), sizeof(*(p))))
/* Resize p to n elements; overflow-checked. */
#define XREALLOC_ARRAY(p, n) ((p) = xreallocarray((p), (n), sizeof(*(p))))

#endif
