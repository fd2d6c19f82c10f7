/* Unit tests for base: buf ceilings, strtab interning, hashmap, cursor bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "base/buf.h"
#include "base/cursor.h"
#include "base/err.h"
#include "base/hashmap.h"
#include "base/lines.h"
#include "base/log.h"
#include "base/sort.h"
#include "base/strtab.h"
#include "base/wbuf.h"

static void test_buf_ceiling(void **state)
{
	(void)state;
	struct buf b;
	buf_init(&b, 10);
	assert_string_equal(buf_str(&b), "");
	assert_int_equal(buf_addstr(&b, "hello"), 0);
	assert_int_equal(buf_addf(&b, "%d", 1234), 0);
	assert_string_equal(buf_str(&b), "hello1234");
	/* 9 + 2 > 10: refused, content unchanged. */
	assert_int_equal(buf_addstr(&b, "xy"), -E2BIG);
	assert_string_equal(buf_str(&b), "hello1234");
	assert_int_equal(buf_addch(&b, '!'), 0);
	assert_int_equal(b.len, 10);
	assert_int_equal(buf_addch(&b, '!'), -E2BIG);
	/* A huge size cannot wrap the check. */
	assert_int_equal(buf_add(&b, "", (size_t)-1), -E2BIG);
	size_t len;
	char *p = buf_detach(&b, &len);
	assert_int_equal(len, 10);
	assert_string_equal(p, "hello1234!");
	free(p);
	assert_int_equal(b.len, 0);
	buf_release(&b);
}

static void test_strtab(void **state)
{
	(void)state;
	struct strtab t;
	strtab_init(&t);
	uint32_t a = strtab_intern_str(&t, "alpha");
	uint32_t b = strtab_intern(&t, "beta-and-more", 4);
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	assert_int_equal(strtab_intern_str(&t, "alpha"), a);
	assert_int_equal(strtab_intern_str(&t, "beta"), b);
	assert_string_equal(strtab_get(&t, b), "beta");
	/* Many strings: ids stay dense, pointers stay valid across growth. */
	const char *first = strtab_get(&t, a);
	char name[32];
	for (int i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "sym%d", i);
		assert_int_equal(strtab_intern_str(&t, name), (uint32_t)i + 2);
	}
	assert_ptr_equal(strtab_get(&t, a), first);
	assert_string_equal(strtab_get(&t, 2 + 54321), "sym54321");
	assert_int_equal(strtab_intern_str(&t, "sym99999"), 100001);
	strtab_release(&t);
}

static void test_hashmap(void **state)
{
	(void)state;
	struct hashmap m;
	hashmap_init(&m);
	uint64_t v;
	assert_false(hashmap_get(&m, 0, &v));
	/* Every key value is allowed, 0 and ~0 included. */
	hashmap_put(&m, 0, 10);
	hashmap_put(&m, UINT64_MAX, 20);
	for (uint64_t k = 1; k < 50000; k++)
		hashmap_put(&m, k * 7919, k);
	assert_true(hashmap_get(&m, 0, &v));
	assert_int_equal(v, 10);
	assert_true(hashmap_get(&m, UINT64_MAX, &v));
	assert_int_equal(v, 20);
	assert_true(hashmap_get(&m, 1234 * 7919, &v));
	assert_int_equal(v, 1234);
	assert_false(hashmap_get(&m, 1234 * 7919 + 1, &v));
	bool inserted;
	*hashmap_slot(&m, 5, 0, &inserted) += 3;
	assert_true(inserted);
	*hashmap_slot(&m, 5, 0, &inserted) += 3;
	assert_false(inserted);
	assert_true(hashmap_get(&m, 5, &v));
	assert_int_equal(v, 6);
	assert_int_equal(m.n, 50002);
	hashmap_release(&m);
}

/* Random puts, slots and gets, with keys that collide in the table, the
 * empty-slot marker HASHMAP_EMPTY among them, against a plain array; then
 * iteration visits every entry once. */
static void test_hashmap_model(void **state)
{
	enum { NKEYS = 3000 };
	static uint64_t keys[NKEYS], vals[NKEYS];
	static bool present[NKEYS], seen[NKEYS];
	uint64_t rng = 0x243f6a8885a308d3ull, v, k;
	struct hashmap m;

	(void)state;
	for (size_t i = 0; i < NKEYS; i++) /* multiples of 1 << 40: crowded low bits */
		keys[i] = i == 7 ? HASHMAP_EMPTY : i == 8 ? 0 : (uint64_t)(i + 1) << 40 | (i % 3);
	hashmap_init(&m);
	assert_false(hashmap_get(&m, HASHMAP_EMPTY, &v));
	for (int it = 0; it < 200000; it++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		size_t i = (size_t)(rng >> 8) % (it < 1000 ? 20 : NKEYS);
		bool inserted;
		switch (rng % 3) {
		case 0:
			hashmap_put(&m, keys[i], rng);
			vals[i] = rng;
			present[i] = true;
			break;
		case 1:
			*hashmap_slot(&m, keys[i], 5, &inserted) += 1;
			assert_int_equal(inserted, !present[i]);
			vals[i] = present[i] ? vals[i] + 1 : 6;
			present[i] = true;
			break;
		default:
			assert_int_equal(hashmap_get(&m, keys[i], &v), present[i]);
			if (present[i])
				assert_int_equal(v, vals[i]);
			assert_int_equal(hashmap_get(&m, keys[i] + 1, NULL), false);
		}
	}
	size_t n = 0;
	for (size_t i = 0; i < NKEYS; i++)
		n += present[i];
	assert_true(present[7]);
	assert_int_equal(m.n, n);
	size_t visited = 0;
	for (size_t pos = 0; hashmap_next(&m, &pos, &k, &v); visited++) {
		size_t i = k == HASHMAP_EMPTY ? 7 : k == 0 ? 8 : (size_t)(k >> 40) - 1;
		assert_true(i < NKEYS && keys[i] == k && present[i] && !seen[i]);
		assert_int_equal(v, vals[i]);
		seen[i] = true;
	}
	assert_int_equal(visited, n);
	hashmap_release(&m);
	/* The marker alone, in an empty table. */
	hashmap_init(&m);
	hashmap_put(&m, HASHMAP_EMPTY, 3);
	size_t pos = 0;
	assert_true(hashmap_next(&m, &pos, &k, &v));
	assert_true(k == HASHMAP_EMPTY && v == 3);
	assert_false(hashmap_next(&m, &pos, &k, &v));
	hashmap_release(&m);
}

static void test_cursor(void **state)
{
	(void)state;
	const uint8_t data[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
	struct cursor c;
	cursor_init(&c, data, sizeof(data), 0x100, false);
	uint64_t v64;
	uint32_t v32;
	uint16_t v16;
	assert_int_equal(cursor_u64(&c, &v64), 0);
	assert_int_equal(v64, 0x0807060504030201ULL);
	assert_int_equal(cursor_offset(&c), 0x108);
	/* 3 bytes left: a u32 read fails and consumes nothing. */
	assert_int_equal(cursor_u32(&c, &v32), KILN_ETRUNC);
	assert_int_equal(cursor_left(&c), 3);
	assert_int_equal(cursor_u16(&c, &v16), 0);
	assert_int_equal(v16, 0x0a09);
	assert_int_equal(cursor_skip(&c, 2), KILN_ETRUNC);
	assert_int_equal(cursor_skip(&c, 1), 0);
	assert_int_equal(cursor_left(&c), 0);
	/* Swapped reads. */
	cursor_init(&c, data, sizeof(data), 0, true);
	assert_int_equal(cursor_u32(&c, &v32), 0);
	assert_int_equal(v32, 0x01020304);
	/* CORRUPT records the offset. */
	assert_int_equal(CORRUPT(&c, "bad thing %d", 7), -EBADMSG);
	assert_int_equal(err_last()->offset, 4);
	assert_string_equal(err_last()->msg, "bad thing 7");
}

/* Every line of 'text' joined with '|', CRs dropped. */
static void join_lines(const char *text, size_t len, char *out, size_t cap)
{
	struct lines it;
	const char *s;
	size_t n, at = 0;
	lines_init(&it, text, len);
	out[0] = '\0';
	while (lines_next(&it, &s, &n)) {
		n = lines_drop_cr(s, n);
		at += (size_t)snprintf(out + at, cap - at, "%.*s|", (int)n, s);
	}
}

static void test_lines(void **state)
{
	(void)state;
	char out[128];
	join_lines("", 0, out, sizeof(out));
	assert_string_equal(out, "");
	join_lines("\n", 1, out, sizeof(out));
	assert_string_equal(out, "|");
	join_lines("a\nb", 3, out, sizeof(out));
	assert_string_equal(out, "a|b|");
	join_lines("a\r\n\r\nb\r\r\n\n", 10, out, sizeof(out));
	assert_string_equal(out, "a||b\r||");
	/* NUL bytes are line content. */
	struct lines it;
	const char *s;
	size_t n;
	lines_init(&it, "x\0y\nz", 5);
	assert_true(lines_next(&it, &s, &n));
	assert_int_equal(n, 3);
	assert_true(lines_next(&it, &s, &n));
	assert_int_equal(n, 1);
	assert_false(lines_next(&it, &s, &n));
}

/* Lengths stored in line: one byte below 255, five from 255; a string
 * longer than a chunk gets its own; all of them stay readable and found. */
/* Strings of one length that differ in one byte, at every place: the
 * inline compare of interning tells each from the others (a wrong
 * "equal" would give two strings one id, a wrong "differs" two ids). */
static void test_strtab_same_length(void **state)
{
	(void)state;
	struct strtab t;
	strtab_init(&t);
	char s[40];
	for (int round = 0; round < 2; round++)
		for (size_t n = 1; n <= sizeof(s); n++)
			for (size_t k = 0; k < n; k++)
				for (char c = 'b'; c <= 'k'; c++) {
					memset(s, 'a', n);
					s[k] = c;
					uint32_t id = strtab_intern(&t, s, n);
					assert_int_equal(strtab_len(&t, id), n);
					assert_memory_equal(strtab_get(&t, id), s, n);
				}
	assert_int_equal(t.n, 10 * (40 * 41 / 2));
	strtab_release(&t);
}

static void test_strtab_lengths(void **state)
{
	(void)state;
	static const size_t lens[] = { 0, 1, 254, 255, 256, 65530, 65536, 70000, 3 };
	enum { N = sizeof(lens) / sizeof(lens[0]) };
	struct strtab t;
	strtab_init(&t);
	char *s = malloc(70001);
	uint32_t ids[N];
	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < N; i++) {
			memset(s, 'a' + (int)i, lens[i]);
			uint32_t id = strtab_intern(&t, s, lens[i]);
			if (round == 0)
				ids[i] = id;
			assert_int_equal(id, ids[i]);
			assert_int_equal(strtab_len(&t, id), lens[i]);
			assert_memory_equal(strtab_get(&t, id), s, lens[i]);
			assert_int_equal(strtab_get(&t, id)[lens[i]], '\0');
		}
	}
	assert_int_equal(t.n, N);
	for (uint32_t i = 0; i < 100000; i++) { /* past a few chunks and slot tables */
		char b[16];
		int n = snprintf(b, sizeof(b), "n%u", i);
		assert_int_equal(strtab_intern(&t, b, (size_t)n), N + i);
	}
	assert_string_equal(strtab_get(&t, N + 99999), "n99999");
	for (size_t i = 0; i < N; i++)
		assert_int_equal(strtab_len(&t, ids[i]), lens[i]);
	free(s);
	strtab_release(&t);
}

static unsigned sunk;
static char last_msg[256];
static void count_sink(enum log_level level, const char *msg)
{
	(void)level;
	sunk++;
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

/* Repeated warnings: LOG_REPEAT_SHOWN of a kind, then one line counting the rest. */
static void test_log_repeat(void **state)
{
	(void)state;
	log_set_sink(count_sink);
	sunk = 0;
	for (int i = 0; i < 25; i++)
		log_repeat(LOG_REPEAT_RECORD, "bad record %d", i);
	log_repeat(LOG_REPEAT_DSO, "one dso");
	assert_int_equal(sunk, LOG_REPEAT_SHOWN + 1);
	log_repeat_flush();
	assert_int_equal(sunk, LOG_REPEAT_SHOWN + 2);
	assert_string_equal(last_msg, "... and 15 more records skipped (not shown)");
	log_repeat_flush(); /* counts start again */
	assert_int_equal(sunk, LOG_REPEAT_SHOWN + 2);
	log_repeat(LOG_REPEAT_RECORD, "again");
	assert_int_equal(sunk, LOG_REPEAT_SHOWN + 3);
	log_repeat_flush();
	log_set_sink(NULL);
}


/* wbuf: the bytes printf would write, across flushes and oversized pieces. */
static void test_wbuf(void **state)
{
	(void)state;
	char *mem = NULL;
	size_t memlen = 0;
	FILE *f = open_memstream(&mem, &memlen);
	assert_non_null(f);
	struct wbuf *w = malloc(sizeof(*w));
	assert_non_null(w);
	w->f = f;
	w->n = 0;
	struct buf want;
	buf_init(&want, 1u << 20);
	static const uint64_t us[] = { 0, 7, 10, 4294967296ull, UINT64_MAX };
	static const int is[] = { 0, -1, 255, -2147483647 - 1, 2147483647 };
	for (int round = 0; round < 3000; round++) {
		wbuf_u64(w, us[round % 5]);
		buf_addf(&want, "%llu", (unsigned long long)us[round % 5]);
		wbuf_char(w, ' ');
		buf_addch(&want, ' ');
		wbuf_int(w, is[round % 5]);
		buf_addf(&want, "%d", is[round % 5]);
		wbuf_str(w, round % 7 ? "<g>" : NULL);
		buf_addstr(&want, round % 7 ? "<g>" : "(null)");
		wbuf_pad(w, (size_t)round % 11);
		buf_addf(&want, "%*s", round % 11, "");
	}
	volatile size_t bign = WBUF_SIZE + 100; /* larger than the buffer: written through */
	char *big = malloc(bign);
	assert_non_null(big);
	memset(big, 'x', bign);
	wbuf_mem(w, big, bign);
	buf_add(&want, big, bign);
	free(big);
	wbuf_flush(w);
	fclose(f);
	assert_int_equal(memlen, want.len);
	assert_memory_equal(mem, buf_str(&want), want.len);
	free(w);
	free(mem);
	buf_release(&want);
}

/* hash_str: stable for equal bytes, spread over the low bits. */
static void test_hash_str(void **state)
{
	(void)state;
	assert_true(hash_str("abc", 3) == hash_str("abcd", 3));
	assert_true(hash_str("abc", 3) != hash_str("abd", 3));
	assert_true(hash_str("", 0) != hash_str("\0", 1));
	unsigned seen[64] = { 0 };
	char name[32];
	for (int i = 0; i < 6400; i++) {
		int n = snprintf(name, sizeof(name), "fn_%d", i);
		seen[hash_str(name, (size_t)n) & 63]++;
	}
	for (int b = 0; b < 64; b++)
		assert_true(seen[b] > 50 && seen[b] < 150); /* 100 expected in each */
}

/* hash_str's steps (hash_str_word, hash_str_end) give hash_str's value. */
static void test_hash_str_steps(void **state)
{
	(void)state;
	char s[41];
	for (int i = 0; i < 40; i++)
		s[i] = (char)('a' + i % 26 + (i & 1) * 6);
	for (size_t n = 0; n <= 40; n++) {
		uint64_t h = HASH_STR_SEED, w;
		size_t i = 0;
		for (; i + 8 <= n; i += 8) {
			memcpy(&w, s + i, 8);
			h = hash_str_word(h, w);
		}
		if (i < n) {
			w = 0;
			memcpy(&w, s + i, n - i); /* little-endian: the bytes in the low end */
			h = hash_str_word(h, w);
		}
		assert_true(hash_str_end(h, n) == hash_str(s, n));
	}
}

/* ---- sort.h ---- */

/* v[0, n) sorted by .key, equal keys in their first order (.seq). */
#define ASSERT_SORTED_STABLE(v, n)                                                \
	do {                                                                      \
		for (size_t i_ = 1; i_ < (n); i_++) {                             \
			assert_true((v)[i_ - 1].key <= (v)[i_].key);              \
			if ((v)[i_ - 1].key == (v)[i_].key)                       \
				assert_true((v)[i_ - 1].seq < (v)[i_].seq);       \
		}                                                                 \
	} while (0)

struct kv {
	uint32_t key, seq;
};

static inline bool kv_less(const struct kv *a, const struct kv *b)
{
	return a->key < b->key;
}

SORT_DEFINE(sort_kv, struct kv, kv_less)

/* Sorted by key, equal keys in their first order, for sizes around the
 * insertion runs and the merge passes. */
static void test_sort(void **state)
{
	(void)state;
	static const size_t sizes[] = { 0, 1, 2, 15, 16, 17, 31, 32, 33, 100, 1000, 4097 };
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		size_t n = sizes[z];
		struct kv *v = calloc(n + 1, sizeof(*v));
		uint32_t x = 12345;
		for (size_t i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			v[i].key = (x >> 16) % 37; /* many equal keys */
			v[i].seq = (uint32_t)i;
		}
		sort_kv(v, n);
		ASSERT_SORTED_STABLE(v, n);
		free(v);
	}
}

struct kv64 {
	uint64_t key;
	uint32_t seq;
};

static inline uint64_t kv64_key(const struct kv64 *a)
{
	return a->key;
}

RADIX_DEFINE(radix_kv64, struct kv64, kv64_key)

/* The radix sort: sorted by the whole 64-bit key, equal keys in their
 * first order, whichever bytes differ (low ones, high ones, one, none). */
static void test_radix(void **state)
{
	(void)state;
	static const uint64_t masks[] = { 0, 0xff, 0xff00ff, 0xffffffffffffffffull,
					  0xff00000000000000ull, 0x7f0000000001ull };
	static const size_t sizes[] = { 0, 1, 2, 17, 1000, 4097 };
	for (size_t m = 0; m < sizeof(masks) / sizeof(masks[0]); m++) {
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			size_t n = sizes[z];
			struct kv64 *v = calloc(n + 1, sizeof(*v));
			uint64_t x = 12345;
			for (size_t i = 0; i < n; i++) {
				x = x * 6364136223846793005ull + 1442695040888963407ull;
				/* many equal keys: few distinct values under the mask */
				v[i].key = 0x1234000000000000ull ^ ((x >> 7) % 41 * 0x0101010101010101ull & masks[m]);
				v[i].seq = (uint32_t)i;
			}
			radix_kv64(v, n);
			ASSERT_SORTED_STABLE(v, n);
			free(v);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf_ceiling),
		cmocka_unit_test(test_strtab),
		cmocka_unit_test(test_strtab_lengths),
		cmocka_unit_test(test_strtab_same_length),
		cmocka_unit_test(test_log_repeat),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_hashmap),
		cmocka_unit_test(test_hashmap_model),
		cmocka_unit_test(test_cursor),
		cmocka_unit_test(test_wbuf),
		cmocka_unit_test(test_hash_str),
		cmocka_unit_test(test_hash_str_steps),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_radix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
