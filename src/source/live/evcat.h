/*
 * evcat: the machine's event catalogue and perf's -e lists (source/live, L2).
 *
 * Knows every event name perf knows without a PMU's JSON tables: hardware
 * and software names, hardware cache events composed as perf composes them
 * (L1-dcache-load-misses: cache × op × result, PERF_TYPE_HW_CACHE), PMU
 * events from sysfs (/sys/bus/event_source/devices/PMU/{type,format,events}),
 * tracepoints from tracefs (/sys/kernel/tracing/events, or under debugfs).
 *
 * evcat_parse() reads one -e argument as perf stat does: a comma list of
 * events, each one of the names above, a raw rNNNN, pmu/term=v,.../, or
 * sys:event where either part may be a glob (sched:*, syscalls:sys_enter_*),
 * with :u :k :h modifiers, and groups {a,b}[:mods]. evcat_list() gives what
 * `kiln list` prints.
 */
#ifndef KILN_SOURCE_LIVE_EVCAT_H
#define KILN_SOURCE_LIVE_EVCAT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

/* perf's tool events (duration_time, user_time, system_time): not kernel
 * counters but times the tool measures; attr.type is this, attr.config the
 * enum evcat_tool. */
#define EVCAT_TYPE_TOOL 0x7ffffff0u
enum evcat_tool { EVCAT_DURATION_TIME, EVCAT_USER_TIME, EVCAT_SYSTEM_TIME };

struct evcat_event {
	char *name;                  /* as perf prints it */
	struct perf_event_attr attr; /* type, config(s), exclude bits */
	int leader;                  /* index of its group's leader; -1: not in a group */
	const char *filter;          /* a tracepoint filter (--filter; borrowed), or NULL */
};

/*
 * Append the events of one -e argument to *v (*n of them). 0, or -EINVAL
 * with err_last() naming the event that was not understood (*bad, if
 * non-NULL, gets a heap copy of that name, for evcat_closest).
 */
int evcat_parse(const char *arg, struct evcat_event **v, size_t *n, char **bad);
void evcat_events_free(struct evcat_event *v, size_t n);

/* The tracefs events directory, or NULL when neither place is readable. */
const char *evcat_tracefs(void);

enum evcat_kind { EVCAT_HW, EVCAT_SW, EVCAT_TOOL, EVCAT_CACHE, EVCAT_PMU, EVCAT_TRACEPOINT };

struct evcat_entry {
	enum evcat_kind kind;
	char *name;  /* "context-switches", "sched:sched_switch", "msr/tsc/" */
	char *alias; /* "cs", or NULL */
	char *desc;  /* the sysfs description, or NULL */
};

enum evcat_note {
	EVCAT_NO_TRACEFS = 1 << 0, /* tracefs is not mounted or not readable */
};

/*
 * Every event this machine offers, in perf list's order (hardware,
 * software, tool, cache, PMU, tracepoints; names sorted within each). Hardware
 * and cache events are listed when the kernel accepts them (opened for
 * this thread, user space only). *notes gets enum evcat_note bits.
 */
void evcat_list(struct evcat_entry **v, size_t *n, unsigned *notes);
void evcat_list_free(struct evcat_entry *v, size_t n);

/* The known event name closest to 'name' (edit distance), or NULL when
 * none is close. Heap. */
char *evcat_closest(const char *name);

/* Levenshtein distance of a and b (both at most 255 bytes are compared). */
size_t evcat_distance(const char *a, const char *b);

#endif
