/*
 * offcpu: off-CPU time from sched_switch records, written as perf's
 * offcpu-time samples (pipeline, L8).
 *
 * `kiln record --off-cpu=sched` opens sched:sched_switch with callchains
 * beside the sampling event. Each switch-out of a followed thread (a
 * sched_switch sample whose prev_pid is the thread: its stack, its
 * prev_state) is paired with the thread's next switch-in (a sched_switch
 * whose next_pid is the thread with -a; a PERF_RECORD_SWITCH of the
 * thread's own event otherwise), with its exit, or with the end of the
 * recording; the time between is the thread's blocked time. Records come
 * from several ring buffers, so they are paired in time order: a drain
 * pass's records wait until the next pass (perf's FINISHED_ROUND rule).
 * Intervals shorter than the threshold are left out; the others are
 * summed by (process, thread, state, stack). These sched records are the
 * method's own and do not go into the file.
 *
 * At the end the sums become samples of an `offcpu-time` event, laid out
 * as perf 6.x's --off-cpu writes them (software event PERF_COUNT_SW_BPF_OUTPUT;
 * IP = the first callchain address, period = nanoseconds blocked, time =
 * OFFCPU_TIMESTAMP + n so they sort after every other record), so perf
 * script and perf report read them. The state letter of a sample (S
 * sleeping, D uninterruptible, R preempted, ...) is its sample id's low
 * byte: the event's ids are OFFCPU_ID_BASE | letter (perf ignores which
 * of an event's ids a sample carries).
 *
 * Bounded: at most OFFCPU_MAX_STACKS distinct sums (past it, an interval
 * is summed under its thread and state with no stack) and
 * OFFCPU_MAX_THREADS threads followed at once (past it, new threads are
 * not followed); both are counted in the stats.
 */
#ifndef KILN_PIPELINE_OFFCPU_H
#define KILN_PIPELINE_OFFCPU_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source/live/schedsw.h"

#define OFFCPU_EVENT "offcpu-time"
/* "offcpu" in the high bytes; the low byte is the state letter. */
#define OFFCPU_ID_BASE 0x6f66666370750000ULL
#define OFFCPU_ID_MASK 0xffffffffffffff00ULL
/* perf's dummy time for its off-CPU samples: after every real record. */
#define OFFCPU_TIMESTAMP (~0ULL << 32)
#define OFFCPU_SAMPLE_TYPE                                                                      \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |           \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
/* The sched_switch event's sample layout that offcpu_take reads. */
#define OFFCPU_SCHED_SAMPLE_TYPE (OFFCPU_SAMPLE_TYPE | PERF_SAMPLE_RAW)
#define OFFCPU_MAX_STACKS 32768u
#define OFFCPU_MAX_THREADS 32768u
#define OFFCPU_MAX_CHAIN 1024u
/* The state letters an offcpu-time event has ids for. */
#define OFFCPU_STATES "SDRITtPX?"

/* The offcpu-time attr (sample_id_all and exclusions as 'like'). */
void offcpu_attr(struct perf_event_attr *a, const struct perf_event_attr *like);
/* Its ids: one per letter of OFFCPU_STATES; returns how many (<= max). */
size_t offcpu_ids(uint64_t *ids, size_t max);
/* The state letter an offcpu-time sample's id carries, or 0. */
static inline char offcpu_id_state(uint64_t id)
{
	return (id & OFFCPU_ID_MASK) == OFFCPU_ID_BASE ? (char)(id & 0xff) : 0;
}

struct offcpu_opts {
	struct schedsw_layout lay;
	uint64_t thresh_ns;     /* intervals shorter than this are left out */
	bool system_wide;       /* switch-ins from sched_switch's next_pid (else SWITCH records) */
	size_t max_stacks;      /* 0: OFFCPU_MAX_STACKS */
	size_t max_threads;     /* 0: OFFCPU_MAX_THREADS */
	uint64_t sched_lo, sched_hi; /* __schedule's text (source/live/ktext.h): kernel
				      * frames before it are dropped; 0s: none */
};

struct offcpu_stats {
	uint64_t switches;       /* switch-outs seen */
	uint64_t intervals;      /* paired (switch-in, exit or end) */
	uint64_t below_thresh;   /* intervals left out by the threshold */
	uint64_t unpaired;       /* a switch-out with no switch-in before the next (lost records) */
	uint64_t at_exit, at_end; /* intervals closed by the thread's exit, by the end */
	uint64_t malformed;      /* records too short for their layout */
	uint64_t throttled;      /* THROTTLE records of the sched_switch event: switches dropped */
	uint64_t stacks;         /* distinct sums written */
	uint64_t over_cap;       /* intervals summed without their stack (OFFCPU_MAX_STACKS) */
	uint64_t threads_over;   /* switch-outs of threads past OFFCPU_MAX_THREADS */
	uint64_t blocked_ns;     /* total time written */
};

struct offcpu;
typedef int (*offcpu_write_fn)(void *arg, const void *rec, size_t len);

struct offcpu *offcpu_new(const struct offcpu_opts *o);
void offcpu_free(struct offcpu *oc);
/* An id of the sched_switch event (one per CPU and thread it was opened for). */
void offcpu_add_id(struct offcpu *oc, uint64_t id);
/*
 * A drained record. True when it is the method's own (a sched_switch
 * sample, a SWITCH record of the sched_switch event): the caller does not
 * write it. EXIT records are noted and left to the caller.
 */
bool offcpu_take(struct offcpu *oc, const void *rec, size_t len);
/* After a drain pass: pair the records that can no longer be preceded. */
void offcpu_round(struct offcpu *oc);
/* A sum made elsewhere (the BPF method): 'ns' added under (pid, tid,
 * state, chain), capped as the pairing's sums are (over_cap). */
void offcpu_add(struct offcpu *oc, uint32_t pid, uint32_t tid, char state, const uint64_t *chain,
		size_t n, uint64_t ns);
/* Pair the rest, close what is open at the last time seen, and hand the
 * offcpu-time samples (sorted by pid, tid, state, stack) to 'write'.
 * 0, or write's first non-zero result. */
int offcpu_finish(struct offcpu *oc, offcpu_write_fn write, void *arg);
const struct offcpu_stats *offcpu_stats(const struct offcpu *oc);

#endif
