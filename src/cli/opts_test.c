/* Unit tests for cli/opts: the option-table parser, its messages, and the help it writes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts.h"

struct inner {
	bool pid;
	const char *symfs;
};

struct t_opts {
	const char *output;
	bool verbose, quiet, header, header_only;
	uint64_t count;
	double scale;
	int mode;
	const char *level; /* optional value */
	int calls;
	const char *last;
	struct inner in;
};

static int cb_count_calls(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct t_opts *t = field;
	(void)o;
	if (arg && !strcmp(arg, "bad"))
		return opts_error(p, "--call refuses '%s'", arg);
	t->calls++;
	t->last = arg;
	return 0;
}

static const struct opt inner_opts[] = {
	OPT_BOOL(0, "pid", offsetof(struct inner, pid), "process frame as comm-PID"),
	OPT_STRING(0, "symfs", offsetof(struct inner, symfs), "DIR", "look under DIR"),
	OPT_END(),
};

static const struct opt t_table[] = {
	OPT_FILENAME('o', "output", offsetof(struct t_opts, output), "FILE", "write here"),
	OPT_BOOL('v', "verbose", offsetof(struct t_opts, verbose), "say more"),
	{ .kind = OPT_KIND_BOOL, .short_name = 'q', .long_name = "quiet",
	  .offset = offsetof(struct t_opts, quiet), .help = "say less", .flags = OPT_NONEG },
	OPT_BOOL(0, "header", offsetof(struct t_opts, header), "the header first"),
	OPT_BOOL(0, "header-only", offsetof(struct t_opts, header_only), "the header only"),
	OPT_U64('c', "count", offsetof(struct t_opts, count), "N", "every N events"),
	OPT_DOUBLE(0, "scale", offsetof(struct t_opts, scale), "F", "multiply by F"),
	OPT_SET_INT(0, "fast", offsetof(struct t_opts, mode), 7, "mode 7"),
	{ .kind = OPT_KIND_SET_INT, .long_name = "quick", .offset = offsetof(struct t_opts, mode),
	  .value = 7, .help = "as --fast", .flags = OPT_HIDDEN },
	{ .kind = OPT_KIND_STRING, .short_name = 'l', .long_name = "level",
	  .offset = offsetof(struct t_opts, level), .metavar = "L", .help = "a level",
	  .flags = OPT_OPTARG },
	OPT_CALLBACK('x', "call", 0, "ARG", "call back", cb_count_calls),
	OPT_GROUP("inner options:"),
	OPT_INCLUDE(inner_opts, offsetof(struct t_opts, in)),
	OPT_END(),
};

static const struct opts_cmd t_cmd = {
	.name = "test",
	.summary = "a test command",
	.synopsis = "[options] [FILE...]",
	.description = "Tests the parser.\n",
	.opts = t_table,
	.examples = "kiln test -o x\n",
};

static struct opts_cmd t_stop_cmd;

/* Parse a NULL-terminated word list (argv[0] = "test"). */
static int run(const struct opts_cmd *cmd, struct opts_parser *p, struct t_opts *t,
	       const char **argv)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	memset(t, 0, sizeof(*t));
	return opts_parse(p, cmd, argc, (char **)argv, t);
}

#define ARGV(...) ((const char *[]){ "test", __VA_ARGS__, NULL })

static void test_long_forms(void **state)
{
	(void)state;
	struct opts_parser p;
	struct t_opts t;
	const char **a = ARGV("--output", "a.out", "--count=12", "--scale", "0.5", "--verbose");
	assert_int_equal(run(&t_cmd, &p, &t, a), 7);
	assert_string_equal(t.output, "a.out");
	assert_int_equal(t.count, 12);
	assert_true(t.scale == 0.5);
	assert_true(t.verbose);
	a = ARGV("--output=x=y");
	assert_int_equal(run(&t_cmd, &p, &t, a), 2);
	assert_string_equal(t.output, "x=y");
}

static void test_short_forms(void **state)
{
	(void)state;
	struct opts_parser p;
	struct t_opts t;
	const char **a = ARGV("-o", "f", "-c5");
	assert_int_equal(run(&t_cmd, &p, &t, a), 4);
	assert_string_equal(t.output, "f");
	assert_int_equal(t.count, 5);
	/* Bundled: flags, then one that takes the rest of the word as its value. */
	a = ARGV("-vqc99");
	assert_int_equal(run(&t_cmd, &p, &t, a), 2);
	assert_true(t.verbose && t.quiet);
	assert_int_equal(t.count, 99);
	a = ARGV("-vqo", "out");
	assert_int_equal(run(&t_cmd, &p, &t, a), 3);
	assert_string_equal(t.output, "out");
}

static void test_errors(void **state)
{
	(void)state;
	struct opts_parser p;
	struct t_opts t;
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--output")), -1);
	assert_string_equal(p.err, "option '--output' requires a value");
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("-v", "-o")), -1);
	assert_string_equal(p.err, "option '-o' requires a value");
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--frobnicate")), -1);
	assert_string_equal(p.err, "unknown option '--frobnicate'");
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("-vz")), -1);
	assert_string_equal(p.err, "unknown option '-z'");
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--verbose=yes")), -1);
	assert_string_equal(p.err, "option '--verbose' takes no value");
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--count", "12x")), -1);
	assert_string_equal(p.err, "--count takes a number, not '12x'");
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("-c", "-1")), -1);
	assert_string_equal(p.err, "-c takes a number, not '-1'");
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--scale=x")), -1);
	assert_string_equal(p.err, "--scale takes a number, not 'x'");
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--call", "bad")), -1);
	assert_string_equal(p.err, "--call refuses 'bad'");
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--no-quiet")), -1);
	assert_string_equal(p.err, "unknown option '--no-quiet'");
}

static void test_abbreviations(void **state)
{
	(void)state;
	struct opts_parser p;
	struct t_opts t;
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--out", "f", "--verb")), 4);
	assert_string_equal(t.output, "f");
	assert_true(t.verbose);
	/* An exact name wins over the longer names it is a prefix of. */
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--header")), 2);
	assert_true(t.header && !t.header_only);
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--he")), -1);
	assert_string_equal(p.err, "option '--he' is ambiguous (--header, --header-only, --help)");
	/* --fast and its hidden alias --quick do the same: not ambiguous... */
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--f")), 2);
	assert_int_equal(t.mode, 7);
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--qui")), -1);
	assert_string_equal(p.err, "option '--qui' is ambiguous (--quiet)");
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--quick")), 2);
	assert_int_equal(t.mode, 7);
	/* Help abbreviates too. */
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--hel")), OPTS_HELP);
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("-vh")), OPTS_HELP);
}

static void test_negation(void **state)
{
	(void)state;
	struct opts_parser p;
	struct t_opts t;
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("-v", "--no-verbose")), 3);
	assert_false(t.verbose);
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--pid", "--no-pi")), 3);
	assert_false(t.in.pid);
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--no-verbose=1")), -1);
	assert_string_equal(p.err, "option '--no-verbose' takes no value");
}

static void test_arguments(void **state)
{
	(void)state;
	struct opts_parser p;
	struct t_opts t;
	/* Options and arguments mix; arguments end up behind the options, in order. */
	const char **a = ARGV("one", "-o", "f", "two", "--verbose", "-", "three");
	int first = run(&t_cmd, &p, &t, a);
	assert_int_equal(first, 4);
	assert_string_equal(a[first], "one");
	assert_string_equal(a[first + 1], "two");
	assert_string_equal(a[first + 2], "-");
	assert_string_equal(a[first + 3], "three");
	assert_string_equal(t.output, "f");
	/* "--" ends the options. */
	a = ARGV("-v", "--", "-o", "x");
	first = run(&t_cmd, &p, &t, a);
	assert_int_equal(first, 3);
	assert_int_equal(p.dashdash, 2);
	assert_string_equal(a[first], "-o");
	assert_null(t.output);
	/* Stopping at the first argument leaves argv as it was. */
	a = ARGV("-v", "cmd", "-o", "x");
	first = run(&t_stop_cmd, &p, &t, a);
	assert_int_equal(first, 2);
	assert_int_equal(p.dashdash, 0);
	assert_string_equal(a[3], "-o");
	assert_null(t.output);
	a = ARGV("-v", "--", "cmd");
	assert_int_equal(run(&t_stop_cmd, &p, &t, a), 3);
	assert_int_equal(p.dashdash, 2);
}

static void test_values(void **state)
{
	(void)state;
	struct opts_parser p;
	struct t_opts t;
	/* An optional value must be attached. */
	const char **a = ARGV("--level", "x");
	assert_int_equal(run(&t_cmd, &p, &t, a), 2);
	assert_null(t.level);
	assert_string_equal(a[2], "x");
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("--level=3", "-l4")), 3);
	assert_string_equal(t.level, "4");
	/* Callbacks see each value; the included table's offsets are its own. */
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("-xa", "--call", "b", "--symfs=/s")), 5);
	assert_int_equal(t.calls, 2);
	assert_string_equal(t.last, "b");
	assert_string_equal(t.in.symfs, "/s");
	/* A value that looks like an option is still the value. */
	assert_int_equal(run(&t_cmd, &p, &t, ARGV("-o", "--verbose")), 3);
	assert_string_equal(t.output, "--verbose");
	assert_false(t.verbose);
}

/* The help lists every visible option, the group title, and the examples. */
static void test_help(void **state)
{
	(void)state;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	opts_help(f, &t_cmd);
	fclose(f);
	assert_non_null(strstr(text, "usage: kiln test [options] [FILE...]\n"));
	assert_non_null(strstr(text, "  -o, --output FILE     write here\n"));
	assert_non_null(strstr(text, "  -l, --level[=L]       a level\n"));
	assert_non_null(strstr(text, "      --symfs DIR       look under DIR\n"));
	assert_non_null(strstr(text, "  -h, --help            this help\n\ninner options:\n"));
	assert_non_null(strstr(text, "\nEXAMPLES\n  kiln test -o x\n"));
	assert_null(strstr(text, "--quick"));
	free(text);
}

static void test_man(void **state)
{
	(void)state;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	opts_man(f, &t_cmd, "1.2.3");
	fclose(f);
	assert_true(!strncmp(text, ".TH \"KILN-TEST\" 1 \"\" \"kiln 1.2.3\" \"kiln manual\"\n", 47));
	assert_non_null(strstr(text, ".SH NAME\nkiln\\-test \\- a test command\n"));
	assert_non_null(strstr(text, ".TP\n\\fB\\-o\\fR, \\fB\\-\\-output\\fR \\fIFILE\\fR\nwrite here\n"));
	assert_non_null(strstr(text, ".SS \"inner options\"\n"));
	free(text);
}

int main(void)
{
	t_stop_cmd = t_cmd;
	t_stop_cmd.flags = OPTS_STOP_AT_ARG;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_forms),   cmocka_unit_test(test_short_forms),
		cmocka_unit_test(test_errors),       cmocka_unit_test(test_abbreviations),
		cmocka_unit_test(test_negation),     cmocka_unit_test(test_arguments),
		cmocka_unit_test(test_values),       cmocka_unit_test(test_help),
		cmocka_unit_test(test_man),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
