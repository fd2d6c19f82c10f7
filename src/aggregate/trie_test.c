/*
 * trie unit tests (aggregate, L6): weights from input saturate at 2^64 - 1
 * (two perf script samples with the largest period), never wrap, so a
 * node's total always covers its self weight; the shared walk is the
 * recursive pre-order (levels, subtrees skipped, a subtree's walk).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "aggregate/trie.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weights_saturate),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_kind_of_name),
		cmocka_unit_test(test_node_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
