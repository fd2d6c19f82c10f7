/*
 * hist: perf report's table of entries (aggregate, L6).
 *
 * Samples come in as a thread, a cpu, a period and a stack of frames
 * (leaf first, each a symbol name and a dso name, interned by the
 * caller). Each sample is keyed by the sort keys (comm, pid, dso, sym,
 * cpu, ...) of its leaf: that entry gets the sample's self period. With
 * children (perf's --children), every frame of the stack keys an entry
 * too, and each distinct entry of a sample gets the period once as
 * children (inclusive) period, however often recursion repeats it.
 *
 * Each entry keeps its callchain tree: the stacks that reached it, one
 * node per frame, in the order asked (caller: root to the entry's frame
 * or, for an inclusive entry, from its frame down to the leaf; callee:
 * the other way). Node periods say how much of the entry went through.
 *
 * hist_finish() sorts the entries (by children or self period, then by
 * the keys) and each node's children (by period, then name), so a
 * printer or a browser walks them in order: hist_entry(), and per node
 * first_child / next_sibling.
 *
 * Entry periods are plain u64 sums kept per entry; a live view (top) can
 * scale them down (hist_decay) and re-sort. Filters mark samples, as
 * perf 6.1's --comm, --pid, --tid, --dsos and --symbols do: a filtered
 * sample still counts in the total and in the periods of the entries it
 * reaches, but only entries an unfiltered sample made (the first to reach
 * them) are shown (HIST_SHOWN), as perf keeps an entry's first sample's
 * filter bits.
 */
#ifndef KILN_AGGREGATE_HIST_H
#define KILN_AGGREGATE_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hashmap.h"
#include "base/strtab.h"
#include "base/vec.h"

#define HIST_NONE UINT32_MAX
/* Callchain nodes kept at most (about 1 GiB with their index): a profile
 * of many distinct deep stacks stops growing its trees there (chains_cut)
 * while its periods stay exact. */
#define HIST_MAX_NODES (UINT32_C(1) << 24)

/* Sort keys, as perf report's -s names them. */
enum hist_sort {
	HIST_COMM,
	HIST_PID, /* tid:comm, as perf's "pid" key (the thread; its latest comm) */
	HIST_DSO,
	HIST_SYM,
	HIST_CPU,
	HIST_SRCLINE, /* "file:line" of the address (perf's srcline) */
	HIST_SRCFILE, /* its file ("" when unknown) */
	HIST_SYMOFF,  /* the symbol and the offset in it (newer perf's symoff) */
	HIST_PARENT,  /* the first caller matching the parent pattern (perf's parent) */
	HIST_SORT_MAX
};
#define HIST_MAX_KEYS 8

/* A frame: its symbol's name (HIST_NONE: unresolved, 'addr' names it) and
 * its dso's name (HIST_NONE: no mapping), strtab ids. */
struct hist_frame {
	uint32_t sym, dso;
	uint64_t addr; /* unresolved frames: the address perf's Symbol column prints
			* (dso-relative in a mapped file, else the address) */
	uint64_t ip;   /* unresolved frames: the address callchains print */
	uint64_t start; /* the symbol's start (dso-relative): equal callchain
			 * branches of one dso are ordered by it, highest first, as perf's */
	bool kernel;
	/* Set by the caller when the keys ask for them: */
	uint32_t srcline, srcfile; /* HIST_SRCLINE, HIST_SRCFILE: strtab ids */
	uint32_t csrcline, csrcfile; /* the same for the frame's inclusive entry (perf
				      * looks those up by the unmapped address) */
	uint64_t off;              /* HIST_SYMOFF: the address's offset in its symbol */
};

/* An entry's key: only the fields of the sort keys in use are set. */
struct hist_key {
	uint32_t comm, dso, sym;
	int32_t pid;   /* HIST_PID: the thread id */
	uint32_t cpu;
	uint64_t addr; /* sym HIST_NONE: the address */
	uint64_t start; /* sym: its start; with 'dso' a symbol's identity, as perf
			 * keys it (two _start in two dsos are two entries) */
	bool kernel;   /* [k] */
	uint32_t srcline, srcfile; /* strtab ids */
	uint32_t parent; /* strtab id, HIST_NONE: perf's "[other]" */
	uint64_t off;    /* HIST_SYMOFF: offset in the symbol */
};

/* A callchain node: one frame on a path through the entry. */
struct hist_node {
	uint32_t frame;      /* index in hist.frames */
	uint32_t parent;     /* HIST_NONE for a root */
	uint32_t first_child, next_sibling; /* HIST_NONE-terminated; sorted by hist_finish */
	uint64_t hit;        /* period of paths ending here */
	uint64_t cumul;      /* period of paths through here (hit included) */
	uint32_t count;      /* samples through here */
};

#define HIST_SHOWN 1u /* its first sample was not filtered (perf keeps the
			 * filter bits of the sample that made an entry) */

struct hist_entry {
	struct hist_key k;
	uint64_t self, children; /* periods */
	uint64_t nself, nchildren; /* samples */
	uint32_t root;       /* its callchain tree's root node: no frame; its
			      * children are the paths' first frames */
	uint32_t max_depth;  /* longest path */
	int32_t tid;         /* the thread of its first sample */
	uint32_t next;       /* hash chain (private) */
	uint32_t last_sample; /* private: the sample that last counted its children */
	unsigned flags;
};

/* The chain order (perf's -g caller|callee). */
enum hist_order { HIST_CALLER, HIST_CALLEE };

struct hist_opts {
	enum hist_sort keys[HIST_MAX_KEYS];
	size_t nkeys;
	bool children;   /* inclusive entries for every frame */
	bool callchains; /* keep callchain trees */
	enum hist_order order;
	/* keys that group but do not order ties (perf's elided columns) */
	bool unsorted[HIST_SORT_MAX];
	uint32_t max_nodes; /* callchain nodes at most; 0: HIST_MAX_NODES */
};

/* A sample. */
struct hist_sample {
	uint32_t comm; /* strtab id */
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t period;
	const struct hist_frame *frames; /* leaf first; n >= 1 */
	size_t n;
	/* The entry the sample's own period goes to, when it is not frames[0]
	 * (perf keys it by the sample address's symbol, while an unwound
	 * chain may begin with that address's inline frames); else NULL. */
	const struct hist_frame *leaf;
	bool filtered; /* shows no entry by itself (perf's filters; see above) */
	uint32_t parent; /* HIST_PARENT: the matching caller's name, HIST_NONE for none */
};

struct hist {
	struct hist_opts o;
	struct strtab *strs; /* borrowed */
	VEC(struct hist_entry) entries;
	VEC(struct hist_node) nodes;
	VEC(struct hist_frame) frames; /* distinct callchain frames */
	VEC(uint32_t) order;           /* entries, sorted (hist_finish) */
	struct hashmap by_key;  /* hash(key) -> first entry + 1 */
	struct hashmap frame_ids; /* hash(frame) -> first frame index + 1 (chained in frame_next) */
	VEC(uint32_t) frame_next;
	struct hashmap child_of; /* (parent node << 32 | frame) -> node */
	struct hashmap thread_comm; /* tid -> comm of its latest sample */
	uint64_t total;          /* every sample's period */
	uint64_t nsamples;
	uint32_t sample_seq;
	bool chains_cut;   /* HIST_MAX_NODES was reached: later paths not kept */
	unsigned key_mask; /* 1 << enum hist_sort for each key in use */
	VEC(uint32_t) tmp; /* scratch: a sample's frame ids */
};

void hist_init(struct hist *h, const struct hist_opts *o, struct strtab *strs);
void hist_release(struct hist *h);
void hist_add(struct hist *h, const struct hist_sample *s);
/* Sort entries (children mode: by children period, else self) and trees. */
void hist_finish(struct hist *h);
/* Scale every period and sample count by num/den (a live view's decay,
 * perf top's 7/8 per refresh); call hist_finish again. */
void hist_decay(struct hist *h, uint64_t num, uint64_t den);

/* Where hist_drop_decayed moved entries and nodes: old index -> new index,
 * HIST_NONE for one dropped. */
struct hist_remap {
	uint32_t *entry, *node;
	size_t nentries, nnodes;
};
/*
 * Drop the entries whose periods decayed to zero, and the callchain nodes
 * (and frames) no kept path uses any more, so a live view's memory follows
 * what it shows, not how long it ran. Indices change (map, if non-NULL,
 * says how: release it with hist_remap_release); the hist is finished
 * (sorted) again. Returns the number of entries dropped.
 */
size_t hist_drop_decayed(struct hist *h, struct hist_remap *map);
void hist_remap_release(struct hist_remap *map);

/* The i-th entry in sorted order (i < hist_count). */
static inline size_t hist_count(const struct hist *h)
{
	return h->order.n;
}
static inline const struct hist_entry *hist_at(const struct hist *h, size_t i)
{
	return &h->entries.v[h->order.v[i]];
}
static inline const struct hist_node *hist_node(const struct hist *h, uint32_t i)
{
	return &h->nodes.v[i];
}
static inline const struct hist_frame *hist_node_frame(const struct hist *h, uint32_t i)
{
	return &h->frames.v[h->nodes.v[i].frame];
}
/* A thread's comm as of its latest sample (perf's Pid:Command column), or HIST_NONE. */
uint32_t hist_thread_comm(const struct hist *h, int32_t tid);
/* The entry with this key, or NULL. */
const struct hist_entry *hist_find(const struct hist *h, const struct hist_key *k);
/* Compare two entries' keys by the sort keys, as the table orders ties. */
int hist_key_cmp(const struct hist *h, const struct hist_key *a, const struct hist_key *b);
/* The period an entry is sorted and shown by (children or self). */
uint64_t hist_entry_period(const struct hist *h, const struct hist_entry *e);
/* Parse a sort key name ("comm", "pid", "dso", "sym", "cpu", "srcline",
 * "srcfile", "symoff", "parent"; "tid" and "symbol" as "pid" and "sym"); -1
 * if unknown. */
int hist_sort_parse(const char *name);
const char *hist_sort_name(enum hist_sort k);

#endif
