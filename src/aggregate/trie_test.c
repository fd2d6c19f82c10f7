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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weights_saturate),
		cmocka_unit_test(test_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
