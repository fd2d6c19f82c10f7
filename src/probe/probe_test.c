/*
 * Tests for probe definitions: perf probe's spec text, perf's names, DWARF
 * locations → fetch args, probe_events lines, and the BTF derivation of
 * kernel function arguments against this machine's /sys/kernel/btf/vmlinux.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dwarf.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "probe/probe.h"

static void test_spec(void **state)
{
	(void)state;
	struct probe_spec s;
	assert_int_equal(probe_spec_parse("work n p->x q.a.b msg:string", &s), 0);
	assert_string_equal(s.func, "work");
	assert_null(s.file);
	assert_false(s.retprobe);
	assert_int_equal(s.nargs, 4);
	assert_string_equal(s.args[0].var, "n");
	assert_int_equal(s.args[1].nfields, 1);
	assert_true(s.args[1].arrow[0]);
	assert_string_equal(s.args[1].fields[0], "x");
	assert_int_equal(s.args[2].nfields, 2);
	assert_false(s.args[2].arrow[0]);
	assert_string_equal(s.args[2].fields[1], "b");
	assert_string_equal(s.args[3].type, "string");
	probe_spec_free(&s);

	assert_int_equal(probe_spec_parse("grp:ev=work%return $retval r=+0($retval):string %ax", &s), 0);
	assert_string_equal(s.group, "grp");
	assert_string_equal(s.event, "ev");
	assert_true(s.retprobe);
	assert_string_equal(s.args[0].var, "$retval");
	assert_false(s.args[0].raw);
	assert_string_equal(s.args[1].name, "r");
	assert_true(s.args[1].raw);
	assert_string_equal(s.args[1].var, "+0($retval)");
	assert_string_equal(s.args[1].type, "string");
	assert_true(s.args[2].raw);
	probe_spec_free(&s);

	assert_int_equal(probe_spec_parse("work@src/t.c:4 i", &s), 0);
	assert_string_equal(s.func, "work");
	assert_string_equal(s.file, "src/t.c");
	assert_true(s.has_line);
	assert_int_equal(s.line, 4);
	probe_spec_free(&s);

	assert_int_equal(probe_spec_parse("t.c:12", &s), 0);
	assert_null(s.func);
	assert_string_equal(s.file, "t.c");
	assert_int_equal(s.line, 12);
	probe_spec_free(&s);

	assert_int_equal(probe_spec_parse("work+0x10", &s), 0);
	assert_int_equal(s.offset, 16);
	probe_spec_free(&s);

	/* faults */
	assert_int_equal(probe_spec_parse("", &s), -EINVAL);
	assert_int_equal(probe_spec_parse("work:x", &s), -EINVAL);
	assert_int_equal(probe_spec_parse("work $retval", &s), -EINVAL);
	assert_non_null(strstr(err_last()->msg, "%return"));
	assert_int_equal(probe_spec_parse("work a[1]", &s), -EINVAL);
	assert_int_equal(probe_spec_parse("work:3%return", &s), -EINVAL);
	assert_int_equal(probe_spec_parse("1bad=work", &s), -EINVAL);
	assert_int_equal(probe_spec_parse("work%entry", &s), -EINVAL);
	assert_int_equal(probe_spec_parse("work p->", &s), -EINVAL);
	assert_int_equal(probe_spec_parse("work n:", &s), -EINVAL);
}

/* PROBE_MAX_ARGS arguments and PROBE_MAX_FIELDS members: accepted; one more: refused. */
static void test_limits(void **state)
{
	(void)state;
	char text[8192] = "work";
	for (int i = 0; i < PROBE_MAX_ARGS; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), " a%d", i);
	struct probe_spec s;
	assert_int_equal(probe_spec_parse(text, &s), 0);
	assert_int_equal(s.nargs, PROBE_MAX_ARGS);
	probe_spec_free(&s);
	strcat(text, " one_more");
	assert_int_equal(probe_spec_parse(text, &s), -EINVAL);
	assert_non_null(strstr(err_last()->msg, "more than 128"));
	strcpy(text, "work p");
	for (int i = 0; i < PROBE_MAX_FIELDS; i++)
		strcat(text, "->f");
	assert_int_equal(probe_spec_parse(text, &s), 0);
	assert_int_equal(s.args[0].nfields, PROBE_MAX_FIELDS);
	probe_spec_free(&s);
	strcat(text, ".g");
	assert_int_equal(probe_spec_parse(text, &s), -EINVAL);
	assert_non_null(strstr(err_last()->msg, "more than 16 members"));
}

static void test_names(void **state)
{
	(void)state;
	char *g = probe_group_of("/usr/bin/wl-fp");
	assert_string_equal(g, "probe_wl");
	free(g);
	g = probe_group_of("t");
	assert_string_equal(g, "probe_t");
	free(g);
	g = probe_group_of("/x/libc.so.6");
	assert_string_equal(g, "probe_libc");
	free(g);
	struct probe_spec s;
	const struct {
		const char *spec;
		int rel;
		const char *name;
	} cases[] = {
		{ "work", 0, "work" },		  { "work%return", 0, "work__return" },
		{ "work:4", 4, "work_L4" },	  { "work+8", 0, "work_8" },
		{ "e1=work:4", 4, "e1" },	  { "foo.isra.0", 0, "foo_isra_0" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(probe_spec_parse(cases[i].spec, &s), 0);
		char *n = probe_event_name(&s, cases[i].rel);
		assert_string_equal(n, cases[i].name);
		free(n);
		probe_spec_free(&s);
	}
	assert_true(probe_good_name("_a1"));
	assert_false(probe_good_name("1a"));
	assert_false(probe_good_name("a-b"));
	assert_true(probe_glob_match("probe_t:*", "probe_t", "work"));
	assert_false(probe_glob_match("probe_t:*", "probe_x", "work"));
	assert_true(probe_glob_match("work*", "anything", "work__return"));
	assert_false(probe_glob_match("work", "g", "work__return"));
}

static void text_of(const struct probe_op *ops, size_t n, const struct probe_op *fb, size_t nfb,
		    const struct probe_op *cfa, size_t ncfa, const char *want)
{
	struct probe_loc loc;
	char out[300];
	assert_int_equal(probe_loc_fetch(ops, n, fb, nfb, cfa, ncfa, &loc), 0);
	probe_loc_text(&loc, out, sizeof(out));
	assert_string_equal(out, want);
}

static void test_locations(void **state)
{
	(void)state;
	/* registers by the x86-64 DWARF numbering */
	struct probe_op reg5 = { DW_OP_reg5, 0, 0 }, reg4 = { DW_OP_reg4, 0, 0 };
	text_of(&reg5, 1, NULL, 0, NULL, 0, "%di");
	text_of(&reg4, 1, NULL, 0, NULL, 0, "%si");
	struct probe_op regx = { DW_OP_regx, 12, 0 };
	text_of(&regx, 1, NULL, 0, NULL, 0, "%r12");
	assert_string_equal(probe_dwarf_reg(1), "dx");
	assert_string_equal(probe_dwarf_reg(2), "cx");
	assert_string_equal(probe_dwarf_reg(7), "sp");
	assert_null(probe_dwarf_reg(17)); /* xmm0 */
	/* register + offset: the value is in memory */
	struct probe_op breg7 = { DW_OP_breg7, 8, 0 }, bregx = { DW_OP_bregx, 6, (uint64_t)-16 };
	text_of(&breg7, 1, NULL, 0, NULL, 0, "+8(%sp)");
	text_of(&bregx, 1, NULL, 0, NULL, 0, "-16(%bp)");
	/* frame base: DW_OP_call_frame_cfa with the CFA at %bp+16 (gcc -O0 after the prologue) */
	struct probe_op fbreg = { DW_OP_fbreg, (uint64_t)-24, 0 };
	struct probe_op cfa_fb = { DW_OP_call_frame_cfa, 0, 0 }, cfa = { DW_OP_breg6, 16, 0 };
	text_of(&fbreg, 1, &cfa_fb, 1, &cfa, 1, "-8(%bp)");
	/* at function entry the CFA is %sp+8 */
	struct probe_op cfa_entry = { DW_OP_breg7, 8, 0 };
	text_of(&fbreg, 1, &cfa_fb, 1, &cfa_entry, 1, "-16(%sp)");
	/* frame base as a register + offset */
	struct probe_op fb_breg = { DW_OP_breg6, 16, 0 };
	text_of(&fbreg, 1, &fb_breg, 1, NULL, 0, "-8(%bp)");

	/* what fetch args cannot express */
	struct probe_loc loc;
	struct probe_op stackv[2] = { { DW_OP_breg5, 1, 0 }, { DW_OP_stack_value, 0, 0 } };
	assert_int_equal(probe_loc_fetch(stackv, 2, NULL, 0, NULL, 0, &loc), -EOPNOTSUPP);
	assert_non_null(strstr(err_last()->msg, "computed"));
	struct probe_op entry = { DW_OP_entry_value, 0, 0 };
	assert_int_equal(probe_loc_fetch(&entry, 1, NULL, 0, NULL, 0, &loc), -EOPNOTSUPP);
	struct probe_op lit = { DW_OP_lit3, 0, 0 };
	assert_int_equal(probe_loc_fetch(&lit, 1, NULL, 0, NULL, 0, &loc), -EOPNOTSUPP);
	assert_int_equal(probe_loc_fetch(NULL, 0, NULL, 0, NULL, 0, &loc), -ENOENT);
	struct probe_op addr = { DW_OP_addr, 0x4010, 0 };
	assert_int_equal(probe_loc_fetch(&addr, 1, NULL, 0, NULL, 0, &loc), -EOPNOTSUPP);
	assert_int_equal(probe_loc_fetch(&fbreg, 1, &cfa_fb, 1, NULL, 0, &loc), -EOPNOTSUPP);
	struct probe_op xmm = { DW_OP_reg17, 0, 0 };
	assert_int_equal(probe_loc_fetch(&xmm, 1, NULL, 0, NULL, 0, &loc), -EOPNOTSUPP);

	/* members: p->x, p->q->name, s.a on the stack, '.' on a register refused */
	char out[300];
	assert_int_equal(probe_loc_fetch(&reg4, 1, NULL, 0, NULL, 0, &loc), 0);
	assert_int_equal(probe_loc_member(&loc, true, 0), 0);
	probe_loc_text(&loc, out, sizeof(out));
	assert_string_equal(out, "+0(%si)");
	assert_int_equal(probe_loc_member(&loc, true, 16), 0);
	probe_loc_text(&loc, out, sizeof(out));
	assert_string_equal(out, "+16(+0(%si))");
	assert_int_equal(probe_loc_fetch(&fbreg, 1, &cfa_fb, 1, &cfa, 1, &loc), 0);
	assert_int_equal(probe_loc_member(&loc, false, 12), 0);
	probe_loc_text(&loc, out, sizeof(out));
	assert_string_equal(out, "+4(%bp)");
	assert_int_equal(probe_loc_fetch(&reg5, 1, NULL, 0, NULL, 0, &loc), 0);
	assert_int_equal(probe_loc_member(&loc, false, 4), -EINVAL);
}

static void test_def_line(void **state)
{
	(void)state;
	char g[] = "probe_t", e[] = "work", t[] = "/bin/t:0x0000000000001230", a0[] = "n=%di:x64",
	     a1[] = "msg_string=+0(%dx):string";
	struct probe_def d = { .group = g, .event = e, .target = t };
	d.args[0] = a0;
	d.args[1] = a1;
	d.nargs = 2;
	char *l = probe_def_line(&d);
	assert_string_equal(l, "p:probe_t/work /bin/t:0x0000000000001230 n=%di:x64 "
			       "msg_string=+0(%dx):string");
	free(l);
	d.ret = true;
	d.nargs = 0;
	l = probe_def_line(&d);
	assert_string_equal(l, "r:probe_t/work /bin/t:0x0000000000001230");
	free(l);
}

static bool have_vmlinux_btf(void)
{
	return probe_have_btf() && access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}

/* One kernel probe's line from its spec. */
static char *kline(const char *spec, int *err)
{
	struct probe_spec s;
	struct probe_def d;
	assert_int_equal(probe_spec_parse(spec, &s), 0);
	*err = probe_resolve_kernel(NULL, NULL, &s, &d);
	probe_spec_free(&s);
	if (*err)
		return NULL;
	char *l = probe_def_line(&d);
	probe_def_free(&d);
	return l;
}

static void match(const char *text, const char *re)
{
	regex_t r;
	assert_int_equal(regcomp(&r, re, REG_EXTENDED | REG_NOSUB), 0);
	int m = regexec(&r, text, 0, NULL, 0);
	regfree(&r);
	if (m != 0)
		fail_msg("'%s' does not match /%s/", text, re);
}

static void test_btf(void **state)
{
	(void)state;
	if (!have_vmlinux_btf()) {
		printf("skipped: no BTF (/sys/kernel/btf/vmlinux) or no libbpf in this build\n");
		skip();
	}
	int err;
	/* do_sys_openat2(int dfd, const char __user *filename, struct open_how *how) */
	char *l = kline("do_sys_openat2 filename:string dfd how->flags", &err);
	assert_int_equal(err, 0);
	match(l, "^p:probe/do_sys_openat2 do_sys_openat2 filename_string=\\+0\\(%si\\):u?string "
		 "dfd=%di:s32 flags=\\+0\\(%dx\\):u64$");
	free(l);
	/* vfs_read(struct file *file, char __user *buf, size_t count, loff_t *pos) */
	l = kline("vfs_read count pos file->f_pos", &err);
	assert_int_equal(err, 0);
	match(l, "^p:probe/vfs_read vfs_read count=%dx:u64 pos=%cx:x64 f_pos=\\+[0-9]+\\(%di\\):s64$");
	free(l);
	l = kline("vfs_read $params", &err);
	assert_int_equal(err, 0);
	match(l, "^p:probe/vfs_read vfs_read file=%di:x64 buf=%si:x64 count=%dx:u64 pos=%cx:x64$");
	free(l);
	l = kline("myread=vfs_read%return $retval", &err);
	assert_int_equal(err, 0);
	assert_string_equal(l, "r:probe/myread vfs_read arg1=$retval");
	free(l);
	/* faults */
	assert_null(kline("vfs_read nosuch", &err));
	assert_int_equal(err, -ENOENT);
	assert_non_null(strstr(err_last()->msg, "file, buf, count, pos"));
	assert_null(kline("no_such_kernel_function_xyz n", &err));
	assert_int_equal(err, -ENOENT);
	assert_null(kline("vfs_read count:string", &err));
	assert_int_equal(err, -EINVAL);
	assert_null(kline("vfs_read file->nosuch", &err));
	assert_int_equal(err, -ENOENT);
	assert_null(kline("vfs_read file.f_pos", &err));
	assert_int_equal(err, -EINVAL);
	assert_null(kline("vfs_read+4 count", &err));
	assert_int_equal(err, -EOPNOTSUPP);
	/* without named arguments BTF is not needed and the function is not checked */
	l = kline("anything_at_all+8", &err);
	assert_int_equal(err, 0);
	assert_string_equal(l, "p:probe/anything_at_all_8 anything_at_all+8");
	free(l);
	/* -V and -F */
	struct probe_spec s;
	char **v;
	size_t n;
	assert_int_equal(probe_spec_parse("vfs_read", &s), 0);
	assert_int_equal(probe_kernel_vars(NULL, NULL, &s, &v, &n), 0);
	probe_spec_free(&s);
	assert_int_equal(n, 6);
	assert_string_equal(v[0], "Available variables at vfs_read");
	assert_string_equal(v[2], "\t\tchar*\tbuf");
	assert_string_equal(v[3], "\t\tsize_t\tcount");
	probe_lines_free(v, n);
	assert_int_equal(probe_kernel_funcs(NULL, "vfs_rea?", &v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0], "vfs_read");
	probe_lines_free(v, n);
	/* a module that is not there */
	assert_int_equal(probe_spec_parse("f x", &s), 0);
	struct probe_def d;
	assert_true(probe_resolve_kernel("no_such_module_xyz", NULL, &s, &d) < 0);
	assert_non_null(strstr(err_last()->msg, "no_such_module_xyz"));
	probe_spec_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_locations),
		cmocka_unit_test(test_def_line),
		cmocka_unit_test(test_btf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
