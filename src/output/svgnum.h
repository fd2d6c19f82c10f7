/*
 * svgnum: the SVG writer's numbers as text (output, L7): pixels with one
 * decimal, plain numbers with up to three, counts with thousands
 * separators, percentages with two decimals. Locale-independent (no
 * LC_NUMERIC), and without printf for the ones written per frame. Each
 * writes into 'out' (NUM_MAX bytes) and returns where the text starts,
 * NUL-terminated.
 */
#ifndef KILN_OUTPUT_SVGNUM_H
#define KILN_OUTPUT_SVGNUM_H

#include <stdint.h>

#define NUM_MAX 48 /* bytes of a formatted number */

/* 't' tenths as a number with one decimal: 125 -> "12.5". */
const char *fmt_tenths(char *out, long long t);
/* 'v' rounded to tenths; out-of-range values (never expected) become 0. */
long long to_tenths(double v);
/* 'v' as "%.1f" would print it in the C locale. */
const char *fmt_px(char *out, double v);
/* 'v' with up to three decimals, trailing zeros dropped ("12", "7.08"). */
const char *fmt_num(char *out, double v);
/* A count with thousands separators: 1234567 -> "1,234,567". */
const char *fmt_count(char *out, uint64_t v);
/* "%s%lld.%02lld" of 'sign', h / 100 and h % 100 (h >= 0). */
const char *fmt_hundredths(char *out, const char *sign, long long h);
/* 100 * part / whole with two decimals ("12.34"). */
const char *fmt_pct(char *out, uint64_t part, uint64_t whole);

#endif
