/*
 * evspec: perf's event names, parsed into perf_event_attr (source/live, L2).
 *
 * Accepts what `perf record -e` accepts for the common cases: hardware
 * names (cycles, instructions, ...), software names (cpu-clock,
 * task-clock, page-faults, ...), raw events (r1a2), tracepoints
 * (sched:sched_switch, via tracefs ids), each with optional modifiers
 * after a colon: u (user only), k (kernel only), h (hypervisor only),
 * p/pp/ppp (precise_ip).
 */
#ifndef KILN_SOURCE_LIVE_EVSPEC_H
#define KILN_SOURCE_LIVE_EVSPEC_H

#include <linux/perf_event.h>

/* Parse one event spec. Fills type/config and exclude bits; the caller
 * sets sampling fields. *name gets a heap copy of the spec as perf would
 * name it. 0, or -EINVAL with err_last() explaining. */
int evspec_parse(const char *spec, struct perf_event_attr *attr, char **name);

/* Apply perf's modifiers ("u", "k", "uk", "pp"...) to attr; 'spec' names
 * the event in the error. 0, or -EINVAL with err_last() explaining. */
int evspec_modifiers(struct perf_event_attr *attr, const char *mods, const char *spec);

#endif
