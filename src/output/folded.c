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
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "base/vec.h"
#include "base/wbuf.h"

struct item {
	const char *name;
	uint32_t len;  /* the name's */
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
	/* Compare the keys as strings without building them: the common
	 * length by memcmp, then the byte after it (a terminator on the
	 * shorter side). */
	uint32_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);
	if (c)
		return c;
	int cx = n < x->len ? (unsigned char)x->name[n] : key_end(x);
	int cy = n < y->len ? (unsigned char)y->name[n] : key_end(y);
	if (cx != cy)
		return cx < cy ? -1 : 1;
	/* One side reached its terminator, which matched the other's byte. */
	if (x->len == y->len)
		return 0;
	return x->len < y->len ? -1 : 1; /* the shorter key sorts first */
}

/*
 * Whether n items are in order already: after trie_sort the siblings are
 * in name order, so the items are too, but where a name extends another
 * with a byte below ';' ("foo" and "foo-bar"). qsort's merge sort is
 * stable, so skipping it for items in order changes nothing.
 */
static bool sorted(const struct item *it, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (cmp_item(&it[i - 1], &it[i]) > 0)
			return false;
	return true;
}

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

struct emit_ctx {
	const uint64_t *first; /* two columns: the first's counts by node, or NULL */
	uint64_t divisor;      /* counts are printed divided by it (a power of ten) */
	/* the items of every level being written, outermost first: one
	 * array for the whole walk, not one allocation per node */
	VEC(struct item) items;
	VEC(char) path; /* "root;...;parent;" of the level being written */
};

static void push_item(struct emit_ctx *ec, const struct trie *t, uint32_t c, char term)
{
	uint32_t name = trie_node(t, c)->name;
	struct item it = { "", 0, c, term };
	if (name != TRIE_NO_NAME) {
		it.name = strtab_get(t->names, name);
		it.len = strtab_len(t->names, name);
	}
	VEC_PUSH(&ec->items, it);
}

static void emit(struct wbuf *f, const struct trie *t, uint32_t parent, struct emit_ctx *ec)
{
	size_t base = ec->items.n;
	for (uint32_t c = trie_node(t, parent)->first_child; c != TRIE_NONE;
	     c = trie_node(t, c)->next_sibling) {
		const struct trie_node *n = trie_node(t, c);
		if (n->self || (ec->first && ec->first[c]))
			push_item(ec, t, c, ' ');
		if (n->first_child != TRIE_NONE)
			push_item(ec, t, c, ';');
	}
	size_t end = ec->items.n;
	if (!sorted(ec->items.v + base, end - base))
		qsort(ec->items.v + base, end - base, sizeof(ec->items.v[0]), cmp_item);
	size_t len = ec->path.n;
	for (size_t i = base; i < end; i++) {
		const struct item *it = &ec->items.v[i]; /* valid until the recursion below */
		if (it->term == ' ') {
			wbuf_mem(f, ec->path.v, len);
			wbuf_mem(f, it->name, it->len);
			wbuf_char(f, ' ');
			if (ec->first) {
				put_count(f, ec->first[it->node], ec->divisor);
				wbuf_char(f, ' ');
			}
			put_count(f, trie_node(t, it->node)->self, ec->divisor);
			wbuf_char(f, '\n');
		} else {
			VEC_RESERVE(&ec->path, len + it->len + 1);
			memcpy(ec->path.v + len, it->name, it->len);
			ec->path.v[len + it->len] = ';';
			ec->path.n = len + it->len + 1;
			emit(f, t, it->node, ec);
			ec->path.n = len;
		}
	}
	ec->items.n = base;
}

int folded_write(FILE *f, const struct trie *t)
{
	return folded_write_ex(f, t, NULL, 1);
}

int folded_write_ex(FILE *f, const struct trie *t, const uint64_t *first, uint64_t divisor)
{
	struct emit_ctx ec = { first, divisor, { 0 }, { 0 } };
	struct wbuf *w = xmalloc(sizeof(*w));
	w->f = f;
	w->n = 0;
	VEC_RESERVE(&ec.path, 1); /* wbuf_mem reads from it even when empty */
	emit(w, t, 0, &ec);
	wbuf_flush(w);
	free(w);
	VEC_FREE(&ec.items);
	VEC_FREE(&ec.path);
	return ferror(f) ? -EIO : 0;
}
