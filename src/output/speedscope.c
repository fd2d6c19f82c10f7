/*
 * speedscope: trie → speedscope JSON (output, L7). Frames are numbered in
 * the order a pre-order walk of the sorted trie meets them, so the bytes
 * depend only on the trie (and, in time order, on the samples' times).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/utf8.h"
#include "base/vec.h"
#include "base/xalloc.h"
#include "output/export.h"

void json_put_escaped(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		uint32_t cp;
		int d = utf8_decode(p + i, n - i, &cp);
		size_t l = d > 0 ? (size_t)d : 0;
		if (l == 0) {
			fputs("\\ufffd", f);
			i++;
			continue;
		}
		if (cp == '"')
			fputs("\\\"", f);
		else if (cp == '\\')
			fputs("\\\\", f);
		else if (cp < 0x20 || cp == 0x7f || cp == '<' || cp == '>' || cp == '&' ||
			 cp == 0x2028 || cp == 0x2029)
			fprintf(f, "\\u%04x", (unsigned)cp);
		else
			fwrite(p + i, 1, l, f);
		i += l;
	}
}

struct ss {
	FILE *f;
	const struct trie *t;
	const struct export_opts *o;
	struct hashmap frame_of; /* (name << 8 | kind) -> frame index + 1 */
	VEC(uint32_t) frames;    /* frame index -> a node with that frame */
	VEC(uint32_t) path;      /* frame indexes of the current stack */
	bool merged;      /* true: one profile for all; false: one per root child, its frame left out */
};

static uint32_t frame_index(struct ss *s, uint32_t node)
{
	const struct trie_node *n = trie_node(s->t, node);
	uint64_t key = ((uint64_t)n->name << 8) | n->kind, v;
	if (hashmap_get(&s->frame_of, key, &v))
		return (uint32_t)v - 1;
	VEC_PUSH(&s->frames, node);
	hashmap_put(&s->frame_of, key, s->frames.n);
	return (uint32_t)s->frames.n - 1;
}

/* Number the frames in pre-order. */
static void number(struct ss *s, uint32_t root)
{
	struct trie_walk w;
	trie_walk_init(&w, s->t, root);
	for (uint32_t id; (id = trie_walk_next(&w)) != TRIE_NONE;) {
		/* Per-thread profiles leave their thread frames out of the stacks. */
		bool top = trie_node(s->t, id)->parent == 0 && !s->merged;
		if (id != 0 && !top)
			frame_index(s, id);
	}
	trie_walk_release(&w);
}

static uint64_t shown(const struct ss *s, uint64_t v)
{
	uint64_t d = s->o->divisor ? s->o->divisor : 1;
	return (v + d / 2) / d;
}

/*
 * The samples (or weights) of the subtree at 'top', excluding 'top''s
 * own frame when 'skip_top'. Pre-order, children in trie order.
 */
static void samples(struct ss *s, uint32_t top, bool skip_top, bool weights)
{
	/* The path holds a frame per level, less the top's when it is left out. */
	uint32_t base = top == 0 || skip_top ? 1 : 0;
	bool first = true;
	struct trie_walk w;
	trie_walk_init(&w, s->t, top);
	for (uint32_t id; (id = trie_walk_next(&w)) != TRIE_NONE;) {
		const struct trie_node *n = trie_node(s->t, id);
		s->path.n = w.level < base ? 0 : w.level - base;
		if (w.level >= base)
			VEC_PUSH(&s->path, frame_index(s, id));
		if (n->self && s->path.n) {
			fputs(first ? "" : ",", s->f);
			first = false;
			if (weights) {
				fprintf(s->f, "%llu", (unsigned long long)shown(s, n->self));
			} else {
				fputc('[', s->f);
				for (size_t i = 0; i < s->path.n; i++)
					fprintf(s->f, "%s%u", i ? "," : "", s->path.v[i]);
				fputc(']', s->f);
			}
		}
	}
	trie_walk_release(&w);
}

/* The weight of the samples of a profile: its stacks with at least one frame. */
static uint64_t profile_total(const struct ss *s, uint32_t top, bool skip_top)
{
	/* A top frame's own count is a stack with no frame left: not a sample. */
	const struct trie_node *n = trie_node(s->t, top);
	return n->total - (skip_top || top == 0 ? n->self : 0);
}

/* The samples in time order: by profile (top node), time, then arrival. */
struct tick {
	uint64_t time;
	uint32_t leaf, top;
	size_t seq;
};

static int tick_cmp(const void *a, const void *b)
{
	const struct tick *x = a, *y = b;
	if (x->top != y->top)
		return x->top < y->top ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

typedef VEC(uint64_t) u64_vec;

struct timeline {
	struct tick *ticks; /* with a frame left once the top is dropped, sorted */
	size_t n;
	uint64_t t0;       /* the earliest sample's time */
	uint64_t fallback; /* median interval of all samples: a profile with one sample */
	u64_vec w;         /* one profile's weights (and scratch) */
};

static uint64_t median_gap(const struct tick *t, size_t n, u64_vec *tmp)
{
	tmp->n = 0;
	for (size_t i = 0; i + 1 < n; i++)
		VEC_PUSH(tmp, t[i + 1].time - t[i].time);
	if (!tmp->n)
		return 0;
	qsort(tmp->v, tmp->n, sizeof(*tmp->v), u64_cmp);
	return tmp->v[tmp->n / 2];
}

static void timeline_init(struct timeline *tl, const struct ss *s)
{
	const struct trie *t = s->t;
	uint32_t *top;
	memset(tl, 0, sizeof(*tl));
	XALLOC_ARRAY(top, t->nodes.n);
	top[0] = 0;
	for (size_t i = 1; i < t->nodes.n; i++) /* a parent is made before its children */
		top[i] = s->merged ? 0 : t->nodes.v[i].parent == 0 ? (uint32_t)i : top[t->nodes.v[i].parent];
	XALLOC_ARRAY(tl->ticks, s->o->ntimes ? s->o->ntimes : 1);
	tl->t0 = UINT64_MAX;
	for (size_t i = 0; i < s->o->ntimes; i++) {
		uint32_t leaf = s->o->times[i].leaf;
		if (leaf >= t->nodes.n || leaf == top[leaf]) /* no frame below the thread's */
			continue;
		tl->ticks[tl->n++] = (struct tick){ s->o->times[i].time, leaf, top[leaf], i };
		if (s->o->times[i].time < tl->t0)
			tl->t0 = s->o->times[i].time;
	}
	free(top);
	/* The interval of the samples as they came, whatever their thread. */
	struct tick *by_time;
	XALLOC_ARRAY(by_time, tl->n ? tl->n : 1);
	for (size_t i = 0; i < tl->n; i++)
		by_time[i] = (struct tick){ tl->ticks[i].time, 0, 0, i };
	qsort(by_time, tl->n, sizeof(*by_time), tick_cmp);
	tl->fallback = median_gap(by_time, tl->n, &tl->w);
	free(by_time);
	qsort(tl->ticks, tl->n, sizeof(*tl->ticks), tick_cmp);
}

/* One profile's samples in time order: [at, at + n) of the sorted ticks. */
static void timeline_profile(struct ss *s, struct timeline *tl, uint32_t top, bool skip_top)
{
	size_t at = 0, n = 0;
	while (at < tl->n && tl->ticks[at].top < top)
		at++;
	while (at + n < tl->n && tl->ticks[at + n].top == top)
		n++;
	const struct tick *tk = tl->ticks + at;
	uint64_t cap = median_gap(tk, n, &tl->w), sum = 0;
	if (!cap)
		cap = tl->fallback ? tl->fallback : 1;
	tl->w.n = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t gap = i + 1 < n ? tk[i + 1].time - tk[i].time : cap;
		uint64_t w = gap < cap ? gap : cap;
		VEC_PUSH(&tl->w, w ? w : 1);
		sum += tl->w.v[i];
	}
	uint64_t start = n ? tk[0].time - tl->t0 : 0;
	fprintf(s->f, "\"nanoseconds\",\"startValue\":%llu,\"endValue\":%llu,\"samples\":[",
		(unsigned long long)start, (unsigned long long)(start + sum));
	for (size_t i = 0; i < n; i++) {
		s->path.n = 0;
		for (uint32_t id = tk[i].leaf; id != 0 && !(skip_top && id == top);
		     id = trie_node(s->t, id)->parent)
			VEC_PUSH(&s->path, frame_index(s, id));
		fputs(i ? ",[" : "[", s->f);
		for (size_t j = s->path.n; j-- > 0;)
			fprintf(s->f, "%u%s", s->path.v[j], j ? "," : "");
		fputc(']', s->f);
	}
	fputs("],\"weights\":[", s->f);
	for (size_t i = 0; i < n; i++)
		fprintf(s->f, "%s%llu", i ? "," : "", (unsigned long long)tl->w.v[i]);
	fputs("]}", s->f);
}

static void profile(struct ss *s, struct timeline *tl, uint32_t top, bool skip_top, bool comma)
{
	const char *name = s->o->name ? s->o->name : "kiln";
	size_t len = strlen(name);
	if (top != 0) {
		name = trie_name(s->t, top);
		len = strlen(name);
	}
	fputs(comma ? ",\n{\"type\":\"sampled\",\"name\":\"" : "{\"type\":\"sampled\",\"name\":\"",
	      s->f);
	json_put_escaped(s->f, name, len);
	fputs("\",\"unit\":", s->f);
	if (tl) {
		timeline_profile(s, tl, top, skip_top);
		return;
	}
	fprintf(s->f, "\"%s\",\"startValue\":0,\"endValue\":%llu,\"samples\":[",
		s->o->unit ? s->o->unit : "none",
		(unsigned long long)shown(s, profile_total(s, top, skip_top)));
	samples(s, top, skip_top, false);
	fputs("],\"weights\":[", s->f);
	samples(s, top, skip_top, true);
	fputs("]}", s->f);
}

int speedscope_write(FILE *f, const struct trie *t, const struct export_opts *o)
{
	struct ss s = { .f = f, .t = t, .o = o };
	s.merged = o->merge || trie_node(t, 0)->first_child == TRIE_NONE;
	hashmap_init(&s.frame_of);
	number(&s, 0);
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n", f);
	fputs("\"exporter\":\"kiln\",\"name\":\"", f);
	const char *name = o->name ? o->name : "kiln";
	json_put_escaped(f, name, strlen(name));
	/* The profiles: the root's children with samples, or the root (merged). */
	VEC(uint32_t) tops = { 0 };
	if (s.merged) {
		VEC_PUSH(&tops, 0);
	} else {
		for (uint32_t c = trie_node(t, 0)->first_child; c != TRIE_NONE;
		     c = trie_node(t, c)->next_sibling)
			if (trie_node(t, c)->total != 0)
				VEC_PUSH(&tops, c);
	}
	size_t active = 0; /* the heaviest: speedscope opens it */
	for (size_t i = 1; i < tops.n; i++)
		if (profile_total(&s, tops.v[i], !s.merged) > profile_total(&s, tops.v[active], !s.merged))
			active = i;
	fprintf(f, "\",\"activeProfileIndex\":%zu,\n\"shared\":{\"frames\":[\n", active);
	for (size_t i = 0; i < s.frames.n; i++) {
		const struct trie_node *n = trie_node(t, s.frames.v[i]);
		const char *fn = trie_name(t, s.frames.v[i]);
		struct export_src src = { NULL, 0 };
		fputs(i ? ",\n{\"name\":\"" : "{\"name\":\"", f);
		json_put_escaped(f, fn, strlen(fn));
		fputc('"', f);
		if (o->src && o->src(o->src_ctx, n->name, n->kind, &src)) {
			if (src.file) {
				fputs(",\"file\":\"", f);
				json_put_escaped(f, src.file, strlen(src.file));
				fputc('"', f);
			}
			if (src.line)
				fprintf(f, ",\"line\":%u", src.line);
		}
		fputc('}', f);
	}
	fputs("\n]},\n\"profiles\":[\n", f);
	struct timeline tl;
	if (o->times)
		timeline_init(&tl, &s);
	for (size_t i = 0; i < tops.n; i++)
		profile(&s, o->times ? &tl : NULL, tops.v[i], !s.merged, i > 0);
	fputs("\n]}\n", f);
	if (o->times) {
		free(tl.ticks);
		VEC_FREE(&tl.w);
	}
	VEC_FREE(&tops);
	hashmap_release(&s.frame_of);
	VEC_FREE(&s.frames);
	VEC_FREE(&s.path);
	return ferror(f) ? -EIO : 0;
}
