/*
 * svgnum: the SVG writer's numbers (output, L7), formatted with integer
 * arithmetic so the output does not depend on the C locale (LC_NUMERIC
 * could turn "1.5" into "1,5"), and without printf where they are written
 * per frame.
 */
#include "output/svgnum.h"

#include <stdio.h>
#include <string.h>

/* h / 100 and two digits of h % 100 (h >= 0): "12.34". */
static inline char *put_h(char *p, uint64_t h)
{
	p = put_u64(p, h / 100);
	*p++ = '.';
	digits_dec(p + 2, h % 100, 2);
	return p + 2;
}

/* "%s%lld.%02lld" of 'sign', h / 100 and h % 100 (h >= 0), without printf. */
char *put_hundredths(char *p, const char *sign, long long h)
{
	while (*sign)
		*p++ = *sign++;
	return put_h(p, (uint64_t)h);
}

/* A count with thousands separators: 1234567 -> "1,234,567". */
char *put_count(char *p, uint64_t v)
{
	int n = num_len(v);
	char *e = p + n + (n - 1) / 3, *q = e;

	for (int i = 0; i < n; i++) {
		if (i > 0 && i % 3 == 0)
			*--q = ',';
		*--q = (char)('0' + v % 10);
		v /= 10;
	}
	return e;
}

/* 100 * part / whole with two decimals ("12.34"). */
char *put_pct(char *p, uint64_t part, uint64_t whole)
{
	double x = whole ? (double)part * 10000.0 / (double)whole : 0;
	long long h = x < 9e18 ? num_round(x) : llround(x);

	return put_h(p, (uint64_t)h);
}

/* 'v' as "%.1f" would print it in the C locale. */
const char *fmt_px(char *out, double v)
{
	*put_tenths(out, to_tenths(v)) = '\0';
	return out;
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
