/*
 * utf8: decoding one UTF-8 sequence (base, L0), shared by every writer
 * that escapes names (SVG, JSON, the terminal filter).
 */
#ifndef KILN_BASE_UTF8_H
#define KILN_BASE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * The sequence at 'p' ('n' > 0 bytes left), by RFC 3629 (no overlongs, no
 * surrogates, at most U+10FFFF): its length with *cp set; 0 if the bytes
 * do not start a valid sequence; -1 if they could, but 'n' ends first.
 */
static inline int utf8_decode(const unsigned char *p, size_t n, uint32_t *cp)
{
	unsigned char c = p[0];
	int len;
	uint32_t v, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (int i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return -1;
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

#endif
