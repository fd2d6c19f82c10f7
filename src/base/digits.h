/*
 * digits: numbers written right to left into a buffer, without printf
 * (base, L0), for text written per frame of every sample.
 *
 * Each writes the digits of 'v', at least 'min' of them (zeros in
 * front), ending just before 'end', and returns where they start; the
 * caller's buffer must hold them (20 decimal or 16 hex digits, or 'min').
 */
#ifndef KILN_BASE_DIGITS_H
#define KILN_BASE_DIGITS_H

#include <stdint.h>

static inline char *digits_dec(char *end, uint64_t v, int min)
{
	char *p = end;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
		min--;
	} while (v);
	while (min-- > 0)
		*--p = '0';
	return p;
}

/* Lower-case hex. */
static inline char *digits_hex(char *end, uint64_t v, int min)
{
	char *p = end;
	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
		min--;
	} while (v);
	while (min-- > 0)
		*--p = '0';
	return p;
}

#endif
