/*
 * Unit tests for output/annotate_text: perf annotate --stdio's layout,
 * byte for byte, on an annotation built by hand (known bytes, counts and
 * source positions), and the per-line summary with and without perf's
 * 0.5% threshold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/annotate_text.h"

struct fx {
	struct annotation a;
	struct strtab strs;
};

/* xor $0x3,%rdi; add %rdx,%rdi; jne back to the add; ret — at 0x1210. */
static void build(struct fx *f, const uint64_t *counts, size_t n)
{
	static const uint8_t code[] = { 0x48, 0x83, 0xf7, 0x03, 0x48, 0x01, 0xd7,
					0x75, 0xfb, 0xc3 };
	memset(f, 0, sizeof(*f));
	strtab_init(&f->strs);
	source_set_init(&f->a.sources);
	assert_int_equal(disasm_bytes(&f->a.dis, DISASM_X86_64, code, 0x1210, sizeof(code), NULL,
				      NULL), 0);
	assert_int_equal(f->a.dis.insns.n, n);
	uint32_t file = strtab_intern_str(&f->strs, "t.c");
	uint32_t outer = strtab_intern_str(&f->strs, "outer");
	uint32_t inl = strtab_intern_str(&f->strs, "leaf");
	static const uint32_t lines[] = { 3, 7, 7, 4 };
	for (size_t i = 0; i < n; i++) {
		struct annotate_insn in = {
			.samples = counts[i], .period = 3 * counts[i], .file = file, .line = lines[i],
			.func = (i == 1 || i == 2) ? inl : outer, .src = -1,
		};
		VEC_PUSH(&f->a.insns, in);
		f->a.samples += counts[i];
		f->a.period += 3 * counts[i];
	}
	f->a.name = outer;
}

static void release(struct fx *f)
{
	annotation_release(&f->a);
	strtab_release(&f->strs);
}

static char *render(struct fx *f, bool lines, bool perf_threshold, bool no_source)
{
	char *out = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&out, &len);
	struct annotate_text_opts o = { .dso_name = "prog", .event = "cpu-clock:ppp",
					.no_source = no_source };
	assert_non_null(mf);
	if (lines)
		assert_int_equal(annotate_text_write_lines(mf, &f->a, &f->strs, "/bin/prog",
							   perf_threshold), 0);
	else
		assert_int_equal(annotate_text_write(mf, &f->a, &f->strs, &o), 0);
	fclose(mf);
	return out;
}

/* A stand-in demangler: the name in capitals. */
struct shout_ctx {
	const struct strtab *strs;
	char buf[64];
};

static const char *shout(void *ctx, uint32_t id)
{
	struct shout_ctx *c = ctx;
	const char *n = strtab_get(c->strs, id);
	size_t i = 0;
	for (; n[i] && i < sizeof(c->buf) - 1; i++)
		c->buf[i] = (char)(n[i] >= 'a' && n[i] <= 'z' ? n[i] - 32 : n[i]);
	c->buf[i] = '\0';
	return c->buf;
}

static void test_layout(void **state)
{
	static const uint64_t counts[] = { 0, 299, 700, 1 };
	struct fx f;
	char head[200];

	(void)state;
	build(&f, counts, 4);
	char *out = render(&f, false, false, false);
	int hl = snprintf(head, sizeof(head),
			  " Percent |\tSource code & Disassembly of prog for cpu-clock:ppp "
			  "(1000 samples, percent: local period)\n");
	char dashes[200];
	memset(dashes, '-', (size_t)hl + 4);
	dashes[hl + 4] = '\0';
	char want[2048];
	snprintf(want, sizeof(want),
		 "%s%s\n"
		 "         :\n"
		 "         : 0000000000001210 <outer>:\n"
		 "         : outer():\n"
		 "         : 3    t.c:3\n"
		 "    0.00 :   1210:   xor    $0x3,%%rdi\n"
		 "         : leaf():\n"
		 "         : 7    t.c:7\n"
		 "   29.90 :   1214:   add    %%rdx,%%rdi\n"
		 "   70.00 :   1217:   jne    1214\n"
		 "         : outer():\n"
		 "         : 4    t.c:4\n"
		 "    0.10 :   1219:   ret\n",
		 head, dashes);
	assert_string_equal(out, want);
	free(out);

	/* Names through the caller's demangler. */
	{
		char *o2 = NULL;
		size_t l2 = 0;
		FILE *mf = open_memstream(&o2, &l2);
		struct shout_ctx sc = { .strs = &f.strs };
		struct annotate_text_opts o = { .dso_name = "prog", .event = "e",
						.func_name = shout, .func_ctx = &sc };
		assert_int_equal(annotate_text_write(mf, &f.a, &f.strs, &o), 0);
		fclose(mf);
		assert_non_null(strstr(o2, " <OUTER>:\n"));
		assert_non_null(strstr(o2, "         : LEAF():\n"));
		free(o2);
	}
	out = NULL;

	/* Instruction rows only. */
	out = render(&f, false, false, true);
	assert_null(strstr(out, "t.c"));
	assert_non_null(strstr(out, "   70.00 :   1217:   jne    1214\n"));
	free(out);
	release(&f);
}

static void test_notes_and_source(void **state)
{
	static const uint64_t counts[] = { 1, 1, 1, 1 };
	struct fx f;
	char path[] = "/tmp/kiln-annotate-text-XXXXXX";

	(void)state;
	build(&f, counts, 4);
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *sf = fdopen(fd, "w");
	fputs("1\n2\n\t\t  int three;\n  four();\n5\n6\n\tseven = 7;\n", sf);
	fclose(sf);
	size_t s = source_set_add(&f.a.sources, path, NULL);
	assert_true(f.a.sources.v.v[s].found);
	for (size_t i = 0; i < f.a.insns.n; i++)
		f.a.insns.v[i].src = (int32_t)s;
	VEC_PUSH(&f.a.notes, strdup("source file x.c not found"));
	char *out = render(&f, false, false, false);
	assert_non_null(strstr(out, "----\n         : note: source file x.c not found\n"));
	/* The text, its leading blanks gone, numbered by the file. */
	assert_non_null(strstr(out, "         : 3    int three;\n   25.00 :   1210:"));
	assert_non_null(strstr(out, "         : 7    seven = 7;\n   25.00 :   1214:"));
	assert_non_null(strstr(out, "         : 4    four();\n   25.00 :   1219:   ret\n"));
	free(out);
	unlink(path);
	release(&f);
}

static void test_summary(void **state)
{
	static const uint64_t counts[] = { 4, 500, 495, 1 }; /* 0.4% 50% 49.5% 0.1% */
	struct fx f;

	(void)state;
	build(&f, counts, 4);
	char *out = render(&f, true, false, false);
	assert_string_equal(out, "\nSorted summary for file /bin/prog\n"
				 "----------------------------------------------\n\n"
				 "   99.50 t.c:7\n"
				 "    0.40 t.c:3\n"
				 "    0.10 t.c:4\n");
	free(out);
	/* perf's way: instructions at 0.5% or less are left out. */
	out = render(&f, true, true, false);
	assert_string_equal(out, "\nSorted summary for file /bin/prog\n"
				 "----------------------------------------------\n\n"
				 "   99.50 t.c:7\n");
	free(out);
	release(&f);
}

/* The gap after the address is objdump's tab as perf expands it: to the
 * next multiple of 8 columns from the address field's start. */
static void test_address_gap(void **state)
{
	static const uint8_t ret[] = { 0xc3 };
	static const struct {
		uint64_t addr;
		const char *row;
	} cases[] = {
		{ 0x1210, "  100.00 :   1210:   ret\n" },
		{ 0x3fc77, "  100.00 :   3fc77:  ret\n" },
		{ 0x167ac0, "  100.00 :   167ac0: ret\n" },
		{ 0x1b6abe0, "  100.00 :   1b6abe0:        ret\n" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fx f;
		memset(&f, 0, sizeof(f));
		strtab_init(&f.strs);
		source_set_init(&f.a.sources);
		assert_int_equal(disasm_bytes(&f.a.dis, DISASM_X86_64, ret, cases[i].addr, 1, NULL,
					      NULL), 0);
		struct annotate_insn in = { .samples = 1, .period = 1, .file = SRCLINE_NONE,
					    .func = SRCLINE_NONE, .src = -1 };
		VEC_PUSH(&f.a.insns, in);
		f.a.samples = f.a.period = 1;
		f.a.name = SRCLINE_NONE;
		char *out = render(&f, false, false, true);
		const char *row = strstr(out, "  100.00 :");
		assert_non_null(row);
		assert_string_equal(row, cases[i].row);
		free(out);
		release(&f);
	}
}

/* --sort-by-lines: lines with samples, hottest first, then what has no line. */
static void test_by_line(void **state)
{
	static const uint64_t counts[] = { 4, 500, 495, 1 };
	struct fx f;
	char *out = NULL;
	size_t len = 0;

	(void)state;
	build(&f, counts, 4);
	struct annotate_line l7 = { .file = f.a.insns.v[1].file, .line = 7, .samples = 995,
				    .period = 2985, .insns = 2, .src = -1 };
	struct annotate_line l3 = { .file = f.a.insns.v[0].file, .line = 3, .samples = 4,
				    .period = 12, .insns = 1, .src = -1 };
	VEC_PUSH(&f.a.lines, l7);
	VEC_PUSH(&f.a.lines, l3);
	FILE *mf = open_memstream(&out, &len);
	struct annotate_text_opts o = { .dso_name = "prog", .event = "cpu-clock:ppp" };
	assert_int_equal(annotate_text_write_by_line(mf, &f.a, &f.strs, &o), 0);
	fclose(mf);
	const char *rows = strstr(out, "<outer>:\n");
	assert_non_null(rows);
	assert_string_equal(rows, "<outer>:\n"
				  "   99.50 : t.c:7\n"
				  "    0.40 : t.c:3\n"
				  "    0.10 : (no source line)\n");
	assert_non_null(strstr(out, "|\tSource lines of prog for cpu-clock:ppp (1000 samples,"));
	free(out);
	release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_notes_and_source),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_address_gap),
		cmocka_unit_test(test_by_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
