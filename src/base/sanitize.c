/* sanitize: terminal-safe text (base, L0). See sanitize.h. */
#include "base/sanitize.h"
#include "base/utf8.h"

#include <stdint.h>
#include <stdio.h>

static void esc(struct buf *out, uint8_t c)
{
	char s[5];
	snprintf(s, sizeof(s), "\\x%02x", c);
	buf_add(out, s, 4);
}

static bool hidden(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t sanitize_term(const char *in, size_t n, bool more, struct buf *out)
{
	const uint8_t *p = (const uint8_t *)in;
	size_t i = 0;
	while (i < n) {
		uint8_t c = p[i];
		if ((c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n') {
			size_t j = i + 1;
			while (j < n && ((p[j] >= 0x20 && p[j] < 0x7f) || p[j] == '\t' || p[j] == '\n'))
				j++;
			buf_add(out, in + i, j - i);
			i = j;
			continue;
		}
		if (c < 0x80) {
			esc(out, c);
			i++;
			continue;
		}
		uint32_t cp = 0;
		int len = utf8_decode(p + i, n - i, &cp);
		if (len < 0) {
			if (more)
				return i; /* wait for the rest of the sequence */
			len = 0;
		}
		if (len == 0) {
			esc(out, c);
			i++;
		} else if (hidden(cp)) {
			for (int k = 0; k < len; k++)
				esc(out, p[i + k]);
			i += (size_t)len;
		} else {
			buf_add(out, in + i, (size_t)len);
			i += (size_t)len;
		}
	}
	return n;
}
