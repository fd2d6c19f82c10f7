/* buf: growable byte buffer with a ceiling (base, L0). */
#include "base/buf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void buf_init(struct buf *b, size_t max)
{
	b->p = NULL;
	b->len = b->cap = 0;
	b->max = max;
}

void buf_release(struct buf *b)
{
	free(b->p);
	buf_init(b, b->max);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

static int grow(struct buf *b, size_t extra)
{
	if (extra > b->max || b->len > b->max - extra)
		return -E2BIG;
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > ((size_t)-1) / 2 ? need : cap * 2;
	b->p = xrealloc(b->p, cap);
	b->cap = cap;
	return 0;
}

int buf_add(struct buf *b, const void *data, size_t n)
{
	int err = grow(b, n);
	if (err)
		return err;
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int buf_addch(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

int buf_addstr(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return -EINVAL;
	int err = grow(b, (size_t)n);
	if (err)
		return err;
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int err = buf_vaddf(b, fmt, ap);
	va_end(ap);
	return err;
}

const char *buf_str(const struct buf *b)
{
	return b->p ? b->p : "";
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *p = b->p ? b->p : xstrdup("");
	if (len)
		*len = b->len;
	buf_init(b, b->max);
	return p;
}
