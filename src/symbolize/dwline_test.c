/*
 * dwline unit tests (symbolize, L5): every unit's line program read by
 * dwline and by libdw (dwarf_getsrclines, dwarf_getsrcfiles) on real
 * files, row by row: address, line, end of sequence and the file's
 * basename. Files: libc's debug file (libc6-dbg), libbfd's
 * (libbinutils-dbg), this test binary, and small programs built here by
 * gcc with DWARF 2, 3, 4 and 5 and by clang with DWARF 4 and 5. Then the
 * program of this binary's first unit cut at every length and with
 * bytes flipped: bounded, no crash (the sanitizer build checks reads).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/vec.h"
#include "base/xalloc.h"
#include "dso/dso.h"
#include "symbolize/dwline.h"
#include "symbolize/dwtest.h"

struct row {
	uint64_t addr;
	int64_t line;
	uint64_t file;
	bool end;
	size_t seq; /* order of arrival */
};

struct rows {
	VEC(struct row) v;
};

static void collect(void *arg, const struct dwline_row *r)
{
	struct rows *rs = arg;
	struct row x = { r->addr, r->line, r->file, r->end, rs->v.n };
	VEC_PUSH(&rs->v, x);
}

/* libdw's order: by address, an end of sequence first, then arrival. */
static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->end != y->end)
		return x->end ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char *base(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;
	return b ? b + 1 : path;
}

/* Every unit of 'path': dwline against libdw. Returns the rows compared. */
static size_t compare_file(const char *path)
{
	struct dwtest_file df;
	assert_true(dwtest_open(path, &df));
	Elf *elf = df.elf;
	Dwarf *dw = df.dw;
	struct dwline_secs s = { 0 };
	assert_true(dwtest_section(elf, ".debug_line", &s.line, &s.line_len));
	dwtest_section(elf, ".debug_line_str", &s.line_str, &s.line_str_len);
	dwtest_section(elf, ".debug_str", &s.str, &s.str_len);
	size_t total = 0, units = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;
	uint8_t asize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, &asize, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Attribute a;
		Dwarf_Word stmt;
		if (!dwarf_offdie(dw, off + hsize, &cu) || !dwarf_attr(&cu, DW_AT_stmt_list, &a) ||
		    dwarf_formudata(&a, &stmt) != 0) {
			off = next;
			continue;
		}
		Dwarf_Lines *lines;
		Dwarf_Files *files;
		size_t n, nf;
		bool lib_ok = dwarf_getsrclines(&cu, &lines, &n) == 0 &&
			      dwarf_getsrcfiles(&cu, &files, &nf) == 0;
		struct dwline_prog lp;
		struct rows rs = { 0 };
		bool ok = dwline_open(&s, stmt, asize, true, &lp) && dwline_run(&lp, collect, &rs);
		assert_int_equal(ok, lib_ok);
		if (ok) {
			if (rs.v.n) {
				qsort(rs.v.v, rs.v.n, sizeof(*rs.v.v), row_cmp);
				rs.v.v[rs.v.n - 1].end = true; /* libdw marks the last row so */
			}
			assert_int_equal(rs.v.n, n);
			assert_int_equal(lp.files.n, nf);
			for (size_t i = 1; i < nf; i++) {
				const char *want = base(dwarf_filesrc(files, i, NULL, NULL));
				assert_int_equal(lp.files.v[i].len, strlen(want));
				assert_memory_equal(lp.files.v[i].name, want, strlen(want));
			}
			for (size_t i = 0; i < n; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				Dwarf_Addr addr;
				int line;
				bool end;
				Dwarf_Files *lf;
				size_t idx;
				assert_int_equal(dwarf_lineaddr(l, &addr), 0);
				dwarf_lineno(l, &line);
				dwarf_lineendsequence(l, &end);
				assert_int_equal(dwarf_line_file(l, &lf, &idx), 0);
				const struct row *r = &rs.v.v[i];
				assert_int_equal(r->addr, addr);
				assert_int_equal(r->line, line);
				assert_int_equal(r->end, end);
				assert_int_equal(r->file, idx);
			}
			total += n;
		}
		VEC_FREE(&rs.v);
		dwline_close(&lp);
		units++;
		off = next;
	}
	assert_true(units > 0);
	dwtest_close(&df);
	return total;
}

static void test_libc(void **state)
{
	(void)state;
	char path[4096];
	if (!dwtest_debug_file("/usr/lib/x86_64-linux-gnu/libc.so.6", path, sizeof(path)))
		skip(); /* no libc6-dbg */
	assert_true(compare_file(path) > 100000);
}

static void test_libbfd(void **state)
{
	(void)state;
	char path[4096];
	if (!dwtest_debug_file("/usr/lib/x86_64-linux-gnu/libbfd-2.40-system.so", path, sizeof(path)))
		skip(); /* no libbinutils-dbg */
	assert_true(compare_file(path) > 10000);
}

static void test_self(void **state)
{
	(void)state;
	char self[4096];
	assert_true(dwtest_self(self, sizeof(self)));
	assert_true(compare_file(self) > 100);
}

static void one_program(const char *path, void *arg)
{
	(void)arg;
	assert_true(compare_file(path) > 10);
}

/* Small programs by each compiler and DWARF version this machine has. */
static void test_compilers(void **state)
{
	(void)state;
	assert_true(dwtest_programs(one_program, NULL) >= 5);
}

/* This binary's first program, cut and flipped: never a read out of bounds. */
static void count_row(void *arg, const struct dwline_row *r)
{
	(void)r;
	(*(size_t *)arg)++;
}

static void test_damaged(void **state)
{
	(void)state;
	char self[4096];
	assert_true(dwtest_self(self, sizeof(self)));
	struct dwtest_file df;
	assert_true(dwtest_open(self, &df));
	Elf *elf = df.elf;
	const uint8_t *line = NULL;
	size_t len = 0;
	assert_true(dwtest_section(elf, ".debug_line", &line, &len));
	/* The first program of 10 rows or more in at most 8 KiB, as a section of its own. */
	struct dwline_secs s = { NULL, NULL, NULL, 0, 0, 0 };
	dwtest_section(elf, ".debug_line_str", &s.line_str, &s.line_str_len);
	dwtest_section(elf, ".debug_str", &s.str, &s.str_len);
	struct dwline_prog lp;
	size_t first = 0, full_rows = 0;
	for (size_t off = 0; off + 4 <= len && !s.line;) {
		const uint8_t *u = line + off;
		size_t n = 4 + (size_t)(u[0] | u[1] << 8 | u[2] << 16 | (uint32_t)u[3] << 24);
		if (n > len - off)
			break;
		struct dwline_secs one = s;
		one.line = u;
		one.line_len = n;
		full_rows = 0;
		if (n <= 8192 && dwline_open(&one, 0, 8, true, &lp) &&
		    dwline_run(&lp, count_row, &full_rows) && full_rows >= 10) {
			s = one;
			first = n;
		}
		dwline_close(&lp);
		off += n;
	}
	assert_non_null(s.line);
	line = s.line;
	uint8_t *buf = xmalloc(first);
	for (size_t cut = 0; cut <= first; cut++) {
		uint8_t *copy = xmalloc(cut ? cut : 1); /* exactly 'cut' bytes: ASan sees overreads */
		memcpy(copy, line, cut);
		struct dwline_secs c = s;
		c.line = copy;
		c.line_len = cut;
		size_t rows = 0;
		if (dwline_open(&c, 0, 8, true, &lp))
			dwline_run(&lp, count_row, &rows);
		dwline_close(&lp);
		assert_true(rows <= full_rows);
		assert_true(cut < first || rows == full_rows);
		free(copy);
	}
	for (size_t i = 0; i < first; i++) {
		memcpy(buf, line, first);
		buf[i] ^= (uint8_t)(0x5a + i);
		struct dwline_secs c = s;
		c.line = buf;
		size_t rows = 0;
		if (dwline_open(&c, 0, 8, true, &lp))
			dwline_run(&lp, count_row, &rows);
		dwline_close(&lp);
		assert_true(rows <= first); /* a row needs at least one opcode byte */
	}
	free(buf);
	dwtest_close(&df);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libc),	  cmocka_unit_test(test_libbfd),
		cmocka_unit_test(test_self),	  cmocka_unit_test(test_compilers),
		cmocka_unit_test(test_damaged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
