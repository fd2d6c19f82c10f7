/*
 * fuzz_sanitize: hostile bytes through sanitize_term (base/sanitize.c, the
 * filter on everything kiln writes to stderr). Byte 0 picks a split point;
 * the rest is the text. Checked beyond "no crash": the output is valid
 * UTF-8 with no C0 byte but TAB and LF, no DEL, no C1 or bidi control;
 * feeding the text in two pieces (with the held-back tail carried over,
 * as the stderr filter does) gives the same bytes as feeding it whole;
 * printable ASCII passes unchanged.
 */
#include "base/sanitize.h"
#include "fuzz/fuzz.h"

static void check_clean(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint8_t c = p[i];
		if (c < 0x80) {
			fuzz_check(c >= 0x20 ? c != 0x7f : c == '\t' || c == '\n');
			i++;
			continue;
		}
		int len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		fuzz_check(c >= 0xc2 && c <= 0xf4 && i + (size_t)len <= n);
		uint32_t cp = c & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
		for (int k = 1; k < len; k++) {
			fuzz_check((p[i + k] & 0xc0) == 0x80);
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		fuzz_check(!(cp >= 0x80 && cp <= 0x9f) && cp != 0x61c && cp != 0x200e && cp != 0x200f &&
			   !(cp >= 0x202a && cp <= 0x202e) && !(cp >= 0x2066 && cp <= 0x2069));
		fuzz_check(cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff));
		fuzz_check(cp >= (len == 2 ? 0x80u : len == 3 ? 0x800u : 0x10000u));
		i += (size_t)len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t n = size - 1;
	char *text = (char *)fuzz_copy(data + 1, n);
	size_t cut = n ? data[0] % (n + 1) : 0;

	struct buf whole, parts;
	buf_init(&whole, 4 * n + 16);
	buf_init(&parts, 4 * n + 16);
	fuzz_check(sanitize_term(text, n, false, &whole) == n);
	check_clean((const uint8_t *)whole.p, whole.len);

	/* Two writes: the first may hold back an incomplete sequence. */
	size_t used = sanitize_term(text, cut, true, &parts);
	fuzz_check(used <= cut && cut - used <= 3);
	fuzz_check(sanitize_term(text + used, n - used, false, &parts) == n - used);
	fuzz_check(whole.len == parts.len && (!whole.len || !memcmp(whole.p, parts.p, whole.len)));

	bool ascii = true;
	for (size_t i = 0; i < n; i++)
		ascii &= (text[i] >= 0x20 && text[i] < 0x7f) || text[i] == '\n' || text[i] == '\t';
	if (ascii)
		fuzz_check(whole.len == n && (!n || !memcmp(whole.p, text, n)));
	buf_release(&whole);
	buf_release(&parts);
	free(text);
	return 0;
}
