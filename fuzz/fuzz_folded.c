/*
 * fuzz_folded: folded stack text through foldedtext_parse (plain,
 * reversed, as a flame chart, with its fraction digits), the trie it
 * builds through the folded and SVG writers, and the same bytes as a
 * palette.map through palmap_parse. Checked beyond "no crash": line
 * counts add up and are bounded by the input; every trie node's total is
 * its own count plus its children's (no saturation); the folded text
 * written from the trie parses back to the same total; a palette written
 * and read back keeps its entries.
 */
#include "aggregate/foldedtext.h"
#include "fuzz/fuzz.h"
#include "output/folded.h"
#include "output/palmap.h"
#include "output/svg.h"

static void check_trie(const struct trie *t, bool exact)
{
	for (size_t i = 0; i < t->nodes.n; i++) {
		const struct trie_node *n = &t->nodes.v[i];
		uint64_t sum = n->self;
		for (uint32_t c = n->first_child; c != TRIE_NONE; c = t->nodes.v[c].next_sibling)
			sum += t->nodes.v[c].total;
		if (exact)
			fuzz_check(sum == n->total);
	}
}

static void run(const char *text, size_t size, bool reverse, bool chart)
{
	struct strtab strs;
	struct trie t;
	struct foldedtext_stats st;
	uint64_t *first = NULL;
	struct foldedtext_opts o = { foldedtext_frac_digits(text, size), reverse, chart };
	strtab_init(&strs);
	trie_init(&t, &strs);
	foldedtext_parse(text, size, &o, &strs, &t, &first, &st);
	fuzz_check(st.lines <= size + 1);
	fuzz_check(st.stacks + st.ignored + st.long_lines <= st.lines);
	fuzz_check(st.differential <= st.stacks);
	fuzz_check(t.nodes.n <= size + 1);
	check_trie(&t, st.saturated == 0);

	/* Written and read back: the same total (integer counts, no saturation). */
	char *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);
	if (!f)
		abort();
	uint64_t div = 1;
	for (unsigned i = 0; i < o.frac_digits; i++)
		div *= 10;
	folded_write_ex(f, &t, first, div);
	fclose(f);
	if (!chart && !reverse && st.saturated == 0 && o.frac_digits == 0 && !first) {
		struct strtab s2;
		struct trie t2;
		struct foldedtext_stats st2;
		strtab_init(&s2);
		trie_init(&t2, &s2);
		foldedtext_parse(out, outlen, NULL, &s2, &t2, NULL, &st2);
		/* Lines whose stack ended in " N" are re-read as differential; skip
		 * those. A line with an empty stack counts at the root, and folded
		 * text has no line for that. */
		if (st2.differential == 0)
			fuzz_check(t2.nodes.v[0].total == t.nodes.v[0].total - t.nodes.v[0].self);
		trie_release(&t2);
		strtab_release(&s2);
	}
	free(out);

	if (size < 4096) {
		int64_t *delta = NULL;
		if (first) {
			delta = calloc(t.nodes.n ? t.nodes.n : 1, sizeof(*delta));
			for (size_t i = 0; i < t.nodes.n; i++)
				delta[i] = (int64_t)(t.nodes.v[i].self >> 1) - (int64_t)(first[i] >> 1);
		}
		struct svg_opts so;
		svg_opts_default(&so);
		so.delta = delta;
		so.chart = chart;
		so.color_mode = reverse ? SVG_COLOR_HASH : SVG_COLOR_RANDOM;
		so.palette = (enum svg_palette)(size % SVG_PALETTE_COUNT);
		FILE *null = fopen("/dev/null", "w");
		if (null) {
			svg_write(null, &t, &so);
			fclose(null);
		}
		free(delta);
	}
	free(first);
	trie_release(&t);
	strtab_release(&strs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	char *text = (char *)fuzz_copy(data, size);
	fuzz_check(foldedtext_frac_digits(text, size) <= FOLDEDTEXT_MAX_DIGITS);
	(void)foldedtext_detect(text, size);
	run(text, size, false, false);
	run(text, size, true, false);
	run(text, size, false, true);

	struct palmap *m = palmap_new();
	uint64_t skipped = palmap_parse(m, text, size);
	fuzz_check(skipped <= size);
	char *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);
	if (!f)
		abort();
	palmap_write(m, f);
	fclose(f);
	struct palmap *m2 = palmap_new();
	fuzz_check(palmap_parse(m2, out, outlen) == 0);
	fuzz_check(palmap_count(m2) == palmap_count(m));
	palmap_free(m2);
	palmap_free(m);
	free(out);
	free(text);
	return 0;
}
