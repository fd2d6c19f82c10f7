/*
 * script unit tests (output, L7): -F parsing (replace, +field, -field,
 * typed lists, perf's error messages), the sample_type check, perf's
 * derived event names, and hand-built samples printed through
 * open_memstream against the exact text perf 6.1 prints for them; random
 * samples against the same layout written with printf.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "output/script.h"

#define CODE_DEFAULTS \
	(SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_EVENT | SF_IP | SF_SYM | SF_SYMOFF | SF_DSO)

static void test_defaults(void **state)
{
	struct script_fields f;

	(void)state;
	script_fields_init(&f);
	assert_int_equal(f.fields[SCRIPT_T_HW], CODE_DEFAULTS | SF_PERIOD);
	assert_int_equal(f.fields[SCRIPT_T_SW], CODE_DEFAULTS | SF_PERIOD | SF_BPF_OUTPUT);
	assert_int_equal(f.fields[SCRIPT_T_TRACEPOINT],
			 SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_EVENT | SF_TRACE);
	assert_int_equal(f.fields[SCRIPT_T_RAW], CODE_DEFAULTS | SF_PERIOD | SF_ADDR);
	assert_false(f.user_set[SCRIPT_T_HW]);
	assert_int_equal(script_out_type(PERF_TYPE_HARDWARE), SCRIPT_T_HW);
	assert_int_equal(script_out_type(PERF_TYPE_BREAKPOINT), SCRIPT_T_BREAKPOINT);
	assert_int_equal(script_out_type(8), SCRIPT_T_OTHER);
	assert_int_equal(script_out_type(1u << 31), SCRIPT_T_SYNTH);
}

static void test_parse_replace(void **state)
{
	struct script_fields f;

	(void)state;
	script_fields_init(&f);
	assert_int_equal(script_fields_parse(&f, "comm,pid,tid,time,ip,event"), 0);
	for (int t = 0; t < SCRIPT_T_MAX; t++) {
		uint64_t want = SF_COMM | SF_PID | SF_TID | SF_TIME | SF_IP | SF_EVENT;
		assert_int_equal(f.fields[t], want);
		assert_int_equal(f.user_set_fields[t], want);
		assert_true(f.user_set[t]);
	}
	/* 'trace' is not valid for hardware or software events: skipped there. */
	assert_int_equal(script_fields_parse(&f, "comm,trace"), 0);
	assert_int_equal(f.fields[SCRIPT_T_HW], SF_COMM);
	assert_int_equal(f.fields[SCRIPT_T_TRACEPOINT], SF_COMM | SF_TRACE);
}

static void test_parse_add_remove(void **state)
{
	struct script_fields f;

	(void)state;
	script_fields_init(&f);
	assert_int_equal(script_fields_parse(&f, "+addr"), 0);
	assert_int_equal(f.fields[SCRIPT_T_SW],
			 CODE_DEFAULTS | SF_PERIOD | SF_BPF_OUTPUT | SF_ADDR);
	assert_int_equal(f.user_set_fields[SCRIPT_T_SW], SF_ADDR);
	assert_true(f.user_set[SCRIPT_T_SW]);

	script_fields_init(&f);
	assert_int_equal(script_fields_parse(&f, "-period"), 0);
	assert_int_equal(f.fields[SCRIPT_T_HW], CODE_DEFAULTS);
	assert_int_equal(f.user_unset_fields[SCRIPT_T_HW], SF_PERIOD);
	/* A removed field is not added back by callchain handling. */
	script_fields_add_default(&f, SCRIPT_T_HW, SF_PERIOD | SF_IP);
	assert_int_equal(f.fields[SCRIPT_T_HW], CODE_DEFAULTS);

	/* Several edits in one list, and an edit after a replacement. */
	script_fields_init(&f);
	assert_int_equal(script_fields_parse(&f, "-cpu,-period,+pid"), 0);
	assert_int_equal(f.fields[SCRIPT_T_HW], (CODE_DEFAULTS & ~SF_CPU) | SF_PID);
	assert_int_equal(script_fields_parse(&f, "comm,tid"), 0);
	assert_int_equal(script_fields_parse(&f, "+time"), 0);
	assert_int_equal(f.fields[SCRIPT_T_HW], SF_COMM | SF_TID | SF_TIME);

	/* Typed: only that type changes. */
	script_fields_init(&f);
	assert_int_equal(script_fields_parse(&f, "sw:comm,ip"), 0);
	assert_int_equal(f.fields[SCRIPT_T_SW], SF_COMM | SF_IP);
	assert_int_equal(f.fields[SCRIPT_T_HW], CODE_DEFAULTS | SF_PERIOD);
	assert_true(f.user_set[SCRIPT_T_SW]);
	assert_false(f.user_set[SCRIPT_T_HW]);
	assert_int_equal(script_fields_parse(&f, "hw:-period"), 0);
	assert_int_equal(f.fields[SCRIPT_T_HW], CODE_DEFAULTS);
}

static void test_parse_errors(void **state)
{
	struct script_fields f;

	(void)state;
	script_fields_init(&f);
	assert_int_equal(script_fields_parse(&f, "comm,bogus"), -EINVAL);
	assert_string_equal(err_last()->msg, "Invalid field requested.");
	assert_int_equal(script_fields_parse(&f, "+bogus"), -EINVAL);
	assert_string_equal(err_last()->msg, "Invalid field requested.");
	assert_int_equal(script_fields_parse(&f, "comm,-tid"), -EINVAL);
	assert_string_equal(err_last()->msg, "Cannot mix +-field with overridden fields");
	assert_int_equal(script_fields_parse(&f, "+comm,tid"), -EINVAL);
	assert_string_equal(err_last()->msg, "Cannot mix +-field with overridden fields");
	assert_int_equal(script_fields_parse(&f, "bogus:comm"), -EINVAL);
	assert_string_equal(err_last()->msg, "Invalid event type in field string.");
	assert_int_equal(script_fields_parse(&f, ""), -EINVAL);
	assert_string_equal(err_last()->msg, "Cannot set fields to 'none' for all event types.");
	assert_int_equal(script_fields_parse(&f, "hw:trace"), -EINVAL);
	assert_string_equal(err_last()->msg, "'trace' not valid for hardware events.");
	/* perf knows it; kiln says it cannot print it rather than calling it invalid. */
	assert_int_equal(script_fields_parse(&f, "comm,iregs"), -EINVAL);
	assert_string_equal(err_last()->msg, "field 'iregs' is not supported by kiln script");
}

static void test_check(void **state)
{
	struct script_fields f;
	struct perf_event_attr a;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;

	/* Defaults the samples cannot fill are dropped silently. */
	script_fields_init(&f);
	assert_int_equal(script_fields_check(&f, &a, "cpu-clock"), 0);
	assert_int_equal(f.fields[SCRIPT_T_SW],
			 (CODE_DEFAULTS & ~SF_CPU) | SF_PERIOD | SF_BPF_OUTPUT);
	/* ... even after an edit that did not name them. */
	script_fields_init(&f);
	assert_int_equal(script_fields_parse(&f, "-period"), 0);
	assert_int_equal(script_fields_check(&f, &a, "cpu-clock"), 0);
	assert_false(f.fields[SCRIPT_T_SW] & SF_CPU);

	/* Requested ones are refused with perf's message. */
	script_fields_init(&f);
	assert_int_equal(script_fields_parse(&f, "+addr"), 0);
	assert_int_equal(script_fields_check(&f, &a, "cpu-clock:pppH"), -EINVAL);
	assert_string_equal(err_last()->msg,
			    "Samples for 'cpu-clock:pppH' event do not have ADDR attribute set. "
			    "Cannot print 'addr' field.");
	script_fields_init(&f);
	assert_int_equal(script_fields_parse(&f, "comm,cpu"), 0);
	assert_int_equal(script_fields_check(&f, &a, "cycles"), -EINVAL);
	assert_string_equal(err_last()->msg,
			    "Samples for 'cycles' event do not have CPU attribute set. "
			    "Cannot print 'cpu' field.");
	script_fields_init(&f);
	assert_int_equal(script_fields_parse(&f, "comm,ip,symoff"), 0);
	assert_int_equal(script_fields_check(&f, &a, "cycles"), -EINVAL);
	assert_string_equal(err_last()->msg,
			    "Display of offsets requested but symbol is notselected.");
	/* Period needs no PERIOD bit: perf prints the attr's period. */
	a.sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	script_fields_init(&f);
	assert_int_equal(script_fields_parse(&f, "comm,period"), 0);
	assert_int_equal(script_fields_check(&f, &a, "cycles"), 0);
	/* Tracepoints with callchains print stacks unless -F set their fields. */
	script_fields_init(&f);
	script_fields_tracepoint_callchain(&f);
	assert_true(f.fields[SCRIPT_T_TRACEPOINT] & SF_IP);
	assert_true(f.fields[SCRIPT_T_TRACEPOINT] & SF_SYMOFF);
}

static void expect_name(const struct perf_event_attr *a, const char *want)
{
	char buf[128];
	assert_string_equal(script_event_name(a, buf, sizeof(buf)), want);
}

static void test_event_names(void **state)
{
	struct perf_event_attr a;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.exclude_guest = 1;
	expect_name(&a, "cycles");
	a.precise_ip = 2;
	expect_name(&a, "cycles:ppH");
	a.precise_ip = 0;
	a.exclude_kernel = a.exclude_hv = 1;
	expect_name(&a, "cycles:uH");
	memset(&a, 0, sizeof(a));
	a.precise_ip = 3;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	expect_name(&a, "instructions:ppp");
	memset(&a, 0, sizeof(a));
	expect_name(&a, "cycles:HG");
	a.type = PERF_TYPE_SOFTWARE;
	a.exclude_guest = 1;
	expect_name(&a, "cpu-clock");
	a.config = 99;
	expect_name(&a, "unknown-software");
	a.type = PERF_TYPE_RAW;
	a.config = 0x1c2;
	expect_name(&a, "raw 0x1c2");
	a.type = PERF_TYPE_HW_CACHE;
	a.config = 0 | (0 << 8) | (1 << 16); /* L1D, read, miss */
	expect_name(&a, "L1-dcache-load-misses");
	a.config = 4 | (1 << 8); /* iTLB, write: not a valid pair */
	expect_name(&a, "invalid-cache");
	a.type = PERF_TYPE_TRACEPOINT;
	expect_name(&a, "unknown tracepoint");
	a.type = 42;
	expect_name(&a, "unknown attr type: 42");
}

/* Print a sample into a string. */
static char *print(const struct script_opts *o, const struct script_sample *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(script_write_sample(f, o, s), 0);
	fclose(f);
	return buf;
}

static void expect_text(const struct script_opts *o, const struct script_sample *s,
			const char *want)
{
	char *got = print(o, s);
	assert_string_equal(got, want);
	free(got);
}

static void test_write_default(void **state)
{
	struct script_opts o = { .fields = CODE_DEFAULTS | SF_PERIOD, .name_width = 16 };
	struct script_sample s = {
		.comm = "chrome",
		.pid = 2046,
		.tid = 2046,
		.cpu = 1,
		.time = 2225836170999ull,
		.period = 646081,
		.ip = 0x7fff9cbad8eb,
		.event = "cycles",
		.at = { .addr = 0x8eb,
			.sym = "__vdso_gettimeofday",
			.symoff = 0xdb,
			.dso = "[vdso]" },
	};

	(void)state;
	/* perf 6.1 on perf.data.forkexit-3.4, widths and all. */
	expect_text(&o, &s,
		    "          chrome  2046 [001]  2225.836170:     646081           cycles:      "
		    "7fff9cbad8eb __vdso_gettimeofday+0xdb ([vdso])\n");
	/* No symbol, no dso. */
	s.at.sym = NULL;
	s.at.dso = NULL;
	s.comm = "swapper";
	s.pid = s.tid = 0;
	expect_text(&o, &s,
		    "         swapper     0 [001]  2225.836170:     646081           cycles:      "
		    "7fff9cbad8eb [unknown] ([unknown])\n");
	/* -F comm,pid,tid,time,ip,event */
	o.fields = SF_COMM | SF_PID | SF_TID | SF_TIME | SF_IP | SF_EVENT;
	o.name_width = 10;
	s.comm = "perf";
	s.pid = 9622;
	s.tid = 9623;
	s.time = 89502343999ull;
	expect_text(&o, &s,
		    "            perf  9622/9623     89.502343:     cycles:      7fff9cbad8eb\n");
	/* Only a pid, a negative one. */
	o.fields = SF_PID;
	s.pid = -1;
	expect_text(&o, &s, "   -1 \n");
	/* addr, and a page-fault addr with its symbol. */
	o.fields = SF_COMM | SF_ADDR | SF_SYM | SF_DSO | SF_IP;
	s.addr = 0x1234;
	s.at = (struct script_frame){ .addr = 0, .sym = "main", .dso = "/bin/x" };
	expect_text(&o, &s,
		    "            perf             1234     7fff9cbad8eb main (/bin/x)\n");
	s.addr_resolved = true;
	s.addr_at = (struct script_frame){ .sym = "memcpy", .symoff = 4, .dso = "/lib/libc.so.6" };
	o.fields |= SF_SYMOFF;
	expect_text(&o, &s,
		    "            perf             1234 memcpy+0x4 (/lib/libc.so.6)     "
		    "7fff9cbad8eb main+0x0 (/bin/x)\n");
	/* Nothing at all: nothing printed. */
	o.fields = 0;
	expect_text(&o, &s, "");
}

static void test_write_callchain(void **state)
{
	static const struct script_frame frames[] = {
		{ .addr = 0xffffffff815f3dcd, .sym = "tlb_next_batch", .symoff = 0x7d,
		  .dso = "[kernel.kallsyms]" },
		{ .addr = 0x121c, .sym = "tokenize", .symoff = 0x35,
		  .dso = "/usr/local/bin/burn" },
		{ .addr = 0, .dso = NULL },
	};
	struct script_opts o = {
		.fields = (CODE_DEFAULTS & ~SF_CPU) | SF_PERIOD,
		.name_width = 14,
		.use_callchain = true,
	};
	struct script_sample s = {
		.comm = "burn",
		.pid = 1899,
		.tid = 1899,
		.time = 3586771800490ull,
		.period = 250000,
		.ip = 0xffffffff815f3dcd,
		.event = "cpu-clock:pppH",
		.has_callchain = true,
		.frames = frames,
		.nframes = 3,
	};

	(void)state;
	/* perf 6.1 on `perf record -g`: comm unpadded, one tab-indented line per frame. */
	expect_text(&o, &s,
		    "burn  1899  3586.771800:     250000 cpu-clock:pppH: \n"
		    "\tffffffff815f3dcd tlb_next_batch+0x7d ([kernel.kallsyms])\n"
		    "\t            121c tokenize+0x35 (/usr/local/bin/burn)\n"
		    "\t               0 [unknown] ([unknown])\n"
		    "\n");
	/* ip alone: addresses only. */
	o.fields = SF_COMM | SF_TID | SF_IP;
	expect_text(&o, &s,
		    "burn  1899 \n"
		    "\tffffffff815f3dcd\n"
		    "\t            121c\n"
		    "\t               0\n"
		    "\n");
	/* An empty chain (perf dropped it): the header, then a blank line. */
	s.nframes = 0;
	expect_text(&o, &s, "burn  1899 \n\n");
	/* Without ip, no stack and comm padded again. */
	o.fields = SF_COMM | SF_TID | SF_SYM;
	expect_text(&o, &s, "            burn  1899 \n");
	/* Callchains hidden (-G, or no event records them): the sample line. */
	o.fields = SF_COMM | SF_IP | SF_SYM;
	o.use_callchain = false;
	s.at = (struct script_frame){ .sym = "tlb_next_batch" };
	expect_text(&o, &s, "            burn  ffffffff815f3dcd tlb_next_batch\n");
}

/* The layout written with stdio's printf, the obvious way. */
static void ref_sym(FILE *f, uint64_t fl, const struct script_frame *fr)
{
	if (fl & SF_SYM) {
		fputc(' ', f);
		if (!fr->sym)
			fputs("[unknown]", f);
		else if (fl & SF_SYMOFF)
			fprintf(f, "%s+0x%" PRIx64, fr->sym, fr->symoff);
		else
			fputs(fr->sym, f);
	}
	if ((fl & SF_DSO) && !fr->inlined)
		fprintf(f, " (%s)", fr->dso ? fr->dso : "[unknown]");
	if ((fl & SF_SRCLINE) && fr->srcline)
		fprintf(f, "\n  %s", fr->srcline);
	if (fr->inlined)
		fputs(" (inlined)", f);
}

static char *ref_print(const struct script_opts *o, const struct script_sample *s)
{
	char *buf = NULL, t[48];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	uint64_t fl = o->fields;
	bool stack = (fl & SF_IP) && s->has_callchain && o->use_callchain;

	assert_non_null(f);
	if (!fl)
		goto out;
	if (fl & SF_COMM)
		fprintf(f, stack ? "%s " : "%16s ", s->comm);
	if ((fl & SF_PID) && (fl & SF_TID))
		fprintf(f, "%5d/%-5d ", s->pid, s->tid);
	else if (fl & SF_PID)
		fprintf(f, "%5d ", s->pid);
	else if (fl & SF_TID)
		fprintf(f, "%5d ", s->tid);
	if (fl & SF_CPU)
		fprintf(f, "[%03d] ", (int)s->cpu);
	if (fl & SF_TIME) {
		snprintf(t, sizeof(t), "%" PRIu64 ".%06" PRIu64, s->time / 1000000000u,
			 s->time % 1000000000u / 1000u);
		fprintf(f, "%12s: ", t);
	}
	if (fl & SF_PERIOD)
		fprintf(f, "%10" PRIu64 " ", s->period);
	if (fl & SF_EVENT)
		fprintf(f, "%*s: ", o->name_width, s->event ? s->event : "[unknown]");
	if ((fl & SF_TRACE) && s->trace)
		fputs(s->trace, f);
	if (fl & SF_ADDR) {
		fprintf(f, "%16" PRIx64, s->addr);
		if (s->addr_resolved)
			ref_sym(f, fl, &s->addr_at);
	}
	if (fl & SF_IP) {
		if (stack) {
			fputc('\n', f);
			for (size_t i = 0; i < s->nframes; i++) {
				fprintf(f, "\t%16" PRIx64, s->frames[i].addr);
				ref_sym(f, fl, &s->frames[i]);
				fputc('\n', f);
			}
		} else {
			fprintf(f, " %16" PRIx64, s->ip);
			ref_sym(f, fl, &s->at);
		}
	}
	fputc('\n', f);
out:
	fclose(f);
	return buf;
}

static uint64_t rnd(uint64_t *r)
{
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return *r;
}

/* A number of any size: 0, small, near a power of ten or two, or random. */
static uint64_t rnd_num(uint64_t *r)
{
	uint64_t x = rnd(r);
	switch (x % 6) {
	case 0:
		return 0;
	case 1:
		return (x >> 8) % 1000;
	case 2: {
		uint64_t p = 1;
		for (unsigned i = (x >> 8) % 20; i > 0; i--)
			p *= 10;
		return p + (x >> 16) % 3 - 1;
	}
	case 3:
		return ((uint64_t)1 << ((x >> 8) % 64)) - (x >> 16) % 2;
	default:
		return rnd(r);
	}
}

/* A string of 0 to 40 characters, or now and then over 8 KiB. */
static const char *rnd_str(uint64_t *r, char *buf, size_t cap)
{
	uint64_t x = rnd(r);
	size_t n = x % 16 == 0 ? cap - 1 - (x >> 8) % 200 : (x >> 8) % 41;
	if (x % 29 == 0)
		return NULL;
	for (size_t i = 0; i < n; i++)
		buf[i] = "abcdefghijklmnopqrstuvwxyz_.:/[] 0123456789"[(i * 7 + (x >> 20)) % 43];
	buf[n] = '\0';
	return buf;
}

/* Random samples, fields and widths: the same bytes as printf's. */
static void test_write_random(void **state)
{
	enum { CAP = 9000 };
	static char strs[12][CAP];
	struct script_frame frames[6];
	uint64_t r = 0x853c49e6748fea9bull;

	(void)state;
	for (int it = 0; it < 4000; it++) {
		int k = 0;
		struct script_opts o = {
			.fields = rnd(&r) & (SF_COMM | SF_TID | SF_PID | SF_TIME | SF_CPU | SF_EVENT |
					     SF_TRACE | SF_IP | SF_SYM | SF_DSO | SF_ADDR |
					     SF_SYMOFF | SF_SRCLINE | SF_PERIOD),
			.name_width = (int)(rnd(&r) % 50) - 10,
			.use_callchain = rnd(&r) % 4 != 0,
		};
		for (size_t i = 0; i < 6; i++) {
			frames[i] = (struct script_frame){
				.addr = rnd_num(&r),
				.sym = rnd_str(&r, strs[k], CAP),
				.symoff = rnd_num(&r),
				.dso = rnd_str(&r, strs[k + 1], CAP),
				.srcline = rnd_str(&r, strs[k + 2], CAP),
				.inlined = rnd(&r) % 3 == 0,
			};
			k = (k + 3) % 9;
		}
		const char *comm = rnd_str(&r, strs[9], CAP);
		struct script_sample s = {
			.comm = comm ? comm : "x",
			.pid = (int32_t)rnd_num(&r),
			.tid = (int32_t)rnd_num(&r),
			.cpu = (uint32_t)rnd_num(&r),
			.time = rnd_num(&r),
			.period = rnd_num(&r),
			.ip = rnd_num(&r),
			.addr = rnd_num(&r),
			.event = rnd_str(&r, strs[10], CAP),
			.trace = rnd_str(&r, strs[11], CAP),
			.has_callchain = rnd(&r) % 2,
			.at = frames[0],
			.addr_resolved = rnd(&r) % 2,
			.addr_at = frames[1],
			.frames = frames,
			.nframes = (size_t)(rnd(&r) % 7),
		};
		char *want = ref_print(&o, &s), *got = print(&o, &s);
		if (strcmp(want, got))
			fail_msg("sample %d (fields %#" PRIx64 "):\n%.300s\nprintf:\n%.300s", it,
				 o.fields, got, want);
		free(want);
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),	cmocka_unit_test(test_parse_replace),
		cmocka_unit_test(test_parse_add_remove), cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_check),		cmocka_unit_test(test_event_names),
		cmocka_unit_test(test_write_default),	cmocka_unit_test(test_write_callchain),
		cmocka_unit_test(test_write_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
