/*
 * svgnum: the SVG writer's numbers as text (output, L7): pixels with one
 * decimal, plain numbers with up to three, counts with thousands
 * separators, percentages with two decimals. Locale-independent (no
 * LC_NUMERIC), and without printf for the ones written per frame.
 *
 * Two forms: fmt_* (the header's) write into 'out' (NUM_MAX bytes) and
 * return where the text starts, NUL-terminated; put_* (the per-frame
 * ones) write at 'p', which must have NUM_MAX bytes of room, and return
 * the end of the text (no NUL).
 */
#ifndef KILN_OUTPUT_SVGNUM_H
#define KILN_OUTPUT_SVGNUM_H

#include <math.h>
#include <stdint.h>

#include "base/digits.h"

#define NUM_MAX 48 /* bytes of a formatted number */

/* Decimal digits of 'v' (1 to 20). */
static inline int num_len(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
		10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL,
	};
	/* log10 from the bit length (1233 / 4096 ~ log10(2)), then one compare */
	int t = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12;

	return t + 1 - ((v | 1) < pow10[t]);
}

/*
 * llround(v) (half away from zero) for |v| < 2^63, without the call:
 * the fraction v - trunc(v) is exact in a double, so comparing it with
 * 0.5 gives llround's answer for every such v.
 */
static inline long long num_round(double v)
{
	long long i = (long long)v;
	double f = v - (double)i;

	if (f >= 0.5)
		i++;
	else if (f <= -0.5)
		i--;
	return i;
}

/* printf's "%" PRIu64 at 'p'. */
static inline char *put_u64(char *p, uint64_t v)
{
	int n = num_len(v);

	digits_dec(p + n, v, 1);
	return p + n;
}

/* 't' tenths as a number with one decimal: 125 -> "12.5". */
static inline char *put_tenths(char *p, long long t)
{
	uint64_t m = t < 0 ? (uint64_t)0 - (uint64_t)t : (uint64_t)t;

	if (t < 0)
		*p++ = '-';
	p = put_u64(p, m / 10);
	*p++ = '.';
	*p++ = (char)('0' + m % 10);
	return p;
}

/* 'v' rounded to tenths; out-of-range values (never expected) become 0. */
static inline long long to_tenths(double v)
{
	if (!(v > -1e15 && v < 1e15))
		return 0;
	return num_round(v * 10);
}

/* "%s%lld.%02lld" of 'sign', h / 100 and h % 100 (h >= 0). */
char *put_hundredths(char *p, const char *sign, long long h);
/* A count with thousands separators: 1234567 -> "1,234,567". */
char *put_count(char *p, uint64_t v);
/* 100 * part / whole with two decimals ("12.34"). */
char *put_pct(char *p, uint64_t part, uint64_t whole);

/* 'v' as "%.1f" would print it in the C locale. */
const char *fmt_px(char *out, double v);
/* 'v' with up to three decimals, trailing zeros dropped ("12", "7.08"). */
const char *fmt_num(char *out, double v);

#endif
