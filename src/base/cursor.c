/* cursor: bounds-checked, optionally byte-swapping reads (base, L0). */
#include "base/cursor.h"

#include <string.h>

#include "base/err.h"

void cursor_init(struct cursor *c, const void *p, size_t n, uint64_t base_off, bool swap)
{
	c->start = c->p = p;
	c->end = c->p + n;
	c->base_off = base_off;
	c->swap = swap;
}

uint16_t bswap_u16(uint16_t v)
{
	return (uint16_t)((v >> 8) | (v << 8));
}

uint32_t bswap_u32(uint32_t v)
{
	return __builtin_bswap32(v);
}

uint64_t bswap_u64(uint64_t v)
{
	return __builtin_bswap64(v);
}

int cursor_u8(struct cursor *c, uint8_t *v)
{
	if (cursor_left(c) < 1)
		return KILN_ETRUNC;
	*v = *c->p++;
	return 0;
}

int cursor_u16(struct cursor *c, uint16_t *v)
{
	if (cursor_left(c) < 2)
		return KILN_ETRUNC;
	memcpy(v, c->p, 2);
	c->p += 2;
	if (c->swap)
		*v = bswap_u16(*v);
	return 0;
}

int cursor_u32(struct cursor *c, uint32_t *v)
{
	if (cursor_left(c) < 4)
		return KILN_ETRUNC;
	memcpy(v, c->p, 4);
	c->p += 4;
	if (c->swap)
		*v = bswap_u32(*v);
	return 0;
}

int cursor_u64(struct cursor *c, uint64_t *v)
{
	if (cursor_left(c) < 8)
		return KILN_ETRUNC;
	memcpy(v, c->p, 8);
	c->p += 8;
	if (c->swap)
		*v = bswap_u64(*v);
	return 0;
}

int cursor_skip(struct cursor *c, size_t n)
{
	if (cursor_left(c) < n)
		return KILN_ETRUNC;
	c->p += n;
	return 0;
}

int cursor_bytes(struct cursor *c, const uint8_t **p, size_t n)
{
	if (cursor_left(c) < n)
		return KILN_ETRUNC;
	*p = c->p;
	c->p += n;
	return 0;
}

int cursor_copy(struct cursor *c, void *dst, size_t n)
{
	if (cursor_left(c) < n)
		return KILN_ETRUNC;
	memcpy(dst, c->p, n);
	c->p += n;
	return 0;
}
