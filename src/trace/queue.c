/*
 * queue: one pass's records, copied, then put in time order (trace, L7).
 *
 * The sources read several rings per pass (one per CPU; the BPF ring and
 * the perf rings of callchain.c beside it): each ring is in time order,
 * the rings are not with each other. Records are copied here as they are
 * read, sorted by time (ties in reading order), and handed out.
 */
#include <stdlib.h>
#include <string.h>

#include "trace/trace_int.h"

void queue_reset(struct tr_queue *q)
{
	q->bytes.n = 0;
	q->recs.n = 0;
}

void queue_release(struct tr_queue *q)
{
	VEC_FREE(&q->bytes);
	VEC_FREE(&q->recs);
}

void queue_push(struct tr_queue *q, const void *rec, size_t len, uint64_t time, int kind)
{
	struct tr_qrec r = { .time = time, .off = q->bytes.n, .len = len, .seq = q->recs.n,
			     .kind = kind };
	VEC_RESERVE(&q->bytes, q->bytes.n + len);
	memcpy(q->bytes.v + q->bytes.n, rec, len);
	q->bytes.n += len;
	VEC_PUSH(&q->recs, r);
}

static int cmp_rec(const void *a, const void *b)
{
	const struct tr_qrec *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void queue_sort(struct tr_queue *q)
{
	if (q->recs.n > 1)
		qsort(q->recs.v, q->recs.n, sizeof(*q->recs.v), cmp_rec);
}
