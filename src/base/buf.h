/*
 * buf: a growable byte buffer with a ceiling (base, L0).
 *
 * Like curl's dynbuf: every buffer is created with a maximum size, and an
 * append that would pass it fails with -E2BIG instead of growing without
 * bound. The content is always NUL-terminated (the NUL is not counted in
 * 'len'), so text built in a buf can be used as a C string.
 */
#ifndef KILN_BASE_BUF_H
#define KILN_BASE_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char *p;    /* content, NUL-terminated; NULL until the first append */
	size_t len; /* bytes used, not counting the NUL */
	size_t cap; /* bytes allocated */
	size_t max; /* ceiling on len */
};

/* Initialise an empty buffer that may grow to 'max' bytes. */
void buf_init(struct buf *b, size_t max);
/* Free the content; the buffer is empty and may be reused. */
void buf_release(struct buf *b);
/* Forget the content but keep the allocation. */
void buf_reset(struct buf *b);
/* Append; 0 on success, -E2BIG if the ceiling would be passed (b unchanged). */
int buf_add(struct buf *b, const void *data, size_t n);
int buf_addch(struct buf *b, char c);
int buf_addstr(struct buf *b, const char *s);
int buf_addf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int buf_vaddf(struct buf *b, const char *fmt, va_list ap);
/* The content as a string: never NULL ("" when empty). Borrowed. */
const char *buf_str(const struct buf *b);
/* Take the content (heap, NUL-terminated, caller frees); b becomes empty. */
char *buf_detach(struct buf *b, size_t *len);

#endif
