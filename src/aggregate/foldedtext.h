/*
 * foldedtext: folded stack text read back into the stack trie, by the rules
 * flamegraph.pl reads its input with (aggregate, L6).
 *
 * The input is text in memory (pointer and length; no I/O, so it can be
 * fuzzed), one stack per line:
 *
 *   myprog;main;work;spin_[k] 42          frames root first, ';'-separated,
 *   myprog;main;idle 0.5                  whitespace, a count ("N" or "N.M")
 *   myprog;main;work 10 12                difffolded's form: count in A, in B
 *
 * A line is "STACK<ws>COUNT" with COUNT the digits (and optional '.' and
 * digits) at the end of the line and <ws> the one whitespace byte before
 * it (flamegraph.pl's /^(.*)\s+?(\d+(?:\.\d*)?)$/: a stack may end in
 * spaces). If the stack itself ends in "<ws>COUNT", that count is the
 * first profile's and the line is differential. Frames are split at ';'
 * (empty trailing frames dropped, as Perl's split does). The first frame
 * is taken as the process frame (FRAME_PROCESS); frames ending in "_[k]",
 * "_[j]" or "_[i]" (stackcollapse's annotations) are kernel, JIT and
 * inlined frames, "[...]" frames are unknown code, and keep their suffix
 * in the name. Lines that do not match are counted and skipped; a final
 * '\r' is ignored (CRLF text).
 *
 * Counts may have a fraction: the trie holds integers, so every count is
 * multiplied by 10^frac_digits (the caller finds the digits with
 * foldedtext_frac_digits and divides again when it prints counts).
 *
 * Invariants:
 *  1. Nothing is read outside [data, data + len); lines longer than
 *     FOLDEDTEXT_MAX_LINE are skipped, stacks keep their first
 *     FOLDEDTEXT_MAX_FRAMES frames; each is counted in the stats.
 *  2. Counts saturate at UINT64_MAX (counted), they never wrap.
 *  3. Lines holding a NUL byte are skipped as invalid (names are C strings).
 */
#ifndef KILN_AGGREGATE_FOLDEDTEXT_H
#define KILN_AGGREGATE_FOLDEDTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aggregate/trie.h"
#include "base/strtab.h"

#define FOLDEDTEXT_MAX_LINE (1u << 20) /* bytes, without the newline */
#define FOLDEDTEXT_MAX_FRAMES 4096u
#define FOLDEDTEXT_MAX_DIGITS 6u       /* fraction digits kept; more are rounded */

struct foldedtext_opts {
	unsigned frac_digits; /* counts are scaled by 10^frac_digits (<= FOLDEDTEXT_MAX_DIGITS) */
	bool reverse;         /* frames leaf first (flamegraph.pl --reverse) */
	bool chart;           /* keep line order, merge only adjacent stacks (--flamechart) */
};

struct foldedtext_stats {
	uint64_t lines;        /* lines read (blank ones included) */
	uint64_t stacks;       /* lines added to the trie */
	uint64_t ignored;      /* lines without a count (flamegraph.pl's "Ignored ... lines") */
	uint64_t long_lines;   /* lines over FOLDEDTEXT_MAX_LINE, skipped */
	uint64_t truncated;    /* stacks cut to FOLDEDTEXT_MAX_FRAMES */
	uint64_t saturated;    /* counts or sums that hit UINT64_MAX */
	uint64_t differential; /* lines with two counts */
};

/*
 * Digits after the '.' in the counts of the text (the most any line has),
 * at most FOLDEDTEXT_MAX_DIGITS.
 */
unsigned foldedtext_frac_digits(const char *data, size_t len);

/*
 * True if the first line that is not blank nor a '#' comment looks like a
 * folded stack: it does not start with whitespace and ends in
 * "<ws>COUNT". perf script text fails this (its sample headers end with
 * the event name, its frame lines are indented).
 */
bool foldedtext_detect(const char *data, size_t len);
/* True if the line (no '\n', no final '\r') is blank (Perl's \s only) or a '#' comment. */
bool foldedtext_line_skipped(const char *s, size_t n);
/* True if the line (no '\n', no final '\r') is a folded stack by foldedtext_detect's test. */
bool foldedtext_line_ok(const char *s, size_t n);

/*
 * Fold the 'len' bytes at 'data' into 't' (initialised over 'strs'). The
 * trie gets the counts of the last column (B) as weights. If 'first' is
 * not NULL, *first receives a heap array (free() it) of t->nodes.n counts
 * indexed by node: the first column's count (A) of the stack that ends at
 * that node, or NULL if no line had two columns; a one-column line counts
 * the same in A and B. The trie is sorted (trie_sort) unless o->chart, in
 * which case it is in line order (trie_chart_finish). Returns 0: text
 * never fails as a whole.
 */
int foldedtext_parse(const char *data, size_t len, const struct foldedtext_opts *o,
		     struct strtab *strs, struct trie *t, uint64_t **first,
		     struct foldedtext_stats *st);

#endif
