/*
 * trie unit tests (aggregate, L6): weights from input saturate at 2^64 - 1
 * (two perf script samples with the largest period), never wrap, so a
 * node's total always covers its self weight; the shared walk is the
 * recursive pre-order (levels, subtrees skipped, a subtree's walk); two
 * tries merged hold the stacks of both; totals summed from the selfs
 * equal trie_add's; the child index finds every child
 * through its growths in place, and through the rebuild a cluster of
 * entries past its last slot forces.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "aggregate/trie.h"
#include "base/hashmap.h"

static void test_weights_saturate(void **state)
{
	(void)state;
	struct strtab s;
	struct trie t;
	strtab_init(&s);
	trie_init(&t, &s);
	struct trie_frame f[2] = { { strtab_intern_str(&s, "sh"), FRAME_PROCESS },
				   { strtab_intern_str(&s, "a"), FRAME_USER } };
	trie_add(&t, f, 2, UINT64_MAX - 1);
	trie_add(&t, f, 2, 5);
	trie_add(&t, f, 1, 3);
	for (uint32_t i = 0; i < t.nodes.n; i++) {
		const struct trie_node *n = trie_node(&t, i);
		assert_true(n->total >= n->self);
		assert_int_equal(n->total, UINT64_MAX);
	}
	assert_int_equal(trie_node(&t, 2)->self, UINT64_MAX);
	assert_int_equal(trie_node(&t, 1)->self, 3);
	trie_release(&t);
	strtab_release(&s);
}

/* The reference: recursive pre-order, "name@level" joined by spaces. */
static void walk_ref(const struct trie *t, uint32_t id, uint32_t level, const char *skip, char *out)
{
	sprintf(out + strlen(out), "%s@%u ", id ? trie_name(t, id) : "root", level);
	if (skip && !strcmp(trie_name(t, id), skip))
		return;
	for (uint32_t c = trie_node(t, id)->first_child; c != TRIE_NONE;
	     c = trie_node(t, c)->next_sibling)
		walk_ref(t, c, level + 1, skip, out);
}

static void walk_iter(const struct trie *t, uint32_t top, const char *skip, char *out)
{
	struct trie_walk w;
	trie_walk_init(&w, t, top);
	for (uint32_t id; (id = trie_walk_next(&w)) != TRIE_NONE;) {
		sprintf(out + strlen(out), "%s@%u ", id ? trie_name(t, id) : "root", w.level);
		if (skip && !strcmp(trie_name(t, id), skip))
			trie_walk_skip(&w);
	}
	assert_int_equal(trie_walk_next(&w), TRIE_NONE); /* stays over */
	trie_walk_release(&w);
}

static void test_walk(void **state)
{
	(void)state;
	static const char *const stacks[] = { "p a b c", "p a b d", "p a e", "p f", "q g h", "q",
					      "p a b c x y" };
	struct strtab s;
	struct trie t;
	strtab_init(&s);
	trie_init(&t, &s);
	for (size_t i = 0; i < sizeof(stacks) / sizeof(stacks[0]); i++) {
		struct trie_frame f[8];
		size_t n = 0;
		char buf[32];
		snprintf(buf, sizeof(buf), "%s", stacks[i]);
		for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
			f[n++] = (struct trie_frame){ strtab_intern_str(&s, tok), FRAME_USER };
		trie_add(&t, f, n, 1);
	}
	trie_sort(&t);
	char a[512], b[512];
	static const char *const skips[] = { NULL, "b", "p", "y", "q" };
	for (size_t k = 0; k < sizeof(skips) / sizeof(skips[0]); k++) {
		a[0] = b[0] = '\0';
		walk_ref(&t, 0, 0, skips[k], a);
		walk_iter(&t, 0, skips[k], b);
		assert_string_equal(a, b);
	}
	a[0] = '\0';
	walk_iter(&t, 0, NULL, a);
	assert_string_equal(a, "root@0 p@1 a@2 b@3 c@4 x@5 y@6 d@4 e@3 f@2 q@1 g@2 h@3 ");
	/* A subtree: its top at level 0, nothing outside it. */
	uint32_t q = trie_find(&t, 0, strtab_intern_str(&s, "q"), FRAME_USER);
	a[0] = '\0';
	walk_iter(&t, q, NULL, a);
	assert_string_equal(a, "q@0 g@1 h@2 ");
	trie_release(&t);
	strtab_release(&s);
}

/* One classification of frame names for folded stacks and perf script text. */
static void test_kind_of_name(void **state)
{
	(void)state;
#define K(s) frame_kind_of_name(s, sizeof(s) - 1)
	assert_int_equal(K("do_syscall_64_[k]"), FRAME_KERNEL);
	assert_int_equal(K("Lfoo_[j]"), FRAME_JIT);
	assert_int_equal(K("inl_[i]"), FRAME_INLINE);
	assert_int_equal(K("_[k]"), FRAME_KERNEL);
	assert_int_equal(K("x_[x]"), FRAME_USER);
	assert_int_equal(K("[libc.so.6]"), FRAME_UNKNOWN);
	assert_int_equal(K("[unknown]"), FRAME_UNKNOWN);
	assert_int_equal(K("[]"), FRAME_UNKNOWN);
	assert_int_equal(K("["), FRAME_USER);
	assert_int_equal(K("main"), FRAME_USER);
	assert_int_equal(K(""), FRAME_USER);
#undef K
}

/* Nodes stay 32 bytes; names keep their 29-bit ids, the root its TRIE_NO_NAME. */
static void test_node_layout(void **state)
{
	(void)state;
	struct strtab strs;
	struct trie t;
	strtab_init(&strs);
	trie_init(&t, &strs);
	assert_int_equal(sizeof(struct trie_node), 32);
	assert_int_equal(trie_node(&t, 0)->name, TRIE_NO_NAME);
	assert_string_equal(trie_name(&t, 0), "");
	struct trie_frame f[3] = { { strtab_intern_str(&strs, "p"), FRAME_PROCESS },
				   { strtab_intern_str(&strs, "a"), FRAME_UNKNOWN },
				   { strtab_intern_str(&strs, "b_[k]"), FRAME_KERNEL } };
	uint32_t leaf = trie_add(&t, f, 3, 5);
	assert_int_equal(trie_depth(&t, leaf), 3);
	assert_int_equal(trie_node(&t, leaf)->kind, FRAME_KERNEL);
	assert_string_equal(trie_name(&t, leaf), "b_[k]");
	/* A second child makes the parent indexed: both are found. */
	f[2].kind = FRAME_USER;
	uint32_t other = trie_add(&t, f, 3, 1);
	assert_int_not_equal(other, leaf);
	assert_int_equal(trie_find(&t, trie_node(&t, leaf)->parent, f[2].name, FRAME_KERNEL), leaf);
	assert_int_equal(trie_find(&t, trie_node(&t, leaf)->parent, f[2].name, FRAME_USER), other);
	trie_release(&t);
	strtab_release(&strs);
}

/* Stacks "w:kind-name kind-name ..." added to t (kind digits: enum frame_kind). */
static void add_stacks(struct trie *t, const char *const *stacks, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct trie_frame f[8];
		size_t k = 0;
		char buf[64];
		unsigned long long w;
		snprintf(buf, sizeof(buf), "%s", stacks[i]);
		char *rest = strchr(buf, ':');
		sscanf(buf, "%llu", &w);
		for (char *tok = strtok(rest + 1, " "); tok; tok = strtok(NULL, " "))
			f[k++] = (struct trie_frame){ strtab_intern_str(t->names, tok + 1),
						      (uint8_t)(tok[0] - '0') };
		trie_add(t, f, k, w);
	}
}

/* A sorted trie as text: "name/kind=total,self@level" in walk order. */
static void dump(const struct trie *t, char *out, size_t cap)
{
	struct trie_walk w;
	size_t len = 0;
	out[0] = '\0';
	trie_walk_init(&w, t, 0);
	for (uint32_t id; (id = trie_walk_next(&w)) != TRIE_NONE;) {
		const struct trie_node *n = trie_node(t, id);
		len += (size_t)snprintf(out + len, cap - len, "%s/%u=%llu,%llu@%u ", trie_name(t, id),
					n->kind, (unsigned long long)n->total,
					(unsigned long long)n->self, w.level);
		assert_true(len < cap);
	}
	trie_walk_release(&w);
}

/* Two tries over their own strtabs, merged: the trie of all their stacks. */
/* A trie with room reserved (a mapping of its own, grown past it) holds
 * the same nodes, in the same order, as one grown by malloc. */
static void test_reserve(void **state)
{
	(void)state;
	struct strtab s;
	struct trie a, b;
	strtab_init(&s);
	trie_init(&a, &s);
	trie_init(&b, &s);
	trie_reserve(&b, 70000); /* 2.2 MB: mapped */
	size_t room = b.nodes.cap;
	assert_true(room >= 70000);
	char name[32];
	for (uint32_t i = 0; i < room; i++) {
		snprintf(name, sizeof(name), "f%u", i % 977);
		struct trie_frame f[3] = { { strtab_intern_str(&s, "p"), FRAME_PROCESS },
					   { strtab_intern_str(&s, name), FRAME_USER },
					   { strtab_intern_str(&s, name + 1), FRAME_USER } };
		f[2].name = strtab_intern(&s, name, (size_t)snprintf(name, sizeof(name), "g%u", i));
		trie_add(&a, f, 3, i + 1);
		trie_add(&b, f, 3, i + 1);
		/* Estimates that split the mapping's advice (4 KiB pages past
		 * the first huge page, then huge ones again), before it grows. */
		if (i == 1000)
			trie_expect(&b, 10);
		else if (i == room / 2)
			trie_expect(&b, room * 4);
		else if (i == room / 2 + 1)
			trie_expect(&b, 0);
	}
	assert_true(b.nodes.n > room); /* grown past the room reserved */
	assert_int_equal(a.nodes.n, b.nodes.n);
	assert_memory_equal(a.nodes.v, b.nodes.v, a.nodes.n * sizeof(struct trie_node));
	trie_reserve(&b, 10); /* less than it has: nothing */
	trie_expect(&a, 10);  /* no mapping: nothing */
	assert_int_equal(a.nodes.n, b.nodes.n);
	trie_release(&a);
	trie_release(&b);
	assert_null(b.nodes.v);
	strtab_release(&s);
}

static void test_merge(void **state)
{
	(void)state;
	static const char *const a[] = { "3:0p 1main 1work", "2:0p 1main 2sys", "1:0q 1x",
					 "4:0p 1main", "18446744073709551610:0big 1y" };
	static const char *const b[] = { "5:0p 1main 1work", "1:0p 1main 1work 2sys", "7:0r 5[u]",
					 "1:0p 1main 4work", "9:0big 1y", "2:0q" };
	struct strtab sa, sb, sall;
	struct trie ta, tb, all;
	strtab_init(&sa);
	strtab_init(&sb);
	strtab_init(&sall);
	trie_init(&ta, &sa);
	trie_init(&tb, &sb);
	trie_init(&all, &sall);
	strtab_intern_str(&sb, "unused"); /* the two tables' ids differ */
	add_stacks(&ta, a, sizeof(a) / sizeof(a[0]));
	add_stacks(&tb, b, sizeof(b) / sizeof(b[0]));
	add_stacks(&all, b, sizeof(b) / sizeof(b[0]));
	add_stacks(&all, a, sizeof(a) / sizeof(a[0]));
	trie_merge(&ta, &tb);
	trie_sort(&ta);
	trie_sort(&all);
	static char x[4096], y[4096];
	dump(&ta, x, sizeof(x));
	dump(&all, y, sizeof(y));
	assert_string_equal(x, y);
	/* Sums past 2^64 - 1 saturate, as trie_add's. */
	uint32_t big = trie_find(&ta, 0, strtab_intern_str(&sa, "big"), FRAME_PROCESS);
	assert_int_equal(trie_node(&ta, big)->total, UINT64_MAX);
	assert_int_equal(trie_node(&ta, 0)->total, UINT64_MAX);
	/* The graft alone: paths, no weight, and the map of nodes. */
	struct strtab sc;
	struct trie tc;
	strtab_init(&sc);
	trie_init(&tc, &sc);
	uint32_t map[64];
	assert_true(tb.nodes.n <= 64);
	trie_graft(&tc, &tb, map);
	assert_int_equal(tc.nodes.n, tb.nodes.n);
	for (uint32_t id = 1; id < tb.nodes.n; id++) {
		assert_string_equal(trie_name(&tc, map[id]), trie_name(&tb, id));
		assert_int_equal(trie_node(&tc, map[id])->kind, trie_node(&tb, id)->kind);
		assert_int_equal(map[trie_node(&tb, id)->parent], trie_node(&tc, map[id])->parent);
		assert_int_equal(trie_node(&tc, map[id])->total, 0);
	}
	trie_release(&tc);
	strtab_release(&sc);
	trie_release(&ta);
	trie_release(&tb);
	trie_release(&all);
	strtab_release(&sa);
	strtab_release(&sb);
	strtab_release(&sall);
}

/* Children of many parents: every one found again (trie_find) and
 * trie_child gives no twin, across the index's growths in place. */
static void test_index_grows(void **state)
{
	(void)state;
	struct strtab s;
	struct trie t;
	strtab_init(&s);
	trie_init(&t, &s);
	enum { PARENTS = 300, KIDS = 150 };
	uint32_t parents[PARENTS], kids[PARENTS][KIDS];
	for (uint32_t p = 0; p < PARENTS; p++)
		parents[p] = trie_child(&t, 0, p, FRAME_USER);
	for (uint32_t k = 0; k < KIDS; k++)
		for (uint32_t p = 0; p < PARENTS; p++)
			kids[p][k] = trie_child(&t, parents[p], k * 7 + p, (uint8_t)(k % 3 + 1));
	assert_true(t.nindexed >= PARENTS * KIDS);
	for (uint32_t p = 0; p < PARENTS; p++) {
		assert_int_equal(trie_find(&t, 0, p, FRAME_USER), parents[p]);
		for (uint32_t k = 0; k < KIDS; k++) {
			assert_int_equal(trie_find(&t, parents[p], k * 7 + p, (uint8_t)(k % 3 + 1)),
					 kids[p][k]);
			assert_int_equal(trie_child(&t, parents[p], k * 7 + p,
						    (uint8_t)(k % 3 + 1)),
					 kids[p][k]);
		}
		assert_int_equal(trie_find(&t, parents[p], 1u << 28, FRAME_USER), TRIE_NONE);
	}
	trie_release(&t);
	strtab_release(&s);
}

/*
 * Names whose index hashes (trie.c's hash_of: hash_mix2 of parent and
 * kind, and name) share their top bits all probe from the index's last
 * slots: more of them than its tail holds force the slow rebuild, which
 * must keep every child found.
 */
static void test_index_cluster_at_top(void **state)
{
	(void)state;
	struct strtab s;
	struct trie t;
	strtab_init(&s);
	trie_init(&t, &s);
	uint32_t parent = trie_child(&t, 0, 1, FRAME_USER);
	enum { N = 300 };
	uint32_t names[N], ids[N];
	size_t n = 0;
	for (uint32_t name = 2; n < N; name++)
		if (hash_mix2(((uint64_t)parent << 8) | FRAME_USER, name) >> 56 == 0xff)
			names[n++] = name; /* the top 8 bits: the last slots of any index to 2^8+ */
	for (size_t i = 0; i < N; i++)
		ids[i] = trie_child(&t, parent, names[i], FRAME_USER);
	for (size_t i = 0; i < N; i++) {
		assert_int_equal(trie_find(&t, parent, names[i], FRAME_USER), ids[i]);
		for (size_t j = 0; j < i; j++)
			assert_int_not_equal(ids[i], ids[j]);
	}
	/* Growth in place after the rebuild: more children elsewhere. */
	for (uint32_t k = 0; k < 5000; k++) {
		size_t before = t.nodes.n;
		assert_int_equal(trie_child(&t, parent, (1u << 27) + k, FRAME_KERNEL), before);
	}
	for (size_t i = 0; i < N; i++)
		assert_int_equal(trie_find(&t, parent, names[i], FRAME_USER), ids[i]);
	for (uint32_t k = 0; k < 5000; k++)
		assert_int_not_equal(trie_find(&t, parent, (1u << 27) + k, FRAME_KERNEL),
				     TRIE_NONE);
	trie_release(&t);
	strtab_release(&s);
}

/* Totals summed from the selfs alone (trie_fill_totals) are trie_add's,
 * saturating sums included. */
static void test_fill_totals(void **state)
{
	(void)state;
	struct strtab s;
	struct trie t;
	strtab_init(&s);
	trie_init(&t, &s);
	static const char *const stacks[] = { "3:0sh 1main 1a 1b", "2:0sh 1main 1a",
					      "1:0sh 1main 1c", "4:0sh 1x", "5:0py 1run",
					      "7:0sh 1main 1a 1b" };
	add_stacks(&t, stacks, sizeof(stacks) / sizeof(stacks[0]));
	struct trie_frame big[2] = { { strtab_intern_str(&s, "huge"), FRAME_PROCESS },
				     { strtab_intern_str(&s, "w"), FRAME_USER } };
	trie_add(&t, big, 2, UINT64_MAX - 3);
	trie_add(&t, big, 1, 9);
	size_t n = t.nodes.n;
	uint64_t want[64];
	assert_true(n <= 64);
	for (size_t i = 0; i < n; i++) {
		want[i] = t.nodes.v[i].total;
		t.nodes.v[i].total = i ? 0 : 12345;
	}
	trie_fill_totals(&t);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(t.nodes.v[i].total, want[i]);
	assert_int_equal(t.nodes.v[0].total, UINT64_MAX);
	trie_release(&t);
	strtab_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weights_saturate),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_kind_of_name),
		cmocka_unit_test(test_node_layout),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_index_grows),
		cmocka_unit_test(test_fill_totals),
		cmocka_unit_test(test_index_cluster_at_top),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
