/*
 * folded unit tests (output, L7): lines come out in bytewise order of their
 * stacks, as stackcollapse-perf.pl sorts them, whether a level's items are
 * in order already after trie_sort or not (a name extending a sibling's
 * with a byte below ';'); counts with a divisor and in two columns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "output/folded.h"

struct tree {
	struct strtab strs;
	struct trie t;
};

static void tree_init(struct tree *tr)
{
	strtab_init(&tr->strs);
	trie_init(&tr->t, &tr->strs);
}

static void tree_release(struct tree *tr)
{
	trie_release(&tr->t);
	strtab_release(&tr->strs);
}

/* Add "a;b;c" (the first frame the process) with weight w; returns its leaf. */
static uint32_t add(struct tree *tr, const char *stack, uint64_t w)
{
	struct trie_frame f[16];
	size_t n = 0;
	char *copy = strdup(stack), *save = NULL;
	for (char *tok = strtok_r(copy, ";", &save); tok && n < 16; tok = strtok_r(NULL, ";", &save)) {
		f[n].name = strtab_intern_str(&tr->strs, tok);
		f[n].kind = n ? FRAME_USER : FRAME_PROCESS;
		n++;
	}
	free(copy);
	return trie_add(&tr->t, f, n, w);
}

/* The folded text of the trie, sorted first; the caller frees it. */
static char *write_all(struct tree *tr, const uint64_t *first, uint64_t divisor)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(folded_write_ex(f, &tr->t, first, divisor), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void check(struct tree *tr, const char *want)
{
	trie_sort(&tr->t);
	char *got = write_all(tr, NULL, 1);
	assert_string_equal(got, want);
	free(got);
}

static void test_in_order(void **state)
{
	(void)state;
	struct tree tr;
	tree_init(&tr);
	add(&tr, "p;b;y", 2);
	add(&tr, "p;a", 1);
	add(&tr, "p;b", 4);
	add(&tr, "p;a;x", 3);
	add(&tr, "q", 5);
	check(&tr, "p;a 1\np;a;x 3\np;b 4\np;b;y 2\nq 5\n");
	tree_release(&tr);
}

static void test_name_extends_sibling(void **state)
{
	(void)state;
	struct tree tr;
	tree_init(&tr);
	/* ' ', '-', '.' and ':' sort below ';': "foo-bar" comes between
	 * "foo"'s own line and its children's; 'z' above them. */
	add(&tr, "p;foo;x", 3);
	add(&tr, "p;foo", 1);
	add(&tr, "p;foo-bar", 2);
	add(&tr, "p;foo bar;y", 6);
	add(&tr, "p;foo.c", 7);
	add(&tr, "p;foo:z", 4);
	add(&tr, "p;fooz", 5);
	check(&tr, "p;foo 1\np;foo bar;y 6\np;foo-bar 2\np;foo.c 7\np;foo:z 4\n"
		   "p;foo;x 3\np;fooz 5\n");
	tree_release(&tr);
}

static void test_counts(void **state)
{
	(void)state;
	struct tree tr;
	tree_init(&tr);
	add(&tr, "p;a", 5);
	uint32_t b = add(&tr, "p;b", 123);
	trie_sort(&tr.t);
	char *got = write_all(&tr, NULL, 100);
	assert_string_equal(got, "p;a 0.05\np;b 1.23\n");
	free(got);
	/* Two columns: a stack printed when either count is non-zero. */
	uint64_t *first = calloc(tr.t.nodes.n, sizeof(*first));
	assert_non_null(first);
	first[b] = 7;
	got = write_all(&tr, first, 1);
	assert_string_equal(got, "p;a 0 5\np;b 7 123\n");
	free(got);
	free(first);
	tree_release(&tr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_name_extends_sibling),
		cmocka_unit_test(test_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
