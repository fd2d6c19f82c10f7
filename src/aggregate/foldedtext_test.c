/*
 * Unit tests for foldedtext: flamegraph.pl's line rules (count at the end
 * after one whitespace byte, fractions, two counts, trailing empty frames,
 * invalid lines), frame kinds from annotations, --reverse and --flamechart
 * orders, detection against perf script text, the limits, and every
 * truncation of an input (no crash, no read past the end under ASan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aggregate/foldedtext.h"

struct run {
	struct strtab strs;
	struct trie t;
	struct foldedtext_stats st;
	uint64_t *first;
};

static void parse(struct run *r, const char *text, const struct foldedtext_opts *o)
{
	strtab_init(&r->strs);
	trie_init(&r->t, &r->strs);
	foldedtext_parse(text, strlen(text), o, &r->strs, &r->t, &r->first, &r->st);
}

static void done(struct run *r)
{
	free(r->first);
	trie_release(&r->t);
	strtab_release(&r->strs);
}

/* The node reached by the ';'-separated path, or TRIE_NONE. */
static uint32_t node_at(struct run *r, const char *path)
{
	uint32_t cur = 0;
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = buf, *e; s; s = e) {
		e = strchr(s, ';');
		if (e)
			*e++ = '\0';
		uint32_t found = TRIE_NONE;
		for (uint32_t c = r->t.nodes.v[cur].first_child; c != TRIE_NONE;
		     c = r->t.nodes.v[c].next_sibling)
			if (!strcmp(trie_name(&r->t, c), s))
				found = c;
		if (found == TRIE_NONE)
			return TRIE_NONE;
		cur = found;
	}
	return cur;
}

static void test_lines(void **state)
{
	(void)state;
	struct run r;
	parse(&r, "p;main;work 10\n"
		  "p;main;work 5\n"
		  "p;main  7\n"          /* two spaces: the stack is "p;main " */
		  "p;a;b; 3\n"           /* trailing empty frame dropped */
		  "p;;c 1\n"             /* inner empty frame kept */
		  "no count\n"
		  "p;x 1e3\n"
		  "p;y .5\n"
		  "\n"
		  "p;z\t2\n",
	      NULL);
	assert_int_equal(r.st.lines, 10);
	assert_int_equal(r.st.stacks, 6);
	assert_int_equal(r.st.ignored, 4);
	assert_int_equal(r.t.nodes.v[0].total, 28);
	assert_int_equal(r.t.nodes.v[node_at(&r, "p;main;work")].self, 15);
	assert_int_not_equal(node_at(&r, "p;main "), TRIE_NONE);
	assert_int_equal(r.t.nodes.v[node_at(&r, "p;a;b")].self, 3);
	assert_int_not_equal(node_at(&r, "p;;c"), TRIE_NONE);
	assert_int_equal(r.t.nodes.v[node_at(&r, "p;z")].self, 2);
	assert_null(r.first);
	done(&r);
}

static void test_fractions(void **state)
{
	(void)state;
	const char *text = "a;b 1.25\na;c 2.\na;d 0.125\na;e 3.1234567\n";
	unsigned d = foldedtext_frac_digits(text, strlen(text));
	assert_int_equal(d, FOLDEDTEXT_MAX_DIGITS);
	/* Only a count's '.' counts: dots in names, lines without counts,
	 * CRLF, a differential line, the last line without its newline. */
	static const struct {
		const char *text;
		unsigned digits;
	} cases[] = {
		{ "a.b;c 1\n", 0 },
		{ "a.b;c 1.5\nx 2\n", 1 },
		{ "x 1\ny.z 2.25\r\n", 2 },
		{ "p;q 1.5 2.125", 3 },
		{ "a;b 7\n.\n..\nc.d 3\n", 0 },
		{ "a 1.\n", 0 },
		{ "x.y 1\nx.y 1\nz 1.25\n", 2 },
		{ "a 1\nb 2.5", 1 },
		{ "a.b 1.5\nc.d 1.75\n", 2 },
		{ "", 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(foldedtext_frac_digits(cases[i].text, strlen(cases[i].text)),
				 cases[i].digits);
	struct foldedtext_opts o = { .frac_digits = 3 };
	struct run r;
	parse(&r, text, &o);
	assert_int_equal(r.t.nodes.v[node_at(&r, "a;b")].self, 1250);
	assert_int_equal(r.t.nodes.v[node_at(&r, "a;c")].self, 2000);
	assert_int_equal(r.t.nodes.v[node_at(&r, "a;d")].self, 125);
	assert_int_equal(r.t.nodes.v[node_at(&r, "a;e")].self, 3123);
	done(&r);
}

static void test_differential(void **state)
{
	(void)state;
	struct run r;
	parse(&r, "a;b 1 2\na;c 5 0\na;b;d 0 7\na;e 4\n", NULL);
	assert_int_equal(r.st.differential, 3);
	assert_non_null(r.first);
	uint32_t b = node_at(&r, "a;b"), c = node_at(&r, "a;c"), d = node_at(&r, "a;b;d");
	uint32_t e = node_at(&r, "a;e");
	assert_int_equal(r.t.nodes.v[b].self, 2);
	assert_int_equal(r.first[b], 1);
	assert_int_equal(r.t.nodes.v[c].self, 0);
	assert_int_equal(r.first[c], 5);
	assert_int_equal(r.first[d], 0);
	assert_int_equal(r.t.nodes.v[d].self, 7);
	assert_int_equal(r.first[e], 4); /* one count: the same in both */
	assert_int_equal(r.t.nodes.v[0].total, 13);
	done(&r);
}

static void test_kinds(void **state)
{
	(void)state;
	struct run r;
	parse(&r, "java;main;Lfoo/Bar_[j];inl_[i];do_sys_[k];[libc.so.6] 1\n", NULL);
	assert_int_equal(r.t.nodes.v[node_at(&r, "java")].kind, FRAME_PROCESS);
	assert_int_equal(r.t.nodes.v[node_at(&r, "java;main")].kind, FRAME_USER);
	assert_int_equal(r.t.nodes.v[node_at(&r, "java;main;Lfoo/Bar_[j]")].kind, FRAME_JIT);
	assert_int_equal(r.t.nodes.v[node_at(&r, "java;main;Lfoo/Bar_[j];inl_[i]")].kind,
			 FRAME_INLINE);
	assert_int_equal(r.t.nodes.v[node_at(&r, "java;main;Lfoo/Bar_[j];inl_[i];do_sys_[k]")].kind,
			 FRAME_KERNEL);
	assert_int_equal(
		r.t.nodes.v[node_at(&r, "java;main;Lfoo/Bar_[j];inl_[i];do_sys_[k];[libc.so.6]")]
			.kind,
		FRAME_UNKNOWN);
	done(&r);
	/* A name's kind is worked out once and kept; the first frame is the
	 * process's wherever its name comes again. */
	parse(&r, "x_[k];x_[k];a 1\nx_[k];b;x_[k] 2\nb;x_[k] 3\n", NULL);
	assert_int_equal(r.t.nodes.v[node_at(&r, "x_[k]")].kind, FRAME_PROCESS);
	assert_int_equal(r.t.nodes.v[node_at(&r, "x_[k];x_[k]")].kind, FRAME_KERNEL);
	assert_int_equal(r.t.nodes.v[node_at(&r, "x_[k];b;x_[k]")].kind, FRAME_KERNEL);
	assert_int_equal(r.t.nodes.v[node_at(&r, "b")].kind, FRAME_PROCESS);
	assert_int_equal(r.t.nodes.v[node_at(&r, "b;x_[k]")].kind, FRAME_KERNEL);
	assert_int_equal(r.t.nodes.v[node_at(&r, "x_[k];b")].kind, FRAME_USER);
	done(&r);
}

static void test_reverse_and_chart(void **state)
{
	(void)state;
	struct foldedtext_opts rev = { .reverse = true };
	struct run r;
	parse(&r, "a;b;c 2\na;x;c 3\n", &rev);
	assert_int_equal(r.t.nodes.v[node_at(&r, "c")].total, 5);
	assert_int_equal(r.t.nodes.v[node_at(&r, "c;b;a")].self, 2);
	assert_int_equal(r.t.nodes.v[node_at(&r, "c;x;a")].self, 3);
	done(&r);

	/* A chart merges only adjacent stacks and keeps line order. */
	struct foldedtext_opts chart = { .chart = true };
	parse(&r, "m;z 1\nm;a 2\nm;z 3\n", &chart);
	uint32_t m = r.t.nodes.v[0].first_child;
	assert_string_equal(trie_name(&r.t, m), "m");
	assert_int_equal(r.t.nodes.v[m].total, 6);
	const char *want[] = { "z", "a", "z" };
	uint64_t wself[] = { 1, 2, 3 };
	int i = 0;
	for (uint32_t c = r.t.nodes.v[m].first_child; c != TRIE_NONE;
	     c = r.t.nodes.v[c].next_sibling, i++) {
		assert_true(i < 3);
		assert_string_equal(trie_name(&r.t, c), want[i]);
		assert_int_equal(r.t.nodes.v[c].self, wself[i]);
	}
	assert_int_equal(i, 3);
	done(&r);
}

/* Frames of every length around a word's 8 bytes, each ';' at every byte of
 * a word, the last ones near the end of the text (read bytewise there). */
static void test_frame_lengths(void **state)
{
	(void)state;
	char text[4096], name[32], path[64];
	size_t len = 0;
	for (int n = 0; n < 20; n++) {
		memset(name, 'a' + n, (size_t)n);
		name[n] = '\0';
		len += (size_t)snprintf(text + len, sizeof(text) - len, "p;%s;x%d %d\n", name, n, n + 1);
	}
	text[len - 1] = '\0'; /* no newline after the last line */
	struct run r;
	parse(&r, text, NULL);
	assert_int_equal(r.st.stacks, 20);
	assert_int_equal(r.st.ignored, 0);
	for (int n = 0; n < 20; n++) {
		memset(name, 'a' + n, (size_t)n);
		name[n] = '\0';
		snprintf(path, sizeof(path), "p;%s;x%d", name, n);
		uint32_t id = node_at(&r, path);
		assert_int_not_equal(id, TRIE_NONE);
		assert_int_equal(r.t.nodes.v[id].self, (uint64_t)n + 1);
		uint32_t mid = r.t.nodes.v[id].parent;
		assert_int_equal(strtab_len(&r.strs, r.t.nodes.v[mid].name), (uint32_t)n);
	}
	done(&r);
}

static void test_detect(void **state)
{
	(void)state;
	const char *folded = "# comment\n\nmain;work 12\n";
	const char *script = "burn 123/123 [000] 1.000: 1 cpu-clock:\n"
			     "\t    55d0 work (/bin/burn)\n\n";
	const char *indented = "  main;work 12\n";
	assert_true(foldedtext_detect(folded, strlen(folded)));
	assert_false(foldedtext_detect(script, strlen(script)));
	assert_false(foldedtext_detect(indented, strlen(indented)));
	assert_false(foldedtext_detect("", 0));
}

static void test_limits(void **state)
{
	(void)state;
	size_t n = FOLDEDTEXT_MAX_LINE + 10;
	char *big = malloc(n + 16);
	memset(big, 'x', n);
	memcpy(big + n, " 1\nok 2\n", 8);
	struct strtab strs;
	struct trie t;
	struct foldedtext_stats st;
	strtab_init(&strs);
	trie_init(&t, &strs);
	foldedtext_parse(big, n + 8, NULL, &strs, &t, NULL, &st);
	assert_int_equal(st.long_lines, 1);
	assert_int_equal(st.stacks, 1);
	trie_release(&t);
	strtab_release(&strs);
	free(big);

	/* A deep stack keeps FOLDEDTEXT_MAX_FRAMES frames. */
	size_t frames = FOLDEDTEXT_MAX_FRAMES + 5;
	char *deep = malloc(frames * 2 + 8);
	size_t k = 0;
	for (size_t i = 0; i < frames; i++) {
		deep[k++] = 'f';
		deep[k++] = i + 1 < frames ? ';' : ' ';
	}
	memcpy(deep + k, "7\n", 2);
	strtab_init(&strs);
	trie_init(&t, &strs);
	foldedtext_parse(deep, k + 2, NULL, &strs, &t, NULL, &st);
	assert_int_equal(st.truncated, 1);
	assert_int_equal(trie_depth(&t, (uint32_t)t.nodes.n - 1), FOLDEDTEXT_MAX_FRAMES);
	trie_release(&t);
	strtab_release(&strs);
	free(deep);

	/* Sums saturate, they do not wrap. */
	struct run r;
	parse(&r, "a 18446744073709551615\na 18446744073709551615\nb 99999999999999999999\n", NULL);
	assert_true(r.st.saturated >= 2);
	assert_int_equal(r.t.nodes.v[0].total, UINT64_MAX);
	done(&r);
}

static void test_truncations(void **state)
{
	(void)state;
	const char *text = "p;main;work 10\np;a;b 1.5 2\r\nbad\np;x_[k] 3\n";
	size_t len = strlen(text);
	for (size_t cut = 0; cut <= len; cut++) {
		char *copy = malloc(cut ? cut : 1);
		memcpy(copy, text, cut);
		struct strtab strs;
		struct trie t;
		struct foldedtext_stats st;
		uint64_t *first = NULL;
		struct foldedtext_opts o = { foldedtext_frac_digits(copy, cut), false, false };
		strtab_init(&strs);
		trie_init(&t, &strs);
		foldedtext_parse(copy, cut, &o, &strs, &t, &first, &st);
		assert_true(st.lines <= cut + 1);
		free(first);
		trie_release(&t);
		strtab_release(&strs);
		free(copy);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),	  cmocka_unit_test(test_fractions),
		cmocka_unit_test(test_differential), cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_reverse_and_chart), cmocka_unit_test(test_detect),
		cmocka_unit_test(test_frame_lengths),
		cmocka_unit_test(test_limits),	  cmocka_unit_test(test_truncations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
