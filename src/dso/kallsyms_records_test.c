/*
 * Unit tests for kallsyms' binary records (dso/kallsyms.h:
 * kallsyms_parse_records, kallsyms_load_records): the same table as the
 * text of the same lines, the records the reader leaves out, names the
 * text could not hold, and corrupt or truncated records.
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
#include <unistd.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "dso/kallsyms.h"

/* Records being built. */
struct recs {
	char *p;
	size_t n, cap;
};

static void rec_add(struct recs *r, uint64_t value, char type, const char *name, size_t nl,
		    const char *mod, size_t ml)
{
	size_t need = KALLSYMS_REC_HEADER + nl + ml;
	if (r->n + need > r->cap) {
		r->cap = (r->n + need) * 2 + 4096;
		r->p = xrealloc(r->p, r->cap);
	}
	char *q = r->p + r->n;
	uint16_t l = (uint16_t)nl;
	memcpy(q, &value, 8);
	memcpy(q + 8, &l, 2);
	q[10] = (char)ml;
	q[11] = type;
	memcpy(q + KALLSYMS_REC_HEADER, name, nl);
	memcpy(q + KALLSYMS_REC_HEADER + nl, mod, ml);
	r->n += need;
}

static void rec_str(struct recs *r, uint64_t value, char type, const char *name, const char *mod)
{
	rec_add(r, value, type, name, strlen(name), mod ? mod : "", mod ? strlen(mod) : 0);
}

/* The records of well-formed /proc/kallsyms text: "<hex> <t> <name>[\t[mod]]". */
static struct recs from_text(const char *text, size_t len)
{
	struct recs r = { 0 };
	const char *p = text, *e = text + len;
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *le = nl ? nl : e;
		char *end;
		uint64_t v = strtoull(p, &end, 16);
		const char *name = end + 3, *ne = name;
		while (ne < le && *ne != '\t')
			ne++;
		const char *mod = ne < le ? ne + 2 : le, *me = ne < le ? le - 1 : le;
		rec_add(&r, v, end[1], name, (size_t)(ne - name), mod, (size_t)(me - mod));
		p = nl ? nl + 1 : e;
	}
	return r;
}

/* Both tables alike: counts, restriction, every address near a line's. */
static void same_table(const struct kallsyms *a, const struct kallsyms *b, const char *text,
		       size_t len)
{
	assert_int_equal(kallsyms_count(a), kallsyms_count(b));
	assert_int_equal(kallsyms_bad_lines(a), kallsyms_bad_lines(b));
	assert_int_equal(kallsyms_restricted(a), kallsyms_restricted(b));
	for (const char *p = text; p < text + len;) {
		uint64_t v = strtoull(p, NULL, 16);
		for (uint64_t d = 0; d < 3; d++) {
			uint64_t sa = 0, sb = 0;
			const char *ma = NULL, *mb = NULL;
			const char *na = kallsyms_lookup(a, v + d * 5, &sa, &ma);
			const char *nb = kallsyms_lookup(b, v + d * 5, &sb, &mb);
			if (!na || !nb) {
				assert_true(na == nb);
				continue;
			}
			assert_string_equal(na, nb);
			assert_int_equal(sa, sb);
			assert_true((ma == NULL) == (mb == NULL));
			if (ma)
				assert_string_equal(ma, mb);
		}
		const char *nl = memchr(p, '\n', (size_t)(text + len - p));
		p = nl ? nl + 1 : text + len;
	}
	uint64_t s1 = 0, e1 = 0, s2 = 0, e2 = 0;
	assert_int_equal(kallsyms_core_span(a, &s1, &e1), kallsyms_core_span(b, &s2, &e2));
	assert_int_equal(s1, s2);
	assert_int_equal(e1, e2);
}

static const char sample[] =
	"ffffffff82000000 t first_local\n"
	"ffffffff82000000 T _text\n"
	"ffffffff82000000 T _stext\n"
	"ffffffff82000100 t a_local_fn\n"
	"ffffffff82000200 W a_weak_fn\n"
	"ffffffff82000200 t a_strong_local\n"
	"ffffffff82000300 D some_data\n"
	"ffffffff82000310 r $x_local\n"
	"ffffffff82000400 T after_data\n"
	"ffffffff82000500 T last_core\n"
	"ffffffffc0a01080 d mod_data\t[mod]\n"
	"ffffffffc0a01000 t foo\t[mod]\n"
	"ffffffffc0a01040 T bar\t[mod]\n"
	"ffffffffc0b00000 t other_fn\t[other]\n"
	"ffffffffc0b00100 t bpf_prog_0123456789abcdef_x\t[bpf]\n"
	"ffffffffc0b00800 t kprobe_insn_page\t[__builtin__kprobes]";

static void test_like_text(void **state)
{
	(void)state;
	struct recs r = from_text(sample, strlen(sample));
	for (int perf = 0; perf < 2; perf++) {
		struct kallsyms *a = perf ? kallsyms_parse_perf(sample, strlen(sample)) :
					    kallsyms_parse(sample, strlen(sample));
		struct kallsyms *b = NULL;
		assert_int_equal(kallsyms_parse_records(&b, r.p, r.n, perf), 0);
		same_table(a, b, sample, strlen(sample));
		uint64_t addr;
		assert_true(kallsyms_find(b, "_text", &addr));
		assert_int_equal(addr, 0xffffffff82000000);
		kallsyms_free(a);
		kallsyms_free(b);
	}
	free(r.p);
}

/* /proc/kallsyms as records: the same table as its text. */
static void test_like_proc(void **state)
{
	(void)state;
	FILE *f = fopen("/proc/kallsyms", "r");
	if (!f)
		skip();
	size_t cap = 1 << 20, len = 0, k;
	char *text = xmalloc(cap);
	while ((k = fread(text + len, 1, cap - len, f)) > 0) {
		len += k;
		if (len == cap)
			text = xrealloc(text, cap *= 2);
	}
	fclose(f);
	struct recs r = from_text(text, len);
	for (int perf = 0; perf < 2; perf++) {
		struct kallsyms *a = perf ? kallsyms_parse_perf(text, len) : kallsyms_parse(text, len);
		struct kallsyms *b = NULL;
		assert_int_equal(kallsyms_parse_records(&b, r.p, r.n, perf), 0);
		same_table(a, b, text, len);
		kallsyms_free(a);
		kallsyms_free(b);
	}
	free(r.p);
	free(text);
}

/* The iterator program's own symbol and the stale record after the end
 * are left out; other BPF programs and real kprobe pages are not. */
static void test_left_out(void **state)
{
	(void)state;
	struct recs r = { 0 };
	struct kallsyms *ks = NULL;
	uint64_t start;
	const char *mod;
	rec_str(&r, 0xffffffff81000000, 'T', "_text", NULL);
	rec_str(&r, 0xffffffffc0000000, 't', "bpf_prog_00112233aabbccdd_other", "bpf");
	rec_str(&r, 0xffffffffc0000800, 't', "bpf_prog_00112233aabbccdd_" KALLSYMS_REC_PROG, "bpf");
	rec_str(&r, 0xffffffffc0001000, 't', "kprobe_insn_page", "__builtin__kprobes");
	/* the stale record: the last one again, under the kprobes' name */
	rec_str(&r, 0xffffffffc0001000, 't', "kprobe_insn_page", "__builtin__kprobes");
	assert_int_equal(kallsyms_parse_records(&ks, r.p, r.n, false), 0);
	assert_int_equal(kallsyms_count(ks), 3);
	assert_string_equal(kallsyms_lookup(ks, 0xffffffffc0000900, &start, &mod),
			    "bpf_prog_00112233aabbccdd_other");
	assert_string_equal(kallsyms_lookup(ks, 0xffffffffc0001000, &start, &mod),
			    "kprobe_insn_page");
	kallsyms_free(ks);

	/* a BPF program as the last symbol: its stale copy under the kprobes */
	r.n = 0;
	rec_str(&r, 0xffffffff81000000, 'T', "_text", NULL);
	rec_str(&r, 0xffffffffc0000000, 't', "bpf_prog_00112233aabbccdd_other", "bpf");
	rec_str(&r, 0xffffffffc0000000, 't', "bpf_prog_00112233aabbccdd_other",
		"__builtin__kprobes");
	assert_int_equal(kallsyms_parse_records(&ks, r.p, r.n, false), 0);
	assert_int_equal(kallsyms_count(ks), 2);
	assert_string_equal(kallsyms_lookup(ks, 0xffffffffc0000000, &start, &mod),
			    "bpf_prog_00112233aabbccdd_other");
	assert_string_equal(mod, "bpf");
	kallsyms_free(ks);
	free(r.p);
}

/* Names and modules the text could not hold are bad lines, as in the text. */
static void test_bad_names(void **state)
{
	(void)state;
	struct recs r = { 0 };
	struct kallsyms *ks = NULL;
	rec_str(&r, 0xffffffff81000000, 'T', "_text", NULL);
	rec_str(&r, 0xffffffff81000100, 'T', "two words", NULL);
	rec_add(&r, 0xffffffff81000200, 'T', "nul\0here", 8, "", 0);
	rec_str(&r, 0xffffffff81000300, 'T', "tab\there_and_a_long_tail", NULL);
	rec_str(&r, 0xffffffff81000400, ' ', "blank_type", NULL);
	rec_str(&r, 0xffffffff81000500, 't', "fn", "mo]d");
	rec_str(&r, 0xffffffff81000600, 't', "fn2", "mo d");
	rec_str(&r, 0xffffffff81000700, 'T', "fine_name_with_16", NULL);
	assert_int_equal(kallsyms_parse_records(&ks, r.p, r.n, false), 0);
	assert_int_equal(kallsyms_bad_lines(ks), 6);
	assert_int_equal(kallsyms_count(ks), 2);
	kallsyms_free(ks);
	free(r.p);
}

/* Lengths out of range, or records cut short: -EBADMSG naming the byte. */
static void test_corrupt(void **state)
{
	(void)state;
	struct recs r = { 0 };
	struct kallsyms *ks = (void *)1;
	rec_str(&r, 0xffffffff81000000, 'T', "_text", NULL); /* 17 bytes */
	rec_str(&r, 0xffffffff81000100, 'T', "next_fn", NULL);
	size_t whole = r.n;

	for (size_t cut = 18; cut < whole; cut += 3) {
		assert_int_equal(kallsyms_parse_records(&ks, r.p, cut, false), -EBADMSG);
		assert_null(ks);
		assert_non_null(strstr(err_last()->msg, "cut short at byte 17"));
	}
	char *bad = xmalloc(whole);
	uint16_t zero = 0, big = KALLSYMS_REC_NAME;
	memcpy(bad, r.p, whole);
	memcpy(bad + 17 + 8, &zero, 2);
	assert_int_equal(kallsyms_parse_records(&ks, bad, whole, false), -EBADMSG);
	assert_non_null(strstr(err_last()->msg, "bad symbol record at byte 17"));
	memcpy(bad, r.p, whole);
	memcpy(bad + 17 + 8, &big, 2);
	assert_int_equal(kallsyms_parse_records(&ks, bad, whole, true), -EBADMSG);
	memcpy(bad, r.p, whole);
	bad[17 + 10] = (char)KALLSYMS_REC_MODULE;
	assert_int_equal(kallsyms_parse_records(&ks, bad, whole, false), -EBADMSG);
	assert_null(ks);
	free(bad);

	/* nothing at all is an empty table, not an error */
	assert_int_equal(kallsyms_parse_records(&ks, r.p, 0, false), 0);
	assert_int_equal(kallsyms_count(ks), 0);
	kallsyms_free(ks);
	free(r.p);
}

/* kallsyms_load_records reads in 64 KiB pieces: records across piece
 * boundaries, and a stale record whose previous one came in the piece
 * before, give the table of the whole. A file cut short fails. */
static void test_load_pieces(void **state)
{
	(void)state;
	char path[] = "/tmp/kiln-ksymrec-XXXXXX";
	struct recs r = { 0 };
	char name[64];
	unsigned i;
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "fn_%u_%.*s", i, (int)(i % 40),
			 "abcdefghijklmnopqrstuvwxyzabcdefghijklmn");
		rec_str(&r, 0xffffffff81000000 + i * 64, i % 7 ? 't' : 'T', name, NULL);
	}
	/* padding, so that the first 64 KiB piece ends with the record the
	 * stale one repeats, and the next piece starts with the stale one */
	static const char last[] = "bpf_prog_00_last";
	size_t last_len = KALLSYMS_REC_HEADER + strlen(last) + 3; /* "bpf" */
	size_t boundary = 64 << 10, target = boundary - last_len;
	assert_true(r.n < target);
	char pad[300];
	memset(pad, 'p', sizeof(pad));
	while (r.n < target) {
		size_t room = target - r.n, nl = sizeof(pad);
		if (room <= KALLSYMS_REC_HEADER + sizeof(pad))
			nl = room - KALLSYMS_REC_HEADER; /* the last padding record */
		else if (room - KALLSYMS_REC_HEADER - sizeof(pad) <= KALLSYMS_REC_HEADER)
			nl = sizeof(pad) / 2; /* leave room for one more */
		rec_add(&r, 0xffffffff81100000 + r.n, 't', pad, nl, "", 0);
	}
	uint64_t v = 0xffffffff81200000;
	rec_str(&r, v, 't', last, "bpf");
	assert_int_equal(r.n, boundary);
	rec_str(&r, v, 't', last, "__builtin__kprobes");
	for (i = 0; i < 3000; i++) /* the next read fills the whole buffer again */
		rec_str(&r, v + 4096 + i * 64, 't', "after_the_boundary_fn", "mod");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, r.p, r.n), (ssize_t)r.n);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	struct kallsyms *a = NULL, *b = NULL;
	assert_int_equal(kallsyms_parse_records(&a, r.p, r.n, false), 0);
	assert_int_equal(kallsyms_load_records(&b, fd, false, "test records"), 0);
	assert_int_equal(kallsyms_count(a), kallsyms_count(b));
	for (i = 0; i < 1000; i += 3) {
		uint64_t sa, sb;
		const char *na = kallsyms_lookup(a, 0xffffffff81000000 + i * 64 + 5, &sa, NULL);
		const char *nb = kallsyms_lookup(b, 0xffffffff81000000 + i * 64 + 5, &sb, NULL);
		assert_non_null(nb);
		assert_string_equal(na, nb);
		assert_int_equal(sa, sb);
	}
	uint64_t start;
	const char *mod = NULL;
	assert_string_equal(kallsyms_lookup(b, v, &start, &mod), last);
	assert_string_equal(mod, "bpf"); /* the stale copy left out */
	kallsyms_free(a);
	kallsyms_free(b);

	assert_int_equal(ftruncate(fd, (off_t)(r.n - 5)), 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	b = (void *)1;
	assert_int_equal(kallsyms_load_records(&b, fd, false, "test records"), -EBADMSG);
	assert_null(b);
	assert_non_null(strstr(err_last()->msg, "test records: symbol record cut short"));
	close(fd);
	unlink(path);
	free(r.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_like_text),  cmocka_unit_test(test_like_proc),
		cmocka_unit_test(test_left_out),   cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_corrupt),	   cmocka_unit_test(test_load_pieces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
