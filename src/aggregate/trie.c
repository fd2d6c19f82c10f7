/*
 * trie: stack aggregation (aggregate, L6). Children are found through one
 * hash map keyed by (parent, name, kind); sibling lists are linked in
 * insertion order and put in name order by trie_sort().
 */
#include "aggregate/trie.h"

#include <stdlib.h>
#include <string.h>

static uint64_t key_of(uint32_t parent, uint32_t name, uint8_t kind)
{
	return hash_mix2(((uint64_t)parent << 8) | kind, name);
}

void trie_init(struct trie *t, struct strtab *names)
{
	memset(t, 0, sizeof(*t));
	t->names = names;
	hashmap_init(&t->index);
	struct trie_node *root = VEC_PUSH_ZERO(&t->nodes);
	root->name = TRIE_NO_NAME;
	root->kind = FRAME_PROCESS;
	root->parent = root->first_child = root->next_sibling = TRIE_NONE;
}

void trie_release(struct trie *t)
{
	VEC_FREE(&t->nodes);
	hashmap_release(&t->index);
}

uint32_t trie_child(struct trie *t, uint32_t parent, uint32_t name, uint8_t kind)
{
	/* The hash key can collide; chain through the sibling list to confirm. */
	uint64_t k = key_of(parent, name, kind), v;
	if (hashmap_get(&t->index, k, &v)) {
		const struct trie_node *n = &t->nodes.v[v];
		if (n->parent == parent && n->name == name && n->kind == kind)
			return (uint32_t)v;
	}
	for (uint32_t c = t->nodes.v[parent].first_child; c != TRIE_NONE;
	     c = t->nodes.v[c].next_sibling) {
		const struct trie_node *n = &t->nodes.v[c];
		if (n->name == name && n->kind == kind)
			return c;
	}
	uint32_t id = (uint32_t)t->nodes.n;
	struct trie_node *n = VEC_PUSH_ZERO(&t->nodes);
	struct trie_node *p = &t->nodes.v[parent];
	n->name = name;
	n->kind = kind;
	n->parent = parent;
	n->first_child = TRIE_NONE;
	n->next_sibling = p->first_child;
	n->depth = p->depth + 1;
	p->first_child = id;
	if (n->depth > t->max_depth)
		t->max_depth = n->depth;
	if (!hashmap_get(&t->index, k, NULL))
		hashmap_put(&t->index, k, id);
	return id;
}

/* Weights come from input (periods in perf script text): sums saturate at
 * 2^64 - 1 instead of wrapping, so total >= self always holds. */
static void add_sat(uint64_t *sum, uint64_t w)
{
	*sum = *sum > UINT64_MAX - w ? UINT64_MAX : *sum + w;
}

void trie_add(struct trie *t, const struct trie_frame *frames, size_t n, uint64_t weight)
{
	uint32_t cur = 0;
	add_sat(&t->nodes.v[0].total, weight);
	for (size_t i = 0; i < n; i++) {
		cur = trie_child(t, cur, frames[i].name, frames[i].kind);
		add_sat(&t->nodes.v[cur].total, weight);
	}
	add_sat(&t->nodes.v[cur].self, weight);
}

const char *trie_name(const struct trie *t, uint32_t id)
{
	uint32_t name = t->nodes.v[id].name;
	return name == TRIE_NO_NAME ? "" : strtab_get(t->names, name);
}

static int cmp_nodes(const void *a, const void *b, void *arg)
{
	const struct trie *t = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(trie_name(t, x), trie_name(t, y));
	if (c)
		return c;
	return (int)t->nodes.v[x].kind - (int)t->nodes.v[y].kind;
}

void trie_sort(struct trie *t)
{
	VEC(uint32_t) kids = { 0 };
	for (size_t p = 0; p < t->nodes.n; p++) {
		kids.n = 0;
		for (uint32_t c = t->nodes.v[p].first_child; c != TRIE_NONE;
		     c = t->nodes.v[c].next_sibling)
			VEC_PUSH(&kids, c);
		if (kids.n < 2)
			continue;
		qsort_r(kids.v, kids.n, sizeof(kids.v[0]), cmp_nodes, t);
		t->nodes.v[p].first_child = kids.v[0];
		for (size_t i = 0; i + 1 < kids.n; i++)
			t->nodes.v[kids.v[i]].next_sibling = kids.v[i + 1];
		t->nodes.v[kids.v[kids.n - 1]].next_sibling = TRIE_NONE;
	}
	VEC_FREE(&kids);
}
