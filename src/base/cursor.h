/*
 * cursor: a bounds-checked reader over bytes in memory (base, L0).
 *
 * Every parser of file bytes reads through a cursor: each read checks the
 * bytes that remain and fails closed with KILN_ETRUNC, never touching
 * memory past 'end'. 'base_off' is the file offset of the first byte, so
 * errors can name the offset in the file. 'swap' byte-swaps multi-byte
 * values (files written with the other endianness).
 */
#ifndef KILN_BASE_CURSOR_H
#define KILN_BASE_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cursor {
	const uint8_t *start; /* first byte */
	const uint8_t *p;     /* next byte to read */
	const uint8_t *end;   /* one past the last byte */
	uint64_t base_off;    /* file offset of 'start' */
	bool swap;            /* byte-swap multi-byte reads */
};

void cursor_init(struct cursor *c, const void *p, size_t n, uint64_t base_off, bool swap);
static inline size_t cursor_left(const struct cursor *c)
{
	return (size_t)(c->end - c->p);
}
/* File offset of the next byte. */
static inline uint64_t cursor_offset(const struct cursor *c)
{
	return c->base_off + (uint64_t)(c->p - c->start);
}
/* Each returns 0, or KILN_ETRUNC (and reads nothing) if bytes run out. */
int cursor_u8(struct cursor *c, uint8_t *v);
int cursor_u16(struct cursor *c, uint16_t *v);
int cursor_u32(struct cursor *c, uint32_t *v);
int cursor_u64(struct cursor *c, uint64_t *v);
int cursor_skip(struct cursor *c, size_t n);
/* Points *p at the next n bytes (borrowed) and advances. */
int cursor_bytes(struct cursor *c, const uint8_t **p, size_t n);
/* Copies n bytes out and advances. */
int cursor_copy(struct cursor *c, void *dst, size_t n);

uint16_t bswap_u16(uint16_t v);
uint32_t bswap_u32(uint32_t v);
uint64_t bswap_u64(uint64_t v);

#endif
