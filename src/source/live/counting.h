/*
 * counting: events counted in the kernel, read when asked (source/live, L2).
 *
 * What `kiln stat` measures with: one perf_event_open fd per (event, CPU,
 * thread) cell, no ring buffers. Each event reads its count with
 * PERF_FORMAT_TOTAL_TIME_ENABLED|RUNNING so a multiplexed count can be
 * scaled; a group's leader reads its members with PERF_FORMAT_GROUP (one
 * read per cell), falling back to a read per member where the kernel
 * refuses the group format. Targets: threads (pid = tid, cpu = -1; with
 * inherit their children are counted too, and enable_on_exec starts the
 * count at a workload's exec) or CPUs (pid = -1).
 *
 * An event the kernel does not offer (ENOENT, EOPNOTSUPP, ENODEV, EINVAL
 * for a hardware event on a machine without a PMU) is left unopened and
 * reported unsupported, as perf prints <not supported>; a refusal
 * (EACCES, EPERM) fails the open.
 */
#ifndef KILN_SOURCE_LIVE_COUNTING_H
#define KILN_SOURCE_LIVE_COUNTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "source/live/evcat.h"

struct counting;

struct counting_target {
	const pid_t *tids; /* threads, one fd each (cpu -1) ... */
	size_t ntids;
	const int *cpus;   /* ... or these CPUs, every task (pid -1) */
	size_t ncpus;
	bool inherit;        /* count children too */
	bool enable_on_exec; /* start counting when the (held) thread execs */
};

struct counting_value {
	uint64_t val, ena, run; /* raw count, time enabled, time running (ns) */
};

/*
 * Open every event on every cell. 0, or -errno with err_last() naming the
 * event and the cause; *failed (if non-NULL) gets the refused event's index.
 */
int counting_open(struct counting **out, const struct evcat_event *evs, size_t nev,
		  const struct counting_target *t, size_t *failed);
void counting_close(struct counting *c);
/* Start and stop every counter (those opened with enable_on_exec start by themselves). */
int counting_enable(struct counting *c);
int counting_disable(struct counting *c);
/* Read every cell now (cumulative values). 0 or -errno. */
int counting_read(struct counting *c);
/* The last read of (event, cell): cells are CPUs (CPU targets) or threads. */
const struct counting_value *counting_cell(const struct counting *c, size_t ev, size_t cell);
size_t counting_ncells(const struct counting *c);
/* Whether the kernel opened the event on at least one cell; else the errno. */
bool counting_supported(const struct counting *c, size_t ev);
int counting_errno(const struct counting *c, size_t ev);
/* Whether the kernel refused to count the event in the kernel, so it was
 * opened for user space only (perf's fallback; perf names it NAME:u). */
bool counting_user_only(const struct counting *c, size_t ev);

/* perf's scaling: the count over the whole enabled time; *counted false
 * when the event never ran (perf's <not counted>). */
double counting_scale(const struct counting_value *v, bool *counted);

#endif
