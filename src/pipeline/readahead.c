/*
 * readahead: the reader thread and its ring of record blocks (pipeline,
 * L8). See readahead.h.
 *
 * Blocks are numbered by two counters under one mutex: 'head' blocks were
 * published by the reader, 'tail' were given back by the caller. The
 * reader fills block head % NBLOCKS only while head - tail < NBLOCKS, and
 * the caller reads block tail % NBLOCKS only while tail < head, so no
 * block is ever written and read at once. Each record is stored as a
 * 16-byte header (length, frames, file offset) and its bytes, 8-byte
 * aligned; an unwound sample is followed by its frames: a u64 word of
 * flags (bit 0 truncated), the addresses, then one byte per frame (1 for
 * kernel), padded to 8.
 */
#include "pipeline/readahead.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "base/log.h"
#include "base/strtab.h"
#include "base/xalloc.h"
#include "dso/dso.h"
#include "proc/proc.h"
#include "pipeline/session_int.h"
#include "unwind/dwarf.h"

#define RA_BLOCK ((size_t)256 << 10)
#define RA_NBLOCKS 4u
#define RA_HDR 16u

struct ra_block {
	uint8_t *data;
	size_t used;
};

/* The thread's own machine, for unwinding. */
struct ra_machine {
	struct strtab strs;
	struct dso_set dsos;
	struct machine m;
	struct unwinder uw;
	struct unwind_stack *st;
};

struct readahead {
	struct perf_reader *r;
	bool unwind;
	struct session_files files;
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

/* The same dso set and machine as the caller's (session_int.h), without
 * kallsyms: the unwinder never reads kernel symbols. */
static void machine_setup(struct ra_machine *x, struct perf_reader *r,
			  const struct session_files *f)
{
	const struct perf_header_info *h = perf_reader_info(r);
	strtab_init(&x->strs);
	session_dsos_init(&x->dsos, h, f, false);
	x->dsos.no_symbols = true; /* unwinding reads sections and segments only */
	session_machine_init(&x->m, &x->strs, &x->dsos);
	unwinder_init(&x->uw, &x->m);
	unwinder_set_arch(&x->uw, h->arch);
	x->st = xmalloc(sizeof(*x->st));
}

static void machine_teardown(struct ra_machine *x)
{
	free(x->st);
	unwinder_release(&x->uw);
	machine_release(&x->m);
	dso_set_release(&x->dsos);
	strtab_release(&x->strs);
}

/* Bytes the frames of 'st' take after the record. */
static size_t frames_size(const struct unwind_stack *st)
{
	return 8 + st->n * 8 + ((st->n + 7) & ~(size_t)7);
}

static void put_frames(uint8_t *p, const struct unwind_stack *st)
{
	uint64_t flags = st->truncated;
	memcpy(p, &flags, 8);
	p += 8;
	for (size_t i = 0; i < st->n; i++, p += 8)
		memcpy(p, &st->frames[i].ip, 8);
	memset(p, 0, (st->n + 7) & ~(size_t)7);
	for (size_t i = 0; i < st->n; i++)
		p[i] = st->frames[i].kernel;
}

static void get_frames(const uint8_t *p, uint32_t n, struct unwind_stack *st)
{
	uint64_t flags;
	memcpy(&flags, p, 8);
	st->truncated = flags & 1;
	st->n = n;
	const uint8_t *k = p + 8 + (size_t)n * 8;
	for (uint32_t i = 0; i < n; i++) {
		memcpy(&st->frames[i].ip, p + 8 + (size_t)i * 8, 8);
		st->frames[i].kernel = k[i];
	}
}

/*
 * The bytes of an unwound sample that the caller needs: the record
 * without its stack copy (which only the unwinding here reads), so the
 * ring carries a few hundred bytes per sample instead of kilobytes. The
 * user stack field becomes an empty one (size 0, no dynamic size) and
 * the header's size shrinks to match. Returns the new length, written
 * to 'out' (room for 'len' bytes), or 0 to copy the record as it is.
 */
static size_t strip_stack(const struct event *ev, uint8_t *out)
{
	const struct ev_sample *s = &ev->u.sample;
	size_t len = ev->size;
	if (!s->stack || !s->stack_size)
		return 0;
	size_t at = (size_t)(s->stack - ev->bytes); /* the stack bytes */
	if (at < 8 + 8 || s->stack_size > len || at + s->stack_size + 8 > len)
		return 0;
	size_t size_at = at - 8, rest = at + s->stack_size + 8; /* after dyn_size */
	uint64_t zero = 0;
	memcpy(out, ev->bytes, size_at);
	memcpy(out + size_at, &zero, 8);
	memcpy(out + size_at + 8, ev->bytes + rest, len - rest);
	size_t n = size_at + 8 + (len - rest);
	uint16_t n16 = (uint16_t)n;
	memcpy(out + 6, &n16, 2); /* perf_event_header.size */
	return n;
}

static void *run(void *arg)
{
	struct readahead *ra = arg;
	struct ra_block *b = &ra->blk[0];
	struct ra_machine x;
	struct event ev;
	int rc;
	bool go = true;

	if (ra->unwind)
		machine_setup(&x, ra->r, &ra->files);
	b->used = 0;
	while ((rc = perf_reader_next(ra->r, &ev)) == 1) {
		size_t len = ev.size, need = RA_HDR + ((len + 7) & ~(size_t)7);
		bool frames = false;
		if (ra->unwind) {
			log_set_thread_quiet(true);
			if (ev.type == PERF_RECORD_SAMPLE) {
				unwinder_sample(&x.uw, &ev, x.st);
				frames = true;
				need += frames_size(x.st);
			} else {
				machine_apply(&x.m, &ev);
			}
			log_set_thread_quiet(false);
		}
		if (b->used + need > RA_BLOCK) {
			if (!(go = publish(ra)))
				break;
			b = &ra->blk[ra->head % RA_NBLOCKS]; /* head is ours to read */
			b->used = 0;
		}
		uint8_t *p = b->data + b->used;
		size_t stripped = frames ? strip_stack(&ev, p + RA_HDR) : 0;
		if (stripped) { /* shorter: the block space taken shrinks too */
			len = stripped;
			need = RA_HDR + ((len + 7) & ~(size_t)7) + frames_size(x.st);
		} else
			memcpy(p + RA_HDR, ev.bytes, len);
		uint32_t hdr[4] = { (uint32_t)len, frames ? (uint32_t)x.st->n + 1 : 0,
				    (uint32_t)ev.offset, (uint32_t)(ev.offset >> 32) };
		memcpy(p, hdr, RA_HDR);
		if (frames)
			put_frames(p + RA_HDR + ((len + 7) & ~(size_t)7), x.st);
		b->used += need;
	}
	if (ra->unwind)
		machine_teardown(&x);
	pthread_mutex_lock(&ra->mu);
	if (go && b->used)
		ra->head++;
	ra->done = true;
	ra->rc = go ? rc : 0;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	return NULL;
}

struct readahead *readahead_start(struct perf_reader *r, bool unwind,
				   const struct session_files *f)
{
	struct readahead *ra = xcalloc(1, sizeof(*ra));
	ra->r = r;
	ra->unwind = unwind;
	ra->files = *f;
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

int readahead_next(struct readahead *ra, struct event *ev, struct unwind_stack *st)
{
	for (;;) {
		if (ra->holding) {
			const struct ra_block *b = &ra->blk[ra->tail % RA_NBLOCKS];
			if (ra->pos < b->used) {
				uint32_t hdr[4];
				memcpy(hdr, b->data + ra->pos, RA_HDR);
				const uint8_t *rec = b->data + ra->pos + RA_HDR;
				ra->pos += RA_HDR + ((hdr[0] + 7u) & ~7u);
				if (hdr[1]) {
					get_frames(b->data + ra->pos, hdr[1] - 1, st);
					ra->pos += 8 + (size_t)(hdr[1] - 1) * 8 +
						   ((hdr[1] - 1 + 7u) & ~7u);
				}
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
