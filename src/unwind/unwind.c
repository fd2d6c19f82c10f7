/* unwind: callchain splitting into kernel and user frames (unwind, L4). */
#include "unwind/unwind.h"

/*
 * A marker perf does not know (a guest's, or a frame-pointer walk that
 * read -1 as a return address) makes perf discard the whole chain
 * ("invalid callchain context"): the sample keeps its ip alone, so
 * every view counts it as perf report does.
 */
static void discard(const struct event *ev, struct unwind_stack *st, unsigned cpumode)
{
	st->n = 0;
	st->truncated = false;
	if (cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_USER)
		unwind_push(st, ev->u.sample.ip, cpumode == PERF_RECORD_MISC_KERNEL);
}

void unwind_sample(const struct event *ev, struct unwind_stack *st)
{
	const struct ev_sample *s = &ev->u.sample;
	unsigned cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	st->n = 0;
	st->truncated = false;
	if (!s->callchain_nr) {
		if (cpumode == PERF_RECORD_MISC_KERNEL)
			unwind_push(st, s->ip, true);
		else if (cpumode == PERF_RECORD_MISC_USER)
			unwind_push(st, s->ip, false);
		return;
	}
	/* Before any marker, entries belong to the sample's own mode. */
	int mode = cpumode == PERF_RECORD_MISC_KERNEL ? 1 : cpumode == PERF_RECORD_MISC_USER ? 0 : -1;
	for (uint64_t i = 0; i < s->callchain_nr; i++) {
		uint64_t ip = ev_u64(s->callchain, (size_t)i);
		if (ev_is_context(ip)) {
			if (ip == PERF_CONTEXT_KERNEL)
				mode = 1;
			else if (ip == PERF_CONTEXT_USER)
				mode = 0;
			else if (ip == PERF_CONTEXT_HV)
				mode = -1; /* the hypervisor's: not ours to resolve */
			else
				return discard(ev, st, cpumode);
			continue;
		}
		if (mode >= 0)
			unwind_push(st, ip, mode == 1);
	}
}
