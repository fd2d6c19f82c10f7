/*
 * hist: perf report's entries, their periods and callchain trees (see hist.h).
 */
#include "aggregate/hist.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

static const char *const sort_names[HIST_SORT_MAX] = {
	[HIST_COMM] = "comm", [HIST_PID] = "pid", [HIST_DSO] = "dso",
	[HIST_SYM] = "sym",   [HIST_CPU] = "cpu", [HIST_SRCLINE] = "srcline",
	[HIST_SRCFILE] = "srcfile", [HIST_SYMOFF] = "symoff", [HIST_PARENT] = "parent",
};

int hist_sort_parse(const char *name)
{
	if (!strcmp(name, "tid")) /* perf's "pid" key is the thread */
		return HIST_PID;
	if (!strcmp(name, "symbol"))
		return HIST_SYM;
	for (int i = 0; i < HIST_SORT_MAX; i++)
		if (!strcmp(name, sort_names[i]))
			return i;
	return -1;
}

const char *hist_sort_name(enum hist_sort k)
{
	return sort_names[k];
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint32_t new_node(struct hist *h, uint32_t parent, uint32_t frame)
{
	struct hist_node *n = VEC_PUSH_ZERO(&h->nodes);
	n->frame = frame;
	n->parent = parent;
	n->first_child = n->next_sibling = HIST_NONE;
	if (parent != HIST_NONE) {
		struct hist_node *p = &h->nodes.v[parent];
		n->next_sibling = p->first_child;
		p->first_child = (uint32_t)(h->nodes.n - 1);
	}
	return (uint32_t)(h->nodes.n - 1);
}

void hist_init(struct hist *h, const struct hist_opts *o, struct strtab *strs)
{
	memset(h, 0, sizeof(*h));
	h->o = *o;
	if (!h->o.max_nodes)
		h->o.max_nodes = HIST_MAX_NODES;
	h->strs = strs;
	for (size_t i = 0; i < o->nkeys; i++)
		h->key_mask |= 1u << o->keys[i];
	hashmap_init(&h->by_key);
	hashmap_init(&h->frame_ids);
	hashmap_init(&h->child_of);
	hashmap_init(&h->thread_comm);
}

uint32_t hist_thread_comm(const struct hist *h, int32_t tid)
{
	uint64_t v;
	return hashmap_get(&h->thread_comm, (uint32_t)tid, &v) ? (uint32_t)v : HIST_NONE;
}

void hist_release(struct hist *h)
{
	VEC_FREE(&h->entries);
	VEC_FREE(&h->nodes);
	VEC_FREE(&h->frames);
	VEC_FREE(&h->order);
	VEC_FREE(&h->frame_next);
	VEC_FREE(&h->tmp);
	hashmap_release(&h->by_key);
	hashmap_release(&h->frame_ids);
	hashmap_release(&h->child_of);
	hashmap_release(&h->thread_comm);
}

/* ---- keys and frames ---- */

static bool uses(const struct hist *h, enum hist_sort k)
{
	return (h->key_mask >> k) & 1;
}

/* The key of a sample's frame f under the sort keys in use: the sample's
 * own entry (an address without a symbol as its file offset, 'addr') or
 * an inclusive one of its chain (as the address itself, 'ip', as perf
 * keys them). */
static struct hist_key key_of(const struct hist *h, const struct hist_sample *s,
			      const struct hist_frame *f, bool chain)
{
	struct hist_key k;
	memset(&k, 0, sizeof(k));
	if (uses(h, HIST_COMM))
		k.comm = s->comm;
	if (uses(h, HIST_PID)) /* perf's "pid" is the thread */
		k.pid = s->tid;
	if (uses(h, HIST_CPU))
		k.cpu = s->cpu;
	if (uses(h, HIST_DSO))
		k.dso = f->dso;
	if (uses(h, HIST_SRCLINE))
		k.srcline = chain ? f->csrcline : f->srcline;
	if (uses(h, HIST_SRCFILE))
		k.srcfile = chain ? f->csrcfile : f->srcfile;
	if (uses(h, HIST_PARENT))
		k.parent = s->parent;
	if (uses(h, HIST_SYM) || uses(h, HIST_SYMOFF)) {
		if (uses(h, HIST_SYMOFF) && f->sym != HIST_NONE)
			k.off = f->off;
		k.sym = f->sym;
		k.kernel = f->kernel && f->sym != HIST_NONE; /* see entry_for */
		k.dso = f->dso;
		if (f->sym == HIST_NONE)
			k.addr = chain ? f->ip : f->addr;
		else
			k.start = f->start;
	}
	return k;
}

static bool key_eq(const struct hist_key *a, const struct hist_key *b)
{
	return a->comm == b->comm && a->dso == b->dso && a->sym == b->sym && a->pid == b->pid &&
	       a->cpu == b->cpu && a->addr == b->addr && a->start == b->start &&
	       a->srcline == b->srcline && a->srcfile == b->srcfile && a->parent == b->parent &&
	       a->off == b->off && (a->kernel == b->kernel || a->sym == HIST_NONE);
}

static uint64_t key_hash(const struct hist_key *k)
{
	uint64_t a = ((uint64_t)k->comm << 32) | k->dso;
	uint64_t b = ((uint64_t)k->sym << 32) | (uint32_t)k->pid;
	uint64_t c = ((uint64_t)k->cpu << 1) | (k->kernel && k->sym != HIST_NONE);
	uint64_t d = ((uint64_t)k->srcline << 32 | k->srcfile) ^ ((uint64_t)k->parent << 17) ^
		     (k->off * 0x9e3779b97f4a7c15u);
	return hash_mix2(hash_mix2(hash_mix2(a, b), hash_mix2(c, k->addr ^ (k->start * 31))), d);
}

/*
 * The entry of key k (made if new). An address without a symbol is one
 * entry whatever its level; the level it shows ([k] or [.]) is the one it
 * was first seen with (kernel_level).
 */
static uint32_t entry_for(struct hist *h, const struct hist_key *k, int32_t tid,
			  bool kernel_level)
{
	uint64_t hv = key_hash(k), first;
	bool found = hashmap_get(&h->by_key, hv, &first);
	for (uint32_t i = found ? (uint32_t)first - 1 : HIST_NONE; i != HIST_NONE;
	     i = h->entries.v[i].next)
		if (key_eq(&h->entries.v[i].k, k))
			return i;
	struct hist_entry *e = VEC_PUSH_ZERO(&h->entries);
	uint32_t id = (uint32_t)(h->entries.n - 1);
	e->k = *k;
	if (k->sym == HIST_NONE && (uses(h, HIST_SYM) || uses(h, HIST_SYMOFF)))
		e->k.kernel = kernel_level;
	e->tid = tid;
	e->next = found ? (uint32_t)first - 1 : HIST_NONE;
	e->last_sample = UINT32_MAX;
	e->root = HIST_NONE;
	hashmap_put(&h->by_key, hv, (uint64_t)id + 1);
	return id;
}

const struct hist_entry *hist_find(const struct hist *h, const struct hist_key *k)
{
	uint64_t first;
	if (!hashmap_get(&h->by_key, key_hash(k), &first))
		return NULL;
	for (uint32_t i = (uint32_t)first - 1; i != HIST_NONE; i = h->entries.v[i].next)
		if (key_eq(&h->entries.v[i].k, k))
			return &h->entries.v[i];
	return NULL;
}

static bool frame_eq(const struct hist_frame *a, const struct hist_frame *b)
{
	return a->sym == b->sym && a->dso == b->dso && a->kernel == b->kernel &&
	       (a->sym != HIST_NONE || a->addr == b->addr);
}

/* Callchain frames are one per function (perf's function key): an
 * unresolved frame is its address. */
static uint32_t frame_id(struct hist *h, const struct hist_frame *f)
{
	uint64_t hv = hash_mix2(((uint64_t)f->sym << 32) | f->dso,
				(f->sym == HIST_NONE ? f->addr : 0) ^ f->kernel), first;
	bool found = hashmap_get(&h->frame_ids, hv, &first);
	for (uint32_t i = found ? (uint32_t)first - 1 : HIST_NONE; i != HIST_NONE;
	     i = h->frame_next.v[i])
		if (frame_eq(&h->frames.v[i], f))
			return i;
	struct hist_frame *nf = VEC_PUSH_ZERO(&h->frames);
	*nf = *f;
	if (nf->sym != HIST_NONE)
		nf->addr = nf->ip = 0;
	else
		nf->start = f->ip;
	VEC_PUSH(&h->frame_next, found ? (uint32_t)first - 1 : HIST_NONE);
	uint32_t id = (uint32_t)(h->frames.n - 1);
	hashmap_put(&h->frame_ids, hv, (uint64_t)id + 1);
	return id;
}

/* ---- callchains ---- */

static uint32_t child(struct hist *h, uint32_t parent, uint32_t frame)
{
	uint64_t key = ((uint64_t)parent << 32) | frame, v;
	if (hashmap_get(&h->child_of, key, &v))
		return (uint32_t)v;
	uint32_t n = new_node(h, parent, frame);
	hashmap_put(&h->child_of, key, n);
	return n;
}

/* Add the path f[from], f[from + step], ... (count frames, as frame ids)
 * to entry e's tree. */
static void add_path(struct hist *h, uint32_t e, const uint32_t *f, size_t from, long step,
		     size_t count, uint64_t period)
{
	if (h->nodes.n + count + 1 > h->o.max_nodes) {
		h->chains_cut = true;
		return;
	}
	if (h->entries.v[e].root == HIST_NONE) {
		uint32_t r = new_node(h, HIST_NONE, HIST_NONE);
		h->entries.v[e].root = r;
	}
	uint32_t at = h->entries.v[e].root;
	h->nodes.v[at].cumul = add_sat(h->nodes.v[at].cumul, period);
	h->nodes.v[at].count++;
	long i = (long)from;
	for (size_t k = 0; k < count; k++, i += step) {
		at = child(h, at, f[i]);
		struct hist_node *n = &h->nodes.v[at];
		n->cumul = add_sat(n->cumul, period);
		n->count++;
	}
	h->nodes.v[at].hit = add_sat(h->nodes.v[at].hit, period);
	if (count > h->entries.v[e].max_depth)
		h->entries.v[e].max_depth = (uint32_t)count;
}

void hist_add(struct hist *h, const struct hist_sample *s)
{
	if (!s->n)
		return;
	h->total = add_sat(h->total, s->period);
	h->nsamples++;
	hashmap_put(&h->thread_comm, (uint32_t)s->tid, s->comm);
	uint32_t seq = h->sample_seq++;
	bool caller = h->o.order == HIST_CALLER;
	const struct hist_frame *lf = s->leaf ? s->leaf : &s->frames[0];
	struct hist_key k = key_of(h, s, lf, false);
	uint32_t leaf = entry_for(h, &k, s->tid, lf->kernel);
	struct hist_entry *e = &h->entries.v[leaf];
	if (!s->filtered && !e->nself && !e->nchildren) /* a new entry */
		e->flags |= HIST_SHOWN;
	e->self = add_sat(e->self, s->period);
	e->nself++;
	const uint32_t *fid = NULL;
	if (h->o.callchains) { /* the frames' ids, once per sample */
		h->tmp.n = 0;
		VEC_RESERVE(&h->tmp, s->n);
		for (size_t i = 0; i < s->n; i++)
			h->tmp.v[h->tmp.n++] = frame_id(h, &s->frames[i]);
		fid = h->tmp.v;
		if (caller)
			add_path(h, leaf, fid, s->n - 1, -1, s->n, s->period);
		else
			add_path(h, leaf, fid, 0, 1, s->n, s->period);
	}
	if (!h->o.children)
		return;
	e = &h->entries.v[leaf];
	e->children = add_sat(e->children, s->period);
	e->nchildren++;
	e->last_sample = seq;
	/* Frames in the chain's order, as perf walks its callchain cursor: an
	 * entry met twice (recursion, or two frames with one key) keeps the
	 * first, the outermost in caller order. */
	bool level = lf->kernel; /* perf's level: kept from the last frame with a mapping */
	/* The chain's first frame is the sample's own entry, but for source
	 * lines: perf looks its inclusive entry up by the unmapped address,
	 * which can name another line (csrcline) */
	size_t skip = s->leaf || uses(h, HIST_SRCLINE) || uses(h, HIST_SRCFILE) ? 0 : 1;
	for (size_t j = skip; j < s->n; j++) {
		size_t i = caller ? s->n - 1 - j + skip : j;
		if (s->frames[i].dso != HIST_NONE)
			level = s->frames[i].kernel;
		k = key_of(h, s, &s->frames[i], true);
		uint32_t id = entry_for(h, &k, s->tid, level);
		e = &h->entries.v[id];
		if (e->last_sample == seq)
			continue; /* once per sample */
		e->last_sample = seq;
		if (!s->filtered && !e->nself && !e->nchildren) /* a new entry */
			e->flags |= HIST_SHOWN;
		e->children = add_sat(e->children, s->period);
		e->nchildren++;
		if (!h->o.callchains)
			continue;
		if (caller) /* from this frame down to the leaf */
			add_path(h, id, fid, i, -1, i + 1, s->period);
		else /* from this frame up to the root */
			add_path(h, id, fid, i, 1, s->n - i, s->period);
	}
}

/* ---- sorting ---- */

uint64_t hist_entry_period(const struct hist *h, const struct hist_entry *e)
{
	return h->o.children ? e->children : e->self;
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

static const char *str_or(const struct hist *h, uint32_t id, const char *dflt)
{
	return id == HIST_NONE ? dflt : strtab_get(h->strs, id);
}

static int cmp_key(const struct hist *h, enum hist_sort key, const struct hist_key *a,
		   const struct hist_key *b)
{
	int c = 0;
	switch (key) {
	case HIST_PID:
		return a->pid < b->pid ? -1 : a->pid > b->pid;
	case HIST_COMM:
		return strcmp(str_or(h, a->comm, ""), str_or(h, b->comm, ""));
	case HIST_DSO: /* no dso ([unknown]) last, as perf sorts it */
		if ((a->dso == HIST_NONE) != (b->dso == HIST_NONE))
			return a->dso == HIST_NONE ? 1 : -1;
		return strcmp(str_or(h, a->dso, ""), str_or(h, b->dso, ""));
	case HIST_SYM:
		if ((a->sym == HIST_NONE) != (b->sym == HIST_NONE))
			return a->sym == HIST_NONE ? 1 : -1;
		if (a->sym == HIST_NONE)
			return a->addr < b->addr ? -1 : a->addr > b->addr;
		c = strcmp(strtab_get(h->strs, a->sym), strtab_get(h->strs, b->sym));
		return c ? c : (int)a->kernel - (int)b->kernel;
	case HIST_CPU:
		return a->cpu < b->cpu ? -1 : a->cpu > b->cpu;
	case HIST_SRCLINE: /* perf: by the text */
		return strcmp(str_or(h, a->srcline, ""), str_or(h, b->srcline, ""));
	case HIST_SRCFILE:
		return strcmp(str_or(h, a->srcfile, ""), str_or(h, b->srcfile, ""));
	case HIST_SYMOFF: /* as sym, then the higher offset first (perf's symoff) */
		c = cmp_key(h, HIST_SYM, a, b);
		return c ? c : a->off > b->off ? -1 : a->off < b->off;
	case HIST_PARENT: /* names in reverse order, "[other]" last, as perf's strcmp */
		if ((a->parent == HIST_NONE) != (b->parent == HIST_NONE))
			return a->parent == HIST_NONE ? 1 : -1;
		if (a->parent == HIST_NONE)
			return 0;
		return strcmp(strtab_get(h->strs, b->parent), strtab_get(h->strs, a->parent));
	case HIST_SORT_MAX:
		break;
	}
	return 0;
}

int hist_key_cmp(const struct hist *h, const struct hist_key *a, const struct hist_key *b)
{
	int c = 0;
	for (size_t i = 0; !c && i < h->o.nkeys; i++)
		if (!h->o.unsorted[h->o.keys[i]])
			c = cmp_key(h, h->o.keys[i], a, b);
	return c;
}

static int cmp_entries(const struct hist *h, const struct hist_entry *a,
		       const struct hist_entry *b)
{
	int c = cmp_u64_desc(hist_entry_period(h, a), hist_entry_period(h, b));
	/* perf puts a caller above its callee on equal children: the deeper
	 * callchain first (caller order; callee order: the shallower) */
	if (!c && h->o.children && h->o.callchains && a->tid == b->tid &&
	    a->max_depth != b->max_depth)
		c = (a->max_depth > b->max_depth) == (h->o.order == HIST_CALLER) ? -1 : 1;
	if (!c && h->o.children)
		c = cmp_u64_desc(a->self, b->self);
	return c ? c : hist_key_cmp(h, &a->k, &b->k);
}

static int cmp_entry_idx(const void *pa, const void *pb, void *arg)
{
	const struct hist *h = arg;
	return cmp_entries(h, &h->entries.v[*(const uint32_t *)pa],
			   &h->entries.v[*(const uint32_t *)pb]);
}

static int cmp_node_idx(const void *pa, const void *pb, void *arg)
{
	const struct hist *h = arg;
	const struct hist_node *x = &h->nodes.v[*(const uint32_t *)pa];
	const struct hist_node *y = &h->nodes.v[*(const uint32_t *)pb];
	int c = cmp_u64_desc(x->cumul, y->cumul);
	if (c)
		return c;
	const struct hist_frame *fa = &h->frames.v[x->frame], *fb = &h->frames.v[y->frame];
	if (fa->dso == fb->dso && fa->kernel == fb->kernel && fa->start != fb->start)
		return fa->start > fb->start ? -1 : 1;
	if ((fa->sym == HIST_NONE) != (fb->sym == HIST_NONE))
		return fa->sym == HIST_NONE ? 1 : -1;
	if (fa->sym == HIST_NONE)
		return fa->addr < fb->addr ? -1 : fa->addr > fb->addr;
	c = strcmp(strtab_get(h->strs, fa->sym), strtab_get(h->strs, fb->sym));
	if (c)
		return c;
	return strcmp(str_or(h, fa->dso, ""), str_or(h, fb->dso, ""));
}

/* Every node's children in order: by period, then by name. */
static void sort_trees(struct hist *h)
{
	VEC(uint32_t) kids = { 0 };
	for (uint32_t p = 0; p < h->nodes.n; p++) {
		kids.n = 0;
		for (uint32_t c = h->nodes.v[p].first_child; c != HIST_NONE;
		     c = h->nodes.v[c].next_sibling)
			VEC_PUSH(&kids, c);
		if (kids.n < 2)
			continue;
		qsort_r(kids.v, kids.n, sizeof(kids.v[0]), cmp_node_idx, h);
		h->nodes.v[p].first_child = kids.v[0];
		for (size_t i = 0; i < kids.n; i++)
			h->nodes.v[kids.v[i]].next_sibling = i + 1 < kids.n ? kids.v[i + 1] : HIST_NONE;
	}
	VEC_FREE(&kids);
}

void hist_finish(struct hist *h)
{
	h->order.n = 0;
	for (uint32_t i = 0; i < h->entries.n; i++)
		if ((h->entries.v[i].flags & HIST_SHOWN) && hist_entry_period(h, &h->entries.v[i]))
			VEC_PUSH(&h->order, i);
	if (h->order.n)
		qsort_r(h->order.v, h->order.n, sizeof(h->order.v[0]), cmp_entry_idx, h);
	sort_trees(h);
}

static uint64_t scale(uint64_t v, uint64_t num, uint64_t den)
{
	return (uint64_t)((unsigned __int128)v * num / den);
}

void hist_decay(struct hist *h, uint64_t num, uint64_t den)
{
	if (!den)
		return;
	for (size_t i = 0; i < h->entries.n; i++) {
		struct hist_entry *e = &h->entries.v[i];
		e->self = scale(e->self, num, den);
		e->children = scale(e->children, num, den);
		e->nself = scale(e->nself, num, den);
		e->nchildren = scale(e->nchildren, num, den);
	}
	for (size_t i = 0; i < h->nodes.n; i++) {
		struct hist_node *n = &h->nodes.v[i];
		n->hit = scale(n->hit, num, den);
		n->cumul = scale(n->cumul, num, den);
		n->count = (uint32_t)scale(n->count, num, den);
	}
	h->total = scale(h->total, num, den);
	h->nsamples = scale(h->nsamples, num, den);
}

/* Copy node 'old' of 'h' and its subtree (nodes with a period left) into
 * 'nodes' under 'parent'; returns its new index. */
static uint32_t keep_tree(const struct hist *h, uint32_t old, uint32_t parent, uint32_t *fmap,
			  struct hist *nh, uint32_t *node_map)
{
	const struct hist_node *o = &h->nodes.v[old];
	uint32_t frame = o->frame;
	if (frame != HIST_NONE) {
		if (fmap[frame] == HIST_NONE) {
			const struct hist_frame *f = &h->frames.v[frame];
			uint64_t hv = hash_mix2(((uint64_t)f->sym << 32) | f->dso,
						(f->sym == HIST_NONE ? f->addr : 0) ^ f->kernel), first;
			bool found = hashmap_get(&nh->frame_ids, hv, &first);
			VEC_PUSH(&nh->frames, *f);
			VEC_PUSH(&nh->frame_next, found ? (uint32_t)first - 1 : HIST_NONE);
			fmap[frame] = (uint32_t)(nh->frames.n - 1);
			hashmap_put(&nh->frame_ids, hv, (uint64_t)fmap[frame] + 1);
		}
		frame = fmap[frame];
	}
	uint32_t n = new_node(nh, parent, frame);
	struct hist_node *dst = &nh->nodes.v[n];
	dst->hit = o->hit;
	dst->cumul = o->cumul;
	dst->count = o->count;
	if (node_map)
		node_map[old] = n;
	if (parent != HIST_NONE)
		hashmap_put(&nh->child_of, ((uint64_t)parent << 32) | frame, n);
	for (uint32_t c = o->first_child; c != HIST_NONE; c = h->nodes.v[c].next_sibling)
		if (h->nodes.v[c].cumul)
			keep_tree(h, c, n, fmap, nh, node_map);
	return n;
}

size_t hist_drop_decayed(struct hist *h, struct hist_remap *map)
{
	size_t dropped = 0;
	for (size_t i = 0; i < h->entries.n; i++)
		if (!h->entries.v[i].self && !h->entries.v[i].children)
			dropped++;
	if (map) {
		memset(map, 0, sizeof(*map));
		XALLOC_ARRAY(map->entry, h->entries.n ? h->entries.n : 1);
		XALLOC_ARRAY(map->node, h->nodes.n ? h->nodes.n : 1);
		map->nentries = h->entries.n;
		map->nnodes = h->nodes.n;
		for (size_t i = 0; i < h->nodes.n; i++)
			map->node[i] = dropped ? HIST_NONE : (uint32_t)i;
		for (size_t i = 0; !dropped && i < h->entries.n; i++)
			map->entry[i] = (uint32_t)i;
	}
	if (!dropped) { /* nothing moves: no rebuild */
		hist_finish(h);
		return 0;
	}
	struct hist nh;
	hist_init(&nh, &h->o, h->strs);
	uint32_t *fmap;
	XALLOC_ARRAY(fmap, h->frames.n ? h->frames.n : 1);
	for (size_t i = 0; i < h->frames.n; i++)
		fmap[i] = HIST_NONE;
	for (size_t i = 0; i < h->entries.n; i++) {
		const struct hist_entry *e = &h->entries.v[i];
		if (!e->self && !e->children) {
			if (map)
				map->entry[i] = HIST_NONE;
			continue;
		}
		struct hist_entry *ne = VEC_PUSH_ZERO(&nh.entries);
		uint32_t id = (uint32_t)(nh.entries.n - 1);
		*ne = *e;
		ne->last_sample = UINT32_MAX;
		ne->root = HIST_NONE;
		uint64_t hv = key_hash(&e->k), first;
		bool found = hashmap_get(&nh.by_key, hv, &first);
		ne->next = found ? (uint32_t)first - 1 : HIST_NONE;
		hashmap_put(&nh.by_key, hv, (uint64_t)id + 1);
		if (e->root != HIST_NONE && h->nodes.v[e->root].cumul) {
			uint32_t r = keep_tree(h, e->root, HIST_NONE, fmap, &nh,
					       map ? map->node : NULL);
			nh.entries.v[id].root = r;
		}
		uint64_t comm;
		if (hashmap_get(&h->thread_comm, (uint32_t)e->tid, &comm))
			hashmap_put(&nh.thread_comm, (uint32_t)e->tid, comm);
		if (hashmap_get(&h->thread_comm, (uint32_t)e->k.pid, &comm))
			hashmap_put(&nh.thread_comm, (uint32_t)e->k.pid, comm);
		if (map)
			map->entry[i] = id;
	}
	free(fmap); /* children lists are reversed: hist_finish sorts them below */
	nh.total = h->total;
	nh.nsamples = h->nsamples;
	nh.sample_seq = 0;
	nh.chains_cut = h->chains_cut;
	hist_release(h);
	*h = nh;
	hist_finish(h);
	return dropped;
}

void hist_remap_release(struct hist_remap *map)
{
	free(map->entry);
	free(map->node);
	memset(map, 0, sizeof(*map));
}
