/*
 * stats: per thread, per call counts and times (trace, L7).
 *
 * Kept as calls return; printed by core.c as perf trace -s and strace -c
 * print them.
 */
#include <string.h>

#include "trace/trace_int.h"

void stats_init(struct tr_stats *s)
{
	memset(s, 0, sizeof(*s));
	hashmap_init(&s->map);
}

void stats_release(struct tr_stats *s)
{
	hashmap_release(&s->map);
	VEC_FREE(&s->v);
}

void stats_add(struct tr_stats *s, uint32_t tid, int64_t nr, bool error, double ms)
{
	uint64_t k = (uint64_t)tid << 20 | ((uint64_t)nr & 0xfffff);
	bool ins;
	uint64_t *slot = hashmap_slot(&s->map, k, 0, &ins);
	if (ins) {
		*slot = s->v.n + 1;
		struct tr_stat st = { .tid = tid, .nr = nr, .min = ms, .max = ms };
		VEC_PUSH(&s->v, st);
	}
	struct tr_stat *st = &s->v.v[*slot - 1];
	st->calls++;
	st->errors += error;
	st->total += ms;
	st->sumsq += ms * ms;
	if (ms < st->min)
		st->min = ms;
	if (ms > st->max)
		st->max = ms;
}
