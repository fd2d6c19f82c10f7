/*
 * lines: walking text one line at a time (base, L0), shared by the text
 * parsers (folded stacks, perf script text, palette maps).
 *
 * A line is the bytes up to a '\n' (not included); the last line needs no
 * '\n'; text that ends with '\n' has no empty line after it; empty text
 * has no lines. Bytes are not interpreted otherwise (NULs included).
 */
#ifndef KILN_BASE_LINES_H
#define KILN_BASE_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct lines {
	const char *data;
	size_t len, pos;
};

static inline void lines_init(struct lines *it, const char *data, size_t len)
{
	it->data = data;
	it->len = len;
	it->pos = 0;
}

/* A blank within a line: ' ', '\t', '\v', '\f', '\r' (isspace without
 * '\n', no locale). */
static inline bool lines_blank(char c)
{
	unsigned u = (unsigned char)c;
	return u == ' ' || (u - '\t' <= (unsigned)('\r' - '\t') && u != '\n');
}

/* The next line in *s / *n; false when there is none. */
static inline bool lines_next(struct lines *it, const char **s, size_t *n)
{
	if (it->pos >= it->len)
		return false;
	const char *p = it->data + it->pos;
	const char *nl = memchr(p, '\n', it->len - it->pos);
	*s = p;
	*n = nl ? (size_t)(nl - p) : it->len - it->pos;
	it->pos += *n + (nl ? 1 : 0);
	return true;
}

/* The length without one trailing '\r' (CRLF text). */
static inline size_t lines_drop_cr(const char *s, size_t n)
{
	return n && s[n - 1] == '\r' ? n - 1 : n;
}

#endif
