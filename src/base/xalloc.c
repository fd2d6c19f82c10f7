/* xalloc: allocators that exit cleanly on out-of-memory (base, L0). */
#include "base/xalloc.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void xalloc_die(const char *what)
{
	/* Process-wide, like the exit it guards: when two threads run out of
	 * memory together, the first prints the one error line and exits;
	 * the other waits for that exit instead of printing a second line. */
	static atomic_flag dying = ATOMIC_FLAG_INIT;

	if (atomic_flag_test_and_set(&dying))
		for (;;)
			pause();
	/* stderr is unbuffered; stdout's pending bytes are dropped with the
	 * rest of a result that cannot be finished. */
	fprintf(stderr, "error: out of memory (%s)\n", what);
	_exit(XALLOC_EXIT);
}

static _Noreturn void oom(size_t n)
{
	char what[64];
	snprintf(what, sizeof(what), "allocating %zu bytes", n);
	xalloc_die(what);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

void *xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > (size_t)-1 / size) {
		char what[96];
		snprintf(what, sizeof(what), "allocating %zu x %zu bytes", nmemb, size);
		xalloc_die(what);
	}
	return xrealloc(p, nmemb * size);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	char *p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
