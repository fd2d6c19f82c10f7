/*
 * wbuf: text put together in a fixed buffer and handed to stdio in large
 * pieces (base, L0), for writers that emit many small fields (script's
 * samples, folded lines): one fwrite per buffer instead of a
 * printf or fputs call per field.
 *
 * The buffer is embedded (put one on the stack or in a context struct);
 * set 'f' and 'n' = 0 before use and call wbuf_flush at the end. Errors
 * are stdio's: the caller checks ferror(f) after the flush.
 */
#ifndef KILN_BASE_WBUF_H
#define KILN_BASE_WBUF_H

#include <stdio.h>
#include <string.h>

#include "base/digits.h"

#define WBUF_SIZE 8192

struct wbuf {
	FILE *f;
	size_t n;
	char b[WBUF_SIZE];
};

static inline void wbuf_flush(struct wbuf *t)
{
	if (t->n)
		fwrite(t->b, 1, t->n, t->f);
	t->n = 0;
}

static inline void wbuf_mem(struct wbuf *t, const char *s, size_t n)
{
	if (n > sizeof(t->b) - t->n) {
		wbuf_flush(t);
		if (n > sizeof(t->b)) {
			fwrite(s, 1, n, t->f);
			return;
		}
	}
	memcpy(t->b + t->n, s, n);
	t->n += n;
}

static inline void wbuf_char(struct wbuf *t, char c)
{
	if (t->n == sizeof(t->b))
		wbuf_flush(t);
	t->b[t->n++] = c;
}

/* printf's "%s" (a NULL string is "(null)"). */
static inline void wbuf_str(struct wbuf *t, const char *s)
{
	if (!s)
		s = "(null)";
	wbuf_mem(t, s, strlen(s));
}

static inline void wbuf_pad(struct wbuf *t, size_t n)
{
	while (n) {
		if (t->n == sizeof(t->b))
			wbuf_flush(t);
		size_t k = sizeof(t->b) - t->n < n ? sizeof(t->b) - t->n : n;
		memset(t->b + t->n, ' ', k);
		t->n += k;
		n -= k;
	}
}

/* printf's "%" PRIu64. */
static inline void wbuf_u64(struct wbuf *t, uint64_t v)
{
	char d[24], *e = d + sizeof(d), *p = digits_dec(e, v, 1);
	wbuf_mem(t, p, (size_t)(e - p));
}

/* printf's "%d". */
static inline void wbuf_int(struct wbuf *t, int v)
{
	char d[24], *e = d + sizeof(d), *p;
	uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)(int64_t)v : (uint64_t)v;

	p = digits_dec(e, m, 1);
	if (v < 0)
		*--p = '-';
	wbuf_mem(t, p, (size_t)(e - p));
}

#endif
