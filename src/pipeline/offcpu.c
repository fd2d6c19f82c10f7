/*
 * offcpu: sched_switch records → offcpu-time samples (pipeline, L8).
 * See offcpu.h. Pending switches wait in 'pend' (their callchains in
 * 'pool') until a round says they can be paired; each followed thread
 * keeps its open interval (switch-out time, state, stack); closed
 * intervals are summed in 'sums', found by a hash of their key.
 */
#include "pipeline/offcpu.h"

#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/hashmap.h"
#include "base/vec.h"
#include "base/xalloc.h"

enum { P_OUT, P_IN, P_EXIT };

struct pend {
	uint64_t time, seq;
	uint32_t pid, tid;
	uint32_t chain_off, chain_n;
	uint8_t kind;
	char state;
};

struct chain_pool {
	uint64_t *v;
	size_t n, cap;
};

struct othread {
	uint32_t pid, tid;
	bool open;
	char state;
	uint64_t out_time;
	VEC(uint64_t) chain;
};

struct osum {
	uint32_t pid, tid;
	char state;
	uint64_t ns;
	uint64_t *chain;
	uint32_t n;
};

struct offcpu {
	struct offcpu_opts o;
	struct offcpu_stats st;
	struct hashmap ids;     /* the sched_switch event's ids */
	VEC(struct pend) pend;
	struct chain_pool pool; /* the pending switch-outs' callchains */
	uint64_t seq;
	uint64_t max_time, round_limit;
	struct hashmap tids;    /* tid -> index in threads */
	VEC(struct othread) threads;
	struct hashmap sum_index; /* key hash (probed) -> index in sums */
	VEC(struct osum) sums;
};

void offcpu_attr(struct perf_event_attr *a, const struct perf_event_attr *like)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_BPF_OUTPUT;
	a->sample_period = 1;
	a->sample_type = OFFCPU_SAMPLE_TYPE;
	a->sample_id_all = like->sample_id_all;
	a->exclude_guest = like->exclude_guest;
	a->disabled = 1;
}

size_t offcpu_ids(uint64_t *ids, size_t max)
{
	size_t n = 0;
	for (const char *s = OFFCPU_STATES; *s && n < max; s++)
		ids[n++] = OFFCPU_ID_BASE | (uint8_t)*s;
	return n;
}

struct offcpu *offcpu_new(const struct offcpu_opts *o)
{
	struct offcpu *oc = xcalloc(1, sizeof(*oc));
	oc->o = *o;
	if (!oc->o.max_stacks)
		oc->o.max_stacks = OFFCPU_MAX_STACKS;
	if (!oc->o.max_threads)
		oc->o.max_threads = OFFCPU_MAX_THREADS;
	hashmap_init(&oc->ids);
	hashmap_init(&oc->tids);
	hashmap_init(&oc->sum_index);
	return oc;
}

void offcpu_free(struct offcpu *oc)
{
	if (!oc)
		return;
	for (size_t i = 0; i < oc->threads.n; i++)
		VEC_FREE(&oc->threads.v[i].chain);
	for (size_t i = 0; i < oc->sums.n; i++)
		free(oc->sums.v[i].chain);
	VEC_FREE(&oc->threads);
	VEC_FREE(&oc->sums);
	VEC_FREE(&oc->pend);
	VEC_FREE(&oc->pool);
	hashmap_release(&oc->ids);
	hashmap_release(&oc->tids);
	hashmap_release(&oc->sum_index);
	free(oc);
}

void offcpu_add_id(struct offcpu *oc, uint64_t id)
{
	hashmap_put(&oc->ids, id, 1);
}

const struct offcpu_stats *offcpu_stats(const struct offcpu *oc)
{
	return &oc->st;
}

static struct pend *push(struct offcpu *oc, uint8_t kind, uint64_t time, uint32_t pid,
			 uint32_t tid)
{
	struct pend *p = VEC_PUSH_ZERO(&oc->pend);
	p->kind = kind;
	p->time = time;
	p->seq = oc->seq++;
	p->pid = pid;
	p->tid = tid;
	if (time > oc->max_time)
		oc->max_time = time;
	return p;
}

/* A sched_switch sample in OFFCPU_SCHED_SAMPLE_TYPE's layout (after the
 * header): id, ip, pid/tid, time, cpu/res, period, callchain, raw. */
static void take_sample(struct offcpu *oc, const uint8_t *p, const uint8_t *end)
{
	if (end - p < 48 + 8) {
		oc->st.malformed++;
		return;
	}
	uint32_t pid = ne32(p + 16), tid = ne32(p + 20);
	uint64_t time = ne64(p + 24);
	uint64_t nr = ne64(p + 48);
	const uint8_t *chain = p + 56;
	if (nr > OFFCPU_MAX_CHAIN || (uint64_t)(end - chain) < nr * 8 + 4) {
		oc->st.malformed++;
		return;
	}
	const uint8_t *raw = chain + nr * 8 + 4;
	uint32_t raw_size = ne32(chain + nr * 8);
	const struct schedsw_layout *l = &oc->o.lay;
	if (raw_size < l->min_size || (uint64_t)(end - raw) < raw_size) {
		oc->st.malformed++;
		return;
	}
	int32_t prev = (int32_t)ne32(raw + l->prev_pid_off);
	int32_t next = (int32_t)ne32(raw + l->next_pid_off);
	uint64_t state = l->prev_state_size == 8 ? ne64(raw + l->prev_state_off)
						 : ne32(raw + l->prev_state_off);
	if (prev > 0 && (uint32_t)prev == tid) {
		oc->st.switches++;
		struct pend *e = push(oc, P_OUT, time, pid, tid);
		e->state = schedsw_state_letter(l, state);
		e->chain_off = (uint32_t)oc->pool.n;
		if (nr) { /* none: a kernel thread's user stack (no --off-cpu-kernel) */
			VEC_RESERVE(&oc->pool, oc->pool.n + nr);
			memcpy(oc->pool.v + oc->pool.n, chain, nr * 8);
			nr = schedsw_trim(oc->pool.v + oc->pool.n, nr, oc->o.sched_lo,
					  oc->o.sched_hi);
		}
		e->chain_n = (uint32_t)nr;
		oc->pool.n += nr;
	}
	if (oc->o.system_wide && next > 0)
		push(oc, P_IN, time, 0, (uint32_t)next);
}

bool offcpu_take(struct offcpu *oc, const void *rec, size_t len)
{
	const uint8_t *r = rec, *end = r + len;
	struct perf_event_header h;
	if (len < sizeof(h))
		return false;
	memcpy(&h, r, sizeof(h));
	if (h.type == PERF_RECORD_SAMPLE) {
		if (len < 16 || !hashmap_get(&oc->ids, ne64(r + 8), NULL))
			return false;
		take_sample(oc, r + 8, end);
		return true;
	}
	if (h.type == PERF_RECORD_SWITCH) {
		/* Trailer of the sched event: tid/pid, time, cpu/res, identifier. */
		if (len < 8 + 32 || !hashmap_get(&oc->ids, ne64(end - 8), NULL))
			return false;
		if (!(h.misc & PERF_RECORD_MISC_SWITCH_OUT))
			push(oc, P_IN, ne64(end - 24), ne32(end - 32), ne32(end - 28));
		return true;
	}
	if (h.type == PERF_RECORD_THROTTLE && len >= 8 + 16 &&
	    hashmap_get(&oc->ids, ne64(r + 16), NULL)) {
		oc->st.throttled++; /* time, id, stream_id: the kernel dropped switches */
		return false;
	}
	if (h.type == PERF_RECORD_EXIT && len >= 8 + 24) {
		/* pid, ppid, tid, ptid, time */
		push(oc, P_EXIT, ne64(r + 24), ne32(r + 8), ne32(r + 16));
	}
	return false;
}

/* ---- pairing ---- */

static struct othread *thread_of(struct offcpu *oc, uint32_t tid, bool create)
{
	uint64_t i;
	if (hashmap_get(&oc->tids, tid, &i))
		return &oc->threads.v[i];
	if (!create)
		return NULL;
	if (oc->threads.n >= oc->o.max_threads) {
		oc->st.threads_over++;
		return NULL;
	}
	hashmap_put(&oc->tids, tid, oc->threads.n);
	struct othread *t = VEC_PUSH_ZERO(&oc->threads);
	t->tid = tid;
	return t;
}

static uint64_t sum_hash(uint32_t pid, uint32_t tid, char state, const uint64_t *chain, size_t n)
{
	uint64_t h = hash_mix2(((uint64_t)pid << 32) | tid, (uint8_t)state);
	return hash_mix2(h, hash_bytes(chain, n * 8));
}

static bool sum_is(const struct osum *s, uint32_t pid, uint32_t tid, char state,
		   const uint64_t *chain, size_t n)
{
	return s->pid == pid && s->tid == tid && s->state == state && s->n == n &&
	       (!n || !memcmp(s->chain, chain, n * 8));
}

/* The sum for a key, created (if the cap allows) when new; NULL when full. */
static struct osum *sum_of(struct offcpu *oc, uint32_t pid, uint32_t tid, char state,
			   const uint64_t *chain, size_t n, bool capped)
{
	uint64_t h = sum_hash(pid, tid, state, chain, n), i;
	for (;;) {
		if (!hashmap_get(&oc->sum_index, h, &i))
			break;
		if (sum_is(&oc->sums.v[i], pid, tid, state, chain, n))
			return &oc->sums.v[i];
		h = hash_mix2(h, 1);
	}
	if (capped && oc->sums.n >= oc->o.max_stacks)
		return NULL;
	hashmap_put(&oc->sum_index, h, oc->sums.n);
	struct osum *s = VEC_PUSH_ZERO(&oc->sums);
	s->pid = pid;
	s->tid = tid;
	s->state = state;
	s->n = (uint32_t)n;
	if (n) {
		s->chain = xmalloc(n * 8);
		memcpy(s->chain, chain, n * 8);
	}
	return s;
}

/* Add dt to its sum; past the cap, the time stays under the thread and
 * state without a stack. */
static void add_sum(struct offcpu *oc, uint32_t pid, uint32_t tid, char state,
		    const uint64_t *chain, size_t n, uint64_t dt)
{
	struct osum *s = sum_of(oc, pid, tid, state, chain, n, true);
	if (!s) {
		oc->st.over_cap++;
		s = sum_of(oc, pid, tid, state, NULL, 0, false);
	}
	s->ns = s->ns > UINT64_MAX - dt ? UINT64_MAX : s->ns + dt;
	oc->st.blocked_ns = oc->st.blocked_ns > UINT64_MAX - dt ? UINT64_MAX : oc->st.blocked_ns + dt;
}

static void close_interval(struct offcpu *oc, struct othread *t, uint64_t time)
{
	t->open = false;
	uint64_t dt = time > t->out_time ? time - t->out_time : 0;
	oc->st.intervals++;
	if (dt < oc->o.thresh_ns || dt == 0) {
		oc->st.below_thresh++;
		return;
	}
	add_sum(oc, t->pid, t->tid, t->state, t->chain.v, t->chain.n, dt);
}

void offcpu_add(struct offcpu *oc, uint32_t pid, uint32_t tid, char state, const uint64_t *chain,
		size_t n, uint64_t ns)
{
	if (!ns)
		return;
	add_sum(oc, pid, tid, state, chain, n < OFFCPU_MAX_CHAIN ? n : OFFCPU_MAX_CHAIN, ns);
}

static void apply(struct offcpu *oc, const struct pend *e)
{
	struct othread *t = thread_of(oc, e->tid, e->kind == P_OUT);
	if (!t)
		return;
	switch (e->kind) {
	case P_OUT:
		if (t->open)
			oc->st.unpaired++; /* its switch-in was lost */
		t->open = false;
		if (e->state == 'X' || e->state == 'Z')
			return; /* the thread's last switch: it is gone, not blocked */
		t->open = true;
		t->pid = e->pid;
		t->state = e->state;
		t->out_time = e->time;
		t->chain.n = 0;
		if (e->chain_n) {
			VEC_RESERVE(&t->chain, e->chain_n);
			memcpy(t->chain.v, oc->pool.v + e->chain_off, (size_t)e->chain_n * 8);
		}
		t->chain.n = e->chain_n;
		return;
	case P_IN:
		if (t->open)
			close_interval(oc, t, e->time);
		return;
	case P_EXIT:
		if (t->open) {
			oc->st.at_exit++;
			close_interval(oc, t, e->time);
		}
		return;
	}
}

static int pend_cmp(const void *a, const void *b)
{
	const struct pend *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Apply the pending records with time <= limit, in time order; keep the rest. */
static void flush(struct offcpu *oc, uint64_t limit)
{
	if (!oc->pend.n)
		return;
	qsort(oc->pend.v, oc->pend.n, sizeof(*oc->pend.v), pend_cmp);
	size_t i = 0;
	for (; i < oc->pend.n && oc->pend.v[i].time <= limit; i++)
		apply(oc, &oc->pend.v[i]);
	/* Keep the rest, their callchains copied into a new pool (in time
	 * order, which is not the order they arrived in). */
	size_t k = 0;
	struct chain_pool keep = { 0 };
	for (; i < oc->pend.n; i++, k++) {
		struct pend e = oc->pend.v[i];
		if (e.chain_n) {
			VEC_RESERVE(&keep, keep.n + e.chain_n);
			memcpy(keep.v + keep.n, oc->pool.v + e.chain_off, (size_t)e.chain_n * 8);
			e.chain_off = (uint32_t)keep.n;
			keep.n += e.chain_n;
		}
		oc->pend.v[k] = e;
	}
	oc->pend.n = k;
	VEC_FREE(&oc->pool);
	oc->pool = keep;
}

void offcpu_round(struct offcpu *oc)
{
	/* Records of this pass may still be preceded by ones not yet drained
	 * up to the previous pass's last time, not before. */
	flush(oc, oc->round_limit);
	oc->round_limit = oc->max_time;
}

static int sum_cmp(const void *a, const void *b)
{
	const struct osum *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	for (uint32_t i = 0; i < x->n && i < y->n; i++)
		if (x->chain[i] != y->chain[i])
			return x->chain[i] < y->chain[i] ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* One offcpu-time sample in OFFCPU_SAMPLE_TYPE's layout. */
static int write_sum(const struct osum *s, uint64_t time, offcpu_write_fn write, void *arg,
		     uint64_t *buf)
{
	size_t n = 1;
	uint64_t ip = 0;
	uint16_t misc = PERF_RECORD_MISC_USER;
	bool first = true;
	for (uint32_t i = 0; i < s->n; i++) {
		uint64_t a = s->chain[i];
		if (a >= (uint64_t)-4095) {
			if (first && a == PERF_CONTEXT_KERNEL)
				misc = PERF_RECORD_MISC_KERNEL;
			first = false;
			continue;
		}
		ip = a;
		break;
	}
	buf[n++] = OFFCPU_ID_BASE | (uint8_t)s->state;
	buf[n++] = ip;
	buf[n++] = ((uint64_t)s->tid << 32) | s->pid;
	buf[n++] = time;
	buf[n++] = 0; /* cpu, res */
	buf[n++] = s->ns;
	buf[n++] = s->n;
	if (s->n)
		memcpy(buf + n, s->chain, (size_t)s->n * 8);
	n += s->n;
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = misc,
				       .size = (uint16_t)(n * 8) };
	memcpy(buf, &h, sizeof(h));
	return write(arg, buf, n * 8);
}

int offcpu_finish(struct offcpu *oc, offcpu_write_fn write, void *arg)
{
	flush(oc, UINT64_MAX);
	for (size_t i = 0; i < oc->threads.n; i++) {
		struct othread *t = &oc->threads.v[i];
		if (t->open) {
			oc->st.at_end++;
			close_interval(oc, t, oc->max_time);
		}
	}
	if (oc->sums.n)
		qsort(oc->sums.v, oc->sums.n, sizeof(*oc->sums.v), sum_cmp);
	uint64_t *buf = xmalloc((8 + OFFCPU_MAX_CHAIN) * 8);
	int err = 0;
	for (size_t i = 0; i < oc->sums.n && !err; i++) {
		if (!oc->sums.v[i].ns)
			continue;
		err = write_sum(&oc->sums.v[i], OFFCPU_TIMESTAMP + oc->st.stacks, write, arg, buf);
		oc->st.stacks++;
	}
	free(buf);
	return err;
}
