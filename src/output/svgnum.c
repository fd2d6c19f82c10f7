/*
 * svgnum: the SVG writer's numbers (output, L7), formatted with integer
 * arithmetic so the output does not depend on the C locale (LC_NUMERIC
 * could turn "1.5" into "1,5"), and without printf where they are written
 * per frame.
 */
#include "output/svgnum.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/digits.h"

/* 't' tenths as a number with one decimal: 125 -> "12.5". */
const char *fmt_tenths(char *out, long long t)
{
	/* "%lld.%lld" of t / 10 and t % 10, written without printf (per frame) */
	char *e = out + NUM_MAX - 1, *p;
	uint64_t m = t < 0 ? (uint64_t)0 - (uint64_t)t : (uint64_t)t;

	*e = '\0';
	p = e - 1;
	*p = (char)('0' + m % 10);
	*--p = '.';
	p = digits_dec(p, m / 10, 1);
	if (t < 0)
		*--p = '-';
	return p;
}

/* 'v' rounded to tenths; out-of-range values (never expected) become 0. */
long long to_tenths(double v)
{
	if (!(v > -1e15 && v < 1e15))
		return 0;
	return llround(v * 10);
}

/* 'v' as "%.1f" would print it in the C locale. */
const char *fmt_px(char *out, double v)
{
	return fmt_tenths(out, to_tenths(v));
}

/* 'v' with up to three decimals, trailing zeros dropped ("12", "7.08"). */
const char *fmt_num(char *out, double v)
{
	long long t = (v > -1e12 && v < 1e12) ? llround(v * 1000) : 0;
	const char *sign = "";
	size_t n;

	if (t < 0) {
		sign = "-";
		t = -t;
	}
	n = (size_t)snprintf(out, NUM_MAX, "%s%lld.%03lld", sign, t / 1000, t % 1000);
	while (n > 0 && out[n - 1] == '0')
		out[--n] = '\0';
	if (n > 0 && out[n - 1] == '.')
		out[--n] = '\0';
	return out;
}

/* A count with thousands separators: 1234567 -> "1,234,567". */
const char *fmt_count(char *out, uint64_t v)
{
	char digits[32], *p = digits_dec(digits + sizeof(digits), v, 1);
	int n = (int)(digits + sizeof(digits) - p);
	size_t o = 0;

	memmove(digits, p, (size_t)n);

	for (int i = 0; i < n; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	return out;
}

/* "%s%lld.%02lld" of 'sign', h / 100 and h % 100 (h >= 0), without printf. */
const char *fmt_hundredths(char *out, const char *sign, long long h)
{
	char *e = out + NUM_MAX - 1, *p;
	uint64_t m = (uint64_t)h;

	*e = '\0';
	p = digits_dec(e, m % 100, 2);
	*--p = '.';
	p = digits_dec(p, m / 100, 1);
	for (size_t k = strlen(sign); k > 0; k--)
		*--p = sign[k - 1];
	return p;
}

/* 100 * part / whole with two decimals ("12.34"). */
const char *fmt_pct(char *out, uint64_t part, uint64_t whole)
{
	long long h = whole ? llround((double)part * 10000.0 / (double)whole) : 0;

	return fmt_hundredths(out, "", h);
}
