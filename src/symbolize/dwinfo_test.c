/*
 * dwinfo unit tests (symbolize, L5): every DIE of real files read by
 * dwinfo and by libdw, compared: the units (offsets, versions, address
 * sizes), the DIE tree in order (offset, tag, children), each DIE's
 * attributes in order (attribute, form) with their decoded values
 * (strings, constants, references, addresses), and the address ranges of
 * every DIE that has PC attributes. Files: libc's debug file (libc6-dbg),
 * libbfd's (libbinutils-dbg), this test binary, and small programs built
 * here by gcc (DWARF 2-5, compressed) and clang (DWARF 4 and 5). Then this
 * binary's .debug_info cut and flipped: bounded, no crash.
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
#include "symbolize/dwbytes.h"
#include "symbolize/dwinfo.h"
#include "symbolize/dwtest.h"

static bool section(Elf *elf, const char *want, struct dwinfo_sec *out)
{
	return dwtest_section(elf, want, &out->p, &out->n);
}

static void secs_of(Elf *elf, struct dwinfo_secs *s)
{
	memset(s, 0, sizeof(*s));
	section(elf, ".debug_info", &s->info);
	section(elf, ".debug_abbrev", &s->abbrev);
	section(elf, ".debug_str", &s->str);
	section(elf, ".debug_line_str", &s->line_str);
	section(elf, ".debug_str_offsets", &s->str_offsets);
	section(elf, ".debug_addr", &s->addr);
	section(elf, ".debug_ranges", &s->ranges);
	section(elf, ".debug_rnglists", &s->rnglists);
}

struct attr_list {
	VEC(struct dwattr) v;
};

static bool push_attr(void *arg, const struct dwattr *a)
{
	struct attr_list *l = arg;
	VEC_PUSH(&l->v, *a);
	return true;
}

struct lib_attrs {
	VEC(Dwarf_Attribute) v;
};

static int lib_attr(Dwarf_Attribute *a, void *arg)
{
	struct lib_attrs *l = arg;
	VEC_PUSH(&l->v, *a);
	return DWARF_CB_OK;
}

struct range_list {
	VEC(uint64_t) v;
};

static void push_range(void *arg, uint64_t lo, uint64_t hi)
{
	struct range_list *r = arg;
	VEC_PUSH(&r->v, lo);
	VEC_PUSH(&r->v, hi);
}

struct stats {
	size_t dies, attrs, strs, refs, ranges;
};

/* One DIE: attributes, values and ranges against libdw's. */
static void compare_die(struct dwinfo *di, const struct dwdie *d, Dwarf_Die *ld, struct stats *st)
{
	struct attr_list mine = { 0 };
	struct lib_attrs lib = { 0 };
	uint64_t next;
	assert_true(dwinfo_attrs(di, d, push_attr, &mine, &next));
	assert_int_equal(dwarf_getattrs(ld, lib_attr, &lib, 0), 1);
	assert_int_equal(mine.v.n, lib.v.n);
	struct dwpc pc = { 0 };
	for (size_t i = 0; i < mine.v.n; i++) {
		const struct dwattr *a = &mine.v.v[i];
		Dwarf_Attribute *la = &lib.v.v[i];
		assert_int_equal(a->at, dwarf_whatattr(la));
		assert_int_equal(a->form, dwarf_whatform(la));
		dwpc_note(&pc, a);
		const char *ls = dwarf_formstring(la), *ms = dwinfo_str(di, d, a);
		if (a->form != DW_FORM_GNU_strp_alt && a->form != DW_FORM_strp_sup) {
			assert_int_equal(ls == NULL, ms == NULL);
			if (ls) {
				assert_string_equal(ls, ms);
				st->strs++;
			}
		}
		Dwarf_Word lu;
		uint64_t mu;
		if (dwarf_formudata(la, &lu) == 0 && dwinfo_udata(di, d, a, &mu))
			assert_int_equal(lu, mu);
		Dwarf_Die target;
		uint64_t roff;
		if (dwarf_formref_die(la, &target) && a->form != DW_FORM_ref_sig8 &&
		    a->form != DW_FORM_GNU_ref_alt && a->form != DW_FORM_ref_sup4 &&
		    a->form != DW_FORM_ref_sup8) { /* not followed: another file */
			assert_true(dwinfo_ref(di, d, a, &roff));
			assert_int_equal(roff, dwarf_dieoffset(&target));
			st->refs++;
		}
		Dwarf_Addr laddr;
		uint64_t maddr;
		if (dwarf_formaddr(la, &laddr) == 0) {
			assert_true(dwinfo_addr(di, d, a, &maddr));
			assert_int_equal(laddr, maddr);
		}
	}
	st->attrs += mine.v.n;
	if (pc.has_low || pc.has_ranges) {
		struct range_list lr = { 0 }, mr = { 0 };
		Dwarf_Addr base, start, end;
		ptrdiff_t ro = 0;
		while ((ro = dwarf_ranges(ld, ro, &base, &start, &end)) > 0)
			push_range(&lr, start, end);
		bool lib_err = ro < 0;
		long n = dwinfo_ranges(di, d, &pc, 100000, push_range, &mr);
		assert_int_equal(lib_err, n < 0);
		assert_int_equal(lr.v.n, mr.v.n);
		if (lr.v.n)
			assert_memory_equal(lr.v.v, mr.v.v, lr.v.n * sizeof(uint64_t));
		st->ranges += lr.v.n / 2;
		VEC_FREE(&lr.v);
		VEC_FREE(&mr.v);
	}
	VEC_FREE(&mine.v);
	VEC_FREE(&lib.v);
}

/* libdw's DIEs of a unit in preorder. */
struct lib_dies {
	VEC(Dwarf_Die) v;
};

static void lib_walk(Dwarf_Die *die, struct lib_dies *out, unsigned depth)
{
	assert_true(depth < 512);
	VEC_PUSH(&out->v, *die);
	Dwarf_Die child;
	if (dwarf_child(die, &child) != 0)
		return;
	do
		lib_walk(&child, out, depth + 1);
	while (dwarf_siblingof(&child, &child) == 0);
}

static struct stats compare_file(const char *path)
{
	struct stats st = { 0 };
	struct dwtest_file df;
	assert_true(dwtest_open(path, &df));
	Elf *elf = df.elf;
	Dwarf *dw = df.dw;
	struct dwinfo_secs s;
	secs_of(elf, &s);
	struct dwinfo di;
	dwinfo_open(&di, &s);
	Dwarf_Off off = 0, next;
	size_t hsize, k = 0;
	Dwarf_Half version;
	uint8_t asize, offsz;
	while (dwarf_next_unit(dw, off, &next, &hsize, &version, NULL, &asize, &offsz, NULL, NULL) ==
	       0) {
		assert_true(k < di.units.n);
		const struct dwunit *u = &di.units.v[k];
		assert_int_equal(u->off, off);
		assert_int_equal(u->end, next);
		assert_int_equal(u->die, off + hsize);
		assert_int_equal(u->version, version);
		assert_int_equal(u->asize, asize);
		assert_int_equal(u->offsz, offsz);
		assert_int_equal(dwinfo_unit_at(&di, off + hsize), k);
		Dwarf_Die cu;
		assert_non_null(dwarf_offdie(dw, off + hsize, &cu));
		/* The unit DIE read first, its entry skimmed from a table not yet
		 * parsed (unless an earlier unit shares it): libdw's attributes. */
		struct dwdie ud;
		assert_true(dwinfo_unit_die(&di, (uint32_t)k, &ud));
		assert_false(ud.null);
		assert_int_equal(ud.off, off + hsize);
		assert_int_equal(ud.ab.tag, dwarf_tag(&cu));
		assert_int_equal(ud.ab.children, dwarf_haschildren(&cu) == 1);
		compare_die(&di, &ud, &cu, &st);
		struct lib_dies lib = { 0 };
		lib_walk(&cu, &lib, 0);
		/* Mine: the unit's bytes in order, null entries closing levels. */
		uint64_t at = u->die;
		size_t i = 0;
		int depth = 0;
		do {
			struct dwdie d;
			assert_true(dwinfo_die(&di, (uint32_t)k, at, &d));
			uint64_t after;
			if (d.null) {
				depth--;
				at = d.attrs;
				continue;
			}
			assert_true(i < lib.v.n);
			Dwarf_Die *ld = &lib.v.v[i++];
			assert_int_equal(d.off, dwarf_dieoffset(ld));
			assert_int_equal(d.ab.tag, dwarf_tag(ld));
			assert_int_equal(d.ab.children, dwarf_haschildren(ld) == 1);
			compare_die(&di, &d, ld, &st);
			assert_true(dwinfo_skip(&di, &d, &after));
			at = after;
			if (d.ab.children)
				depth++;
		} while (depth > 0 && at < u->end);
		assert_int_equal(i, lib.v.n);
		st.dies += i;
		VEC_FREE(&lib.v);
		off = next;
		k++;
	}
	assert_int_equal(k, di.units.n);
	dwinfo_close(&di);
	dwtest_close(&df);
	return st;
}

static void check_file(const char *path, size_t min_dies)
{
	struct stats st = compare_file(path);
	assert_true(st.dies >= min_dies);
}

static void test_libc(void **state)
{
	(void)state;
	char path[4096];
	if (!dwtest_debug_file("/usr/lib/x86_64-linux-gnu/libc.so.6", path, sizeof(path)))
		skip(); /* no libc6-dbg */
	struct stats st = compare_file(path);
	assert_true(st.dies > 100000);
	assert_true(st.strs > 10000 && st.refs > 10000 && st.ranges > 1000);
}

static void test_libbfd(void **state)
{
	(void)state;
	char path[4096];
	if (!dwtest_debug_file("/usr/lib/x86_64-linux-gnu/libbfd-2.40-system.so", path, sizeof(path)))
		skip(); /* no libbinutils-dbg */
	check_file(path, 10000);
}

static void test_self(void **state)
{
	(void)state;
	char self[4096];
	assert_true(dwtest_self(self, sizeof(self)));
	check_file(self, 100);
}

static void one_program(const char *path, void *arg)
{
	(void)arg;
	check_file(path, 10);
}

static void test_compilers(void **state)
{
	(void)state;
	assert_true(dwtest_programs(one_program, NULL) >= 5);
}

static void count_dies(struct dwinfo *di, size_t *dies, size_t *attrs)
{
	for (uint32_t k = 0; k < di->units.n; k++) {
		uint64_t at = di->units.v[k].die;
		struct dwdie ud; /* skimmed before the walk below parses the table */
		struct attr_list ul = { 0 };
		if (dwinfo_unit_die(di, k, &ud))
			dwinfo_attrs(di, &ud, push_attr, &ul, NULL);
		VEC_FREE(&ul.v);
		for (size_t guard = 0; guard < 1000000; guard++) {
			struct dwdie d;
			uint64_t next;
			if (!dwinfo_die(di, k, at, &d) || !dwinfo_skip(di, &d, &next) || next <= at)
				break;
			struct dwpc pc = { 0 };
			struct attr_list l = { 0 };
			if (dwinfo_attrs(di, &d, push_attr, &l, NULL)) {
				for (size_t i = 0; i < l.v.n; i++) {
					uint64_t v;
					dwpc_note(&pc, &l.v.v[i]);
					dwinfo_str(di, &d, &l.v.v[i]);
					dwinfo_udata(di, &d, &l.v.v[i], &v);
					dwinfo_ref(di, &d, &l.v.v[i], &v);
					dwinfo_addr(di, &d, &l.v.v[i], &v);
				}
				struct range_list r = { 0 };
				dwinfo_ranges(di, &d, &pc, 1000, push_range, &r);
				VEC_FREE(&r.v);
				*attrs += l.v.n;
			}
			VEC_FREE(&l.v);
			(*dies)++;
			at = next;
		}
	}
}

/* This binary's DIEs, cut and flipped: every read stays in bounds. */
static void test_damaged(void **state)
{
	(void)state;
	char self[4096];
	assert_true(dwtest_self(self, sizeof(self)));
	struct dwtest_file df;
	assert_true(dwtest_open(self, &df));
	Elf *elf = df.elf;
	struct dwinfo_secs s;
	secs_of(elf, &s);
	/* The smallest unit of over 300 bytes, as a section of its own. */
	struct dwinfo di;
	dwinfo_open(&di, &s);
	size_t len = SIZE_MAX, full = 0, attrs = 0;
	const uint8_t *unit = NULL;
	for (size_t k = 0; k < di.units.n; k++) {
		size_t n = di.units.v[k].end - di.units.v[k].off;
		if (n > 300 && n < len) {
			len = n;
			unit = s.info.p + di.units.v[k].off;
		}
	}
	dwinfo_close(&di);
	assert_non_null(unit);
	struct dwinfo_secs c = s;
	c.info.p = unit;
	c.info.n = len;
	s.info = c.info;
	dwinfo_open(&di, &c);
	count_dies(&di, &full, &attrs);
	dwinfo_close(&di);
	assert_true(full > 10);
	for (size_t cut = 0; cut <= len; cut += 7) {
		uint8_t *copy = xmalloc(cut ? cut : 1); /* exactly 'cut' bytes: ASan sees overreads */
		memcpy(copy, s.info.p, cut);
		c.info.p = copy;
		c.info.n = cut;
		size_t dies = 0;
		dwinfo_open(&di, &c);
		count_dies(&di, &dies, &attrs);
		dwinfo_close(&di);
		free(copy);
		assert_true(dies <= full);
	}
	uint8_t *buf = xmalloc(len);
	for (size_t i = 0; i < len; i++) {
		memcpy(buf, s.info.p, len);
		buf[i] ^= (uint8_t)(0x5a + i);
		c.info.p = buf;
		c.info.n = len;
		size_t dies = 0;
		dwinfo_open(&di, &c);
		count_dies(&di, &dies, &attrs);
		dwinfo_close(&di);
		assert_true(dies <= len); /* a DIE takes at least one byte */
	}
	free(buf);
	assert_true(attrs > 0);
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
