/* Unit tests for unwind_sample: a callchain split into kernel and user
 * frames by its context markers, and discarded as perf discards it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "unwind/unwind.h"

static struct event sample(const uint64_t *chain, uint64_t n, uint64_t ip, uint16_t cpumode)
{
	struct event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = PERF_RECORD_SAMPLE;
	ev.misc = cpumode;
	ev.u.sample.ip = ip;
	ev.u.sample.callchain = (const uint8_t *)chain;
	ev.u.sample.callchain_nr = n;
	return ev;
}

static void test_split(void **state)
{
	(void)state;
	static struct unwind_stack st;
	const uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010u, 0xffffffff81000020u,
				   PERF_CONTEXT_USER,   0x401000,		 0x402000 };
	struct event ev = sample(chain, 6, 0xffffffff81000010u, PERF_RECORD_MISC_KERNEL);
	unwind_sample(&ev, &st);
	assert_int_equal(st.n, 4);
	assert_true(st.frames[0].kernel && st.frames[1].kernel);
	assert_false(st.frames[2].kernel || st.frames[3].kernel);
	assert_int_equal(st.frames[3].ip, 0x402000);

	/* The hypervisor's entries are skipped, the rest kept. */
	const uint64_t hv[] = { PERF_CONTEXT_HV, 0x1234, PERF_CONTEXT_USER, 0x401000 };
	ev = sample(hv, 4, 0x1234, PERF_RECORD_MISC_HYPERVISOR);
	unwind_sample(&ev, &st);
	assert_int_equal(st.n, 1);
	assert_int_equal(st.frames[0].ip, 0x401000);
}

/* A frame-pointer walk that read -1 as a return address: perf drops the
 * chain ("invalid callchain context") and keeps the sample's ip. */
static void test_discard(void **state)
{
	(void)state;
	static struct unwind_stack st;
	const uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff8224dd9du, 0xffffffff822508dfu,
				   PERF_CONTEXT_USER,   0x7fd7fcad20ffu,	UINT64_MAX };
	struct event ev = sample(chain, 6, 0xffffffff8224dd9du, PERF_RECORD_MISC_KERNEL);
	unwind_sample(&ev, &st);
	assert_int_equal(st.n, 1);
	assert_true(st.frames[0].ip == 0xffffffff8224dd9du);
	assert_true(st.frames[0].kernel);
	assert_false(st.truncated);

	const uint64_t guest[] = { PERF_CONTEXT_USER, 0x401000, PERF_CONTEXT_GUEST, 0x2000 };
	ev = sample(guest, 4, 0x401000, PERF_RECORD_MISC_USER);
	unwind_sample(&ev, &st);
	assert_int_equal(st.n, 1);
	assert_int_equal(st.frames[0].ip, 0x401000);
	assert_false(st.frames[0].kernel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_discard),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
