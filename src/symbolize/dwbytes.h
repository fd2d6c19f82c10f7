/*
 * dwbytes: bounded reads of DWARF's integer encodings, and the GNU form
 * codes older <dwarf.h> files lack (symbolize, L5).
 *
 * Each reads at *p, never past 'end', and advances *p. A read that runs
 * out of bytes stops at 'end' with the bits read so far: callers check
 * *p against their own bounds where a short read matters.
 */
#ifndef KILN_SYMBOLIZE_DWBYTES_H
#define KILN_SYMBOLIZE_DWBYTES_H

#include <stdint.h>

#ifndef DW_FORM_GNU_addr_index
#define DW_FORM_GNU_addr_index 0x1f01
#endif
#ifndef DW_FORM_GNU_str_index
#define DW_FORM_GNU_str_index 0x1f02
#endif
#ifndef DW_FORM_GNU_ref_alt
#define DW_FORM_GNU_ref_alt 0x1f20 /* into a dwz supplementary file */
#endif
#ifndef DW_FORM_GNU_strp_alt
#define DW_FORM_GNU_strp_alt 0x1f21
#endif

static inline uint64_t dw_uleb(const uint8_t **p, const uint8_t *end)
{
	if (*p < end && **p < 0x80) /* one byte: most values */
		return *(*p)++;
	uint64_t v = 0;
	for (unsigned sh = 0; *p < end; sh += 7) {
		uint8_t b = *(*p)++;
		if (sh < 64)
			v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static inline int64_t dw_sleb(const uint8_t **p, const uint8_t *end)
{
	int64_t v = 0;
	unsigned sh = 0;
	uint8_t b = 0;
	while (*p < end) {
		b = *(*p)++;
		if (sh < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << sh);
		sh += 7;
		if (!(b & 0x80))
			break;
	}
	if (sh < 64 && (b & 0x40))
		v = (int64_t)((uint64_t)v | ~(uint64_t)0 << sh); /* sign-extend; 1 << 63 overflows int64 */
	return v;
}

/* An n-byte little-endian value (n <= 8). */
static inline uint64_t dw_le(const uint8_t **p, const uint8_t *end, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n && *p < end; i++)
		v |= (uint64_t) * (*p)++ << (8 * i);
	return v;
}

#endif
