/*
 * trie unit tests (aggregate, L6): weights from input saturate at 2^64 - 1
 * (two perf script samples with the largest period), never wrap, so a
 * node's total always covers its self weight.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

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
		cmocka_unit_test(test_kind_of_name),
		cmocka_unit_test(test_node_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
