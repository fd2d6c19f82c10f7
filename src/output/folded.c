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
#include "base/xalloc.h"
#include "base/vec.h"
#include "base/wbuf.h"

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

struct emit_ctx {
	const uint64_t *first; /* two columns: the first's counts by node, or NULL */
	uint64_t divisor;      /* counts are printed divided by it (a power of ten) */
};

/* "%llu", or with a divisor "%llu.%0*llu" (v / divisor, then v % divisor in
 * as many digits as the divisor has zeros). */
static void put_count(struct wbuf *f, uint64_t v, uint64_t divisor)
{
	if (divisor <= 1) {
		wbuf_u64(f, v);
		return;
	}
	int digits = 0;
	for (uint64_t d = divisor; d > 1; d /= 10)
		digits++;
	char d[48], *e = d + sizeof(d), *p = digits_dec(e, v % divisor, digits);
	wbuf_u64(f, v / divisor);
	wbuf_char(f, '.');
	wbuf_mem(f, p, (size_t)(e - p));
}

static void emit(struct wbuf *f, const struct trie *t, uint32_t parent, struct buf *path,
		 const struct emit_ctx *ec)
{
	VEC(struct item) items = { 0 };
	for (uint32_t c = trie_node(t, parent)->first_child; c != TRIE_NONE;
	     c = trie_node(t, c)->next_sibling) {
		const struct trie_node *n = trie_node(t, c);
		if (n->self || (ec->first && ec->first[c]))
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
			wbuf_mem(f, path->p ? path->p : "", len);
			wbuf_str(f, it->name);
			wbuf_char(f, ' ');
			if (ec->first) {
				put_count(f, ec->first[it->node], ec->divisor);
				wbuf_char(f, ' ');
			}
			put_count(f, trie_node(t, it->node)->self, ec->divisor);
			wbuf_char(f, '\n');
		} else {
			buf_addstr(path, it->name);
			buf_addch(path, ';');
			emit(f, t, it->node, path, ec);
			path->len = len;
			if (path->p)
				path->p[len] = '\0';
		}
	}
	VEC_FREE(&items);
}

int folded_write(FILE *f, const struct trie *t)
{
	return folded_write_ex(f, t, NULL, 1);
}

int folded_write_ex(FILE *f, const struct trie *t, const uint64_t *first, uint64_t divisor)
{
	struct buf path;
	struct emit_ctx ec = { first, divisor };
	struct wbuf *w = xmalloc(sizeof(*w));
	w->f = f;
	w->n = 0;
	buf_init(&path, (size_t)1 << 30);
	emit(w, t, 0, &path, &ec);
	wbuf_flush(w);
	free(w);
	buf_release(&path);
	return ferror(f) ? -EIO : 0;
}
