/*
 * Unit tests for scripttext: each stackcollapse-perf.pl rule on a small
 * hand-written input, the limits (long lines, deep stacks), malformed
 * lines, and every truncation of an input (no crash, no read past the end).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aggregate/scripttext.h"
#include "base/buf.h"
#include "base/vec.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The trie as folded lines ("a;b;c 3"), sorted, each ending in '\n'. */
static char *fold(const struct trie *t)
{
	VEC(char *) lines = { 0 };
	struct buf b;
	buf_init(&b, 1 << 24);
	for (uint32_t id = 1; id < t->nodes.n; id++) {
		const struct trie_node *n = trie_node(t, id);
		if (!n->self)
			continue;
		VEC(uint32_t) path = { 0 };
		for (uint32_t p = id; p != 0; p = trie_node(t, p)->parent)
			VEC_PUSH(&path, p);
		buf_reset(&b);
		for (size_t i = path.n; i-- > 0;) {
			buf_addstr(&b, trie_name(t, path.v[i]));
			if (i)
				buf_addch(&b, ';');
		}
		buf_addf(&b, " %llu\n", (unsigned long long)n->self);
		VEC_FREE(&path);
		VEC_PUSH(&lines, buf_detach(&b, NULL));
	}
	if (lines.n > 1)
		qsort(lines.v, lines.n, sizeof(lines.v[0]), cmp_str);
	buf_reset(&b);
	buf_addstr(&b, "");
	for (size_t i = 0; i < lines.n; i++) {
		buf_addstr(&b, lines.v[i]);
		free(lines.v[i]);
	}
	VEC_FREE(&lines);
	return buf_detach(&b, NULL);
}

struct run {
	struct strtab strs;
	struct trie t;
	struct scripttext_stats st;
	char *folded;
};

static void run_len(struct run *r, const char *text, size_t len, const struct scripttext_opts *o)
{
	static const struct scripttext_opts none;
	strtab_init(&r->strs);
	trie_init(&r->t, &r->strs);
	assert_int_equal(scripttext_parse(text, len, o ? o : &none, &r->strs, &r->t, &r->st), 0);
	r->folded = fold(&r->t);
}

static void run(struct run *r, const char *text, const struct scripttext_opts *o)
{
	run_len(r, text, strlen(text), o);
}

static void done(struct run *r)
{
	free(r->folded);
	trie_release(&r->t);
	strtab_release(&r->strs);
}

/* Fold 'text' with 'o' and compare with 'want' (sorted lines). */
static void check(const char *text, const struct scripttext_opts *o, const char *want)
{
	struct run r;
	run(&r, text, o);
	assert_string_equal(r.folded, want);
	done(&r);
}

static const char sample[] =
	"# header comment\n"
	"my prog 1234/1240 [002] 100.5:     250 cycles: \n"
	"\t    ffffffff81000010 do_sys_open+0x1f ([kernel.kallsyms])\n"
	"\t              4005b1 main (/usr/bin/my prog)\n"
	"\t        7f9ca5486ec5 __libc_start_main (/lib/libc.so.6)\n"
	"\n";

static void test_basic(void **state)
{
	(void)state;
	check(sample, NULL, "my_prog;__libc_start_main;main;do_sys_open 250\n");
	struct scripttext_opts o = { .with_pid = true };
	check(sample, &o, "my_prog-1234;__libc_start_main;main;do_sys_open 250\n");
	o.with_tid = true;
	check(sample, &o, "my_prog-1234/1240;__libc_start_main;main;do_sys_open 250\n");
	struct run r;
	run(&r, sample, NULL);
	assert_int_equal(r.st.samples, 1);
	assert_int_equal(r.st.headers, 1);
	assert_int_equal(r.st.lines, 6);
	assert_int_equal(r.st.unrecognized, 0);
	assert_false(r.st.unterminated);
	assert_true(r.st.event_defaulted);
	assert_string_equal(strtab_get(&r.strs, r.st.event), "cycles");
	/* The root is the process frame. */
	uint32_t root = trie_node(&r.t, 0)->first_child;
	assert_int_equal(trie_node(&r.t, root)->kind, FRAME_PROCESS);
	done(&r);
}

static void test_pid_forms(void **state)
{
	(void)state;
	struct scripttext_opts pid = { .with_pid = true }, tid = { .with_tid = true };
	/* "comm TID": the PID is unknown. */
	const char *t1 = "java 25607 4794564.109216: cycles:\n\t1 f (x)\n\n";
	check(t1, &pid, "java-?;f 1\n");
	check(t1, &tid, "java-?/25607;f 1\n");
	/* A TID of "0" counts as absent (Perl truthiness). */
	const char *t2 = "swapper 0/0 [000] 1.0: cycles:\n\t1 f (x)\n\n";
	check(t2, &tid, "swapper-?/0;f 1\n");
	/* Comm with spaces; the lazy comm stops at the first "  DIGITS ". */
	const char *t3 = "V8 WorkerThread 24636/25607 [000] 94564.109216: 100 cycles:\n\t1 f (x)\n\n";
	check(t3, &tid, "V8_WorkerThread-24636/25607;f 100\n");
	/* No time, no period: count 1 each, merged. */
	const char *t4 = "func_ab 15294 cpu-clock: \n\t1 f (x)\n\nfunc_ab 15294 cpu-clock: \n\t2 f (x)\n\n";
	check(t4, NULL, "func_ab;f 2\n");
	/* A comm holding ';' splits like Perl's joined string, so these merge. */
	const char *t5 = "xa;b 1 [0] 1.0: 5 ev:\n\t1 f (x)\n\n"
			 "xa 1 [0] 1.0: 3 ev:\n\t1 f (x)\n\t2 b (x)\n\n";
	check(t5, NULL, "xa;b;f 8\n");
}

static void test_period(void **state)
{
	(void)state;
	const char *t = "pp 1 [0] 1.0: 10 cycles: \n\t1 f (x)\n\n"
			"pp 1 [0] 1.0: 0 cycles: \n\t1 f (x)\n\n"
			"pp 1 [0] 1.0: cycles: \n\t1 f (x)\n\n"
			"pp 1 [0] 1.0: 0007 cycles: \n\t1 f (x)\n\n";
	check(t, NULL, "pp;f 19\n");
	/* A header whose event part is not at the end gives no period or event. */
	check("pp 1 [0] 1.0: 10 sched:switch: prev=1\n\t1 f (x)\n\n", NULL, "pp;f 1\n");
	/* Saturates instead of wrapping. */
	check("pp 1 [0] 1.0: 99999999999999999999999 cycles:\n\t1 f (x)\n\n", NULL,
	      "pp;f 18446744073709551615\n");
}

static void test_event_filter(void **state)
{
	(void)state;
	const char *t = "aa 1 [0] 1.0: 1 instructions: \n\t1 f (x)\n\n"
			"aa 1 [0] 1.0: 1 cycles: \n\t1 g (x)\n\n"
			"aa 1 [0] 1.0: 1 instructions: \n\t1 f (x)\n\n";
	struct run r;
	run(&r, t, NULL);
	assert_string_equal(r.folded, "aa;f 2\n");
	assert_int_equal(r.st.filtered, 1);
	assert_true(r.st.event_defaulted);
	done(&r);
	struct scripttext_opts o = { .event_filter = "cycles" };
	run(&r, t, &o);
	assert_string_equal(r.folded, "aa;g 1\n");
	assert_int_equal(r.st.filtered, 2);
	assert_false(r.st.event_defaulted);
	done(&r);
	/* A filtered header changes nothing: the frames after it are dropped... */
	check("aa 1 [0] 1.0: 1 x: \n\t1 f (m)\n\nbb 2 [0] 1.0: 1 y: \n\t1 g (m)\n\n", NULL,
	      "aa;f 1\n");
	/* ...unless a sample is still open: then they join it (Perl does this). */
	check("aa 1 [0] 1.0: 1 x: \n\t1 f (m)\nbb 2 [0] 1.0: 1 y: \n\t1 g (m)\n\n", NULL,
	      "aa;g;f 1\n");
	/* Two headers with no blank line between: one sample, the second's name. */
	check("aa 1 [0] 1.0: 2 x: \n\t1 f (m)\nbb 2 [0] 1.0: 3 x: \n\t1 g (m)\n\n", NULL,
	      "bb;g;f 3\n");
}

/* Headers that repeat the last one's tail or process, and those that differ
 * from it in a byte (the tail and the process are remembered between
 * samples, never confused). */
static void test_header_repeats(void **state)
{
	(void)state;
	const char *t = "aa 12/13 [0] 1.0: 10 cycles: \n\t1 f (x)\n\n"
			"aa 12/13 [0] 2.0: 20 cycles: \n\t1 f (x)\n\n"  /* the period differs */
			"ab 12/13 [0] 3.0: 20 cycles: \n\t1 f (x)\n\n"  /* the comm */
			"aa 12/14 [0] 4.0: 20 cycles: \n\t1 f (x)\n\n"  /* the TID */
			"aa 12/14 [0] 5.0: 20 cycles: \n\t1 f (x)\n\n"  /* all the same */
			"aa 12/14 [0] 6.0:: 20 cycles: \n\t1 f (x)\n\n" /* the same tail */
			"aa 12/14 [0] 7.0: 20 cyclez: \n\t1 f (x)\n\n"; /* another event */
	struct scripttext_opts tid = { .with_tid = true };
	check(t, &tid, "aa-12/13;f 30\naa-12/14;f 60\nab-12/13;f 20\n");
	check(t, NULL, "aa;f 90\nab;f 20\n");
	/* Whether the process is java's follows the header. */
	const char *j = "java 1/1 [0] 1.0: 1 cycles: \n\t1 Lfoo/Bar;::baz (/tmp/perf-1.map)\n\n"
			"javx 1/1 [0] 1.0: 1 cycles: \n\t1 Lfoo/Bar;::baz (/tmp/perf-1.map)\n\n"
			"java 1/1 [0] 2.0: 1 cycles: \n\t1 Lfoo/Bar;::baz (/tmp/perf-1.map)\n\n";
	check(j, NULL, "java;foo/Bar:::baz 2\njavx;Lfoo/Bar:::baz 1\n");
}

static void test_unknown_and_addrs(void **state)
{
	(void)state;
	const char *t = "dd 29776 666709.771979:   10101010 cpu-clock: \n"
			"\t    31ef [unknown] (/bin/dd)\n"
			"\t    7f2eb2b31c2c [unknown] ([unknown])\n"
			"\n";
	check(t, NULL, "dd;[unknown];[dd] 10101010\n");
	struct scripttext_opts o = { .addrs = true };
	check(t, &o, "dd;[unknown <7f2eb2b31c2c>];[dd <31ef>] 10101010\n");
	/* With no slash the whole dso is the name; "[unknown]+0x10" is stripped first. */
	check("pp 1 ev:\n\t5 [unknown]+0x10 (libx.so)\n\n", NULL, "pp;[libx.so] 1\n");
}

static void test_offsets(void **state)
{
	(void)state;
	check("pp 1 ev:\n"
	      "\t1 a+0x1f (x)\n"
	      "\t2 b+0XAB (x)\n"
	      "\t3 c+0x (x)\n"
	      "\t4 d+0x1f+0x2 (x)\n"
	      "\n",
	      NULL, "pp;d+0x1f;c+0x;b+0XAB;a 1\n");
}

static void test_kernel_jit(void **state)
{
	(void)state;
	const char *t = "pp 1 ev:\n"
			"\t1 k1 ([kernel.kallsyms])\n"
			"\t2 k2 (/lib/modules/4.1.0/build/vmlinux)\n"
			"\t3 k3 ([nf_conntrack_ipv4])\n"
			"\t4 [unknown] ([unknown])\n"
			"\t5 j1 (/tmp/perf-123.map)\n"
			"\t6 j2 (/tmp/perf-.map)\n"
			"\t7 j3_[j] (/tmp/perf-9.map)\n"
			"\t8 u (/usr/lib/libc.so)\n"
			"\n";
	check(t, NULL, "pp;u;j3_[j];j2;j1;[unknown];k3;k2;k1 1\n");
	struct scripttext_opts k = { .annotate_kernel = true };
	check(t, &k, "pp;u;j3_[j];j2;j1;[unknown];k3_[k];k2_[k];k1_[k] 1\n");
	struct scripttext_opts j = { .annotate_jit = true };
	check(t, &j, "pp;u;j3_[j];j2;j1_[j];[unknown];k3;k2;k1 1\n");
	struct run r;
	struct scripttext_opts all = { .annotate_kernel = true, .annotate_jit = true };
	run(&r, t, &all);
	assert_string_equal(r.folded, "pp;u;j3_[j];j2;j1_[j];[unknown];k3_[k];k2_[k];k1_[k] 1\n");
	/* Kinds follow the names: the leaf is a kernel frame. */
	uint32_t leaf = 0;
	for (uint32_t i = 1; i < r.t.nodes.n; i++)
		if (trie_node(&r.t, i)->self)
			leaf = i;
	assert_string_equal(trie_name(&r.t, leaf), "k1_[k]");
	assert_int_equal(trie_node(&r.t, leaf)->kind, FRAME_KERNEL);
	done(&r);
}

static void test_java(void **state)
{
	(void)state;
	const char *t = "java 19983 cycles:\n"
			"7f722d119786 Ljava/io/FileOutputStream;::writeBytes (/tmp/perf-19982.map)\n"
			"7f722d12e1d4 LBusy;::main (/tmp/perf-19982.map)\n"
			"7f72421d2d76 JavaCalls::call_helper(JavaValue, methodHandle) (/x/libjvm.so)\n"
			"\n";
	check(t, NULL,
	      "java;JavaCalls::call_helper;LBusy:::main;java/io/FileOutputStream:::writeBytes 1\n");
	struct scripttext_opts pid = { .with_pid = true };
	check(t, &pid,
	      "java-?;JavaCalls::call_helper;LBusy:::main;java/io/FileOutputStream:::writeBytes "
	      "1\n");
	/* Not a java process: the 'L' stays. */
	check("node 1 ev:\n\t1 Lfoo/Bar;::baz (x)\n\n", NULL, "node;Lfoo/Bar:::baz 1\n");
	/* The same frame line under both kinds of process (frame lines are
	 * cached by their text and whether the process is java's). */
	check("node 1 ev:\n\t1 Lfoo/Bar;::baz (x)\n\n"
	      "java 2 ev:\n\t1 Lfoo/Bar;::baz (x)\n\n"
	      "node 1 ev:\n\t1 Lfoo/Bar;::baz (x)\n\t2 Lfoo/Bar;::baz (x)\n\n",
	      NULL, "java;foo/Bar:::baz 1\nnode;Lfoo/Bar:::baz 1\nnode;Lfoo/Bar:::baz;Lfoo/Bar:::baz 1\n");
}

static void test_tidy(void **state)
{
	(void)state;
	check("pp 1 ev:\n"
	      "\t1 node::Start(int, char**) (x)\n"
	      "\t2 net/http.(*Client).Do (x)\n"
	      "\t3 ns::(anonymous namespace)::f(int) (x)\n"
	      "\t4 RegExp:[&<>\\\"\\'] (/tmp/perf-7539.map)\n"
	      "\t5 RegExp:\\bFoo ?Bar(?:/[\\d.]+|[ \\w.]*) (x)\n"
	      "\t6 a;b (x)\n"
	      "\t7 LazyCompile:~body evalmachine.<anonymous>:1 (x)\n"
	      "\n",
	      NULL,
	      "pp;LazyCompile:~body evalmachine.<anonymous>:1;a:b;RegExp:\\bFoo ?Bar;"
	      "RegExp:[&<>\\\\];ns::(anonymous namespace)::f;net/http.(*Client).Do;node::Start 1\n");
	/* A symbol starting with '(' is a process name, not a frame. */
	check("pp 1 ev:\n\t1 (deleted) (x)\n\t2 f (x)\n\n", NULL, "pp;f 1\n");
}

static void test_inline_arrows(void **state)
{
	(void)state;
	check("pp 1 ev:\n\t1 a->b->c (x)\n\t2 d (x)\n\n", NULL, "pp;d;a;b_[i];c_[i] 1\n");
	/* Trailing empty pieces vanish; leading ones stay. */
	check("pp 1 ev:\n\t1 a-> (x)\n\t2 ->b (x)\n\t3 -> (x)\n\n", NULL, "pp;;b_[i];a 1\n");
}

static void test_frame_line_shapes(void **state)
{
	(void)state;
	/* No leading whitespace (old perf); the symbol may hold " (". */
	check("pp 1 ev:\nffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n"
	      "7f7241fbe6d8 arrayOopDesc::base(BasicType) const (/x/libjvm.so)\n\n",
	      NULL, "pp;arrayOopDesc::base;native_write_msr_safe 1\n");
	/* The dso runs to the last ')'; the symbol ("f (a)", cut to "f ") to the last " (". */
	check("pp 1 ev:\n\t1 f (a) (b) junk\n\n", NULL, "pp;f  1\n");
	/* No room for a symbol after the address: Perl backtracks into it. */
	check("pp 1 ev:\n\tab (x)\n\n", NULL, "pp;b 1\n");
	check("pp 1 ev:\n\tabc  (x)\n\n", NULL, "pp;  1\n");
}

static void test_malformed_and_comments(void **state)
{
	(void)state;
	struct run r;
	run(&r,
	    "#\n# cmdline : perf record -g ./x\n"
	    "garbage\n"
	    "   \n"
	    "\t1 f (x)\n" /* a frame before any header: ignored */
	    "pp 1 ev:\n"
	    "\tnot a frame\n"
	    "\t1 f (x)\n"
	    "\n"
	    "\n",
	    NULL);
	assert_string_equal(r.folded, "pp;f 1\n");
	assert_int_equal(r.st.unrecognized, 3);
	assert_int_equal(r.st.samples, 1);
	done(&r);
	/* A NUL byte makes a line unusable. */
	static const char nul[] = "pp 1 ev:\n\t1 f\0g (x)\n\t2 h (x)\n\n";
	run_len(&r, nul, sizeof(nul) - 1, NULL);
	assert_string_equal(r.folded, "pp;h 1\n");
	assert_int_equal(r.st.unrecognized, 1);
	done(&r);
	/* CRLF: no line is blank, so no sample ever ends (as in Perl). */
	run(&r, "pp 1 ev:\r\n\t1 f (x)\r\n\r\n", NULL);
	assert_string_equal(r.folded, "");
	assert_true(r.st.unterminated);
	done(&r);
	/* No blank line at the end: the last sample is dropped. */
	run(&r, "pp 1 ev:\n\t1 f (x)\n\npp 1 ev:\n\t1 g (x)", NULL);
	assert_string_equal(r.folded, "pp;f 1\n");
	assert_true(r.st.unterminated);
	done(&r);
	/* A sample with no frames is the process alone. */
	check("pp 1 ev:\n\n", NULL, "pp 1\n");
	check("", NULL, "");
}

static void test_long_line(void **state)
{
	(void)state;
	size_t big = 100 * 1000;
	struct buf b;
	buf_init(&b, 1 << 20);
	buf_addstr(&b, "pp 1 ev:\n\t1 f (x)\n\t2 ");
	for (size_t i = 0; i < big; i++)
		buf_addch(&b, 'x');
	buf_addstr(&b, " (x)\n\t3 g (x)\n\nqq 2 ev:\n\t1 h (x)\n\n");
	struct run r;
	run_len(&r, b.p, b.len, NULL);
	assert_string_equal(r.folded, "pp;g;f 1\nqq;h 1\n");
	assert_int_equal(r.st.long_lines, 1);
	done(&r);
	/* Exactly at the limit is still read. */
	buf_reset(&b);
	buf_addstr(&b, "pp 1 ev:\n\t1 ");
	size_t pad = SCRIPTTEXT_MAX_LINE - strlen("\t1 ") - strlen(" (x)");
	for (size_t i = 0; i < pad; i++)
		buf_addch(&b, 'y');
	buf_addstr(&b, " (x)\n\n");
	run_len(&r, b.p, b.len, NULL);
	assert_int_equal(r.st.long_lines, 0);
	assert_int_equal(r.st.samples, 1);
	done(&r);
	buf_release(&b);
}

static void test_deep_stack(void **state)
{
	(void)state;
	struct buf b;
	buf_init(&b, 1 << 20);
	buf_addstr(&b, "pp 1 ev:\n");
	size_t n = SCRIPTTEXT_MAX_FRAMES + 10;
	for (size_t i = 0; i < n; i++)
		buf_addf(&b, "\t%zx f%zu (x)\n", i, i);
	buf_addstr(&b, "\n");
	struct run r;
	run_len(&r, b.p, b.len, NULL);
	assert_int_equal(r.st.samples, 1);
	assert_int_equal(r.st.dropped_frames, 10);
	assert_int_equal(r.st.truncated, 1);
	/* The leaf-most frames are kept: the path is pp;f1023;...;f0. */
	assert_int_equal(trie_depth(&r.t, (uint32_t)r.t.nodes.n - 1), SCRIPTTEXT_MAX_FRAMES + 1);
	assert_non_null(strstr(r.folded, "pp;f1023;f1022;"));
	assert_non_null(strstr(r.folded, ";f1;f0 1\n"));
	assert_null(strstr(r.folded, "f1024"));
	done(&r);
	buf_release(&b);
}

static void test_truncations(void **state)
{
	(void)state;
	static const char text[] =
		"# cmdline : perf record -g\n"
		"java 4263/4270 [001] 8765.43:   1000 cycles: \n"
		"\t    7f2a1b3c Lfoo/Bar;::baz(I)V+0x1f (/tmp/perf-4263.map)\n"
		"\t    ffffffff81000000 do_syscall_64 ([kernel.kallsyms])\n"
		"\t    31ef [unknown] (/bin/dd)\n"
		"\t    1 a->b (x)\n"
		"\n"
		"V8 WorkerThread 25607 4794564.109216: 104345 instructions:\n"
		"\t0 [unknown] ([unknown])\n"
		"\n";
	struct scripttext_opts o = { .with_tid = true, .annotate_kernel = true,
				     .annotate_jit = true, .addrs = true };
	size_t len = sizeof(text) - 1;
	for (size_t cut = 0; cut <= len; cut++) {
		/* An exact-size copy, so a read past the end trips ASan. */
		char *copy = xmalloc(cut ? cut : 1);
		memcpy(copy, text, cut);
		struct run r;
		run_len(&r, copy, cut, &o);
		assert_true(r.st.samples <= 1);
		done(&r);
		free(copy);
	}
	struct run r;
	run_len(&r, text, len, &o);
	assert_string_equal(r.folded, "java-4263/4270;a;b_[i];[dd <31ef>];do_syscall_64_[k];"
				      "foo/Bar:::baz_[j] 1000\n");
	assert_int_equal(r.st.filtered, 1);
	done(&r);
}

/* The early check of a pipe's first bytes: text is known by its first
 * lines; NUL bytes, junk lines and an endless first line are refused. */
static void test_sniff(void **state)
{
	(void)state;
	static const char script[] = "# comment\n\njava 4263/4270 [001] 1.0: 1 cycles:\n";
	assert_int_equal(scripttext_sniff(script, sizeof(script) - 1, false), 1);
	static const char frame[] = "\t    7f2a1b3c main+0x1f (/bin/x)\nmore";
	assert_int_equal(scripttext_sniff(frame, sizeof(frame) - 1, false), 1);
	static const char folded[] = "a;b;c 12\n";
	assert_int_equal(scripttext_sniff(folded, sizeof(folded) - 1, true), 1);
	assert_int_equal(scripttext_sniff(folded, sizeof(folded) - 1, false), 0);
	/* Undecided: only comments, or a first line that may go on. */
	assert_int_equal(scripttext_sniff("#x\n\n", 4, true), 0);
	assert_int_equal(scripttext_sniff("java 4263", 9, false), 0);
	assert_int_equal(scripttext_sniff("ab\0cd\n", 6, true), -1);
	char junk[16 * 5 + 1];
	for (int i = 0; i < 16; i++)
		memcpy(junk + i * 5, "aaaa\n", 5);
	assert_int_equal(scripttext_sniff(junk, 15 * 5, true), 0);
	assert_int_equal(scripttext_sniff(junk, 16 * 5, true), -1);
	char *line = xmalloc(SCRIPTTEXT_SNIFF_BYTES);
	memset(line, 'a', SCRIPTTEXT_SNIFF_BYTES);
	assert_int_equal(scripttext_sniff(line, SCRIPTTEXT_SNIFF_BYTES - 1, true), 0);
	assert_int_equal(scripttext_sniff(line, SCRIPTTEXT_SNIFF_BYTES, true), -1);
	free(line);
}

/* scripttext_samples: header fields and frames as they are. */
struct got {
	int n;
	char comm[32], event[32], sym[32], dso[64];
	uint32_t pid, tid, cpu;
	uint64_t period, addr, off;
	size_t frames;
};

static int got_sample(void *ctx, const struct scripttext_sample *s)
{
	struct got *g = ctx;
	g->n++;
	snprintf(g->comm, sizeof(g->comm), "%.*s", (int)s->comm.n, s->comm.p);
	snprintf(g->event, sizeof(g->event), "%.*s", (int)s->event.n, s->event.p);
	g->pid = s->pid, g->tid = s->tid, g->cpu = s->cpu, g->period = s->period;
	g->frames = s->n;
	if (!s->n)
		return 0;
	snprintf(g->sym, sizeof(g->sym), "%.*s", (int)s->frames[0].sym.n, s->frames[0].sym.p);
	snprintf(g->dso, sizeof(g->dso), "%.*s", (int)s->frames[0].dso.n, s->frames[0].dso.p);
	g->addr = s->frames[0].addr, g->off = s->frames[0].off;
	return 0;
}

static void test_samples(void **state)
{
	(void)state;
	const char *t = "burn 4321/4322 [003] 12.5:     250000 cpu-clock:ppp: \n"
			"\t    1214 tokenize+0x2d (/usr/bin/burn)\n"
			"\t    1300 main+0x10 (/usr/bin/burn)\n"
			"\n"
			"my prog 77 1.0: 5 cycles: \n"
			"\t ffffffff81000000 do_syscall_64 ([kernel.kallsyms])\n";
	struct got g = { 0 };
	struct scripttext_stats st;
	assert_int_equal(scripttext_samples(t, strlen(t), got_sample, &g, &st), 0);
	assert_int_equal(g.n, 2); /* the last one counts without its blank line */
	assert_string_equal(g.comm, "my prog");
	assert_string_equal(g.event, "cycles");
	assert_string_equal(g.sym, "do_syscall_64");
	assert_string_equal(g.dso, "[kernel.kallsyms]");
	assert_int_equal(g.tid, 77);
	assert_int_equal(g.pid, 0);
	assert_int_equal(g.cpu, UINT32_MAX);
	assert_int_equal(g.period, 5);
	assert_true(g.addr == 0xffffffff81000000u);
	memset(&g, 0, sizeof(g));
	size_t first = (size_t)(strstr(t, "my prog") - t);
	assert_int_equal(scripttext_samples(t, first, got_sample, &g, &st), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.event, "cpu-clock:ppp");
	assert_int_equal(g.pid, 4321);
	assert_int_equal(g.tid, 4322);
	assert_int_equal(g.cpu, 3);
	assert_int_equal(g.period, 250000);
	assert_string_equal(g.sym, "tokenize");
	assert_int_equal(g.off, 0x2d);
	assert_int_equal(g.addr, 0x1214);
	assert_int_equal(g.frames, 2);

	/* a stack past the cap keeps its leaf-most frames, counted */
	struct buf b;
	buf_init(&b, 1u << 20);
	buf_addstr(&b, "p 1 1.0: 1 cycles:\n");
	for (unsigned i = 0; i < SCRIPTTEXT_MAX_FRAMES + 10; i++)
		buf_addstr(&b, "\t 1000 f+0x1 (/bin/p)\n");
	memset(&g, 0, sizeof(g));
	assert_int_equal(scripttext_samples(b.p, b.len, got_sample, &g, &st), 0);
	assert_int_equal(g.frames, SCRIPTTEXT_MAX_FRAMES);
	assert_int_equal(st.dropped_frames, 10);
	assert_int_equal(st.truncated, 1);
	buf_release(&b);

	/* a sample perf script printed no frame lines for still counts */
	const char *nf = "burn 5 1.0: 250000 cpu-clock: \n\nburn 5 2.0: 250000 cpu-clock: \n"
			 "\t 1000 f+0x1 (/bin/p)\n\n";
	memset(&g, 0, sizeof(g));
	assert_int_equal(scripttext_samples(nf, strlen(nf), got_sample, &g, &st), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(st.samples, 2);
	assert_int_equal(st.frameless, 1);
	assert_int_equal(g.frames, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_pid_forms),
		cmocka_unit_test(test_period),
		cmocka_unit_test(test_event_filter),
		cmocka_unit_test(test_header_repeats),
		cmocka_unit_test(test_unknown_and_addrs),
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_kernel_jit),
		cmocka_unit_test(test_java),
		cmocka_unit_test(test_tidy),
		cmocka_unit_test(test_inline_arrows),
		cmocka_unit_test(test_frame_line_shapes),
		cmocka_unit_test(test_malformed_and_comments),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_deep_stack),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_sniff),
		cmocka_unit_test(test_samples),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
