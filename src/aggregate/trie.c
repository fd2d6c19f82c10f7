/*
 * trie: stack aggregation (aggregate, L6). A node's only child is found
 * through the node itself; the children of nodes with more are found
 * through one open-addressing table hashed by (parent, name, kind), 8
 * bytes a slot (node id and hash tag): the key is the node itself,
 * compared exactly. A node that has no children needs no lookup at all
 * (the rest of a new stack). Sibling lists are linked in insertion order
 * and put in name order by trie_sort().
 */
#include "aggregate/trie.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/hugebuf.h"

static uint64_t hash_of(uint32_t parent, uint32_t name, uint8_t kind)
{
	return hash_mix2(((uint64_t)parent << 8) | kind, name);
}

#define SLOT_ID(s) ((uint32_t)(s))
#define SLOT_TAG(h) ((h) & 0xffffffff00000000ULL)

/* A hash's first slot: its top bits, which the slot's tag keeps, so the
 * index grows without reading the nodes again. */
static size_t slot_of(const struct trie *t, uint64_t h)
{
	return (size_t)(h >> t->index_shift);
}

/*
 * The index is a mapping of its own, grown in place by mremap (pages
 * moved, never copied) and rehashed where it lies: a table grown by
 * allocating the next one touched every table's pages (about twice the
 * last one's), each a page fault. Its INDEX_TAIL slots past the last first
 * slot let probes run on without wrapping around, which is what makes the
 * rehash in place possible (index_rehash); an entry whose probe would run
 * past them grows the index instead.
 */
#define INDEX_TAIL 64
#define INDEX_FIRST 1024 /* slots (first slots, the tail aside) of a new index */

static size_t index_bytes(size_t slots)
{
	size_t page = 4096, b = (slots + INDEX_TAIL) * sizeof(uint64_t);
	return (b + page - 1) & ~(page - 1);
}

/* Put a slot (tag and id) in the index; false if its probe runs past the
 * tail. Node 0 (the root) is nobody's child, so id 0 marks an empty slot. */
static bool index_put(struct trie *t, uint64_t slot)
{
	size_t end = t->index_mask + 1 + INDEX_TAIL;
	for (size_t i = slot_of(t, slot); i < end; i++)
		if (!SLOT_ID(t->index[i])) {
			t->index[i] = slot;
			return true;
		}
	return false;
}

/*
 * Double the index where it lies: the mapping grows (its new slots zero),
 * then the old entries move to their new places cluster by cluster, from
 * the highest down. A cluster (a run of entries between empty slots) at
 * [a, b] holds entries whose first slots are in [a, b]; doubled, those are
 * at 2a or more, above every entry not moved yet (all below a), so no
 * probe runs over a slot that is emptied later. A cluster is lifted out
 * before its entries are put back. No probe runs past the tail: the
 * entries whose new first slot is x or more had their old one at x/2 or
 * more, so they fitted in the old index's last S + TAIL - x/2 slots, no
 * more than the 2S + TAIL - x the doubled one has from x.
 */
static void index_rehash(struct trie *t, size_t old_end)
{
	uint64_t *ix = t->index;
	VEC(uint64_t) lift = { 0 };

	for (size_t b = old_end; b-- > 0;) {
		if (!SLOT_ID(ix[b]))
			continue;
		size_t a = b;
		while (a > 0 && SLOT_ID(ix[a - 1]))
			a--;
		size_t n = b - a + 1;
		VEC_RESERVE(&lift, n);
		memcpy(lift.v, ix + a, n * sizeof(*ix));
		memset(ix + a, 0, n * sizeof(*ix));
		for (size_t i = 0; i < n; i++)
			if (!index_put(t, lift.v[i]))
				xalloc_die("trie index"); /* cannot happen: see above */
		b = a;
	}
	VEC_FREE(&lift);
}

/* Grow the mapping to 'slots' first slots (and the tail); new slots are zero. */
static void index_map(struct trie *t, size_t slots)
{
	if (slots > (size_t)1 << 32)
		xalloc_die("trie index"); /* the tag's 32 bits place a slot */
	size_t bytes = index_bytes(slots);
	void *v = t->index ? hugebuf_remap(t->index, t->index_mapped, bytes)
			   : mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (v == MAP_FAILED)
		xalloc_die("trie index");
	/* Mapped writable now, while zero: a probe reading a page never
	 * written maps the zero page, and the entry written there then faults
	 * again. One call instead of a fault a page; a memset where the kernel
	 * has no MADV_POPULATE_WRITE (before 5.14). */
	char *fresh = (char *)v + t->index_mapped;
	size_t n = bytes - t->index_mapped;
	if (!hugebuf_populate(fresh, n))
		memset(fresh, 0, n);
	t->index = v;
	t->index_mapped = bytes;
	t->index_mask = slots - 1;
	t->index_shift = 64 - (unsigned)__builtin_ctzll(slots);
}

/*
 * An entry whose probe ran past the tail (a cluster at the top, rare):
 * every entry taken out, the index doubled and the entries put back,
 * doubling again until they all fit.
 */
static void index_rebuild(struct trie *t, uint64_t slot)
{
	size_t end = t->index_mask + 1 + INDEX_TAIL;
	VEC(uint64_t) all = { 0 };
	VEC_RESERVE(&all, t->nindexed + 1);
	VEC_PUSH(&all, slot);
	for (size_t i = 0; i < end; i++)
		if (SLOT_ID(t->index[i]))
			VEC_PUSH(&all, t->index[i]);
	for (bool fits = false; !fits;) {
		memset(t->index, 0, end * sizeof(*t->index));
		index_map(t, (t->index_mask + 1) * 2);
		end = t->index_mask + 1 + INDEX_TAIL;
		fits = true;
		for (size_t i = 0; i < all.n && fits; i++)
			fits = index_put(t, all.v[i]);
	}
	VEC_FREE(&all);
}

static void index_grow(struct trie *t)
{
	if (!t->index) {
		index_map(t, INDEX_FIRST);
		return;
	}
	size_t old_end = t->index_mask + 1 + INDEX_TAIL;
	index_map(t, (t->index_mask + 1) * 2);
	index_rehash(t, old_end);
}

_Static_assert(TRIE_INDEX_MIN == 2, "indexed() counts children by their links");
_Static_assert(sizeof(struct trie_node) == 32, "a trie node is 32 bytes");
_Static_assert(FRAME_KIND_COUNT <= 8, "enum frame_kind fits trie_node.kind");

/* Two children or more: the first has a sibling. */
static bool indexed(const struct trie *t, uint32_t parent)
{
	uint32_t c = t->nodes.v[parent].first_child;
	return c != TRIE_NONE && t->nodes.v[c].next_sibling != TRIE_NONE;
}

/* Index node 'id' (a child of a parent with two or more), keeping the
 * index at most 3/4 full. */
static void index_add(struct trie *t, uint32_t id)
{
	if (!t->index || (t->nindexed + 1) * 4 > (t->index_mask + 1) * 3)
		index_grow(t);
	const struct trie_node *n = &t->nodes.v[id];
	uint64_t slot = SLOT_TAG(hash_of(n->parent, n->name, n->kind)) | id;
	if (!index_put(t, slot))
		index_rebuild(t, slot);
	t->nindexed++;
}

void trie_init(struct trie *t, struct strtab *names)
{
	memset(t, 0, sizeof(*t));
	t->names = names;
	struct trie_node *root = VEC_PUSH_ZERO(&t->nodes);
	root->name = TRIE_NO_NAME;
	root->kind = FRAME_PROCESS;
	root->parent = root->first_child = root->next_sibling = TRIE_NONE;
}

/*
 * Large node arrays live in a mapping of their own, aligned to and advised
 * for huge pages (one fault per 2 MiB instead of 512) and grown by mremap
 * (pages moved, not copied): t->nodes_mapped bytes of it, 0 while the
 * nodes are malloc's.
 */

/* Advise [from, to) of the node mapping (bytes from its start). */
static void nodes_advise(struct trie *t, size_t from, size_t to, int advice)
{
	if (from < to)
		(void)madvise((char *)t->nodes.v + from, to - from, advice); /* a hint */
}

/* Room for 'want' nodes; false if a mapping could not be had or grown. */
static bool nodes_map(struct trie *t, size_t want)
{
	if (want > SIZE_MAX / 4 / sizeof(struct trie_node))
		return false;
	size_t bytes = (want * sizeof(struct trie_node) + HUGEBUF_PAGE - 1) & ~(HUGEBUF_PAGE - 1);
	void *v = MAP_FAILED;
	if (t->nodes_mapped) {
		/* One advice over the whole mapping again: mremap moves one
		 * mapping, not the pieces trie_expect's advice split it in. */
		nodes_advise(t, 0, t->nodes_mapped, MADV_HUGEPAGE);
		v = hugebuf_remap(t->nodes.v, t->nodes_mapped, bytes);
	}
	if (v == MAP_FAILED) { /* the first mapping, or pieces that would not join */
		v = hugebuf_map(bytes);
		if (!v)
			return false;
		if (t->nodes.n)
			memcpy(v, t->nodes.v, t->nodes.n * sizeof(struct trie_node));
		if (t->nodes_mapped)
			munmap(t->nodes.v, t->nodes_mapped);
		else
			free(t->nodes.v);
	}
	t->nodes.v = v;
	t->nodes.cap = bytes / sizeof(struct trie_node);
	t->nodes_mapped = t->nodes_huge = bytes;
	return true;
}

void trie_reserve(struct trie *t, size_t nodes)
{
	if (nodes <= t->nodes.cap)
		return;
	if (nodes * sizeof(struct trie_node) < HUGEBUF_PAGE)
		VEC_RESERVE(&t->nodes, nodes);
	else
		(void)nodes_map(t, nodes); /* without it, the nodes grow as they come */
}

/* A huge page is worth its clearing (~0.3 ms here, against ~3 us a 4 KiB
 * fault) when nodes fill at least this much of it. */
#define HUGE_WORTH (HUGEBUF_PAGE / 4)

void trie_expect(struct trie *t, size_t nodes)
{
	if (!t->nodes_mapped)
		return;
	size_t next = (t->nodes.n + 1) * sizeof(struct trie_node);
	size_t from = (next + HUGEBUF_PAGE - 1) & ~(HUGEBUF_PAGE - 1); /* untouched from here */
	size_t want = nodes < t->nodes_mapped / sizeof(struct trie_node)
			      ? nodes * sizeof(struct trie_node)
			      : t->nodes_mapped;
	size_t end = want & ~(HUGEBUF_PAGE - 1);
	if (want - end >= HUGE_WORTH)
		end += HUGEBUF_PAGE;
	if (end < from)
		end = from;
	if (end > t->nodes_mapped)
		end = t->nodes_mapped;
	if (end < t->nodes_huge)
		nodes_advise(t, end, t->nodes_huge, MADV_NOHUGEPAGE);
	else
		nodes_advise(t, t->nodes_huge > from ? t->nodes_huge : from, end, MADV_HUGEPAGE);
	t->nodes_huge = end;
}

/* A new node at the end of t->nodes, zeroed. */
static struct trie_node *push_node(struct trie *t)
{
	if (t->nodes.n == t->nodes.cap && t->nodes_mapped && !nodes_map(t, t->nodes.cap * 2))
		xalloc_die("trie nodes");
	if (t->nodes_mapped) {
		struct trie_node *n = &t->nodes.v[t->nodes.n++];
		memset(n, 0, sizeof(*n));
		return n;
	}
	return VEC_PUSH_ZERO(&t->nodes);
}

void trie_release(struct trie *t)
{
	if (t->nodes_mapped) {
		munmap(t->nodes.v, t->nodes_mapped);
		t->nodes.v = NULL;
		t->nodes.n = t->nodes.cap = t->nodes_mapped = t->nodes_huge = 0;
	}
	VEC_FREE(&t->nodes);
	VEC_FREE(&t->last);
	VEC_FREE(&t->last_path);
	if (t->index)
		munmap(t->index, t->index_mapped);
	t->index = NULL;
	t->index_mapped = 0;
	t->index_mask = 0;
	t->index_shift = 0;
	t->nindexed = 0;
}

/* A new child of 'parent', even if one with the same (name, kind) exists. */
static uint32_t new_child(struct trie *t, uint32_t parent, uint32_t name, uint8_t kind)
{
	uint32_t id = (uint32_t)t->nodes.n;
	struct trie_node *n = push_node(t);
	struct trie_node *p = &t->nodes.v[parent];
	n->name = name;
	n->kind = kind;
	n->parent = parent;
	n->first_child = TRIE_NONE;
	n->next_sibling = p->first_child;
	p->first_child = id;
	/*
	 * The index takes a parent's children once it has TRIE_INDEX_MIN:
	 * all of them at that moment, each later one as it comes. Twins (a
	 * flame chart's) are indexed too; lookups find one of them.
	 */
	uint32_t older = n->next_sibling;
	if (older == TRIE_NONE)
		return id;
	if (t->nodes.v[older].next_sibling == TRIE_NONE) { /* the second child */
		index_add(t, older);
		index_add(t, id);
	} else {
		index_add(t, id);
	}
	return id;
}

uint32_t trie_child(struct trie *t, uint32_t parent, uint32_t name, uint8_t kind)
{
	/* A node without children needs no lookup (the rest of a new stack's
	 * path: one probe of the parent instead of an index search). */
	if (t->nodes.v[parent].first_child == TRIE_NONE)
		return new_child(t, parent, name, kind);
	uint32_t c = trie_find(t, parent, name, kind);
	return c != TRIE_NONE ? c : new_child(t, parent, name, kind);
}

/* Weights come from input (periods in perf script text): sums saturate at
 * 2^64 - 1 instead of wrapping, so total >= self always holds. */
static void add_sat(uint64_t *sum, uint64_t w)
{
	*sum = *sum > UINT64_MAX - w ? UINT64_MAX : *sum + w;
}

uint32_t trie_add(struct trie *t, const struct trie_frame *frames, size_t n, uint64_t weight)
{
	uint32_t cur = 0;
	add_sat(&t->nodes.v[0].total, weight);
	size_t i = 0;
	for (size_t same = n < t->last.n ? n : t->last.n;
	     i < same && t->last.v[i].name == frames[i].name && t->last.v[i].kind == frames[i].kind;
	     i++) {
		cur = t->last_path.v[i];
		add_sat(&t->nodes.v[cur].total, weight);
	}
	VEC_RESERVE(&t->last, n);
	VEC_RESERVE(&t->last_path, n);
	for (; i < n; i++) {
		cur = trie_child(t, cur, frames[i].name, frames[i].kind);
		add_sat(&t->nodes.v[cur].total, weight);
		t->last.v[i] = frames[i];
		t->last_path.v[i] = cur;
	}
	t->last.n = t->last_path.n = n;
	add_sat(&t->nodes.v[cur].self, weight);
	return cur;
}

void trie_fill_totals(struct trie *t)
{
	struct trie_node *v = t->nodes.v;
	v[0].total = 0;
	for (size_t id = t->nodes.n - 1; id > 0; id--) {
		add_sat(&v[id].total, v[id].self);
		add_sat(&v[v[id].parent].total, v[id].total);
	}
	add_sat(&v[0].total, v[0].self);
}

enum frame_kind frame_kind_of_name(const char *s, size_t n)
{
	if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']') {
		switch (s[n - 2]) {
		case 'k':
			return FRAME_KERNEL;
		case 'j':
			return FRAME_JIT;
		case 'i':
			return FRAME_INLINE;
		default:
			break;
		}
	}
	if (n >= 9 && !memcmp(s, "[off-cpu", 8) && s[n - 1] == ']')
		return FRAME_OFFCPU;
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']')
		return FRAME_UNKNOWN;
	return FRAME_USER;
}

uint32_t trie_depth(const struct trie *t, uint32_t id)
{
	uint32_t d = 0;
	for (; id != 0; id = t->nodes.v[id].parent)
		d++;
	return d;
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
		uint32_t first = t->nodes.v[p].first_child;
		if (first == TRIE_NONE || t->nodes.v[first].next_sibling == TRIE_NONE)
			continue; /* no siblings to order (most nodes) */
		kids.n = 0;
		for (uint32_t c = first; c != TRIE_NONE;
		     c = t->nodes.v[c].next_sibling)
			VEC_PUSH(&kids, c);
		/* Children are linked newest first: stacks added in name order
		 * (sorted folded text) leave each list reversed, which one
		 * compare per child tells and a reversal sorts. */
		size_t desc = 1;
		while (desc < kids.n && cmp_nodes(&kids.v[desc - 1], &kids.v[desc], t) > 0)
			desc++;
		if (desc == kids.n) {
			for (size_t a = 0, b = kids.n - 1; a < b; a++, b--) {
				uint32_t x = kids.v[a];
				kids.v[a] = kids.v[b];
				kids.v[b] = x;
			}
		} else {
			qsort_r(kids.v, kids.n, sizeof(kids.v[0]), cmp_nodes, t);
		}
		t->nodes.v[p].first_child = kids.v[0];
		for (size_t i = 0; i + 1 < kids.n; i++)
			t->nodes.v[kids.v[i]].next_sibling = kids.v[i + 1];
		t->nodes.v[kids.v[kids.n - 1]].next_sibling = TRIE_NONE;
	}
	VEC_FREE(&kids);
}

uint32_t trie_find(const struct trie *t, uint32_t parent, uint32_t name, uint8_t kind)
{
	if (!indexed(t, parent)) {
		/* A few children: the sibling list. The first created of twins
		 * (a flame chart's) is the last in the list. */
		uint32_t found = TRIE_NONE;
		for (uint32_t c = t->nodes.v[parent].first_child; c != TRIE_NONE;
		     c = t->nodes.v[c].next_sibling)
			if (t->nodes.v[c].name == name && t->nodes.v[c].kind == kind)
				found = c;
		return found;
	}
	uint64_t h = hash_of(parent, name, kind), tag = SLOT_TAG(h);
	size_t end = t->index_mask + 1 + INDEX_TAIL;
	for (size_t i = slot_of(t, h); i < end && SLOT_ID(t->index[i]); i++) {
		if (SLOT_TAG(t->index[i]) != tag)
			continue;
		uint32_t id = SLOT_ID(t->index[i]);
		const struct trie_node *n = &t->nodes.v[id];
		if (n->parent == parent && n->name == name && n->kind == kind)
			return id;
	}
	return TRIE_NONE;
}

uint32_t trie_chart_add(struct trie *t, struct trie_chart *ch, const struct trie_frame *frames,
			size_t n, uint64_t weight)
{
	t->last.n = t->last_path.n = 0; /* twins: trie_add's memo does not apply */
	size_t same = 0;
	while (same < n && same < ch->path.n) {
		const struct trie_node *p = &t->nodes.v[ch->path.v[same]];
		if (p->name != frames[same].name || p->kind != frames[same].kind)
			break;
		same++;
	}
	ch->path.n = same;
	uint32_t cur = same ? ch->path.v[same - 1] : 0;
	for (size_t i = same; i < n; i++) {
		cur = new_child(t, cur, frames[i].name, frames[i].kind);
		VEC_PUSH(&ch->path, cur);
	}
	add_sat(&t->nodes.v[0].total, weight);
	for (size_t i = 0; i < n; i++)
		add_sat(&t->nodes.v[ch->path.v[i]].total, weight);
	add_sat(&t->nodes.v[cur].self, weight);
	return cur;
}

void trie_chart_finish(struct trie *t, struct trie_chart *ch)
{
	/* Children were prepended: reverse each sibling list into insertion order. */
	for (size_t p = 0; p < t->nodes.n; p++) {
		uint32_t prev = TRIE_NONE, c = t->nodes.v[p].first_child;
		while (c != TRIE_NONE) {
			uint32_t next = t->nodes.v[c].next_sibling;
			t->nodes.v[c].next_sibling = prev;
			prev = c;
			c = next;
		}
		t->nodes.v[p].first_child = prev;
	}
	VEC_FREE(&ch->path);
}

void trie_graft(struct trie *dst, const struct trie *src, uint32_t *map)
{
	size_t nnames = src->names->n;
	uint32_t *names; /* src name id -> dst name id, TRIE_NONE until needed */
	XALLOC_ARRAY(names, nnames ? nnames : 1);
	memset(names, 0xff, (nnames ? nnames : 1) * sizeof(*names));
	uint32_t *to = map;
	if (!to)
		XALLOC_ARRAY(to, src->nodes.n);
	to[0] = 0;
	/* A node comes after its parent (ids are given in creation order). */
	for (uint32_t id = 1; id < src->nodes.n; id++) {
		const struct trie_node *n = &src->nodes.v[id];
		if (names[n->name] == TRIE_NONE)
			names[n->name] = strtab_intern(dst->names, strtab_get(src->names, n->name),
						       strtab_len(src->names, n->name));
		to[id] = trie_child(dst, to[n->parent], names[n->name], n->kind);
	}
	free(names);
	if (!map)
		free(to);
}

void trie_merge(struct trie *dst, const struct trie *src)
{
	uint32_t *map;
	XALLOC_ARRAY(map, src->nodes.n);
	trie_graft(dst, src, map);
	for (uint32_t id = 0; id < src->nodes.n; id++) {
		struct trie_node *d = &dst->nodes.v[map[id]];
		add_sat(&d->total, src->nodes.v[id].total);
		add_sat(&d->self, src->nodes.v[id].self);
	}
	free(map);
	dst->last.n = dst->last_path.n = 0; /* trie_add's memo: the paths moved on */
}

void trie_reverse(const struct trie *src, struct trie *dst)
{
	VEC(struct trie_frame) fr = { 0 };
	for (uint32_t id = 1; id < src->nodes.n; id++) {
		const struct trie_node *n = &src->nodes.v[id];
		if (!n->self)
			continue;
		fr.n = 0;
		for (uint32_t c = id; c != 0; c = src->nodes.v[c].parent)
			VEC_PUSH(&fr, ((struct trie_frame){ src->nodes.v[c].name,
							    src->nodes.v[c].kind }));
		trie_add(dst, fr.v, fr.n, n->self);
	}
	VEC_FREE(&fr);
}

void trie_walk_init(struct trie_walk *w, const struct trie *t, uint32_t top)
{
	memset(w, 0, sizeof(*w));
	w->t = t;
	w->top = w->last = top;
}

uint32_t trie_walk_next(struct trie_walk *w)
{
	if (!w->started) {
		w->started = w->descend = true;
		return w->top;
	}
	if (w->descend) {
		uint32_t c = w->t->nodes.v[w->last].first_child;
		if (c != TRIE_NONE)
			VEC_PUSH(&w->next, c);
	}
	while (w->next.n) {
		uint32_t id = w->next.v[w->next.n - 1];
		if (id == TRIE_NONE) {
			w->next.n--;
			continue;
		}
		w->next.v[w->next.n - 1] = w->t->nodes.v[id].next_sibling;
		w->last = id;
		w->level = (uint32_t)w->next.n;
		w->descend = true;
		return id;
	}
	w->descend = false;
	return TRIE_NONE;
}

void trie_walk_skip(struct trie_walk *w)
{
	w->descend = false;
}

void trie_walk_release(struct trie_walk *w)
{
	VEC_FREE(&w->next);
}
