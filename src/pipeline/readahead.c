/*
 * readahead: the reader thread and its ring of record blocks (pipeline,
 * L8). See readahead.h.
 *
 * Blocks are numbered by two counters under one mutex: 'head' blocks were
 * published by the reader, 'tail' were given back by the caller. The
 * reader fills block head % NBLOCKS only while head - tail < NBLOCKS, and
 * the caller reads block tail % NBLOCKS only while tail < head, so no
 * block is ever written and read at once. Each record is stored as a
 * 16-byte header (length, file offset) and its bytes, 8-byte aligned.
 */
#include "pipeline/readahead.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "base/xalloc.h"

#define RA_BLOCK ((size_t)256 << 10)
#define RA_NBLOCKS 4u
#define RA_HDR 16u

struct ra_block {
	uint8_t *data;
	size_t used;
};

struct readahead {
	struct perf_reader *r;
	const struct ev_attrs *attrs;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct ra_block blk[RA_NBLOCKS];
	unsigned head, tail; /* published / given back, counted from 0 */
	bool done, cancel;
	int rc; /* the reader's last result, once done */
	/* the caller's side */
	bool holding; /* the caller reads block tail % RA_NBLOCKS */
	size_t pos;
};

/* Publish the block being filled; wait for room for the next one.
 * Returns false if the caller stopped. */
static bool publish(struct readahead *ra)
{
	pthread_mutex_lock(&ra->mu);
	ra->head++;
	pthread_cond_broadcast(&ra->cv);
	while (ra->head - ra->tail >= RA_NBLOCKS && !ra->cancel)
		pthread_cond_wait(&ra->cv, &ra->mu);
	bool go = !ra->cancel;
	pthread_mutex_unlock(&ra->mu);
	return go;
}

static void *run(void *arg)
{
	struct readahead *ra = arg;
	struct ra_block *b = &ra->blk[0];
	struct event ev;
	int rc;
	bool go = true;

	b->used = 0;
	while ((rc = perf_reader_next(ra->r, &ev)) == 1) {
		size_t len = ev.size, need = RA_HDR + ((len + 7) & ~(size_t)7);
		if (b->used + need > RA_BLOCK) {
			if (!(go = publish(ra)))
				break;
			b = &ra->blk[ra->head % RA_NBLOCKS]; /* head is ours to read */
			b->used = 0;
		}
		uint32_t hdr[4] = { (uint32_t)len, 0, (uint32_t)ev.offset,
				    (uint32_t)(ev.offset >> 32) };
		memcpy(b->data + b->used, hdr, RA_HDR);
		memcpy(b->data + b->used + RA_HDR, ev.bytes, len);
		b->used += need;
	}
	pthread_mutex_lock(&ra->mu);
	if (go && b->used)
		ra->head++;
	ra->done = true;
	ra->rc = go ? rc : 0;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	return NULL;
}

struct readahead *readahead_start(struct perf_reader *r)
{
	struct readahead *ra = xcalloc(1, sizeof(*ra));
	ra->r = r;
	ra->attrs = perf_reader_attrs(r);
	for (unsigned i = 0; i < RA_NBLOCKS; i++)
		ra->blk[i].data = xmalloc(RA_BLOCK);
	pthread_mutex_init(&ra->mu, NULL);
	pthread_cond_init(&ra->cv, NULL);
	if (pthread_create(&ra->th, NULL, run, ra)) {
		pthread_cond_destroy(&ra->cv);
		pthread_mutex_destroy(&ra->mu);
		for (unsigned i = 0; i < RA_NBLOCKS; i++)
			free(ra->blk[i].data);
		free(ra);
		return NULL;
	}
	return ra;
}

int readahead_next(struct readahead *ra, struct event *ev)
{
	for (;;) {
		if (ra->holding) {
			const struct ra_block *b = &ra->blk[ra->tail % RA_NBLOCKS];
			if (ra->pos < b->used) {
				uint32_t hdr[4];
				memcpy(hdr, b->data + ra->pos, RA_HDR);
				const uint8_t *rec = b->data + ra->pos + RA_HDR;
				ra->pos += RA_HDR + ((hdr[0] + 7u) & ~7u);
				uint64_t off = hdr[2] | (uint64_t)hdr[3] << 32;
				/* The reader decoded it once already: this cannot fail. */
				if (ev_decode(ev, rec, hdr[0], off, ra->attrs) == 0)
					return 1;
				continue;
			}
			pthread_mutex_lock(&ra->mu);
			ra->tail++;
			ra->holding = false;
			pthread_cond_broadcast(&ra->cv);
			pthread_mutex_unlock(&ra->mu);
		}
		pthread_mutex_lock(&ra->mu);
		while (ra->tail == ra->head && !ra->done)
			pthread_cond_wait(&ra->cv, &ra->mu);
		if (ra->tail == ra->head) {
			int rc = ra->rc;
			pthread_mutex_unlock(&ra->mu);
			return rc;
		}
		ra->holding = true;
		ra->pos = 0;
		pthread_mutex_unlock(&ra->mu);
	}
}

void readahead_stop(struct readahead *ra)
{
	if (!ra)
		return;
	pthread_mutex_lock(&ra->mu);
	ra->cancel = true;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	pthread_join(ra->th, NULL);
	pthread_cond_destroy(&ra->cv);
	pthread_mutex_destroy(&ra->mu);
	for (unsigned i = 0; i < RA_NBLOCKS; i++)
		free(ra->blk[i].data);
	free(ra);
}
