/* folded: trie → sorted folded lines (output, L7). */
#include "output/folded.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/vec.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int folded_write(FILE *f, const struct trie *t)
{
	VEC(char *) lines = { 0 };
	VEC(uint32_t) stack = { 0 }; /* DFS: node ids */
	struct buf b;
	buf_init(&b, (size_t)1 << 30);
	if (t->nodes.v[0].first_child != TRIE_NONE)
		VEC_PUSH(&stack, t->nodes.v[0].first_child);
	while (stack.n) {
		uint32_t id = stack.v[--stack.n];
		const struct trie_node *n = trie_node(t, id);
		if (n->next_sibling != TRIE_NONE)
			VEC_PUSH(&stack, n->next_sibling);
		if (n->first_child != TRIE_NONE)
			VEC_PUSH(&stack, n->first_child);
		if (!n->self)
			continue;
		/* Build the path from the root down. */
		VEC(uint32_t) path = { 0 };
		for (uint32_t p = id; p != 0 && p != TRIE_NONE; p = trie_node(t, p)->parent)
			VEC_PUSH(&path, p);
		buf_reset(&b);
		for (size_t i = path.n; i-- > 0;) {
			buf_addstr(&b, trie_name(t, path.v[i]));
			if (i)
				buf_addch(&b, ';');
		}
		buf_addf(&b, " %llu", (unsigned long long)n->self);
		VEC_FREE(&path);
		VEC_PUSH(&lines, buf_detach(&b, NULL));
	}
	if (lines.n > 1)
		qsort(lines.v, lines.n, sizeof(lines.v[0]), cmp_str);
	for (size_t i = 0; i < lines.n; i++) {
		fputs(lines.v[i], f);
		fputc('\n', f);
		free(lines.v[i]);
	}
	VEC_FREE(&lines);
	VEC_FREE(&stack);
	buf_release(&b);
	return ferror(f) ? -EIO : 0;
}
