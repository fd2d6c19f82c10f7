/*
 * linecache: lines of text seen before, recognised by their bytes before
 * their end is searched for (aggregate, L6). perf script text repeats its
 * frame lines (the same address in many samples); scripttext keeps each
 * one's result, the strtab ids its frames became, here.
 *
 * A line is looked up from its first LINECACHE_KEY bytes and a flag bit
 * (what else the result depends on): the lines kept with those bytes and
 * flag are compared whole with the text that follows, and one matches when
 * its bytes are there, followed by '\n' or by the end of the text. A hit
 * costs a hash of LINECACHE_KEY bytes and one compare, and no search for
 * the '\n'; lines sharing their first bytes are kept side by side and told
 * apart by the compare, never confused.
 *
 * Lines come in runs that repeat (a stack's callers, outermost last, are
 * the same from sample to sample), so each entry also remembers the entry
 * found right after it last time, and a lookup that names the entry of
 * the line before tries that one first: a hit then reads no slot (a cache
 * miss spared in a table larger than the CPU's caches). Each entry is one
 * run of 32-bit words (length, value count and flag, the follower,
 * values, bytes), so a hit reads one slot and one place in memory.
 * Bounds: lines of LINECACHE_KEY to LINECACHE_LINE bytes, at most
 * LINECACHE_MAX of them and LINECACHE_BYTES of their bytes (about 30 MiB
 * in all, values and slots included); linecache_put refuses the rest.
 */
#ifndef KILN_AGGREGATE_LINECACHE_H
#define KILN_AGGREGATE_LINECACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/vec.h"

#define LINECACHE_KEY 32u
#define LINECACHE_LINE 1024u
#define LINECACHE_MAX (1u << 18)
#define LINECACHE_BYTES ((size_t)16 << 20)
#define LINECACHE_VALUES 255u /* values per line */
#define LINECACHE_MISS SIZE_MAX

struct linecache {
	uint64_t *slots; /* hash tag << 32 | (word offset of an entry in 'arena') + 1; 0: empty */
	size_t mask;     /* slots - 1 (a power of two); 0 before the first entry */
	size_t n;        /* entries */
	size_t bytes;    /* line bytes kept */
	/* entries: length, count << 1 | flag, the follower's id (0: none),
	 * values[count], the line's bytes (padded to a word) */
	VEC(uint32_t) arena;
};

void linecache_init(struct linecache *c);
void linecache_release(struct linecache *c);

/* A kept line as found: its id (never 0), length and values. */
struct linecache_line {
	uint32_t id;
	uint32_t count;
	size_t len;
	const uint32_t *vals; /* valid until the next linecache_put */
};

/*
 * The kept line (with 'flag') that the 'avail' bytes at s start with, in
 * *out; false if none. 'prev' is the id of the line found or kept just
 * before this one (0 if that line was none): its follower is tried first
 * (linecache_follows, inline: most hits end there), then the table; the
 * line found becomes prev's follower.
 */
bool linecache_find(struct linecache *c, uint32_t prev, const char *s, size_t avail, bool flag,
		    struct linecache_line *out);
/* linecache_find's second try, the table, for a caller that tried
 * linecache_follows already (prev's follower is not tried again). */
bool linecache_search(struct linecache *c, uint32_t prev, const char *s, size_t avail, bool flag,
		      struct linecache_line *out);

/* Entry layout in 'arena' (words): length, count << 1 | flag, follower, values, bytes. */
#define LINECACHE_FOLLOWER 2u
#define LINECACHE_HEAD 3u

/* 16 bytes as one value (a vector register where the CPU has them). */
typedef unsigned char linecache_v16 __attribute__((vector_size(16)));

/* Whether the n bytes at a and b are equal, n >= 16: 16 bytes a step,
 * differences gathered without a branch per step, the last step
 * overlapping (no byte read past either end). */
static inline bool linecache_same(const char *a, const char *b, size_t n)
{
	linecache_v16 x, y, d = { 0 };
	for (size_t i = 0; i + 16 < n; i += 16) {
		memcpy(&x, a + i, 16);
		memcpy(&y, b + i, 16);
		d |= x ^ y;
	}
	memcpy(&x, a + n - 16, 16);
	memcpy(&y, b + n - 16, 16);
	d |= x ^ y;
	uint64_t w[2];
	memcpy(w, &d, 16);
	return !(w[0] | w[1]);
}

/* Whether entry e (with 'flag') is the line at the start of the 'avail' bytes at s. */
static inline bool linecache_entry_is(const uint32_t *e, const char *s, size_t avail, bool flag)
{
	size_t n = e[0];
	return (e[1] & 1) == flag && n <= avail && (n == avail || s[n] == '\n') &&
	       linecache_same((const char *)(e + LINECACHE_HEAD + (e[1] >> 1)), s, n);
}

/*
 * linecache_find's first try: whether the line kept after 'prev' (non-zero)
 * last time is the one at s; *out as linecache_find fills it.
 */
static inline bool linecache_follows(const struct linecache *c, uint32_t prev, const char *s,
				     size_t avail, bool flag, struct linecache_line *out)
{
	uint32_t next = c->arena.v[prev - 1 + LINECACHE_FOLLOWER];
	if (!next)
		return false;
	const uint32_t *e = c->arena.v + (next - 1);
	if (!linecache_entry_is(e, s, avail, flag))
		return false;
	out->id = next;
	out->count = e[1] >> 1;
	out->len = e[0];
	out->vals = e + LINECACHE_HEAD;
	return true;
}

/*
 * Keep the n-byte line at s (no '\n' in it; not kept already) with 'flag'
 * and 'count' values, as the follower of 'prev' (0: none). Its id, or 0
 * (nothing kept) past a bound.
 */
uint32_t linecache_put(struct linecache *c, uint32_t prev, const char *s, size_t n, bool flag,
		       const uint32_t *vals, size_t count);

#endif
