/* Unit tests for offcpu: switch-outs paired with switch-ins in time order
 * whatever order the rings gave them in, exits and the end closing open
 * intervals, the threshold, the stack cap, dead threads, -a's next_pid,
 * and the offcpu-time samples' layout. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/offcpu.h"

#define SCHED_ID 77
#define K PERF_CONTEXT_KERNEL
#define U PERF_CONTEXT_USER

static const char format[] =
	"name: sched_switch\nID: 372\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_state=%s%s\", (REC->prev_state & 0xff) ? __print_flags(REC->prev_state "
	"& 0xff, \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, "
	"{ 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, "
	"\"P\" }, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & 0x100 ? \"+\" : \"\"\n";

struct out {
	uint64_t id, ip, time, period;
	uint32_t pid, tid;
	uint16_t misc;
	uint64_t chain[16];
	size_t n;
};

struct outs {
	struct out v[16];
	size_t n;
};

static int collect(void *arg, const void *rec, size_t len)
{
	struct outs *o = arg;
	const uint8_t *r = rec;
	struct perf_event_header h;
	memcpy(&h, r, 8);
	assert_int_equal(h.type, PERF_RECORD_SAMPLE);
	assert_int_equal(h.size, len);
	assert_true(o->n < 16);
	struct out *s = &o->v[o->n++];
	uint64_t u[8];
	memcpy(u, r + 8, sizeof(u));
	s->misc = h.misc;
	s->id = u[0];
	s->ip = u[1];
	s->pid = (uint32_t)u[2];
	s->tid = (uint32_t)(u[2] >> 32);
	s->time = u[3];
	s->period = u[5];
	s->n = u[6];
	assert_true(s->n <= 16);
	assert_int_equal(len, 8 * (8 + s->n));
	memcpy(s->chain, r + 64, s->n * 8);
	return 0;
}

/* offcpu_finish into o: n samples written. */
static void finish(struct offcpu *oc, struct outs *o, size_t n)
{
	o->n = 0;
	assert_int_equal(offcpu_finish(oc, collect, o), 0);
	assert_int_equal(o->n, n);
}

static struct offcpu *make(uint64_t thresh, bool system_wide, size_t max_stacks)
{
	struct offcpu_opts o = { .thresh_ns = thresh, .system_wide = system_wide,
				 .max_stacks = max_stacks };
	assert_int_equal(schedsw_parse_format(format, &o.lay), 0);
	struct offcpu *oc = offcpu_new(&o);
	offcpu_add_id(oc, SCHED_ID);
	return oc;
}

/* A sched_switch sample of 'tid' (current) switching to 'next'. */
static void sched(struct offcpu *oc, uint32_t pid, uint32_t tid, uint64_t time, uint64_t state,
		  uint32_t next, const uint64_t *chain, size_t n)
{
	uint8_t rec[512] = { 0 };
	uint64_t u[7] = { SCHED_ID, chain && n > 1 ? chain[1] : 0,
			  ((uint64_t)tid << 32) | pid, time, 0, 1, n };
	memcpy(rec + 8, u, sizeof(u));
	memcpy(rec + 64, chain, n * 8);
	uint8_t *raw = rec + 64 + n * 8;
	uint32_t raw_size = 68;
	memcpy(raw, &raw_size, 4);
	int32_t p = (int32_t)tid, nx = (int32_t)next;
	memcpy(raw + 4 + 24, &p, 4);
	memcpy(raw + 4 + 32, &state, 8);
	memcpy(raw + 4 + 56, &nx, 4);
	size_t len = (size_t)(raw + 4 + raw_size - rec + 7) & ~(size_t)7;
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, (uint16_t)len };
	memcpy(rec, &h, 8);
	assert_true(offcpu_take(oc, rec, len));
}

/* A PERF_RECORD_SWITCH (in) of the sched event for 'tid'. */
static void switch_in(struct offcpu *oc, uint32_t pid, uint32_t tid, uint64_t time)
{
	uint64_t rec[5] = { 0, ((uint64_t)tid << 32) | pid, time, 0, SCHED_ID };
	struct perf_event_header h = { PERF_RECORD_SWITCH, 0, sizeof(rec) };
	memcpy(rec, &h, 8);
	assert_true(offcpu_take(oc, rec, sizeof(rec)));
}

static const uint64_t chain_a[] = { K, 0xffffffff81000010ULL, U, 0x401000 };
static const uint64_t chain_b[] = { K, 0xffffffff81000020ULL, U, 0x402000, 0x402100 };

/* Records of one drain pass come ring by ring, not in time order; pending
 * switch-outs of different lengths survive a round with their stacks. */
static void test_pairing_out_of_order(void **state)
{
	(void)state;
	struct offcpu *oc = make(0, false, 0);
	sched(oc, 1, 11, 100, 1, 0, chain_a, 4); /* CPU 0's ring */
	sched(oc, 1, 12, 50, 2, 0, chain_b, 5);  /* CPU 1's ring, earlier */
	offcpu_round(oc);
	switch_in(oc, 1, 12, 150);
	offcpu_round(oc);
	switch_in(oc, 1, 11, 300);
	offcpu_round(oc);
	struct outs o;
	finish(oc, &o, 2);
	/* sorted by pid, tid */
	assert_int_equal(o.v[0].tid, 11);
	assert_int_equal(o.v[0].period, 200);
	assert_int_equal(o.v[0].id, OFFCPU_ID_BASE | 'S');
	assert_int_equal(o.v[0].n, 4);
	assert_memory_equal(o.v[0].chain, chain_a, sizeof(chain_a));
	assert_int_equal(o.v[0].ip, chain_a[1]);
	assert_int_equal(o.v[0].misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(o.v[0].time, OFFCPU_TIMESTAMP);
	assert_int_equal(o.v[1].tid, 12);
	assert_int_equal(o.v[1].period, 100);
	assert_int_equal(offcpu_id_state(o.v[1].id), 'D');
	assert_int_equal(o.v[1].n, 5);
	assert_memory_equal(o.v[1].chain, chain_b, sizeof(chain_b));
	assert_int_equal(o.v[1].time, OFFCPU_TIMESTAMP + 1);
	assert_int_equal(offcpu_stats(oc)->blocked_ns, 300);
	offcpu_free(oc);
}

/* User stacks only (sched_switch with exclude_callchain_kernel, the
 * default): a user chain, and a kernel thread's empty one, first in the
 * recording (nothing pooled yet), kept as they are. */
static void test_user_stacks(void **state)
{
	(void)state;
	static const uint64_t chain_u[] = { U, 0x401000, 0x401100 };
	static const uint64_t none[1] = { 0 };
	struct offcpu *oc = make(0, false, 0);
	sched(oc, 1, 11, 10, 1, 0, none, 0);
	sched(oc, 1, 12, 20, 1, 0, chain_u, 3);
	switch_in(oc, 1, 11, 110);
	switch_in(oc, 1, 12, 220);
	offcpu_round(oc);
	struct outs o;
	finish(oc, &o, 2);
	assert_int_equal(o.v[0].tid, 11);
	assert_int_equal(o.v[0].period, 100);
	assert_int_equal(o.v[0].n, 0);
	assert_int_equal(o.v[0].ip, 0);
	assert_int_equal(o.v[0].misc, PERF_RECORD_MISC_USER);
	assert_int_equal(o.v[1].tid, 12);
	assert_int_equal(o.v[1].period, 200);
	assert_int_equal(o.v[1].n, 3);
	assert_memory_equal(o.v[1].chain, chain_u, sizeof(chain_u));
	assert_int_equal(o.v[1].ip, 0x401000);
	assert_int_equal(o.v[1].misc, PERF_RECORD_MISC_USER);
	offcpu_free(oc);
}

/* A thread's exit closes its interval; one still open at the end is
 * closed at the last time seen; a thread switched out dead opens none. */
static void test_exit_end_dead(void **state)
{
	(void)state;
	struct offcpu *oc = make(0, false, 0);
	sched(oc, 1, 11, 10, 1, 0, chain_a, 4);
	sched(oc, 1, 12, 20, 1, 0, chain_b, 5);
	sched(oc, 1, 13, 30, 0x10, 0, chain_a, 4); /* X: gone */
	uint64_t ex[5] = { 0, 1 | (1ULL << 32), 11 | (11ULL << 32), 60, 0 }; /* pid ppid, tid ptid, time */
	struct perf_event_header h = { PERF_RECORD_EXIT, 0, sizeof(ex) };
	memcpy(ex, &h, 8);
	assert_false(offcpu_take(oc, ex, sizeof(ex))); /* still written by the caller */
	switch_in(oc, 1, 14, 100); /* never switched out: nothing */
	struct outs o;
	finish(oc, &o, 2);
	assert_int_equal(o.v[0].tid, 11);
	assert_int_equal(o.v[0].period, 50);
	assert_int_equal(o.v[1].tid, 12);
	assert_int_equal(o.v[1].period, 80);
	assert_int_equal(offcpu_stats(oc)->at_exit, 1);
	assert_int_equal(offcpu_stats(oc)->at_end, 1);
	offcpu_free(oc);
}

/* Shorter than the threshold: left out; repeated stacks are summed;
 * R for a preempted switch; two switch-outs in a row: the first unpaired. */
static void test_threshold_sum_state(void **state)
{
	(void)state;
	struct offcpu *oc = make(100, false, 0);
	sched(oc, 1, 11, 0, 1, 0, chain_a, 4);
	switch_in(oc, 1, 11, 50); /* 50 < 100 */
	sched(oc, 1, 11, 100, 1, 0, chain_a, 4);
	switch_in(oc, 1, 11, 300);
	sched(oc, 1, 11, 400, 1, 0, chain_a, 4);
	switch_in(oc, 1, 11, 1400);
	sched(oc, 1, 11, 2000, 0x100, 0, chain_a, 4); /* preempted */
	sched(oc, 1, 11, 2500, 0x100, 0, chain_a, 4); /* the switch-in between was lost */
	switch_in(oc, 1, 11, 3000);
	struct outs o;
	finish(oc, &o, 2);
	assert_int_equal(offcpu_id_state(o.v[0].id), 'R');
	assert_int_equal(o.v[0].period, 500);
	assert_int_equal(offcpu_id_state(o.v[1].id), 'S');
	assert_int_equal(o.v[1].period, 1200);
	assert_int_equal(offcpu_stats(oc)->below_thresh, 1);
	assert_int_equal(offcpu_stats(oc)->unpaired, 1);
	offcpu_free(oc);
}

/* Past the stack cap, time stays under the thread and state, stackless. */
static void test_stack_cap(void **state)
{
	(void)state;
	struct offcpu *oc = make(0, false, 1);
	sched(oc, 1, 11, 0, 1, 0, chain_a, 4);
	switch_in(oc, 1, 11, 10);
	sched(oc, 1, 11, 20, 1, 0, chain_b, 5);
	switch_in(oc, 1, 11, 50);
	struct outs o;
	finish(oc, &o, 2);
	assert_int_equal(o.v[0].n, 0); /* the stackless sum sorts first */
	assert_int_equal(o.v[0].period, 30);
	assert_int_equal(o.v[1].n, 4);
	assert_int_equal(o.v[1].period, 10);
	assert_int_equal(offcpu_stats(oc)->over_cap, 1);
	offcpu_free(oc);
}

/* -a: the switch-in is a later sched_switch's next_pid, on any CPU. */
static void test_system_wide(void **state)
{
	(void)state;
	struct offcpu *oc = make(0, true, 0);
	sched(oc, 5, 11, 100, 2, 0, chain_a, 4); /* to idle: pid 0 is not followed */
	sched(oc, 7, 20, 250, 0x100, 11, chain_b, 5);
	struct outs o;
	finish(oc, &o, 1); /* tid 20 stays open until the end, at 250: 0 ns */
	assert_int_equal(o.v[0].pid, 5);
	assert_int_equal(o.v[0].tid, 11);
	assert_int_equal(o.v[0].period, 150);
	assert_int_equal(offcpu_id_state(o.v[0].id), 'D');
	offcpu_free(oc);
}

/* Records of other events, and short ones, are not taken. */
static void test_foreign_records(void **state)
{
	(void)state;
	struct offcpu *oc = make(0, false, 0);
	uint64_t smp[4] = { 0, 99, 0, 0 };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, sizeof(smp) };
	memcpy(smp, &h, 8);
	assert_false(offcpu_take(oc, smp, sizeof(smp)));
	uint64_t shortrec[3] = { 0, SCHED_ID, 0 };
	h.size = sizeof(shortrec);
	memcpy(shortrec, &h, 8);
	assert_true(offcpu_take(oc, shortrec, sizeof(shortrec)));
	assert_int_equal(offcpu_stats(oc)->malformed, 1);
	/* the kernel throttling the sched event: counted, the record kept */
	uint64_t thr[4] = { 0, 1000, SCHED_ID, 0 };
	struct perf_event_header th = { PERF_RECORD_THROTTLE, 0, sizeof(thr) };
	memcpy(thr, &th, 8);
	assert_false(offcpu_take(oc, thr, sizeof(thr)));
	thr[2] = 99;
	assert_false(offcpu_take(oc, thr, sizeof(thr)));
	assert_int_equal(offcpu_stats(oc)->throttled, 1);
	offcpu_free(oc);
}

static void test_state_letters(void **state)
{
	(void)state;
	struct schedsw_layout l;
	assert_int_equal(schedsw_parse_format(format, &l), 0);
	assert_int_equal(l.prev_pid_off, 24);
	assert_int_equal(l.prev_state_off, 32);
	assert_int_equal(l.prev_state_size, 8);
	assert_int_equal(l.next_pid_off, 56);
	assert_int_equal(schedsw_state_letter(&l, 0), 'R');
	assert_int_equal(schedsw_state_letter(&l, 0x100), 'R');
	assert_int_equal(schedsw_state_letter(&l, 1), 'S');
	assert_int_equal(schedsw_state_letter(&l, 2), 'D');
	assert_int_equal(schedsw_state_letter(&l, 0x80), 'I');
	assert_int_equal(schedsw_parse_format("field:int x;\toffset:0;\tsize:4;\n", &l), -EINVAL);
}

/* The BPF method's sums (offcpu_add): the same samples as paired ones,
 * equal keys merged, sorted by (pid, tid, state, stack), the state in
 * the id, a kernel leaf marked as such, and the stack cap applied. */
/* The kernel part starts at the scheduler: the frames before __schedule
 * (__traceiter_sched_switch, when another program shares the tracepoint)
 * are dropped; a chain without a scheduler frame is kept whole. */
static void test_trim_to_schedule(void **state)
{
	(void)state;
	struct offcpu_opts op = { .sched_lo = 0xffffffff81000100ULL,
				  .sched_hi = 0xffffffff81000200ULL };
	assert_int_equal(schedsw_parse_format(format, &op.lay), 0);
	struct offcpu *oc = offcpu_new(&op);
	offcpu_add_id(oc, SCHED_ID);
	const uint64_t traced[] = { K, 0xffffffff81000900ULL, 0xffffffff81000150ULL,
				    0xffffffff81000010ULL, U, 0x401000 };
	const uint64_t want[] = { K, 0xffffffff81000150ULL, 0xffffffff81000010ULL, U, 0x401000 };
	sched(oc, 1, 11, 100, 1, 0, traced, 6);
	sched(oc, 1, 12, 100, 1, 0, chain_a, 4);
	switch_in(oc, 1, 11, 200);
	switch_in(oc, 1, 12, 300);
	offcpu_round(oc);
	struct outs o;
	finish(oc, &o, 2);
	assert_int_equal(o.v[0].tid, 11);
	assert_int_equal(o.v[0].n, 5);
	assert_memory_equal(o.v[0].chain, want, sizeof(want));
	assert_int_equal(o.v[0].ip, want[1]);
	assert_int_equal(o.v[1].n, 4);
	assert_memory_equal(o.v[1].chain, chain_a, sizeof(chain_a));
	offcpu_free(oc);
}

static void test_bpf_sums(void **state)
{
	(void)state;
	struct offcpu_opts opts = { .max_stacks = 2 };
	struct offcpu *oc = offcpu_new(&opts);
	offcpu_add(oc, 2, 22, 'S', chain_b, 5, 100);
	offcpu_add(oc, 1, 11, 'D', chain_a, 4, 40);
	offcpu_add(oc, 2, 22, 'S', chain_b, 5, 5); /* same key: summed */
	offcpu_add(oc, 1, 11, 'D', NULL, 0, 0);    /* nothing blocked: nothing */
	offcpu_add(oc, 1, 11, 'R', chain_a, 4, 7); /* a third stack: over the cap */
	const uint64_t user_only[] = { U, 0x403000 };
	struct offcpu_opts o2 = { 0 };
	struct offcpu *oc2 = offcpu_new(&o2);
	offcpu_add(oc2, 3, 33, 'S', user_only, 2, 9);
	struct outs o;
	finish(oc, &o, 3);
	assert_int_equal(o.v[0].tid, 11);
	assert_int_equal(offcpu_id_state(o.v[0].id), 'D');
	assert_int_equal(o.v[0].period, 40);
	assert_int_equal(o.v[0].n, 4);
	assert_memory_equal(o.v[0].chain, chain_a, sizeof(chain_a));
	assert_int_equal(o.v[0].ip, chain_a[1]);
	assert_int_equal(o.v[0].misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(o.v[0].time, OFFCPU_TIMESTAMP);
	assert_int_equal(offcpu_id_state(o.v[1].id), 'R'); /* stackless, past the cap */
	assert_int_equal(o.v[1].n, 0);
	assert_int_equal(o.v[1].period, 7);
	assert_int_equal(o.v[2].pid, 2);
	assert_int_equal(o.v[2].period, 105);
	assert_int_equal(o.v[2].time, OFFCPU_TIMESTAMP + 2);
	assert_int_equal(offcpu_stats(oc)->over_cap, 1);
	assert_int_equal(offcpu_stats(oc)->blocked_ns, 152);
	assert_int_equal(offcpu_stats(oc)->stacks, 3);
	struct outs o3 = { .n = 0 };
	assert_int_equal(offcpu_finish(oc2, collect, &o3), 0);
	assert_int_equal(o3.n, 1);
	assert_int_equal(o3.v[0].misc, PERF_RECORD_MISC_USER);
	assert_int_equal(o3.v[0].ip, 0x403000);
	offcpu_free(oc);
	offcpu_free(oc2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairing_out_of_order),
		cmocka_unit_test(test_user_stacks),
		cmocka_unit_test(test_exit_end_dead),
		cmocka_unit_test(test_threshold_sum_state),
		cmocka_unit_test(test_stack_cap),
		cmocka_unit_test(test_system_wide),
		cmocka_unit_test(test_foreign_records),
		cmocka_unit_test(test_state_letters),
		cmocka_unit_test(test_bpf_sums),
		cmocka_unit_test(test_trim_to_schedule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
