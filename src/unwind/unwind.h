/*
 * unwind: a sample's stack as a list of addresses, leaf first (unwind, L4).
 *
 * With a kernel callchain (PERF_SAMPLE_CALLCHAIN: frame-pointer stacks,
 * or -g on the kernel side), the entries are split at the PERF_CONTEXT_*
 * markers into kernel and user frames. Without one, the stack is the
 * sample's ip alone, in the mode the record's misc bits say. Guest and
 * hypervisor frames are dropped. (DWARF unwinding of user stack copies
 * extends this stage.)
 */
#ifndef KILN_UNWIND_UNWIND_H
#define KILN_UNWIND_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event/event.h"

#define UNWIND_MAX_FRAMES 1024

struct unwind_frame {
	uint64_t ip;
	bool kernel;
};

struct unwind_stack {
	struct unwind_frame frames[UNWIND_MAX_FRAMES];
	size_t n;
	bool truncated; /* incomplete on the root side: more frames than
			 * UNWIND_MAX_FRAMES, or (DWARF) the stack copy ended
			 * before the outermost frame */
};

/* Append a frame; past UNWIND_MAX_FRAMES the stack is marked truncated. */
static inline void unwind_push(struct unwind_stack *st, uint64_t ip, bool kernel)
{
	if (st->n == UNWIND_MAX_FRAMES) {
		st->truncated = true;
		return;
	}
	st->frames[st->n].ip = ip;
	st->frames[st->n].kernel = kernel;
	st->n++;
}

/* Fill 'st' from the sample in 'ev' (a decoded PERF_RECORD_SAMPLE). As
 * perf, a callchain holding a context marker other than the kernel's,
 * user's or hypervisor's is discarded: the sample's ip alone. */
void unwind_sample(const struct event *ev, struct unwind_stack *st);

#endif
