/*
 * fuzz_scripttext: `perf script` text through scripttext_parse
 * (aggregate/scripttext.c, what `kiln collapse` reads), into a stack trie.
 *
 * Input: byte 0 selects options (bits: with_pid, with_tid,
 * annotate_kernel, annotate_jit, addrs, and bit 5 an event filter
 * "cycles"), the rest is the text. Checked beyond "no crash": the parse
 * never fails as a whole; counts are bounded by the text (samples <=
 * headers, lines <= bytes + 1); every trie node's total covers its self
 * weight and its children's totals (weights saturate, never wrap); no
 * stack is deeper than the frame cap plus its process frame split at ';'
 * (bounded by the line cap); the same text parsed twice gives the same
 * trie shape. The same text through scripttext_samples (kiln report's
 * reading): every span lies inside the text, each sample has 1 to
 * SCRIPTTEXT_MAX_FRAMES frames, and no more samples than headers.
 */
#include "aggregate/scripttext.h"
#include "aggregate/trie.h"
#include "fuzz/fuzz.h"

struct result {
	struct strtab strs;
	struct trie t;
	struct scripttext_stats st;
};

static void parse(struct result *r, const char *text, size_t len, const struct scripttext_opts *o)
{
	strtab_init(&r->strs);
	trie_init(&r->t, &r->strs);
	fuzz_check(scripttext_parse(text, len, o, &r->strs, &r->t, &r->st) == 0);
}

static void release(struct result *r)
{
	trie_release(&r->t);
	strtab_release(&r->strs);
}

static void check_trie(const struct trie *t)
{
	for (size_t i = 0; i < t->nodes.n; i++) {
		const struct trie_node *n = &t->nodes.v[i];
		uint64_t sum = n->self;
		if (n->first_child == TRIE_NONE) /* a leaf: the deepest of its path */
			fuzz_check(trie_depth(t, (uint32_t)i) <= SCRIPTTEXT_MAX_FRAMES + SCRIPTTEXT_MAX_LINE + 1);
		for (uint32_t c = n->first_child; c != TRIE_NONE; c = t->nodes.v[c].next_sibling) {
			fuzz_check(t->nodes.v[c].parent == i);
			uint64_t ct = t->nodes.v[c].total;
			sum = sum + ct < sum ? UINT64_MAX : sum + ct;
		}
		fuzz_check(n->total >= n->self);
		fuzz_check(n->total == sum || n->total == UINT64_MAX || sum == UINT64_MAX);
	}
}

struct walk {
	const char *text;
	size_t len;
	uint64_t n;
};

static void check_span(const struct walk *w, struct scripttext_span sp)
{
	fuzz_check(!sp.n || (sp.p >= w->text && sp.p + sp.n <= w->text + w->len));
}

static int on_sample(void *ctx, const struct scripttext_sample *s)
{
	struct walk *w = ctx;
	w->n++;
	fuzz_check(s->n <= SCRIPTTEXT_MAX_FRAMES && (s->n || !s->frames));
	check_span(w, s->comm);
	check_span(w, s->event);
	for (size_t i = 0; i < s->n; i++) {
		check_span(w, s->frames[i].sym);
		check_span(w, s->frames[i].dso);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	if (size < 1)
		return 0;
	uint8_t f = data[0];
	struct scripttext_opts o = {
		.with_pid = f & 1,
		.with_tid = f & 2,
		.annotate_kernel = f & 4,
		.annotate_jit = f & 8,
		.addrs = f & 16,
		.event_filter = f & 32 ? "cycles" : NULL,
	};
	size_t len = size - 1;
	char *text = (char *)fuzz_copy(data + 1, len);
	struct result a, b;
	parse(&a, text, len, &o);
	fuzz_check(a.st.samples <= a.st.headers);
	fuzz_check(a.st.lines <= len + 1);
	fuzz_check(a.st.unrecognized + a.st.long_lines <= a.st.lines);
	check_trie(&a.t);
	parse(&b, text, len, &o);
	fuzz_check(a.t.nodes.n == b.t.nodes.n && a.st.samples == b.st.samples);
	for (size_t i = 0; i < a.t.nodes.n; i++)
		fuzz_check(a.t.nodes.v[i].total == b.t.nodes.v[i].total &&
			   a.t.nodes.v[i].self == b.t.nodes.v[i].self);
	struct walk w = { text, len, 0 };
	struct scripttext_stats ws;
	fuzz_check(scripttext_samples(text, len, on_sample, &w, &ws) == 0);
	fuzz_check(w.n == ws.samples && ws.samples <= ws.headers && ws.frameless <= ws.samples);
	release(&a);
	release(&b);
	free(text);
	return 0;
}
