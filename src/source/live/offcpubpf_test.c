/* Unit tests for offcpubpf_chain: the BPF stack map's stacks (zero-
 * terminated arrays) as one perf callchain, the kernel part cut to the
 * scheduler's frame, missing stacks, and the output bound. */
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "source/live/offcpubpf.h"

#define K PERF_CONTEXT_KERNEL
#define U PERF_CONTEXT_USER
#define LO 0xffffffff81a00000ULL
#define HI 0xffffffff81a00800ULL

/* BPF glue, then __schedule, schedule, a syscall; the rest zeros. */
static const uint64_t kst[8] = { 0xffffffffc0001234ULL, 0xffffffff81200010ULL, LO + 0x40,
				 0xffffffff81a01000ULL, 0xffffffff81000100ULL, 0, 0, 0 };
static const uint64_t ust[6] = { 0x401010, 0x401200, 0x7f0000001000ULL, 0, 0, 0 };

static void test_both(void **state)
{
	(void)state;
	uint64_t out[32];
	size_t n = offcpubpf_chain(out, 32, kst, 8, ust, 6, LO, HI);
	const uint64_t want[] = { K, LO + 0x40, 0xffffffff81a01000ULL, 0xffffffff81000100ULL,
				  U, 0x401010, 0x401200, 0x7f0000001000ULL };
	assert_int_equal(n, sizeof(want) / 8);
	assert_memory_equal(out, want, sizeof(want));
}

/* No scheduler frame (or its address unknown): every kernel frame stays. */
static void test_no_sched_frame(void **state)
{
	(void)state;
	uint64_t out[32];
	size_t n = offcpubpf_chain(out, 32, kst, 8, NULL, 0, 0, 0);
	assert_int_equal(n, 6);
	assert_int_equal(out[0], K);
	assert_memory_equal(out + 1, kst, 5 * 8);
	n = offcpubpf_chain(out, 32, kst, 8, NULL, 0, 0x1000, 0x2000);
	assert_int_equal(n, 6);
	assert_int_equal(out[1], kst[0]);
}

/* A stack not kept (id < 0: NULL, 0) leaves its part and marker out; a
 * full-depth stack has no terminating zero. */
static void test_missing_and_full(void **state)
{
	(void)state;
	uint64_t out[32];
	assert_int_equal(offcpubpf_chain(out, 32, NULL, 0, NULL, 0, LO, HI), 0);
	size_t n = offcpubpf_chain(out, 32, NULL, 0, ust, 6, LO, HI);
	assert_int_equal(n, 4);
	assert_int_equal(out[0], U);
	assert_int_equal(out[3], 0x7f0000001000ULL);
	const uint64_t full[3] = { 0x401000, 0x401100, 0x401200 };
	n = offcpubpf_chain(out, 32, NULL, 0, full, 3, LO, HI);
	assert_int_equal(n, 4);
	assert_int_equal(out[3], 0x401200);
	/* All-zero: an empty stack, no marker. */
	const uint64_t zero[4] = { 0 };
	assert_int_equal(offcpubpf_chain(out, 32, zero, 4, zero, 4, LO, HI), 0);
}

/* The output never passes max. */
static void test_bound(void **state)
{
	(void)state;
	uint64_t out[6] = { 0 };
	size_t n = offcpubpf_chain(out, 5, kst, 8, ust, 6, LO, HI);
	assert_int_equal(n, 4); /* no user marker without room for a frame after it */
	assert_int_equal(out[3], 0xffffffff81000100ULL);
	assert_int_equal(out[4], 0);
	assert_int_equal(offcpubpf_chain(out, 6, kst, 8, ust, 6, LO, HI), 6);
	assert_int_equal(out[4], U);
	assert_int_equal(out[5], 0x401010);
	assert_int_equal(offcpubpf_chain(out, 0, kst, 8, ust, 6, LO, HI), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_both),
		cmocka_unit_test(test_no_sched_frame),
		cmocka_unit_test(test_missing_and_full),
		cmocka_unit_test(test_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
