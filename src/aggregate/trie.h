/*
 * trie: the stack trie every profile is aggregated into (aggregate, L6).
 *
 * A sample's stack, root first (process name, then outermost caller, ...,
 * leaf), is added as a path from node 0, the invisible root. Each node
 * holds the weight of the stacks that pass through it ('total') and that
 * end in it ('self'), so total == self + sum(children's totals).
 *
 *            [0 root]                 total = all samples
 *              |
 *          [1 "myprog"]               process name (FRAME_PROCESS)
 *          /          \
 *   [2 "main"]     [5 "_start"]
 *       |
 *   [3 "work"] ...
 *
 * Invariants:
 *  1. Node 0 is the root; it has name TRIE_NO_NAME and kind FRAME_PROCESS.
 *  2. A node's children are distinct by (name, kind).
 *  3. After trie_sort(), siblings are linked in order of name bytes, then
 *     kind, so walks are deterministic whatever order samples came in.
 * Names are ids in a strtab the caller owns and passes at init.
 */
#ifndef KILN_AGGREGATE_TRIE_H
#define KILN_AGGREGATE_TRIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hashmap.h"
#include "base/strtab.h"
#include "base/vec.h"

enum frame_kind {
	FRAME_PROCESS = 0, /* the root frame: comm (or comm-pid) */
	FRAME_USER,        /* user-space code with a symbol */
	FRAME_KERNEL,      /* kernel code */
	FRAME_JIT,         /* JIT-compiled code (perf map) */
	FRAME_INLINE,      /* an inlined call */
	FRAME_UNKNOWN,     /* no symbol: [dso] or [unknown] */
	FRAME_OFFCPU,      /* the leaf of blocked time: [off-cpu: STATE] */
	FRAME_KIND_COUNT
};
_Static_assert(FRAME_KIND_COUNT <= 8, "a node keeps its kind in 3 bits");

/*
 * The kind a folded frame's name says: the suffixes "_[k]", "_[j]" and
 * "_[i]" (stackcollapse's annotations) mark kernel, JIT and inlined
 * frames, a name in brackets ("[libc.so.6]", "[unknown]") unknown code,
 * any other name user code. The process frame is known by its place, not
 * its name: callers give it FRAME_PROCESS themselves. Shared by the
 * readers of folded stacks and of perf script text.
 */
enum frame_kind frame_kind_of_name(const char *s, size_t n);

#define TRIE_NO_NAME STRTAB_MAX_ID /* the root's name: no strtab id takes it */
#define TRIE_NONE UINT32_MAX
#define TRIE_INDEX_MIN 2 /* children from which a node's children are indexed */

struct trie_frame {
	uint32_t name; /* strtab id */
	uint8_t kind;  /* enum frame_kind */
};

/*
 * 32 bytes: a profile of many distinct stacks is mostly nodes. A node's
 * depth is its distance from the root (walks count it); whether its
 * children are indexed follows from its sibling list (two or more).
 */
struct trie_node {
	uint64_t total;            /* weight of stacks through this node */
	uint64_t self;             /* weight of stacks ending here */
	uint32_t name : 29;        /* strtab id (< STRTAB_MAX_ID), TRIE_NO_NAME for the root */
	uint32_t kind : 3;         /* enum frame_kind */
	uint32_t parent;           /* TRIE_NONE for the root */
	uint32_t first_child;      /* TRIE_NONE if a leaf */
	uint32_t next_sibling;     /* TRIE_NONE if last */
};

struct trie {
	struct strtab *names; /* borrowed */
	VEC(struct trie_node) nodes; /* grown by trie.c alone (trie_reserve's mapping) */
	size_t nodes_mapped;          /* bytes of that mapping, 0 while 'nodes' is malloc's */
	size_t nodes_huge;            /* its first bytes advised for huge pages (trie_expect) */
	/*
	 * The children of nodes with TRIE_INDEX_MIN children or more, by open
	 * addressing over (parent, name, kind): a slot holds the node id (low
	 * 32 bits, 0 = empty) and the high half of the key's hash, so probes
	 * read nodes only when the hash matches; the hash's top bits are its
	 * first slot. A node with a single child
	 * finds it without the index (most nodes of a deep profile), so the
	 * index stays small. Probes never wrap around: 64 slots past the
	 * last first slot take the overflow (trie.c: the index grows in place).
	 */
	uint64_t *index;      /* a mapping of index_mapped bytes, NULL before the first entry */
	size_t index_mapped;
	size_t index_mask;    /* first slots - 1 (a power of two), 0 before the first entry */
	unsigned index_shift; /* 64 - log2(slots): a hash's top bits pick its first slot */
	size_t nindexed;      /* entries in the index */
	/* trie_add's last stack and its nodes: the next stack's common prefix
	 * (the same thread's outer frames, mostly) needs no lookups. */
	VEC(struct trie_frame) last;
	VEC(uint32_t) last_path;
};

void trie_init(struct trie *t, struct strtab *names);
void trie_release(struct trie *t);
/*
 * Room for 'nodes' nodes in all, a hint from the caller's input size (a
 * trie that outgrows it still grows). A large reservation is aligned to
 * and advised for huge pages where the system has them (transparent huge
 * pages on madvise): one page fault per 2 MiB of nodes instead of 512. The
 * room is address space until nodes are added; if it cannot be had, the
 * trie just grows as before.
 */
void trie_reserve(struct trie *t, size_t nodes);
/*
 * The caller's estimate of the nodes the trie will hold in the end,
 * refined as its input is read (call it as often as is cheap). Past the
 * huge page being filled, trie_reserve's mapping keeps huge pages only
 * where the estimate fills a quarter of one or more: a huge page is one
 * fault but 2 MiB cleared, dearer than 4 KiB pages for a sliver of nodes.
 * Nothing to do without such a mapping.
 */
void trie_expect(struct trie *t, size_t nodes);
/* Add a stack, root first (frames[0] is normally the process frame); returns its leaf node. */
uint32_t trie_add(struct trie *t, const struct trie_frame *frames, size_t n, uint64_t weight);
/*
 * Every node's total made its self plus its children's totals (sums
 * saturate), in one pass from the last node (a node comes after its
 * parent): for a trie whose stacks were added to their leaves' selfs
 * alone, non-root totals left 0. The root's total is worked out again too.
 */
void trie_fill_totals(struct trie *t);
/* Returns the child of 'parent' with (name, kind), creating it if absent. */
uint32_t trie_child(struct trie *t, uint32_t parent, uint32_t name, uint8_t kind);
/* Sort every sibling list by name bytes then kind (invariant 3). */
void trie_sort(struct trie *t);
static inline const struct trie_node *trie_node(const struct trie *t, uint32_t id)
{
	return &t->nodes.v[id];
}
/* The depth of a node: root 0, process 1, ...; walks the parents (O(depth)). */
uint32_t trie_depth(const struct trie *t, uint32_t id);
/* The name of a node ("" for the root). */
const char *trie_name(const struct trie *t, uint32_t id);
/* The child of 'parent' with (name, kind), or TRIE_NONE: never creates one. */
uint32_t trie_find(const struct trie *t, uint32_t parent, uint32_t name, uint8_t kind);

/*
 * Flame charts (flamegraph.pl --flamechart): stacks kept in the order they
 * come, a stack merged only with the one just before it (their common
 * prefix), so the x axis is time. Add every stack with trie_chart_add,
 * then call trie_chart_finish (instead of trie_sort) to put siblings in
 * insertion order. The same (name, kind) may then occur more than once
 * among siblings; trie_child/trie_find see only one of them.
 */
struct trie_chart {
	VEC(uint32_t) path; /* nodes of the last stack added, root first, root excluded */
};
uint32_t trie_chart_add(struct trie *t, struct trie_chart *ch, const struct trie_frame *frames,
			size_t n, uint64_t weight);
void trie_chart_finish(struct trie *t, struct trie_chart *ch);

/*
 * The one walk of a trie the writers share (svg, speedscope, pprof):
 * pre-order from 'top', siblings in list order, without recursion (a
 * profile's depth is bounded by its input, not by the C stack):
 *
 *   struct trie_walk w;
 *   trie_walk_init(&w, t, top);
 *   for (uint32_t id; (id = trie_walk_next(&w)) != TRIE_NONE;)
 *           ... w.level: 0 for top, 1 for its children, ...;
 *           trie_walk_skip(&w) leaves id's subtree out ...
 *   trie_walk_release(&w);
 *
 * The trie must not change during the walk.
 */
struct trie_walk {
	const struct trie *t;
	VEC(uint32_t) next; /* by level - 1: the next sibling to visit there */
	uint32_t top, last; /* last: the node returned last */
	uint32_t level;     /* the level of 'last' */
	bool started, descend;
};
void trie_walk_init(struct trie_walk *w, const struct trie *t, uint32_t top);
/* The next node, or TRIE_NONE when the walk is over. */
uint32_t trie_walk_next(struct trie_walk *w);
/* Do not visit the descendants of the node returned last. */
void trie_walk_skip(struct trie_walk *w);
void trie_walk_release(struct trie_walk *w);

/*
 * Merging tries built apart (each over its own strtab, e.g. one per
 * thread): trie_graft gives 'dst' every path of 'src' (names interned
 * into dst's strtab, each distinct name once), adding no weight, and
 * fills map[src node] = dst node when 'map' is not NULL (src->nodes.n
 * entries). trie_merge also adds src's totals and selfs to those nodes
 * (sums saturate, as trie_add's do). Neither applies to flame-chart
 * tries (twins); 'dst' is left unsorted.
 */
void trie_graft(struct trie *dst, const struct trie *src, uint32_t *map);
void trie_merge(struct trie *dst, const struct trie *src);

/*
 * Fill 'dst' (initialised over the same strtab) with the stacks of 'src'
 * reversed: leaf first, root frame last (flamegraph.pl --reverse). Weights
 * are kept; 'dst' is left unsorted.
 */
void trie_reverse(const struct trie *src, struct trie *dst);

#endif
