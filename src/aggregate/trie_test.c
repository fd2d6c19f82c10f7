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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weights_saturate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
