/* Unit tests for offcpubpf_chain: the BPF stack map's stacks (zero-
 * terminated arrays) as one perf callchain, the kernel part cut to the
 * scheduler's frame, missing stacks, and the output bound; and for
 * ob_stack_key, the stacks' keys in that map. */
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <linux/types.h>

#include "source/live/bpf/offcpu_bpf.h"
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

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* A key is never 0 (no stack) and tells apart stacks that differ in one
 * frame anywhere, in the leaf's low bits, or in depth only: 2 x 131072
 * stacks shaped as a program's (a shared kernel or user path, leaves a few
 * bytes apart) get as many keys. */
static void test_stack_key(void **state)
{
	(void)state;
	enum { N = 131072 };
	__u64 ip[OB_DEPTH];
	memset(ip, 0, sizeof(ip));
	assert_true(ob_stack_key(ip) != 0);
	uint64_t *keys = malloc(2 * N * sizeof(*keys));
	assert_non_null(keys);
	for (size_t i = 0; i < N; i++) {
		/* A leaf i bytes into a function, under a path of 3 to 66 frames. */
		memset(ip, 0, sizeof(ip));
		size_t depth = 3 + i % 64;
		for (size_t d = 0; d < depth; d++)
			ip[d] = 0xffffffff81000000ULL + d * 0x1230;
		ip[0] += i / 64;
		keys[i] = ob_stack_key(ip);
		/* One frame anywhere in a full-depth stack moved by 1..1024 bytes. */
		for (size_t d = 0; d < OB_DEPTH; d++)
			ip[d] = 0x401000 + d * 0x40;
		ip[i % OB_DEPTH] += 1 + i / OB_DEPTH;
		keys[N + i] = ob_stack_key(ip);
	}
	qsort(keys, 2 * N, sizeof(*keys), u64_cmp);
	for (size_t i = 0; i < 2 * N; i++) {
		assert_true(keys[i] != 0);
		if (i)
			assert_true(keys[i] != keys[i - 1]);
	}
	free(keys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_both),
		cmocka_unit_test(test_no_sched_frame),
		cmocka_unit_test(test_missing_and_full),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_stack_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
