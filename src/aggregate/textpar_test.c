/*
 * textpar unit tests (aggregate, L6): perf script text parsed on 2..16
 * threads gives the trie and the stats one thread gives (generated texts
 * with every kind of line the parser treats apart: the event kept by the
 * first one seen or a filter, headers without a blank line between, java
 * names, inline groups, unknown frames, quotes, comments, junk, a sample
 * cut at the end, fewer places to cut than threads), and the number of
 * threads chosen by size.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "aggregate/textpar.h"
#include "base/buf.h"

static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

static void addf(struct buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	buf_add(b, tmp, (size_t)n);
}

/* perf script text of 'samples' samples, with odd lines among them. */
static void gen_script(struct buf *b, unsigned samples, uint64_t seed)
{
	static const char *const comms[] = { "cc1plus", "java", "my prog", "a;b", "javac" };
	static const char *const syms[] = { "main", "work+0x1f", "[unknown]", "Ljava/lang/Thread;::run",
					    "inl_a->inl_b", "f(int)", "(anonymous namespace)::g",
					    "do_syscall_64", "x\"y'z" };
	static const char *const dsos[] = { "/usr/bin/cc1plus", "[kernel.kallsyms]", "[unknown]",
					    "/tmp/perf-42.map", "/lib/libc.so.6" };
	uint64_t s = seed;
	addf(b, "# a comment\n");
	for (unsigned i = 0; i < samples; i++) {
		unsigned r = (unsigned)rnd(&s);
		const char *ev = i && r % 5 == 0 ? "instructions" : "cycles";
		addf(b, "%s %u/%u [%03u] 1.%u: %u %s:\n", comms[r % 5], 100 + r % 3, 200 + r % 4, r % 4,
		     i, 1000 + r % 7, ev);
		if (r % 23 == 0) /* a second header: one sample, named by it */
			addf(b, "%s %u [000] 2.0: %s:\n", comms[(r / 5) % 5], 300 + r % 2, ev);
		unsigned depth = 1 + (unsigned)rnd(&s) % 12;
		for (unsigned k = 0; k < depth; k++) {
			unsigned q = (unsigned)rnd(&s);
			addf(b, "\t    %llx %s (%s)\n", 0x400000ULL + q % 50, syms[q % 9], dsos[q % 5]);
		}
		if (r % 31 == 0)
			addf(b, "junk that is no perf script line\n");
		addf(b, "\n");
		if (r % 17 == 0)
			addf(b, "\n# between samples\n\n");
	}
	addf(b, "cc1plus 1/1 [000] 9.9: 1 cycles:\n\t1 main (/bin/x)\n"); /* unterminated */
}

static void dump(const struct trie *t, struct buf *out)
{
	struct trie_walk w;
	trie_walk_init(&w, t, 0);
	for (uint32_t id; (id = trie_walk_next(&w)) != TRIE_NONE;) {
		const struct trie_node *n = trie_node(t, id);
		addf(out, "%s/%u=%llu,%llu@%u\n", trie_name(t, id), n->kind,
		     (unsigned long long)n->total, (unsigned long long)n->self, w.level);
	}
	trie_walk_release(&w);
}

/* Parse 'text' on 'threads' threads; the sorted trie as text into out. */
static void script_run(const struct buf *text, const struct scripttext_opts *o, unsigned threads,
		       struct buf *out, struct scripttext_stats *st)
{
	struct strtab s;
	struct trie t;
	strtab_init(&s);
	trie_init(&t, &s);
	textpar_script(text->p, text->len, o, &s, &t, st, threads);
	trie_sort(&t);
	dump(&t, out);
	if (st->event != TRIE_NO_NAME)
		addf(out, "event %s\n", strtab_get(&s, st->event));
	st->event = 0; /* ids differ; the name was compared */
	trie_release(&t);
	strtab_release(&s);
}

static void check_script(const char *filter, bool with_pid, unsigned samples)
{
	struct buf text, one, many;
	buf_init(&text, (size_t)64 << 20);
	buf_init(&one, (size_t)64 << 20);
	buf_init(&many, (size_t)64 << 20);
	gen_script(&text, samples, samples);
	struct scripttext_opts o = { .with_pid = with_pid, .annotate_kernel = true,
				     .annotate_jit = true, .event_filter = filter };
	struct scripttext_stats s1, sn;
	script_run(&text, &o, 1, &one, &s1);
	if (!filter) {
		assert_true(s1.samples > 0);
		assert_true(s1.unterminated);
		assert_true(samples < 100 || s1.filtered > 0);
	}
	static const unsigned threads[] = { 2, 3, 5, 16 };
	for (size_t i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
		buf_reset(&many);
		script_run(&text, &o, threads[i], &many, &sn);
		assert_string_equal(buf_str(&one), buf_str(&many));
		assert_memory_equal(&s1, &sn, sizeof(s1));
	}
	buf_release(&text);
	buf_release(&one);
	buf_release(&many);
}

static void test_script(void **state)
{
	(void)state;
	check_script(NULL, false, 2000);
	check_script(NULL, true, 777);
	check_script("instructions", false, 1500);
	check_script("none", false, 300);
	check_script(NULL, false, 3); /* fewer places to cut than threads */
}

static void test_threads(void **state)
{
	(void)state;
	assert_int_equal(textpar_threads(1, 8, (size_t)1 << 30), 1);
	assert_int_equal(textpar_threads(2, 1, 10), 2);
	assert_int_equal(textpar_threads(0, 8, TEXTPAR_PART_MIN - 1), 1);
	assert_int_equal(textpar_threads(0, 8, TEXTPAR_PART_MIN * 3), 3);
	assert_int_equal(textpar_threads(0, 2, TEXTPAR_PART_MIN * 3), 2);
	assert_int_equal(textpar_threads(0, -1, TEXTPAR_PART_MIN * 1000), TEXTPAR_MAX_THREADS);
	assert_int_equal(textpar_threads(500, 2, 0), TEXTPAR_MAX_THREADS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_script),
		cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
