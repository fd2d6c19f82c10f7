/*
 * touch_event: the fuzz targets' check of one decoded event (fuzz/): every
 * variable part it points at lies inside its record and is read in full,
 * and strings end inside it (see fuzz.h).
 */
#include "event/event.h"
#include "fuzz/fuzz.h"

/* True if [p, p + n) lies inside the event's record. */
static int inside(const struct event *ev, const uint8_t *p, uint64_t n)
{
	if (!n)
		return 1;
	return p && p >= ev->bytes && n <= ev->size && (uint64_t)(p - ev->bytes) <= ev->size - n;
}

/* Read every byte the event points at; check it all lies in the record. */
uint64_t fuzz_touch_event(const struct event *ev)
{
	uint64_t h = 0;
	for (size_t i = 0; i < ev->size; i++)
		h += ev->bytes[i];
	switch (ev->type) {
	case PERF_RECORD_SAMPLE: {
		const struct ev_sample *s = &ev->u.sample;
		fuzz_check(s->callchain_nr <= ev->size / 8);
		fuzz_check(inside(ev, s->callchain, s->callchain_nr * 8));
		for (uint64_t i = 0; i < s->callchain_nr; i++)
			h += ev_u64(s->callchain, i);
		fuzz_check(inside(ev, s->raw, s->raw_size));
		for (uint32_t i = 0; i < s->raw_size; i++)
			h += s->raw[i];
		fuzz_check(s->branch_nr <= ev->size / 24);
		fuzz_check(inside(ev, s->branches, s->branch_nr * 24));
		for (uint64_t i = 0; i < s->branch_nr * 3; i++)
			h += ev_u64(s->branches, i);
		if (s->user_abi && s->user_regs) {
			uint64_t n = (uint64_t)__builtin_popcountll(s->user_regs_mask);
			fuzz_check(inside(ev, s->user_regs, n * 8));
			for (uint64_t i = 0; i < n; i++)
				h += ev_u64(s->user_regs, i);
		}
		fuzz_check(inside(ev, s->stack, s->stack_size));
		fuzz_check(s->stack_dyn_size <= s->stack_size);
		for (uint64_t i = 0; i < s->stack_size; i++)
			h += s->stack[i];
		break;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		const uint8_t *f = (const uint8_t *)ev->u.mmap.filename;
		fuzz_check(f && inside(ev, f, 1));
		fuzz_check(memchr(f, 0, ev->size - (size_t)(f - ev->bytes)) != NULL);
		h += strlen(ev->u.mmap.filename);
		fuzz_check(ev->u.mmap.build_id_size <= 20);
		break;
	}
	case PERF_RECORD_COMM: {
		const uint8_t *c = (const uint8_t *)ev->u.comm.comm;
		fuzz_check(c && inside(ev, c, 1));
		fuzz_check(memchr(c, 0, ev->size - (size_t)(c - ev->bytes)) != NULL);
		h += strlen(ev->u.comm.comm);
		break;
	}
	default:
		break;
	}
	return h;
}
