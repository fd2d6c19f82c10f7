/* Tests for perf stat's layouts: numbers, digit groups, derived figures, CSV, JSON. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "output/stat_text.h"

static const struct stat_opts text = { .fmt = STAT_TEXT, .sep = " ", .runs = 1 };

static struct stat_row row(const char *ev, enum stat_kind k, double v, uint64_t run)
{
	return (struct stat_row){ .event = ev, .kind = k, .state = STAT_COUNTED, .value = v,
				  .run = run, .ena = run, .cpu = -1, .socket = -1, .die = -1,
				  .core = -1, .tid = -1, .nr = 1 };
}

static void render(const struct stat_opts *o, const struct stat_row *r, size_t n, double ts,
		   double elapsed_ns, char *out, size_t len)
{
	struct buf b;
	buf_init(&b, 1 << 20);
	stat_text_rows(&b, o, r, n, ts, elapsed_ns);
	snprintf(out, len, "%s", buf_str(&b));
	buf_release(&b);
}

static void test_numbers(void **state)
{
	(void)state;
	char s[64];
	stat_text_number(s, sizeof(s), 1234567, 18, 0, ",");
	assert_string_equal(s, "         1,234,567");
	stat_text_number(s, sizeof(s), 1234567, 18, 0, "");
	assert_string_equal(s, "           1234567");
	stat_text_number(s, sizeof(s), 999, 0, 0, ",");
	assert_string_equal(s, "999");
	stat_text_number(s, sizeof(s), 1000, 0, 0, ".");
	assert_string_equal(s, "1.000");
	stat_text_number(s, sizeof(s), 1234.5, 0, 2, ",");
	assert_string_equal(s, "1,234.50");
	stat_text_number(s, sizeof(s), -1234567.25, 0, 2, ",");
	assert_string_equal(s, "-1,234,567.25");
	stat_text_number(s, sizeof(s), 5.97, 18, 2, NULL);
	assert_string_equal(s, "              5.97");
}

static void test_units_precision(void **state)
{
	(void)state;
	char u;
	assert_true(stat_text_unit(500, &u) == 500 && u == ' ');
	assert_true(stat_text_unit(1500, &u) == 1.5 && u == 'K');
	assert_true(stat_text_unit(2e6, &u) == 2 && u == 'M');
	assert_true(stat_text_unit(3e9, &u) == 3 && u == 'G');
	assert_int_equal(stat_text_precision(0.0000497), 5);
	assert_int_equal(stat_text_precision(0.00183), 3);
	assert_int_equal(stat_text_precision(2.5), 0);
}

/* perf's default set on a machine without a PMU, line for line. */
static void test_default_set(void **state)
{
	(void)state;
	struct stat_row r[4] = {
		row("task-clock", STAT_K_TASK_CLOCK, 5.97, 5970000),
		row("context-switches", STAT_K_OTHER, 8, 5970000),
		row("page-faults", STAT_K_OTHER, 2203, 5970000),
		row("cycles", STAT_K_CYCLES, 0, 0),
	};
	r[3].state = STAT_NOT_SUPPORTED;
	char out[4096];
	render(&text, r, 4, -1, 5.97e6 / 0.7, out, sizeof(out));
	assert_string_equal(out,
		"              5.97 msec task-clock                       #    0.700 CPUs utilized          \n"
		"                 8      context-switches                 #    1.340 K/sec                  \n"
		"              2203      page-faults                      #  369.012 K/sec                  \n"
		"   <not supported>      cycles                                                      \n");
	struct stat_opts csv = { .fmt = STAT_CSV, .sep = ",", .runs = 1 };
	render(&csv, r, 4, -1, 5.97e6 / 0.7, out, sizeof(out));
	assert_string_equal(out, "5.97,msec,task-clock,5970000,100.00,0.700,CPUs utilized\n"
				 "8,,context-switches,5970000,100.00,1.340,K/sec\n"
				 "2203,,page-faults,5970000,100.00,369.012,K/sec\n"
				 "<not supported>,,cycles,0,100.00,,\n");
	struct stat_opts json = { .fmt = STAT_JSON, .runs = 1 };
	render(&json, r + 2, 2, -1, 1e6, out, sizeof(out));
	assert_string_equal(out,
		"{\"counter-value\" : \"2203.000000\", \"unit\" : \"\", \"event\" : \"page-faults\", "
		"\"event-runtime\" : 5970000, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, "
		"\"metric-unit\" : \"(null)\"}\n"
		"{\"counter-value\" : \"<not supported>\", \"unit\" : \"\", \"event\" : \"cycles\", "
		"\"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, "
		"\"metric-unit\" : \"\"}\n");
}

/* Hardware figures: GHz, insn per cycle, branch miss ratio; multiplexing. */
static void test_hw_metrics(void **state)
{
	(void)state;
	struct stat_row r[5] = {
		row("task-clock", STAT_K_TASK_CLOCK, 1.0, 1000000),
		row("cycles", STAT_K_CYCLES, 2000000, 1000000),
		row("instructions", STAT_K_INSTRUCTIONS, 3000000, 1000000),
		row("branches", STAT_K_BRANCHES, 2000, 1000000),
		row("branch-misses", STAT_K_BRANCH_MISSES, 10, 500000),
	};
	r[4].ena = 1000000;
	char out[4096];
	render(&text, r + 1, 4, -1, 1e6, out, sizeof(out));
	/* without task-clock: no GHz, no rates */
	assert_non_null(strstr(out, "           2000000      cycles                                                             \n"));
	render(&text, r, 5, -1, 1e6, out, sizeof(out));
	assert_non_null(strstr(out, "      cycles                           #    2.000 GHz                    \n"));
	assert_non_null(strstr(out, "      instructions                     #    1.50  insn per cycle         \n"));
	assert_non_null(strstr(out, "      branches                         #    2.000 M/sec                  \n"));
	assert_non_null(strstr(out, "      branch-misses                    #    0.50% of all branches          (50.00%)\n"));
	struct stat_opts csv = { .fmt = STAT_CSV, .sep = ";", .runs = 1 };
	render(&csv, r + 4, 1, -1, 1e6, out, sizeof(out));
	assert_string_equal(out, "10;;branch-misses;500000;50.00;;\n");
	/* big numbers */
	struct stat_opts big = text;
	big.thousands = ",";
	render(&big, r + 2, 1, -1, 1e6, out, sizeof(out));
	assert_non_null(strstr(out, "         3,000,000      instructions"));
}

/* -r spreads, -I prefixes, per-CPU labels, the footer. */
static void test_runs_intervals(void **state)
{
	(void)state;
	struct stat_row r = row("page-faults", STAT_K_OTHER, 50, 1000);
	r.noise = 0.23;
	struct stat_opts o = text;
	o.runs = 3;
	char out[4096];
	render(&o, &r, 1, -1, 1e6, out, sizeof(out));
	assert_string_equal(out, "                50      page-faults                                                          ( +-  0.23% )\n");
	struct stat_opts csv = { .fmt = STAT_CSV, .sep = ",", .runs = 3 };
	render(&csv, &r, 1, -1, 1e6, out, sizeof(out));
	assert_string_equal(out, "50,,page-faults,0.23%,1000,100.00,,\n");
	render(&text, &r, 1, 0.300271782, 1e6, out, sizeof(out));
	assert_string_equal(out, "     0.300271782                 50      page-faults                                                        \n");
	struct stat_opts cpu = text;
	cpu.aggr = STAT_AGGR_CPU;
	r.cpu = 1;
	render(&cpu, &r, 1, -1, 1e6, out, sizeof(out));
	assert_true(strncmp(out, "CPU1                       50      page-faults", 46) == 0);
	struct stat_opts thr = { .fmt = STAT_JSON, .aggr = STAT_AGGR_THREAD, .runs = 1 };
	r.comm = "a\"b\\c";
	r.tid = 42;
	render(&thr, &r, 1, -1, 1e6, out, sizeof(out));
	assert_non_null(strstr(out, "{\"thread\" : \"a\\\"b\\\\c-42\", \"counter-value\""));
	struct buf b;
	buf_init(&b, 4096);
	stat_text_footer(&b, &o, 0.0008236, 0.0000497, false, 0, 0);
	assert_string_equal(buf_str(&b),
			    "\n         0.0008236 +- 0.0000497 seconds time elapsed  ( +-  6.03% )\n\n");
	buf_reset(&b);
	stat_text_footer(&b, &text, 0.001279368, 0, true, 0.001342, 0);
	assert_string_equal(buf_str(&b), "\n       0.001279368 seconds time elapsed\n\n"
					 "       0.001342000 seconds user\n"
					 "       0.000000000 seconds sys\n\n\n");
	buf_reset(&b);
	stat_text_header(&b, &o, "", "true");
	assert_string_equal(buf_str(&b), "\n Performance counter stats for 'true' (3 runs):\n\n");
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_units_precision),
		cmocka_unit_test(test_default_set),
		cmocka_unit_test(test_hw_metrics),
		cmocka_unit_test(test_runs_intervals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
