/* Unit tests for ktext: the kernel's text, __schedule's text and the BPF
 * programs' names from kallsyms text (made-up files: order, modules,
 * hidden addresses, bad lines), and this machine's /proc/kallsyms against
 * a scanf of each line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "source/live/ktext.h"

static void parse(struct ktext *k, const char *text)
{
	ktext_parse(k, text, strlen(text));
}

static void test_fields(void **state)
{
	(void)state;
	struct ktext k;
	parse(&k, "ffffffff81000000 T _text\n"
		  "ffffffff81000000 T startup_64\n"
		  "ffffffff81a00000 t __schedule\n"
		  "ffffffff81a00000 t __schedule_alias\n" /* the same address: not the end */
		  "ffffffff81a00800 d some_data\n"        /* any type ends it */
		  "ffffffff81a01000 T schedule\n"
		  "ffffffff82000000 T _etext\n"
		  "ffffffff83000000 D _edata\n"
		  "ffffffffc0000000 t mod_fn\t[mod]\n"
		  "ffffffffc0001000 t bpf_prog_0123456789abcdef_on_switch\t[bpf]\n"
		  "ffffffffc0002000 t bpf_trampoline_6442\t[bpf]\n" /* not a program's */
		  "ffffffffc0003000 t bpf_prog_fedcba9876543210_x\t[bpf]\n");
	assert_int_equal(k.text, 0xffffffff81000000ULL);
	assert_int_equal(k.end, 0xffffffff82000000ULL);
	assert_int_equal(k.sched_lo, 0xffffffff81a00000ULL);
	assert_int_equal(k.sched_hi, 0xffffffff81a00800ULL);
	assert_int_equal(k.nbpf, 2);
	assert_int_equal(k.bpf[0].addr, 0xffffffffc0001000ULL);
	assert_string_equal(k.bpf[0].name, "bpf_prog_0123456789abcdef_on_switch");
	assert_int_equal(k.bpf[1].addr, 0xffffffffc0003000ULL);
	assert_string_equal(k.bpf[1].name, "bpf_prog_fedcba9876543210_x");
	ktext_release(&k);
	assert_null(k.bpf);
	assert_int_equal(k.nbpf, 0);
}

/* Without _etext the text runs to the last core symbol (modules left out). */
static void test_no_etext(void **state)
{
	(void)state;
	struct ktext k;
	parse(&k, "ffffffff81000000 T _text\n"
		  "ffffffff81200000 T f\n"
		  "ffffffff81100000 b later_but_lower\n"
		  "ffffffffc0000000 t mod_fn\t[mod]\n");
	assert_int_equal(k.text, 0xffffffff81000000ULL);
	assert_int_equal(k.end, 0xffffffff81200000ULL);
	assert_int_equal(k.sched_lo, 0);
	assert_int_equal(k.sched_hi, 0);
	ktext_release(&k);
	/* _etext below _text: the last symbol too */
	parse(&k, "ffffffff81000000 T _text\nffffffff80000000 T _etext\nffffffff81300000 t g\n");
	assert_int_equal(k.end, 0xffffffff81300000ULL);
	ktext_release(&k);
}

/* Addresses hidden (kptr_restrict): no text, no scheduler range. */
static void test_hidden(void **state)
{
	(void)state;
	struct ktext k;
	parse(&k, "0000000000000000 T _text\n"
		  "0000000000000000 t __schedule\n"
		  "0000000000000000 T schedule\n"
		  "0000000000000000 T _etext\n");
	assert_int_equal(k.text, 0);
	assert_int_equal(k.end, 0);
	assert_int_equal(k.sched_lo, 0);
	assert_int_equal(k.sched_hi, 0);
	ktext_release(&k);
}

/* Lines without the three fields are skipped; the last may lack its
 * newline; __schedule with no symbol after it gives no range. */
static void test_bad_lines(void **state)
{
	(void)state;
	struct ktext k;
	parse(&k, "\n"
		  "garbage\n"
		  "ffffffff81000000\n"
		  "ffffffff81000000 T\n"
		  "zz T _etext\n"
		  "1ffffffff81000000 T _etext\n" /* 17 digits */
		  "ffffffff81000000T _etext\n"
		  "  ffffffff81000000   T   _text  \n"
		  "ffffffff81a00000 T __schedule_x\n"
		  "ffffffff81a00000 D __schedule\n" /* not text */
		  "ffffffff81b00000 t __schedule");
	assert_int_equal(k.text, 0xffffffff81000000ULL);
	assert_int_equal(k.end, 0xffffffff81b00000ULL); /* the last symbol: no _etext taken */
	assert_int_equal(k.sched_lo, 0);
	assert_int_equal(k.sched_hi, 0);
	ktext_release(&k);
	parse(&k, "");
	assert_int_equal(k.text, 0);
	assert_int_equal(k.nbpf, 0);
	ktext_release(&k);
}

/* This machine's file, against a scanf of each line (the way it was read
 * before): the same text, end and scheduler range. */
static void test_running(void **state)
{
	(void)state;
	FILE *f = fopen("/proc/kallsyms", "re");
	if (!f)
		skip();
	char line[1024];
	unsigned long long text = 0, etext = 0, last = 0, lo = 0, hi = 0;
	int next = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, name[256];
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
			continue;
		if (next == 1 && a > lo) {
			hi = a;
			next = 2;
		} else if (!next && (type == 't' || type == 'T') && a && !strcmp(name, "__schedule")) {
			lo = a;
			next = 1;
		}
		if (strchr(line, '['))
			continue;
		if (!strcmp(name, "_text"))
			text = a;
		else if (!strcmp(name, "_etext"))
			etext = a;
		if (a > last)
			last = a;
	}
	fclose(f);
	struct ktext k;
	ktext_read(&k);
	assert_int_equal(k.text, text);
	if (text)
		assert_int_equal(k.end, etext > text ? etext : last);
	assert_int_equal(k.sched_lo, next == 2 ? lo : 0);
	assert_int_equal(k.sched_hi, next == 2 ? hi : 0);
	ktext_release(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_no_etext),
		cmocka_unit_test(test_hidden),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_running),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
