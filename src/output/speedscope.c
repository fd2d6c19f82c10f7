/*
 * speedscope: trie → speedscope JSON (output, L7). Frames are numbered in
 * the order a pre-order walk of the sorted trie meets them, so the bytes
 * depend only on the trie.
 */
#include <errno.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/utf8.h"
#include "base/vec.h"
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
	VEC(uint32_t) st = { 0 };
	VEC_PUSH(&st, root);
	while (st.n) {
		uint32_t id = st.v[--st.n];
		/* Per-thread profiles leave their thread frames out of the stacks. */
		bool top = trie_node(s->t, id)->parent == 0 && !s->merged;
		if (id != 0 && !top)
			frame_index(s, id);
		/* push children in reverse so the first is visited first */
		size_t mark = st.n;
		for (uint32_t c = trie_node(s->t, id)->first_child; c != TRIE_NONE;
		     c = trie_node(s->t, c)->next_sibling)
			VEC_PUSH(&st, c);
		for (size_t i = mark, j = st.n; i + 1 < j; i++, j--) {
			uint32_t x = st.v[i];
			st.v[i] = st.v[j - 1];
			st.v[j - 1] = x;
		}
	}
	VEC_FREE(&st);
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
	struct item {
		uint32_t node;
		uint32_t depth; /* path length to restore when visiting it */
	};
	VEC(struct item) st = { 0 };
	bool first = true;
	s->path.n = 0;
	VEC_PUSH(&st, ((struct item){ top, 0 }));
	while (st.n) {
		struct item it = st.v[--st.n];
		const struct trie_node *n = trie_node(s->t, it.node);
		s->path.n = it.depth;
		if (!(it.node == 0 || (skip_top && it.node == top)))
			VEC_PUSH(&s->path, frame_index(s, it.node));
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
		size_t mark = st.n;
		for (uint32_t c = n->first_child; c != TRIE_NONE; c = trie_node(s->t, c)->next_sibling)
			VEC_PUSH(&st, ((struct item){ c, (uint32_t)s->path.n }));
		for (size_t i = mark, j = st.n; i + 1 < j; i++, j--) {
			struct item x = st.v[i];
			st.v[i] = st.v[j - 1];
			st.v[j - 1] = x;
		}
	}
	VEC_FREE(&st);
}

/* The weight of the samples of a profile: its stacks with at least one frame. */
static uint64_t profile_total(const struct ss *s, uint32_t top, bool skip_top)
{
	/* A top frame's own count is a stack with no frame left: not a sample. */
	const struct trie_node *n = trie_node(s->t, top);
	return n->total - (skip_top || top == 0 ? n->self : 0);
}

static void profile(struct ss *s, uint32_t top, bool skip_top, bool comma)
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
	fprintf(s->f, "\",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%llu,\"samples\":[",
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
	fputs("\",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[\n", f);
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
	if (o->merge || trie_node(t, 0)->first_child == TRIE_NONE) {
		profile(&s, 0, false, false);
	} else {
		bool comma = false;
		for (uint32_t c = trie_node(t, 0)->first_child; c != TRIE_NONE;
		     c = trie_node(t, c)->next_sibling) {
			if (trie_node(t, c)->total == 0)
				continue;
			profile(&s, c, true, comma);
			comma = true;
		}
	}
	fputs("\n]}\n", f);
	hashmap_release(&s.frame_of);
	VEC_FREE(&s.frames);
	VEC_FREE(&s.path);
	return ferror(f) ? -EIO : 0;
}
