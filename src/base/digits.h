/*
 * digits: numbers written right to left into a buffer, without printf
 * (base, L0), for text written per frame of every sample.
 *
 * Each writes the digits of 'v', at least 'min' of them (zeros in
 * front), ending just before 'end', and returns where they start; the
 * caller's buffer must hold them (20 decimal or 16 hex digits, or 'min').
 * digits_hexval reads one back.
 */
#ifndef KILN_BASE_DIGITS_H
#define KILN_BASE_DIGITS_H

#include <stdint.h>

static inline char *digits_dec(char *end, uint64_t v, int min)
{
	/* Two digits a step: half the divisions. */
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	char *p = end;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		p -= 2;
		p[0] = pairs[2 * r];
		p[1] = pairs[2 * r + 1];
	}
	if (v >= 10) {
		p -= 2;
		p[0] = pairs[2 * v];
		p[1] = pairs[2 * v + 1];
	} else {
		*--p = (char)('0' + v);
	}
	for (min -= (int)(end - p); min > 0; min--)
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

/* A hex digit's value (either case), or -1. */
static inline int digits_hexval(char c)
{
	unsigned d = (unsigned)(unsigned char)c - '0';
	if (d < 10)
		return (int)d;
	d = ((unsigned)(unsigned char)c | 0x20) - 'a';
	return d < 6 ? (int)d + 10 : -1;
}

#endif
