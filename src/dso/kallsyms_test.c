/*
 * kallsyms unit tests (dso, L2): a hand-written table with aliases,
 * modules, data symbols and malformed lines; the all-zero (kptr_restrict)
 * form; truncated and random text; and, when the running kernel shows its
 * addresses, the real /proc/kallsyms checked line by line against the
 * parsed table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "dso/kallsyms.h"

static const char sample[] =
	"ffffffff81000000 t local_first\n"
	"ffffffff81000000 T srso_alias_untrain_ret\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 t local_fn\n"
	"ffffffff81000200 W weak_fn\n"
	"ffffffff81000200 t strong_local\n"
	"ffffffff81000300 D some_data\n"
	"ffffffff81000400 T after_data\n"
	"this is not a line\n"
	"zzzz T bad_hex\n"
	"ffffffff81000500 T\n"
	"ffffffff81000500\n"
	"11111111111111111ffffffff T too_many_digits\n"
	"ffffffff81000500 T two words here\n"
	"ffffffff81000500 T unclosed\t[mod\n"
	"ffffffff81000500 T empty_mod\t[]\n"
	"ffffffff81000500 TT bad_type\n"
	"\n"
	"   \n"
	"ffffffff81000500 T last_core\n"
	"ffffffffc0a01000 t foo\t[mod]\n"
	"ffffffffc0a01040 t bar\t[mod]\n"
	"ffffffffc0a01080 d mod_data\t[mod]\n"
	"ffffffffc0b00000 t other_fn\t[other]\n"
	"ffffffffc0b00100 t bpf_prog_0123456789abcdef_x\t[bpf]"; /* no final newline */

static void expect(const struct kallsyms *ks, uint64_t addr, const char *name, uint64_t start,
		   const char *module)
{
	uint64_t s = 0;
	const char *mod = (const char *)1;
	const char *got = kallsyms_lookup(ks, addr, &s, &mod);

	if (!name) {
		if (got)
			fail_msg("%#" PRIx64 ": expected nothing, got %s", addr, got);
		return;
	}
	if (!got)
		fail_msg("%#" PRIx64 ": expected %s, got nothing", addr, name);
	assert_string_equal(got, name);
	assert_int_equal(s, start);
	if (module) {
		assert_non_null(mod);
		assert_string_equal(mod, module);
	} else {
		assert_null(mod);
	}
}

static void test_sample(void **state)
{
	struct kallsyms *ks = kallsyms_parse(sample, strlen(sample));
	uint64_t a;

	(void)state;
	assert_false(kallsyms_restricted(ks));
	assert_int_equal(kallsyms_bad_lines(ks), 9);
	/* all but some_data (core data) */
	assert_int_equal(kallsyms_count(ks), 14);

	/* Aliases: a global T wins over an earlier local t; among the T's,
	 * the last line, as perf keeps the last alias. */
	expect(ks, 0xffffffff81000000, "_stext", 0xffffffff81000000, NULL);
	expect(ks, 0xffffffff810000ff, "_stext", 0xffffffff81000000, NULL);
	expect(ks, 0xffffffff81000100, "local_fn", 0xffffffff81000100, NULL);
	/* Non-weak local over weak. */
	expect(ks, 0xffffffff81000250, "strong_local", 0xffffffff81000200, NULL);
	/* A data symbol ends the text symbol before it and is not a result. */
	expect(ks, 0xffffffff81000300, NULL, 0, NULL);
	expect(ks, 0xffffffff81000404, "after_data", 0xffffffff81000400, NULL);
	/* Below everything. */
	expect(ks, 0xffffffff80ffffff, NULL, 0, NULL);
	expect(ks, 0, NULL, 0, NULL);
	/* The last core symbol reaches the first module symbol only if that
	 * is less than 1 MiB away; it is not. */
	expect(ks, 0xffffffff81000600, "last_core", 0xffffffff81000500, NULL);
	expect(ks, 0xffffffff81000500 + (1 << 20), NULL, 0, NULL);
	/* Modules. */
	expect(ks, 0xffffffffc0a01000, "foo", 0xffffffffc0a01000, "mod");
	expect(ks, 0xffffffffc0a0103f, "foo", 0xffffffffc0a01000, "mod");
	expect(ks, 0xffffffffc0a01040, "bar", 0xffffffffc0a01040, "mod");
	expect(ks, 0xffffffffc0a01090, "mod_data", 0xffffffffc0a01080, "mod");
	expect(ks, 0xffffffffc0b00000, "other_fn", 0xffffffffc0b00000, "other");
	/* The last symbol: at most 1 MiB. */
	expect(ks, 0xffffffffc0b00100 + 100, "bpf_prog_0123456789abcdef_x", 0xffffffffc0b00100,
	       "bpf");
	expect(ks, 0xffffffffc0b00100 + (1 << 20), NULL, 0, NULL);
	expect(ks, UINT64_MAX, NULL, 0, NULL);

	/* Every alias can be found by name. */
	assert_true(kallsyms_find(ks, "_text", &a));
	assert_int_equal(a, 0xffffffff81000000);
	assert_true(kallsyms_find(ks, "local_first", &a));
	assert_int_equal(a, 0xffffffff81000000);
	assert_true(kallsyms_find(ks, "bar", &a));
	assert_int_equal(a, 0xffffffffc0a01040);
	assert_false(kallsyms_find(ks, "some_data", &a));
	assert_false(kallsyms_find(ks, "bad_hex", &a));
	assert_false(kallsyms_find(ks, "nothing", &a));

	/* NULL start and module are allowed. */
	assert_string_equal(kallsyms_lookup(ks, 0xffffffff81000101, NULL, NULL), "local_fn");
	kallsyms_free(ks);
}

/* The same text as perf reads it: data symbols exist, r/R and others do
 * not, the last alias wins, ends reach the next symbol however far. */
static void test_sample_perf(void **state)
{
	static const char text[] = "ffffffff81000000 t local_first\n"
				   "ffffffff81000000 T _text\n"
				   "ffffffff81000000 T __pi__text\n"
				   "ffffffff81000100 T memcpy\n"
				   "ffffffff81000100 T __pi_memcpy\n"
				   "ffffffff81000200 r rodata_is_invisible\n"
				   "ffffffff81000300 D some_data\n"
				   "ffffffff81000400 T far_fn\n"
				   "ffffffff85000000 b last_core\n"
				   "ffffffffc0a01000 t foo\t[mod]\n"
				   "ffffffffc0a01040 t bar\t[mod]\n";
	struct kallsyms *ks = kallsyms_parse_perf(text, strlen(text));
	uint64_t a, b;

	(void)state;
	assert_int_equal(kallsyms_bad_lines(ks), 0);
	assert_int_equal(kallsyms_count(ks), 10);
	expect(ks, 0xffffffff81000000, "__pi__text", 0xffffffff81000000, NULL);
	expect(ks, 0xffffffff81000101, "__pi_memcpy", 0xffffffff81000100, NULL);
	/* rodata does not end memcpy; the data symbol does, and is a result. */
	expect(ks, 0xffffffff81000250, "__pi_memcpy", 0xffffffff81000100, NULL);
	expect(ks, 0xffffffff81000310, "some_data", 0xffffffff81000300, NULL);
	/* No 1 MiB cap: far_fn reaches last_core. */
	expect(ks, 0xffffffff84ffffff, "far_fn", 0xffffffff81000400, NULL);
	/* Core before module: one page past the page after its start. */
	expect(ks, 0xffffffff85000fff, "last_core", 0xffffffff85000000, NULL);
	expect(ks, 0xffffffff85001000, NULL, 0, NULL);
	/* The last symbol: the page after its page. */
	expect(ks, 0xffffffffc0a02fff, "bar", 0xffffffffc0a01040, "mod");
	expect(ks, 0xffffffffc0a03000, NULL, 0, NULL);
	assert_true(kallsyms_find(ks, "_text", &a));
	assert_int_equal(a, 0xffffffff81000000);
	assert_false(kallsyms_find(ks, "rodata_is_invisible", &a));
	assert_true(kallsyms_core_span(ks, &a, &b));
	assert_int_equal(a, 0xffffffff81000000);
	assert_int_equal(b, 0xffffffff85001000);
	kallsyms_free(ks);

	/* Restricted and empty tables. */
	ks = kallsyms_parse_perf("0000000000000000 T _text\n", 24);
	assert_true(kallsyms_restricted(ks));
	assert_false(kallsyms_core_span(ks, &a, &b));
	kallsyms_free(ks);
	ks = kallsyms_parse_perf("", 0);
	assert_null(kallsyms_lookup(ks, 1, NULL, NULL));
	assert_false(kallsyms_core_span(ks, &a, &b));
	kallsyms_free(ks);
}

static void test_restricted(void **state)
{
	static const char text[] = "0000000000000000 T _text\n"
				   "0000000000000000 T schedule\n"
				   "0000000000000000 t foo\t[mod]\n";
	struct kallsyms *ks = kallsyms_parse(text, strlen(text));
	uint64_t a, s;

	(void)state;
	assert_true(kallsyms_restricted(ks));
	assert_null(kallsyms_lookup(ks, 0, &s, NULL));
	assert_null(kallsyms_lookup(ks, 0x100, &s, NULL));
	assert_false(kallsyms_find(ks, "_text", &a));
	kallsyms_free(ks);

	/* Empty and all-garbage input: nothing, and not "restricted". */
	ks = kallsyms_parse("", 0);
	assert_false(kallsyms_restricted(ks));
	assert_int_equal(kallsyms_count(ks), 0);
	assert_null(kallsyms_lookup(ks, 0x1000, &s, NULL));
	kallsyms_free(ks);
	ks = kallsyms_parse("garbage\nmore garbage", 20);
	assert_false(kallsyms_restricted(ks));
	assert_int_equal(kallsyms_bad_lines(ks), 2);
	kallsyms_free(ks);
}

/* Text with NUL bytes, truncated anywhere, or random: never a crash. */
static void test_hostile(void **state)
{
	static const char nul[] = "ffffffff81000000 T a\0b\nffffffff81000010 T c\n";
	size_t n = strlen(sample);
	struct kallsyms *ks;
	uint64_t s, rng = 0x2545f4914f6cdd1dull;

	(void)state;
	ks = kallsyms_parse(nul, sizeof(nul) - 1);
	assert_int_equal(kallsyms_bad_lines(ks), 1);
	assert_int_equal(kallsyms_count(ks), 1);
	kallsyms_free(ks);

	for (size_t l = 0; l <= n; l++) {
		char *copy = xmalloc(l ? l : 1);
		memcpy(copy, sample, l);
		ks = kallsyms_parse(copy, l);
		for (uint64_t a = 0xffffffff80fffff0; a < 0xffffffff81000700; a += 0x40)
			kallsyms_lookup(ks, a, &s, NULL);
		kallsyms_free(ks);
		free(copy);
	}
	for (int it = 0; it < 2000; it++) {
		size_t l = 1 + (size_t)(rng % 300);
		char *copy = xmalloc(l);
		for (size_t i = 0; i < l; i++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			/* mostly characters that matter to the grammar */
			static const char alpha[] = "0123456789abcdefTtWwD \t\n[]x";
			copy[i] = rng & 0x100 ? (char)(rng >> 24) : alpha[(rng >> 32) % 27];
		}
		ks = kallsyms_parse(copy, l);
		const char *mod;
		for (size_t i = 0; i < kallsyms_count(ks) + 2; i++) {
			const char *name = kallsyms_lookup(ks, rng >> (i % 64), &s, &mod);
			if (name)
				assert_true(strlen(name) <= l);
		}
		kallsyms_free(ks);
		free(copy);
	}
}

static void test_errors(void **state)
{
	struct kallsyms *ks = (void *)1;

	(void)state;
	assert_int_equal(kallsyms_load(&ks, "/nonexistent/kallsyms"), -ENOENT);
	assert_null(ks);
	assert_int_equal(kallsyms_load(&ks, "/"), -EINVAL);
	assert_non_null(strstr(err_last()->msg, "'/'"));
}

/* kallsyms_load reads in 64 KiB pieces: lines across piece boundaries,
 * an overlong line (bad, skipped whole) and a last line without '\n' give
 * the same table as kallsyms_parse of the whole text. */
static void test_load_pieces(void **state)
{
	char path[] = "/tmp/kiln-kallsyms-XXXXXX";
	size_t cap = 1 << 20, n = 0;
	char *text = xmalloc(cap);
	(void)state;
	for (unsigned i = 0; i < 6000; i++) {
		n += (size_t)snprintf(text + n, cap - n, "ffffffff81%06x %c fn_%u_%.*s\n", i * 64,
				      i % 7 ? 't' : 'T', i, (int)(i % 40), "abcdefghijklmnopqrstuvwxyzabcdefghijklmn");
		if (i == 3000) { /* 70 KB on one line */
			memset(text + n, 'x', 70000);
			n += 70000;
			text[n++] = '\n';
		}
	}
	n += (size_t)snprintf(text + n, cap - n, "ffffffff82000000 T the_end");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
	struct kallsyms *a = kallsyms_parse(text, n), *b;
	assert_int_equal(kallsyms_load(&b, path), 0);
	unlink(path);
	assert_int_equal(kallsyms_count(a), 6001);
	assert_int_equal(kallsyms_count(b), 6001);
	assert_int_equal(kallsyms_bad_lines(a), 1);
	assert_int_equal(kallsyms_bad_lines(b), 1);
	for (unsigned i = 0; i < 6000; i += 7) {
		uint64_t sa, sb;
		const char *na = kallsyms_lookup(a, 0xffffffff81000000 + i * 64 + 5, &sa, NULL);
		const char *nb = kallsyms_lookup(b, 0xffffffff81000000 + i * 64 + 5, &sb, NULL);
		assert_non_null(na);
		assert_non_null(nb);
		assert_string_equal(na, nb);
		assert_int_equal(sa, sb);
	}
	uint64_t addr;
	assert_true(kallsyms_find(b, "the_end", &addr));
	assert_int_equal(addr, 0xffffffff82000000);
	kallsyms_free(a);
	kallsyms_free(b);
	free(text);
}

/* One generated line of test_orders, and the model's view of it. */
struct gen {
	uint64_t addr;
	char type;
	int mod;     /* -1: core; else module "m<mod>" */
	size_t line; /* position in the text */
	int rank;    /* alias preference in the plain table, lower first */
	bool plain;  /* kept by kallsyms_parse */
	bool perf;   /* kept by kallsyms_parse_perf */
	unsigned id; /* the name is "s<id>" */
};

static int gen_rank(char t)
{
	const char *order = "TtWw";
	const char *at = strchr(order, t);
	return at ? (int)(at - order) : t >= 'A' && t <= 'Z' ? 4 : 5;
}

/* The obvious order: address, then preference, then the later line first. */
static int gen_cmp_plain(const void *a, const void *b)
{
	const struct gen *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return x->line > y->line ? -1 : x->line < y->line;
}

static int gen_cmp_perf(const void *a, const void *b)
{
	const struct gen *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->line > y->line ? -1 : x->line < y->line;
}

static uint64_t gen_rng(uint64_t *r)
{
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return *r;
}

/*
 * Check a parsed table against the model: qsort the kept lines into the
 * obvious order; at every address of the text (and 15 bytes into it, all
 * addresses are 16 apart) lookup must give the first kept line there,
 * or for perf's table the first at the last kept address below.
 */
static void check_model(const struct kallsyms *ks, struct gen *g, size_t n, bool perf)
{
	struct gen *k = xcalloc(n ? n : 1, sizeof(*k));
	size_t nk = 0;
	char want[32], mod[16];

	for (size_t i = 0; i < n; i++)
		if (perf ? g[i].perf : g[i].plain)
			k[nk++] = g[i];
	qsort(k, nk, sizeof(*k), perf ? gen_cmp_perf : gen_cmp_plain);
	assert_int_equal(kallsyms_count(ks), nk);
	for (size_t i = 0; i < n; i++) {
		for (uint64_t off = 0; off < 16; off += 15) {
			uint64_t x = g[i].addr + off, start = 0;
			const char *m = NULL;
			const struct gen *best = NULL;
			/* the first of the kept group at the address (perf: at
			 * the last kept address at or below x) */
			for (size_t j = 0; j < nk && k[j].addr <= x; j++)
				if (perf || k[j].addr == g[i].addr)
					if (j == 0 || k[j - 1].addr != k[j].addr)
						best = &k[j];
			if (!perf && best && best->addr != g[i].addr)
				best = NULL;
			const char *got = kallsyms_lookup(ks, x, &start, &m);
			if (!best) {
				if (got)
					fail_msg("%#" PRIx64 ": expected nothing, got %s", x, got);
				continue;
			}
			snprintf(want, sizeof(want), "s%u", best->id);
			if (!got || strcmp(got, want) || start != best->addr)
				fail_msg("%#" PRIx64 " (perf %d): expected %s, got %s", x, perf, want,
					 got ? got : "nothing");
			if (best->mod < 0) {
				assert_null(m);
			} else {
				snprintf(mod, sizeof(mod), "m%d", best->mod);
				assert_non_null(m);
				assert_string_equal(m, mod);
			}
		}
		uint64_t a = 0;
		snprintf(want, sizeof(want), "s%u", g[i].id);
		bool kept = perf ? g[i].perf : g[i].plain;
		assert_int_equal(kallsyms_find(ks, want, &a), kept);
		if (kept)
			assert_int_equal(a, g[i].addr);
	}
	free(k);
}

/* Write the lines in their current order, then parse and check both tables. */
static void check_order(struct gen *g, size_t n)
{
	size_t cap = n * 48 + 1, len = 0;
	char *text = xmalloc(cap);
	for (size_t i = 0; i < n; i++) {
		g[i].line = i;
		len += (size_t)snprintf(text + len, cap - len, "%016" PRIx64 " %c s%u", g[i].addr,
					g[i].type, g[i].id);
		if (g[i].mod >= 0)
			len += (size_t)snprintf(text + len, cap - len, "\t[m%d]", g[i].mod);
		text[len++] = '\n';
	}
	struct kallsyms *ks = kallsyms_parse(text, len);
	assert_int_equal(kallsyms_bad_lines(ks), 0);
	check_model(ks, g, n, false);
	kallsyms_free(ks);
	ks = kallsyms_parse_perf(text, len);
	check_model(ks, g, n, true);
	kallsyms_free(ks);
	free(text);
}

static int gen_by_addr(const void *a, const void *b)
{
	const struct gen *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The table's order (address, alias preference, last line first) against
 * the obvious qsort of the same lines, for text sorted by address as
 * /proc/kallsyms is, with modules listed out of address order, shuffled,
 * reversed, and one address shared by every line (kptr_restrict's zeros,
 * or one huge alias group): groups of every size, every type.
 */
static void test_orders(void **state)
{
	static const char types[] = "tTwWdDbBrRaA";
	size_t n = 1500;
	struct gen *g = xcalloc(n, sizeof(*g));
	uint64_t rng = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		uint64_t r = gen_rng(&rng);
		g[i].id = (unsigned)i;
		g[i].type = types[r % 12];
		g[i].mod = i < n / 2 ? -1 : (int)((r >> 8) % 3); /* m0..m2 */
		/* core: 0xffffffff81000000 + 16 * k, few k so aliases pile up;
		 * a module's block lies where its number says */
		uint64_t k = (r >> 16) % (i % 5 == 0 ? 8 : 300);
		g[i].addr = g[i].mod < 0 ? 0xffffffff81000000ull + 16 * k :
					   0xffffffffc0000000ull + ((uint64_t)g[i].mod << 20) + 16 * k;
		g[i].rank = gen_rank(g[i].type);
		g[i].plain = strchr("tTwW", g[i].type) || g[i].mod >= 0;
		g[i].perf = strchr("tTwWdDbB", g[i].type) != NULL;
	}
	/* Sorted by address, aliases in generation order. */
	qsort(g, n, sizeof(*g), gen_by_addr);
	check_order(g, n);
	/* Modules in load order, not address order: m2's block, then m0's,
	 * then the core, then m1's. */
	struct gen *o = xcalloc(n, sizeof(*o));
	size_t at = 0;
	const int blocks[] = { 2, 0, -1, 1 };
	for (int b = 0; b < 4; b++)
		for (size_t i = 0; i < n; i++)
			if (g[i].mod == blocks[b])
				o[at++] = g[i];
	assert_int_equal(at, n);
	check_order(o, n);
	/* Reversed. */
	for (size_t i = 0; i < n; i++)
		o[i] = g[n - 1 - i];
	check_order(o, n);
	/* Shuffled. */
	for (size_t i = n; i > 1; i--) {
		size_t j = gen_rng(&rng) % i;
		struct gen t = g[i - 1];
		g[i - 1] = g[j];
		g[j] = t;
	}
	check_order(g, n);
	/* Everything at one address: one group of 1500 aliases. */
	for (size_t i = 0; i < n; i++) {
		g[i].addr = 0xffffffff81000000ull;
		g[i].mod = -1;
		g[i].plain = strchr("tTwW", g[i].type) != NULL;
	}
	check_order(g, n);
	free(o);
	free(g);
}

/* perf's table with every address zero (kptr_restrict): one group of all
 * lines, which must take linear time, not quadratic. */
static void test_restricted_big(void **state)
{
	size_t n = 200000, cap = n * 32, len = 0;
	char *text = xmalloc(cap);

	(void)state;
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "0000000000000000 %c sym_%zu\n",
					i % 3 ? 't' : 'T', i);
	struct kallsyms *ks = kallsyms_parse_perf(text, len);
	assert_true(kallsyms_restricted(ks));
	assert_int_equal(kallsyms_count(ks), n);
	kallsyms_free(ks);
	ks = kallsyms_parse(text, len);
	assert_true(kallsyms_restricted(ks));
	assert_int_equal(kallsyms_count(ks), n);
	kallsyms_free(ks);
	free(text);
}

struct line {
	uint64_t addr;
	char type;
	char name[128];
	bool module;
};

/* The real /proc/kallsyms: every kept line must resolve at its address to
 * a symbol that starts there, and _text and schedule to themselves. */
static void test_proc(void **state)
{
	struct kallsyms *ks;
	char buf[1024];
	size_t lines = 0, checked = 0;
	uint64_t addr, start;
	FILE *f;
	int err;

	(void)state;
	err = kallsyms_load(&ks, "/proc/kallsyms");
	if (err == -ENOENT || err == -EACCES)
		skip();
	assert_int_equal(err, 0);
	if (kallsyms_restricted(ks)) {
		print_message("/proc/kallsyms is restricted (kptr_restrict); skipping\n");
		assert_null(kallsyms_lookup(ks, 0xffffffff81000000, &start, NULL));
		kallsyms_free(ks);
		skip();
	}
	assert_int_equal(kallsyms_bad_lines(ks), 0);
	assert_true(kallsyms_count(ks) > 1000);
	kallsyms_free(ks);

	/* The table changes while the machine runs (a BPF program or a module
	 * loaded between two reads adds lines): the lines checked are the very
	 * text parsed, read once. */
	size_t cap = 1 << 20, len = 0, k;
	char *text = xmalloc(cap);
	f = fopen("/proc/kallsyms", "r");
	assert_non_null(f);
	while ((k = fread(text + len, 1, cap - len, f)) > 0) {
		len += k;
		if (len == cap)
			text = xrealloc(text, cap *= 2);
	}
	fclose(f);
	ks = kallsyms_parse(text, len);
	assert_non_null(ks);
	f = fmemopen(text, len, "r");
	assert_non_null(f);
	while (fgets(buf, sizeof(buf), f)) {
		struct line l = { 0 };
		const char *mod;
		lines++;
		if (sscanf(buf, "%" SCNx64 " %c %127s", &l.addr, &l.type, l.name) != 3)
			continue;
		l.module = strchr(buf, '[') != NULL;
		if (!strchr("tTwW", l.type) && !l.module)
			continue;
		const char *name = kallsyms_lookup(ks, l.addr, &start, &mod);
		if (!name || start != l.addr)
			fail_msg("%s at %#" PRIx64 ": got %s at %#" PRIx64, l.name, l.addr,
				 name ? name : "NULL", start);
		/* the returned alias has this address too (kallsyms_find scans
		 * the table: a sample of lines) */
		if (checked % 997 == 0) {
			assert_true(kallsyms_find(ks, name, &addr));
			assert_true(addr <= l.addr);
		}
		assert_true((mod != NULL) == l.module);
		checked++;
	}
	fclose(f);
	free(text);
	print_message("/proc/kallsyms: %zu lines, %zu text/module symbols resolved\n", lines,
		      checked);
	assert_true(checked > 1000);

	/* _text shares its address with other names (_stext, ...): lookup
	 * returns the preferred alias, which kallsyms_find places there. */
	assert_true(kallsyms_find(ks, "_text", &addr));
	const char *name = kallsyms_lookup(ks, addr, &start, NULL);
	assert_non_null(name);
	assert_int_equal(start, addr);
	print_message("_text at %#" PRIx64 " resolves to %s\n", addr, name);

	assert_true(kallsyms_find(ks, "schedule", &addr));
	assert_string_equal(kallsyms_lookup(ks, addr, &start, NULL), "schedule");
	assert_string_equal(kallsyms_lookup(ks, addr + 1, &start, NULL), "schedule");
	assert_int_equal(start, addr);
	kallsyms_free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_sample_perf),	 cmocka_unit_test(test_restricted),
		cmocka_unit_test(test_hostile),	 cmocka_unit_test(test_errors),
		cmocka_unit_test(test_proc),	 cmocka_unit_test(test_load_pieces),
		cmocka_unit_test(test_orders),	 cmocka_unit_test(test_restricted_big),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
