/*
 * folded: trie → sorted folded lines, streamed (output, L7).
 *
 * Lines must come out in bytewise order of their stacks (the text before
 * " COUNT": stackcollapse-perf.pl sorts the stacks, then appends the
 * counts), without building every line in memory. A node's own line is
 * "path name COUNT" and its children's lines are "path name;...", so
 * among siblings each node stands for two items with keys name and
 * name+';'; sorting those items gives the exact order (a sibling whose
 * name extends this one's, like "foo-bar" after "foo", can fall between
 * "foo"'s own line and its children's lines). The own line's key ends at
 * the name, so it sorts before any longer key: "a;main" comes before
 * "a;main\t", though ' ' > '\t'.
 * Memory is proportional to the depth and fan-out, not to the output.
 */
#include "output/folded.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/vec.h"

struct item {
	const char *name;
	uint32_t node;
	char term; /* ' ': the node's own line; ';': its children */
};

/* What follows the name in an item's key: nothing (below every byte) or ';'. */
static int key_end(const struct item *it)
{
	return it->term == ' ' ? -1 : ';';
}

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	const unsigned char *p = (const unsigned char *)x->name, *q = (const unsigned char *)y->name;
	/* Compare the keys as strings without building them. */
	for (;; p++, q++) {
		int cp = *p ? *p : key_end(x);
		int cq = *q ? *q : key_end(y);
		if (cp != cq)
			return cp < cq ? -1 : 1;
		if (!*p || !*q) {
			/* One side reached its terminator (which matched the other's byte). */
			if (!*p && !*q)
				return 0;
			return !*p ? -1 : 1; /* the shorter key sorts first */
		}
	}
}

static void emit(FILE *f, const struct trie *t, uint32_t parent, struct buf *path)
{
	VEC(struct item) items = { 0 };
	for (uint32_t c = trie_node(t, parent)->first_child; c != TRIE_NONE;
	     c = trie_node(t, c)->next_sibling) {
		const struct trie_node *n = trie_node(t, c);
		if (n->self)
			VEC_PUSH(&items, ((struct item){ trie_name(t, c), c, ' ' }));
		if (n->first_child != TRIE_NONE)
			VEC_PUSH(&items, ((struct item){ trie_name(t, c), c, ';' }));
	}
	if (items.n > 1)
		qsort(items.v, items.n, sizeof(items.v[0]), cmp_item);
	size_t len = path->len;
	for (size_t i = 0; i < items.n; i++) {
		const struct item *it = &items.v[i];
		if (it->term == ' ') {
			fwrite(path->p ? path->p : "", 1, len, f);
			fprintf(f, "%s %llu\n", it->name,
				(unsigned long long)trie_node(t, it->node)->self);
		} else {
			buf_addstr(path, it->name);
			buf_addch(path, ';');
			emit(f, t, it->node, path);
			path->len = len;
			if (path->p)
				path->p[len] = '\0';
		}
	}
	VEC_FREE(&items);
}

int folded_write(FILE *f, const struct trie *t)
{
	struct buf path;
	buf_init(&path, (size_t)1 << 30);
	emit(f, t, 0, &path);
	buf_release(&path);
	return ferror(f) ? -EIO : 0;
}
