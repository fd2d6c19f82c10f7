/*
 * trace unit tests (trace, L7): argument text (strings quoted as strace
 * does, open flags, dfd, modes, errors), -e filters, and the core's
 * lines for interleaved calls (started "...", then "[continued]"),
 * --failure, and the summaries, on hand-made events; execve's argv,
 * strings read at exit, and the time order of a pass's records.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_int.h"

enum { NR_READ = 0, NR_WRITE = 1, NR_EXECVE = 59, NR_OPENAT = 257, NR_EXIT_GROUP = 231 };

static void add_call(struct tr_systab *t, int nr, const char *name, enum tr_retkind rk,
		     const char *const *args, const enum tr_argkind *kinds, unsigned n)
{
	struct tr_syscall *sc = &t->v[nr];
	sc->name = name;
	sc->ret = rk;
	sc->fmt = true;
	sc->nargs = n;
	for (unsigned i = 0; i < n; i++) {
		sc->argname[i] = strdup(args[i]);
		sc->kind[i] = kinds[i];
		sc->argsize[i] = 8;
		sc->int32[i] = kinds[i] == AK_FD || kinds[i] == AK_DFD || kinds[i] == AK_OPEN_FLAGS;
	}
}

static void make_tab(struct tr_systab *t)
{
	memset(t, 0, sizeof(*t));
	t->n = 300;
	t->v = calloc(t->n, sizeof(*t->v));
	static const char *const rw[] = { "fd", "buf", "count" };
	static const enum tr_argkind rwk[] = { AK_FD, AK_PTR, AK_UINT };
	add_call(t, NR_READ, "read", RK_INT, rw, rwk, 3);
	add_call(t, NR_WRITE, "write", RK_INT, rw, rwk, 3);
	static const char *const op[] = { "dfd", "filename", "flags", "mode" };
	static const enum tr_argkind opk[] = { AK_DFD, AK_STR, AK_OPEN_FLAGS, AK_MODE };
	add_call(t, NR_OPENAT, "openat", RK_FD, op, opk, 4);
	static const char *const xv[] = { "filename", "argv", "envp" };
	static const enum tr_argkind xvk[] = { AK_STR, AK_PTR, AK_PTR };
	add_call(t, NR_EXECVE, "execve", RK_INT, xv, xvk, 3);
	static const char *const ex[] = { "error_code" };
	static const enum tr_argkind exk[] = { AK_INT };
	add_call(t, NR_EXIT_GROUP, "exit_group", RK_NONE, ex, exk, 1);
}

static void free_tab(struct tr_systab *t)
{
	for (size_t i = 0; i < t->n; i++)
		for (unsigned a = 0; a < t->v[i].nargs; a++)
			free(t->v[i].argname[a]);
	free(t->v);
}

static void test_string(void **state)
{
	(void)state;
	struct buf b;
	buf_init(&b, 1 << 12);
	const char s[] = "a\"b\\\n\x01z\x01" "7\xff";
	argfmt_string(&b, s, sizeof(s) - 1, false);
	assert_string_equal(buf_str(&b), "\"a\\\"b\\\\\\n\\1z\\0017\\377\"");
	buf_reset(&b);
	argfmt_string(&b, "abc", 3, true);
	assert_string_equal(buf_str(&b), "\"abc\"...");
	buf_release(&b);
}

static void test_entry(void **state)
{
	(void)state;
	struct tr_systab t;
	make_tab(&t);
	struct tr_fdcache fds;
	fdcache_init(&fds);
	struct buf b;
	buf_init(&b, 1 << 12);
	struct tr_event e = { .pid = 0x7ffffff0, .tid = 0x7ffffff0, .nr = NR_OPENAT, .enter = true,
			      .args = { (uint64_t)-100, 0x1234, 02000000 | 0100 | 01, 0644 } };
	e.str[1] = "/etc/x";
	e.slen[1] = 6;
	argfmt_entry(&b, &t, &e, &fds);
	assert_string_equal(buf_str(&b),
			    "openat(dfd: CWD, filename: \"/etc/x\", flags: WRONLY|CREAT|CLOEXEC, mode: 0644");
	buf_reset(&b);
	e.str[1] = NULL;
	e.args[0] = 7; /* an fd of a process that does not exist: the number alone */
	e.args[2] = 0;
	e.args[3] = 0;
	argfmt_entry(&b, &t, &e, &fds);
	assert_string_equal(buf_str(&b), "openat(dfd: 7, filename: 0x1234, flags: RDONLY");
	buf_reset(&b);
	fdcache_set(&fds, e.pid, 9, "/srv/data.log");
	struct tr_event w = { .pid = e.pid, .nr = NR_WRITE, .enter = true, .args = { 9, 0, 5 } };
	argfmt_entry(&b, &t, &w, &fds);
	assert_string_equal(buf_str(&b), "write(fd: 9</srv/data.log>, count: 5");
	buf_reset(&b);
	argfmt_result(&b, &t.v[NR_OPENAT], -2);
	assert_string_equal(buf_str(&b), "-1 ENOENT (No such file or directory)");
	buf_reset(&b);
	argfmt_result(&b, &t.v[NR_READ], -512);
	assert_string_equal(buf_str(&b), "-1 ERESTARTSYS (To be restarted if SA_RESTART is set)");
	buf_reset(&b);
	argfmt_result(&b, &t.v[NR_EXIT_GROUP], 0);
	assert_string_equal(buf_str(&b), "?");
	buf_release(&b);
	fdcache_release(&fds);
	free_tab(&t);
}

static void test_filter(void **state)
{
	(void)state;
	struct trace_opts o = { .expr = "open*,close" };
	struct tr_filter f;
	assert_int_equal(filter_init(&f, &o), 0);
	assert_true(filter_call(&f, "openat", 1, 1, "x"));
	assert_true(filter_call(&f, "close", 1, 1, "x"));
	assert_false(filter_call(&f, "read", 1, 1, "x"));
	filter_release(&f);
	o.expr = "!read";
	o.comm = "cat";
	assert_int_equal(filter_init(&f, &o), 0);
	assert_false(filter_call(&f, "read", 1, 1, "cat"));
	assert_true(filter_call(&f, "write", 1, 1, "cat"));
	assert_false(filter_call(&f, "write", 1, 1, "dog"));
	filter_release(&f);
	assert_int_not_equal(trace_check_expr("Open"), 0);
	assert_int_not_equal(trace_check_expr("open,"), 0);
	assert_int_not_equal(trace_check_expr("!"), 0);
	assert_int_equal(trace_check_expr("open*,close"), 0);
}

static char *run_core(const struct tr_event *ev, size_t n, struct trace_opts *o)
{
	struct tr_systab t;
	make_tab(&t);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	o->out = out;
	struct trace_result res;
	memset(&res, 0, sizeof(res));
	struct tr_core c;
	assert_int_equal(core_init(&c, o, &res, &t), 0);
	for (size_t i = 0; i < n; i++)
		core_event(&c, &ev[i]);
	core_finish(&c);
	core_release(&c);
	fclose(out);
	free_tab(&t);
	return text;
}

#define A 0x7ffffff1u
#define B 0x7ffffff2u
#define MS 1000000ull

static const char comm_a[TR_COMM] = "a", comm_b[TR_COMM] = "b";

static const struct tr_event interleaved[] = {
	{ .time = 1 * MS, .pid = A, .tid = A, .nr = NR_READ, .enter = true, .args = { 3, 0, 100 }, .comm = comm_a },
	{ .time = 2 * MS, .pid = B, .tid = B, .nr = NR_WRITE, .enter = true, .args = { 1, 0, 5 }, .comm = comm_b },
	{ .time = 3 * MS, .pid = B, .tid = B, .nr = NR_WRITE, .ret = 5, .comm = comm_b },
	{ .time = 5 * MS, .pid = A, .tid = A, .nr = NR_READ, .ret = -11, .comm = comm_a },
	{ .time = 6 * MS, .pid = A, .tid = A, .nr = NR_EXIT_GROUP, .enter = true, .comm = comm_a },
};

static void test_interleave(void **state)
{
	(void)state;
	struct trace_opts o = { .summary = TRACE_LINES };
	char *text = run_core(interleaved, 5, &o);
	/* perf trace's columns: " = " 70 characters after the call's name, " ..." 66. */
	const char *want =
		"     0.000 (         ): a/2147483633 read(fd: 3, count: 100)                                            ...\n"
		"     1.000 ( 1.000 ms): b/2147483634 write(fd: 1, count: 5)                                                = 5\n"
		"     0.000 ( 4.000 ms): a/2147483633  ... [continued]: read())                                             = -1 EAGAIN (Resource temporarily unavailable)\n"
		"     5.000 (         ): a/2147483633 exit_group()                                                          = ?\n";
	assert_string_equal(text, want);
	free(text);
	/* --failure: whole lines at the exit, failed calls only. */
	o.failure = true;
	text = run_core(interleaved, 5, &o);
	assert_string_equal(text,
			    "     0.000 ( 4.000 ms): a/2147483633 read(fd: 3, count: 100)                                               = -1 EAGAIN (Resource temporarily unavailable)\n");
	free(text);
}

static void test_summaries(void **state)
{
	(void)state;
	struct trace_opts o = { .summary = TRACE_SUMMARY_ONLY, .strace_table = true };
	char *text = run_core(interleaved, 5, &o);
	const char *want =
		"\n Summary of events:\n\n"
		" a (2147483633), 3 events, 60.0%\n\n"
		"   syscall            calls  errors  total       min       avg       max       stddev\n"
		"                                     (msec)    (msec)    (msec)    (msec)        (%)\n"
		"   --------------- --------  ------ -------- --------- --------- ---------     ------\n"
		"   read                   1      1     4.000     4.000     4.000     4.000      0.00%\n\n"
		" b (2147483634), 2 events, 40.0%\n\n"
		"   syscall            calls  errors  total       min       avg       max       stddev\n"
		"                                     (msec)    (msec)    (msec)    (msec)        (%)\n"
		"   --------------- --------  ------ -------- --------- --------- ---------     ------\n"
		"   write                  1      0     1.000     1.000     1.000     1.000      0.00%\n\n"
		"% time     seconds  usecs/call     calls    errors syscall\n"
		"------ ----------- ----------- --------- --------- ----------------\n"
		" 80.00    0.004000        4000         1         1 read\n"
		" 20.00    0.001000        1000         1           write\n"
		"------ ----------- ----------- --------- --------- ----------------\n"
		"100.00    0.005000        2500         2         1 total\n";
	assert_string_equal(text, want);
	free(text);
}

static void test_argv(void **state)
{
	(void)state;
	struct buf b;
	buf_init(&b, 1 << 12);
	struct tr_exec_args x = { .argc = 3, .more = true };
	x.arg[0] = "ls";
	x.len[0] = 2;
	x.arg[1] = "a \"b\"";
	x.len[1] = 5;
	x.ptr[2] = 0xdead0; /* unreadable: its pointer */
	argfmt_argv(&b, &x);
	assert_string_equal(buf_str(&b), "[\"ls\", \"a \\\"b\\\"\", 0xdead0, ...]");
	buf_reset(&b);
	x = (struct tr_exec_args){ .argc = 1 };
	x.arg[0] = "abcdef";
	x.len[0] = 3;
	x.trunc[0] = true;
	argfmt_argv(&b, &x);
	assert_string_equal(buf_str(&b), "[\"abc\"...]");
	buf_release(&b);
}

/* An execve's argv (core_exec_args) and a filename read at its exit
 * (core_late_strings) show in its line. */
static void test_exec_line(void **state)
{
	(void)state;
	struct tr_systab t;
	make_tab(&t);
	char *text = NULL;
	size_t len = 0;
	struct trace_opts o = { .summary = TRACE_LINES };
	o.out = open_memstream(&text, &len);
	struct trace_result res;
	memset(&res, 0, sizeof(res));
	struct tr_core c;
	assert_int_equal(core_init(&c, &o, &res, &t), 0);
	struct tr_event in = { .time = MS, .pid = A, .tid = A, .nr = NR_EXECVE, .enter = true,
			       .args = { 0x1000, 0x2000, 0x3000 }, .comm = comm_a };
	core_event(&c, &in);
	struct tr_exec_args x = { .tid = A, .nr = NR_EXECVE, .argc = 2, .envc = 7 };
	x.arg[0] = "sh";
	x.len[0] = 2;
	x.arg[1] = "-c";
	x.len[1] = 2;
	core_exec_args(&c, &x);
	struct tr_event late = { .time = 2 * MS, .pid = A, .tid = A, .nr = NR_EXECVE };
	late.str[0] = "/bin/sh";
	late.slen[0] = 7;
	core_late_strings(&c, &late);
	struct tr_event out = { .time = 3 * MS, .pid = A, .tid = A, .nr = NR_EXECVE, .ret = 0,
				.comm = comm_a };
	core_event(&c, &out);
	core_finish(&c);
	core_release(&c);
	fclose(o.out);
	free_tab(&t);
	assert_string_equal(text, "     0.000 ( 2.000 ms): a/2147483633 execve(filename: \"/bin/sh\", "
				  "argv: [\"sh\", \"-c\"], envp: 0x3000 /* 7 vars */) = 0\n");
	free(text);
}

/* A call's strings survive threads added while it blocks (the thread
 * table moves; under ASan a stale pointer would be a use after free). */
static void test_threads_added(void **state)
{
	(void)state;
	struct tr_event ev[2 + 2 * 200];
	size_t n = 0;
	ev[n] = (struct tr_event){ .time = MS, .pid = A, .tid = A, .nr = NR_OPENAT, .enter = true,
				   .args = { (uint64_t)-100, 0x1000, 0 }, .comm = comm_a };
	ev[n].str[1] = "/etc/hosts";
	ev[n++].slen[1] = 10;
	for (uint32_t i = 0; i < 200; i++) {
		ev[n++] = (struct tr_event){ .time = 2 * MS + i, .pid = 1000 + i, .tid = 1000 + i,
					     .nr = NR_WRITE, .enter = true, .args = { 1, 0, 1 },
					     .comm = comm_b };
		ev[n++] = (struct tr_event){ .time = 2 * MS + i, .pid = 1000 + i, .tid = 1000 + i,
					     .nr = NR_WRITE, .ret = 1, .comm = comm_b };
	}
	ev[n++] = (struct tr_event){ .time = 3 * MS, .pid = A, .tid = A, .nr = NR_OPENAT, .ret = 3,
				     .comm = comm_a };
	struct trace_opts o = { .summary = TRACE_LINES, .failure = false, .duration_ms = 1.5 };
	char *text = run_core(ev, n, &o);
	assert_non_null(strstr(text, "openat(dfd: CWD, filename: \"/etc/hosts\", flags: RDONLY)"));
	free(text);
}

static void test_queue(void **state)
{
	(void)state;
	struct tr_queue q = { 0 };
	queue_push(&q, "c", 2, 30, 0);
	queue_push(&q, "a", 2, 10, 1);
	queue_push(&q, "b1", 3, 20, 0);
	queue_push(&q, "b2", 3, 20, 1); /* same time: reading order */
	queue_sort(&q);
	const char *want[] = { "a", "b1", "b2", "c" };
	assert_int_equal(q.recs.n, 4);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal((const char *)q.bytes.v + q.recs.v[i].off, want[i]);
	assert_int_equal(q.recs.v[0].kind, 1);
	queue_reset(&q);
	assert_int_equal(q.recs.n, 0);
	queue_release(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_string),    cmocka_unit_test(test_entry),
		cmocka_unit_test(test_filter),    cmocka_unit_test(test_interleave),
		cmocka_unit_test(test_summaries), cmocka_unit_test(test_argv),
		cmocka_unit_test(test_exec_line), cmocka_unit_test(test_queue),
		cmocka_unit_test(test_threads_added),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
