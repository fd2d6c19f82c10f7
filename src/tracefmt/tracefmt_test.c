/*
 * tracefmt unit tests (tracefmt, L1): every event format file of this
 * machine's /sys/kernel/tracing/events parsed and printed over zeroed and
 * patterned payloads; the text of real formats checked against what perf
 * 6.1 printed for the same values (sched_switch, softirq_entry,
 * timer_start's flags quirk, hrtimer_setup's unresolvable symbols);
 * libtraceevent's parser quirks on hand-written formats; and blobs built
 * here, whole and cut at every length.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/xalloc.h"
#include "tracefmt/tracefmt.h"
#include "tracefmt/tracefmt_int.h"

#define EVENTS "/sys/kernel/tracing/events"

static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	struct buf b;
	buf_init(&b, 1u << 20);
	char tmp[4096];
	size_t n;
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		buf_add(&b, tmp, n);
	fclose(f);
	return buf_detach(&b, len);
}

/* The machine's format of sys/name, parsed; NULL (test skipped) if absent. */
static struct tracefmt *machine_format(const char *sys, const char *name)
{
	char path[512];
	size_t len;
	snprintf(path, sizeof(path), EVENTS "/%s/%s/format", sys, name);
	char *text = read_text(path, &len);
	if (!text)
		return NULL;
	struct tracefmt *t;
	int rc = tracefmt_parse_format(&t, sys, text, len);
	free(text);
	assert_int_equal(rc, 0);
	return t;
}

static const struct tf_field *field(const struct tracefmt *t, const char *name)
{
	const struct tf_field *f = tf_find_field(t->events[0], name);
	assert_non_null(f);
	return f;
}

static void put(uint8_t *raw, const struct tracefmt *t, const char *name, uint64_t v)
{
	const struct tf_field *f = field(t, name);
	memcpy(raw + f->offset, &v, f->size); /* little-endian host */
}

static void put_str(uint8_t *raw, const struct tracefmt *t, const char *name, const char *s)
{
	const struct tf_field *f = field(t, name);
	memset(raw + f->offset, 0, f->size);
	memcpy(raw + f->offset, s, strlen(s));
}

static void expect_text(const struct tracefmt *t, const uint8_t *raw, size_t len,
			const char *want)
{
	struct buf b;
	buf_init(&b, 1u << 16);
	assert_int_equal(tracefmt_print(t, t->events[0], raw, len, &b), 0);
	assert_string_equal(buf_str(&b), want);
	buf_release(&b);
}

/* ---- this machine's formats ---- */

static void test_all_machine_formats(void **state)
{
	(void)state;
	DIR *d = opendir(EVENTS);
	if (!d)
		skip();
	size_t total = 0, parsed = 0, failed = 0;
	struct dirent *sys;
	uint8_t zero[4096] = { 0 }, pattern[4096];
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 37 + 11);
	while ((sys = readdir(d))) {
		if (sys->d_name[0] == '.')
			continue;
		char dir[512];
		snprintf(dir, sizeof(dir), EVENTS "/%s", sys->d_name);
		DIR *e = opendir(dir);
		if (!e)
			continue;
		struct dirent *ev;
		while ((ev = readdir(e))) {
			char path[1024];
			size_t len;
			if (ev->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/format", dir, ev->d_name);
			char *text = read_text(path, &len);
			if (!text)
				continue;
			total++;
			struct tracefmt *t;
			if (!tracefmt_parse_format(&t, sys->d_name, text, len)) {
				parsed++;
				const struct tracefmt_event *te = tracefmt_event_at(t, 0);
				assert_string_equal(tracefmt_event_name(te), ev->d_name);
				failed += tracefmt_event_failed(te);
				struct buf b;
				buf_init(&b, 1u << 16);
				tracefmt_print(t, te, zero, sizeof(zero), &b);
				buf_reset(&b);
				tracefmt_print(t, te, pattern, sizeof(pattern), &b);
				buf_reset(&b);
				tracefmt_print(t, te, pattern, 7, &b); /* shorter than its fields */
				buf_release(&b);
				tracefmt_free(t);
			}
			free(text);
		}
		closedir(e);
	}
	closedir(d);
	if (!total)
		skip();
	print_message("formats: %zu, parsed %zu, print fmt failed (as perf) %zu\n", total, parsed,
		      failed);
	assert_int_equal(parsed, total); /* every field list parses */
	assert_true(failed * 20 < total);  /* few print fmts defeat libtraceevent's parser */
}

/* Events perf 6.1 reports it cannot parse here ("bad op token {", "function ... not defined"). */
static void test_perf_failures(void **state)
{
	(void)state;
	struct tracefmt *t = machine_format("kvmmmu", "kvm_mmu_get_page");
	if (t) {
		assert_true(tracefmt_event_failed(t->events[0]));
		tracefmt_free(t);
	}
	t = machine_format("ras", "mc_event");
	if (t) {
		assert_true(tracefmt_event_failed(t->events[0]));
		tracefmt_free(t);
	}
	t = machine_format("sched", "sched_switch");
	if (!t)
		skip();
	assert_false(tracefmt_event_failed(t->events[0]));
	tracefmt_free(t);
}

/* The values and texts below are from perf script output on this machine. */
static void test_sched_switch(void **state)
{
	(void)state;
	struct tracefmt *t = machine_format("sched", "sched_switch");
	if (!t)
		skip();
	uint8_t raw[128] = { 0 };
	put_str(raw, t, "prev_comm", "perf");
	put(raw, t, "prev_pid", 2097);
	put(raw, t, "prev_prio", 120);
	put(raw, t, "prev_state", 2);
	put_str(raw, t, "next_comm", "migration/0");
	put(raw, t, "next_pid", 18);
	put(raw, t, "next_prio", 0);
	expect_text(t, raw, sizeof(raw),
		    "prev_comm=perf prev_pid=2097 prev_prio=120 prev_state=D ==> "
		    "next_comm=migration/0 next_pid=18 next_prio=0");
	put(raw, t, "prev_state", 0);
	expect_text(t, raw, sizeof(raw),
		    "prev_comm=perf prev_pid=2097 prev_prio=120 prev_state=R ==> "
		    "next_comm=migration/0 next_pid=18 next_prio=0");
	tracefmt_free(t);
}

static void test_softirq(void **state)
{
	(void)state;
	struct tracefmt *t = machine_format("irq", "softirq_entry");
	if (!t)
		skip();
	uint8_t raw[16] = { 0 };
	put(raw, t, "vec", 4);
	expect_text(t, raw, sizeof(raw), "vec=4 [action=BLOCK]");
	put(raw, t, "vec", 9);
	expect_text(t, raw, sizeof(raw), "vec=9 [action=RCU]");
	put(raw, t, "vec", 77);
	expect_text(t, raw, sizeof(raw), "vec=77 [action=0x4d]");
	tracefmt_free(t);
}

/* perf prints flags=D|P|I whatever the flags: libtraceevent's parser
 * drops the parentheses around the mask. */
static void test_timer_start_quirk(void **state)
{
	(void)state;
	struct tracefmt *t = machine_format("timer", "timer_start");
	if (!t)
		skip();
	uint8_t raw[64] = { 0 };
	put(raw, t, "flags", (uint64_t)21 << 22);
	put(raw, t, "expires", 4297144468u);
	put(raw, t, "now", 4297144467u);
	put(raw, t, "bucket_expiry", 4297144469u);
	expect_text(t, raw, sizeof(raw),
		    "timer=(nil) function=0x0 expires=4297144468 [timeout=1] "
		    "bucket_expiry=4297144469 cpu=0 idx=21 flags=D|P|I");
	tracefmt_free(t);
}

/* Symbol values that are names (HRTIMER_MODE_ABS) match nothing. */
static void test_hrtimer_setup(void **state)
{
	(void)state;
	struct tracefmt *t = machine_format("timer", "hrtimer_setup");
	if (!t)
		skip();
	uint8_t raw[32] = { 0 };
	put(raw, t, "hrtimer", 0xffffc9000652bc60ull);
	put(raw, t, "clockid", 0);
	put(raw, t, "mode", 1);
	expect_text(t, raw, sizeof(raw),
		    "hrtimer=0xffffc9000652bc60 clockid=CLOCK_REALTIME mode=0x1");
	tracefmt_free(t);
}

/* ---- hand-written formats: libtraceevent's parser and printer ---- */

static struct tracefmt *fmt(const char *print)
{
	char text[4096];
	snprintf(text, sizeof(text),
		 "name: test\nID: 7\nformat:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		 "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
		 "\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;\n"
		 "\tfield:int c;\toffset:16;\tsize:4;\tsigned:1;\n"
		 "\tfield:__data_loc char[] s;\toffset:20;\tsize:4;\tsigned:0;\n"
		 "\tfield:char name[8];\toffset:24;\tsize:8;\tsigned:0;\n"
		 "\tfield:unsigned long p;\toffset:32;\tsize:8;\tsigned:0;\n\n"
		 "print fmt: %s\n",
		 print);
	struct tracefmt *t;
	assert_int_equal(tracefmt_parse_format(&t, "test", text, strlen(text)), 0);
	return t;
}

static void payload(uint8_t raw[64])
{
	int32_t a = 10, b = 3, c = 2;
	uint32_t loc = (uint32_t)(6u << 16 | 40u); /* "hello\0" at 40 */
	memset(raw, 0, 64);
	memcpy(raw + 8, &a, 4);
	memcpy(raw + 12, &b, 4);
	memcpy(raw + 16, &c, 4);
	memcpy(raw + 20, &loc, 4);
	memcpy(raw + 24, "abc", 3);
	memcpy(raw + 40, "hello", 6);
}

static void check(const char *print, const char *want)
{
	uint8_t raw[64];
	payload(raw);
	struct tracefmt *t = fmt(print);
	expect_text(t, raw, sizeof(raw), want);
	tracefmt_free(t);
}

static void test_expressions(void **state)
{
	(void)state;
	check("\"%d\", REC->a + REC->b * REC->c", "16");
	/* equal priorities group to the right: 10 - (3 - 2) */
	check("\"%d\", REC->a - REC->b - REC->c", "9");
	check("\"%d %d\", (REC->a - REC->b) * REC->c, REC->a >> 1", "14 5");
	check("\"%s\", REC->a > 5 ? \"big\" : \"small\"", "big");
	check("\"%d\", REC->b == 3 ? REC->a : REC->c", "10");
	/* "(unsigned char)" before an operator is no cast for libtraceevent: 0 - 1 */
	check("\"%x\", (unsigned char)-1", "ffffffff");
	check("\"%x\", (unsigned char)(REC->c - 3)", "ff");
	check("\"%s=%s\", __get_str(s), REC->name", "hello=abc");
	check("\"%.*s|\", 3, __get_str(s)", "hel|");
	check("\"%s\", __print_flags(REC->a, \"|\", { 2, \"TWO\" }, { 8, \"EIGHT\" })", "TWO|EIGHT");
	check("\"%s\", __print_flags(REC->a, \",\", { 2, \"TWO\" })", "TWO,0x8");
	check("\"%s\", __print_flags(REC->c, \",\", { 1, \"ONE\" })", "0x2");
	check("\"%s\", __print_symbolic(REC->b, { 1, \"one\" }, { 3, \"three\" })", "three");
	check("\"%p %p\", REC->p, REC->a", "(nil) 0xa");
	check("\"%ps\", REC->a", "0xa");
	check("\"100%% done\\t%d\\n\", REC->c", "100% done\t2\n");
	check("\"%d\", REC->a ^ REC->b", "0"); /* libtraceevent has no '^' */
}

static void test_failed_prints_fields(void **state)
{
	(void)state;
	/* an unknown helper: perf prints the fields instead */
	check("\"%d\", no_such_helper(REC->a)",
	      "[FAILED TO PARSE] a=10 b=3 c=2 s=hello name=abc p=0x0");
	/* more conversions than arguments */
	check("\"%d %d\", REC->a", "[FAILED TO PARSE] a=10 b=3 c=2 s=hello name=abc p=0x0");
}

static const char *resolve(void *arg, uint64_t addr, uint64_t *start)
{
	(void)arg;
	if (addr < 8)
		return NULL;
	*start = 8;
	return "some_function";
}

static void test_resolver(void **state)
{
	(void)state;
	uint8_t raw[64];
	payload(raw);
	struct tracefmt *t = fmt("\"%ps %pS %ps\", REC->a, REC->a, REC->c");
	tracefmt_set_resolver(t, resolve, NULL);
	expect_text(t, raw, sizeof(raw), "some_function some_function+0x2 0x2");
	tracefmt_free(t);
}

/* ---- blobs ---- */

static void add(struct buf *b, const void *p, size_t n)
{
	assert_int_equal(buf_add(b, p, n), 0);
}

static bool big; /* write the blob's numbers big-endian */

static void add32(struct buf *b, uint32_t v)
{
	if (big)
		v = __builtin_bswap32(v);
	add(b, &v, 4);
}

static void add64(struct buf *b, uint64_t v)
{
	if (big)
		v = __builtin_bswap64(v);
	add(b, &v, 8);
}

static const char one_format[] = "name: test\nID: 7\nformat:\n"
				 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
				 "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\n"
				 "print fmt: \"a=%d\", REC->a\n";

static char *make_blob(size_t *len, const char *header_page)
{
	struct buf b;
	buf_init(&b, 1u << 20);
	add(&b, "\027\010\104tracing0.6", 14);
	uint8_t be = big, ls = 8;
	add(&b, &be, 1);
	add(&b, &ls, 1);
	add32(&b, 4096);
	add(&b, "header_page", 12);
	add64(&b, strlen(header_page));
	add(&b, header_page, strlen(header_page));
	add(&b, "header_event", 13);
	add64(&b, 0);
	add32(&b, 0); /* ftrace */
	add32(&b, 1); /* systems */
	add(&b, "test", 5);
	add32(&b, 1);
	add64(&b, strlen(one_format));
	add(&b, one_format, strlen(one_format));
	add32(&b, 0); /* kallsyms */
	const char pk[] = "0xffffffff81000000 : \"hello %d\\n\"\n";
	add32(&b, (uint32_t)strlen(pk));
	add(&b, pk, strlen(pk));
	add64(&b, 0);
	return buf_detach(&b, len);
}

static void test_blob(void **state)
{
	(void)state;
	size_t len;
	char *blob = make_blob(&len, "abc");
	struct tracefmt *t;
	assert_int_equal(tracefmt_parse(&t, (const uint8_t *)blob, len, 1000), 0);
	assert_int_equal(tracefmt_nevents(t), 1);
	assert_int_equal(t->long_size, 8);
	const struct tracefmt_event *e = tracefmt_find(t, 7);
	assert_non_null(e);
	assert_null(tracefmt_find(t, 8));
	assert_string_equal(tracefmt_event_system(e), "test");
	assert_non_null(tf_find_printk(t, 0xffffffff81000000ull));
	assert_string_equal(tf_find_printk(t, 0xffffffff81000000ull)->fmt, "hello %d");
	uint8_t raw[12] = { 0 };
	raw[8] = 42;
	struct buf b;
	buf_init(&b, 256);
	tracefmt_print(t, e, raw, sizeof(raw), &b);
	assert_string_equal(buf_str(&b), "a=42");
	buf_release(&b);
	tracefmt_free(t);
	/* Every cut before the printk formats end fails, naming an offset inside the blob. */
	size_t need = len - 8;
	for (size_t n = 0; n < need; n++) {
		uint8_t *cut = xmalloc(n ? n : 1);
		memcpy(cut, blob, n);
		assert_int_not_equal(tracefmt_parse(&t, cut, n, 1000), 0);
		assert_null(t);
		assert_true(err_last()->offset >= 1000 && err_last()->offset <= 1000 + n);
		free(cut);
	}
	/* A format that does not parse is left out; the blob still reads. */
	blob[len - 8 - 4 - 35 - 4 - 20] ^= 0x55; /* inside the format text */
	assert_int_equal(tracefmt_parse(&t, (const uint8_t *)blob, len, 0), 0);
	tracefmt_free(t);
	free(blob);
	/* perf takes the long size from header_page's commit field */
	blob = make_blob(&len, "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
			       "\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n");
	assert_int_equal(tracefmt_parse(&t, (const uint8_t *)blob, len, 0), 0);
	assert_int_equal(t->long_size, 4);
	tracefmt_free(t);
	free(blob);
}

/* A big-endian machine's blob: sizes, counts and payload numbers swap. */
static void test_blob_big_endian(void **state)
{
	(void)state;
	size_t len;
	big = true;
	char *blob = make_blob(&len, "abc");
	big = false;
	struct tracefmt *t;
	assert_int_equal(tracefmt_parse(&t, (const uint8_t *)blob, len, 0), 0);
	const struct tracefmt_event *e = tracefmt_find(t, 7);
	assert_non_null(e);
	uint8_t raw[12] = { 0 };
	raw[8 + 3] = 42; /* int a = 42, big-endian */
	raw[8 + 2] = 1;  /* + 256 */
	struct buf b;
	buf_init(&b, 256);
	tracefmt_print(t, e, raw, sizeof(raw), &b);
	assert_string_equal(buf_str(&b), "a=298");
	buf_release(&b);
	tracefmt_free(t);
	free(blob);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_machine_formats),
		cmocka_unit_test(test_perf_failures),
		cmocka_unit_test(test_sched_switch),
		cmocka_unit_test(test_softirq),
		cmocka_unit_test(test_timer_start_quirk),
		cmocka_unit_test(test_hrtimer_setup),
		cmocka_unit_test(test_expressions),
		cmocka_unit_test(test_failed_prints_fields),
		cmocka_unit_test(test_resolver),
		cmocka_unit_test(test_blob),
		cmocka_unit_test(test_blob_big_endian),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
