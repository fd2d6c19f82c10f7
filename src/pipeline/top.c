/*
 * top: the sampler thread, its queue, and the live session that resolves
 * what it queued (see top.h).
 */
#include "pipeline/top.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/hashmap.h"
#include "base/vec.h"
#include "base/xalloc.h"
#include "pipeline/session.h"
#include "source/live/live.h"
#include "pipeline/symhist.h"
#include "symbolize/symbolize.h"

struct top_count {
	uint64_t samples, period;
};

/* A byte queue of whole records. */
struct rbuf {
	uint8_t *p;
	size_t n, cap;
};

struct top {
	struct top_opts o;
	struct record_tap tap;
	int stop_pipe[2];
	pthread_t th;
	bool started;

	/* shared with the sampler, under mu */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct rbuf in;       /* the sampler appends here */
	bool opened, done;    /* events open; record_run returned */
	int rc;               /* record_run's result */
	struct err_report err; /* its error */
	struct record_result res;
	uint64_t drop;        /* samples dropped: the queue was full */
	uint64_t taken;       /* samples drained from the rings */
	struct perf_event_attr *attrs; /* from the tap's 'opened' */
	char **names;
	uint64_t **ids;
	size_t *nids;
	size_t nattrs;
	unsigned ncpus;

	/* the resolving side (the caller's thread) */
	struct rbuf out;
	struct session s;
	bool session_open;
	struct report_data d;
	struct session_consumer rep;
	struct session_consumer c; /* ours: counts, -K/-U, then rep */
	struct top_stats cur;
	uint64_t lost_total, drop_seen, taken_seen, dropped_entries;
	struct timespec t0;
	struct hist frozen; /* -z: the last period's entries, shown until the next */
	bool frozen_ok;
	struct hist_remap remap; /* the last refresh's moves (decay mode) */
	bool remap_ok;
	/* The first event's samples by symbolizer cache entry (the address they
	 * resolved to), for annotating live: decayed as the entries (-z: the
	 * last period's in 'at_shown'). */
	VEC(struct top_count) at, at_shown;
	/* the CPUs sampled (sorted) and which of them were offline at the last refresh */
	int *cpus;
	size_t ncpu_list;
	uint8_t *cpu_off;
	/* processes that exited: pid -> the refresh it exited in + 1 (0: it came back) */
	struct hashmap exited;
	uint64_t refreshes, reaped, retired_dsos;
};

static void rbuf_add(struct rbuf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 16;
		while (cap < b->n + n)
			cap *= 2;
		b->p = xrealloc(b->p, cap);
		b->cap = cap;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

/* ---- the sampler's side ---- */

static int tap_opened(void *arg, const struct perf_event_attr *attrs, char *const *names,
		      size_t n, const struct live *l)
{
	struct top *t = arg;
	pthread_mutex_lock(&t->mu);
	XALLOC_ARRAY(t->attrs, n);
	XALLOC_ARRAY(t->names, n);
	XALLOC_ARRAY(t->ids, n);
	XALLOC_ARRAY(t->nids, n);
	for (size_t i = 0; i < n; i++) {
		t->attrs[i] = attrs[i];
		t->names[i] = xstrdup(names[i]);
		const uint64_t *ids = live_ids(l, i, &t->nids[i]);
		XALLOC_ARRAY(t->ids[i], t->nids[i] ? t->nids[i] : 1);
		if (t->nids[i])
			memcpy(t->ids[i], ids, t->nids[i] * sizeof(*ids));
	}
	t->nattrs = n;
	t->ncpus = live_ncpus(l);
	t->opened = true;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
	return 0;
}

static int tap_record(void *arg, const void *rec, size_t len)
{
	struct top *t = arg;
	struct perf_event_header h;
	memcpy(&h, rec, sizeof(h));
	pthread_mutex_lock(&t->mu);
	if (h.type == PERF_RECORD_SAMPLE)
		t->taken++;
	size_t max = t->o.queue_max ? t->o.queue_max : TOP_QUEUE_MAX;
	if (h.type == PERF_RECORD_SAMPLE && t->in.n + len > max) {
		t->drop++;
	} else {
		bool was_empty = t->in.n == 0;
		rbuf_add(&t->in, rec, len);
		if (was_empty)
			pthread_cond_signal(&t->cv);
	}
	pthread_mutex_unlock(&t->mu);
	return 0;
}

static void *sampler(void *arg)
{
	struct top *t = arg;
	sigset_t winch;
	sigemptyset(&winch);
	sigaddset(&winch, SIGWINCH); /* the terminal's, for the browser's thread */
	pthread_sigmask(SIG_BLOCK, &winch, NULL);
	struct record_result res;
	int rc = record_run(&t->o.rec, &res);
	pthread_mutex_lock(&t->mu);
	t->rc = rc;
	t->res = res;
	if (rc)
		t->err = *err_last();
	t->done = true;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

/* ---- the resolving side ---- */

static int on_event(void *ctx, struct session *s, const struct event *ev)
{
	struct top *t = ctx;
	uint64_t v;
	if (ev->type == PERF_RECORD_LOST)
		t->cur.lost += ev->u.lost.lost;
	else if (ev->type == PERF_RECORD_EXIT && ev->u.task.pid == ev->u.task.tid)
		hashmap_put(&t->exited, ev->u.task.pid, t->refreshes + 1);
	else if (ev->type == PERF_RECORD_FORK && hashmap_get(&t->exited, ev->u.task.pid, &v))
		hashmap_put(&t->exited, ev->u.task.pid, 0); /* the pid was reused */
	return t->rep.on_event ? t->rep.on_event(t->rep.ctx, s, ev) : 0;
}

static void count_addr(struct top *t, struct session *s, const struct event *ev, bool kernel);

static int on_sample(void *ctx, struct session *s, const struct session_sample *smp)
{
	struct top *t = ctx;
	unsigned mode = smp->ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool kernel = mode == PERF_RECORD_MISC_KERNEL;
	t->cur.samples++;
	if (kernel)
		t->cur.kernel++;
	if (smp->ev->misc & PERF_RECORD_MISC_EXACT_IP)
		t->cur.exact++;
	if ((kernel && t->o.hide_kernel) || (!kernel && t->o.hide_user))
		return 0;
	if (smp->ev->attr == s->attrs->v.v) /* the first event's: count its address */
		count_addr(t, s, smp->ev, kernel);
	return t->rep.on_sample(t->rep.ctx, s, smp);
}

static void count_addr(struct top *t, struct session *s, const struct event *ev, bool kernel)
{
	struct sym sym;
	session_symbolize(s, ev->sid.pid, ev->u.sample.ip, kernel, &sym);
	if (sym.entry == SYM_NONE || sym.name == SYM_NONE)
		return;
	while (t->at.n <= sym.entry)
		(void)VEC_PUSH_ZERO(&t->at);
	const struct perf_event_attr *a = &ev->attr->attr;
	t->at.v[sym.entry].samples++;
	t->at.v[sym.entry].period += (a->sample_type & PERF_SAMPLE_PERIOD) ? ev->u.sample.period
									 : a->sample_period;
}

/* The online CPUs, from sysfs: 0, or -errno. */
static int online_cpus(int **cpus, size_t *n)
{
	char list[4096];
	*cpus = NULL;
	*n = 0;
	int err = live_read_small("/sys/devices/system/cpu/online", list, sizeof(list));
	return err ? err : live_parse_cpus(list, cpus, n);
}

/* Append CPU 'cpu' to the list 'out' ("1,3"), cut with "..." when full. */
static void cpulist_add(char *out, int cpu)
{
	size_t len = strlen(out);
	if (len && !strcmp(out + len - 3, "..."))
		return;
	char one[16];
	snprintf(one, sizeof(one), "%s%d", len ? "," : "", cpu);
	if (len + strlen(one) + 4 > TOP_CPULIST_MAX)
		snprintf(out + len, TOP_CPULIST_MAX - len, ",...");
	else
		memcpy(out + len, one, strlen(one) + 1);
}

/* The sampled CPUs that went offline or came back since the last refresh. */
static void check_cpus(struct top *t, struct top_stats *st)
{
	int *on;
	size_t non;
	if (!t->ncpu_list || online_cpus(&on, &non))
		return;
	for (size_t i = 0; i < t->ncpu_list; i++) {
		bool off = true;
		for (size_t j = 0; j < non && off; j++)
			off = on[j] != t->cpus[i];
		if (off && !t->cpu_off[i])
			cpulist_add(st->went_offline, t->cpus[i]);
		else if (!off && t->cpu_off[i])
			cpulist_add(st->came_back, t->cpus[i]);
		t->cpu_off[i] = off;
		if (off)
			cpulist_add(st->offline, t->cpus[i]);
	}
	free(on);
}

static void now(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
}

/* The live session, once the events are known. */
static int open_session(struct top *t)
{
	struct session_opts so = { .input = "live", .env = t->o.load.env,
				   .symfs = t->o.load.symfs, .debug_dir = t->o.load.debug_dir,
				   .no_demangle = t->o.load.no_demangle, .names_only = true };
	report_data_init(&t->d, NULL);
	so.strs = t->d.strs;
	session_open_live(&t->s, &so);
	t->session_open = true;
	for (size_t i = 0; i < t->nattrs; i++)
		session_live_attr(&t->s, &t->attrs[i], t->names[i], t->ids[i], t->nids[i]);
	int err = session_live_ready(&t->s);
	if (!err)
		err = report_consumer_init(&t->o.load, &t->d, &t->rep);
	t->c = (struct session_consumer){ .ctx = t, .on_event = on_event, .on_sample = on_sample };
	return err;
}

int top_start(struct top **out, const struct top_opts *o, struct record_result *res)
{
	struct top *t = xcalloc(1, sizeof(*t));
	*out = t;
	memset(res, 0, sizeof(*res));
	t->o = *o;
	pthread_mutex_init(&t->mu, NULL);
	hashmap_init(&t->exited);
	pthread_cond_init(&t->cv, NULL);
	if (pipe2(t->stop_pipe, O_CLOEXEC) < 0)
		return err_set(-errno, "pipe: %s", strerror(errno));
	t->tap = (struct record_tap){ .arg = t, .opened = tap_opened, .record = tap_record,
				      .stop_fd = t->stop_pipe[0] };
	t->o.rec.tap = &t->tap;
	/* The sampler's signalfd takes the stop signals: no thread may get them. */
	sigset_t stops;
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	sigaddset(&stops, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &stops, NULL);
	int err = pthread_create(&t->th, NULL, sampler, t);
	if (err)
		return err_set(-err, "cannot start the sampling thread: %s", strerror(err));
	t->started = true;
	pthread_mutex_lock(&t->mu);
	while (!t->opened && !t->done)
		pthread_cond_wait(&t->cv, &t->mu);
	bool opened = t->opened;
	pthread_mutex_unlock(&t->mu);
	if (!opened) {
		pthread_join(t->th, NULL);
		t->started = false;
		*res = t->res;
		err_restore(&t->err);
		return t->rc ? t->rc : -ECANCELED;
	}
	now(&t->t0);
	if (o->rec.cpus) {
		t->ncpu_list = o->rec.ncpus;
		XALLOC_ARRAY(t->cpus, t->ncpu_list ? t->ncpu_list : 1);
		memcpy(t->cpus, o->rec.cpus, t->ncpu_list * sizeof(*t->cpus));
	} else if (o->rec.system_wide || !o->rec.ntids) {
		online_cpus(&t->cpus, &t->ncpu_list); /* none known when it fails */
	}
	t->cpu_off = xcalloc(t->ncpu_list ? t->ncpu_list : 1, 1);
	err = open_session(t);
	if (err) {
		struct err_report e = *err_last();
		top_stop(t, res);
		err_restore(&e);
		return err;
	}
	return 0;
}

bool top_poll(struct top *t, int timeout_ms)
{
	pthread_mutex_lock(&t->mu);
	if (!t->in.n && !t->done && timeout_ms > 0) {
		struct timespec dl;
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += timeout_ms / 1000;
		dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
		if (dl.tv_nsec >= 1000000000L) {
			dl.tv_sec++;
			dl.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&t->cv, &t->mu, &dl);
	}
	struct rbuf tmp = t->in; /* take the queue; the sampler gets our empty buffer */
	t->out.n = 0;
	t->in = t->out;
	t->out = tmp;
	bool done = t->done && !t->in.n;
	uint64_t drop = t->drop, taken = t->taken;
	pthread_mutex_unlock(&t->mu);
	t->cur.taken += taken - t->taken_seen;
	t->taken_seen = taken;
	t->cur.drop += drop - t->drop_seen;
	t->drop_seen = drop;
	session_feed_batch(&t->s, &t->c, t->out.p, t->out.n);
	t->out.n = 0;
	/* A buffer grown by a burst goes back to a modest size. */
	if (t->out.cap > ((size_t)4 << 20)) {
		free(t->out.p);
		t->out = (struct rbuf){ 0 };
	}
	return done;
}

/* The hist samples go to: the first event's (the one perf top shows). */
static struct hist *live_hist(const struct top *t)
{
	for (size_t i = 0; i < t->d.ev.n; i++)
		if (t->d.ev.v[i].name)
			return (struct hist *)&t->d.ev.v[i].h;
	return NULL;
}

/* Forget the processes that exited TOP_REAP_AFTER refreshes ago: their
 * samples were resolved long since (the queue is drained every tick). */
static void reap(struct top *t)
{
	VEC(uint32_t) gone = { 0 };
	struct hashmap keep;
	hashmap_init(&keep);
	size_t pos = 0;
	uint64_t pid, v;
	while (hashmap_next(&t->exited, &pos, &pid, &v)) {
		if (!v)
			continue;
		if (t->refreshes + 1 - v >= TOP_REAP_AFTER)
			VEC_PUSH(&gone, (uint32_t)pid);
		else
			hashmap_put(&keep, pid, v);
	}
	hashmap_release(&t->exited);
	t->exited = keep;
	if (gone.n)
		machine_forget(&t->s.m, gone.v, gone.n);
	t->reaped += gone.n;
	VEC_FREE(&gone);
}

void top_refresh(struct top *t, struct top_stats *st)
{
	t->refreshes++;
	reap(t);
	/* The binaries no process known maps any longer: their symbols go. */
	t->retired_dsos += session_retire_dsos(&t->s);
	if (t->s.sz.entries.n > TOP_SYMCACHE_MAX || dso_set_nretired(&t->s.dsos) > TOP_RETIRED_MAX) {
		/* every address ever sampled, or many binaries gone: start over */
		session_reuse_dsos(&t->s);
		report_consumer_forget(&t->rep);
		VEC_FREE(&t->at); /* by cache entry */
		VEC_FREE(&t->at_shown);
	}
	struct timespec t1;
	now(&t1);
	t->cur.secs = (double)(t1.tv_sec - t->t0.tv_sec) + (double)(t1.tv_nsec - t->t0.tv_nsec) / 1e9;
	t->t0 = t1;
	t->lost_total += t->cur.lost;
	t->cur.lost_total = t->lost_total;
	t->cur.drop_total = t->drop_seen;
	struct hist *h = live_hist(t);
	for (size_t i = 0; i < t->d.ev.n; i++) {
		struct hist *e = &t->d.ev.v[i].h;
		if (t->d.ev.v[i].name && e != h) { /* only the first event is shown */
			hist_decay(e, 0, 1);
			hist_drop_decayed(e, NULL);
		}
	}
	if (h && t->o.zero) {
		/* -z: the period's samples alone, shown as they were at its end */
		if (t->frozen_ok)
			hist_release(&t->frozen);
		t->frozen = *h;
		t->frozen_ok = true;
		hist_init(h, &t->frozen.o, t->frozen.strs);
		hist_finish(&t->frozen);
		VEC_FREE(&t->at_shown);
		t->at_shown = t->at;
		memset(&t->at, 0, sizeof(t->at));
	} else if (h) {
		/*
		 * perf top decays what it showed by 7/8 and adds the period's
		 * samples; decaying both scales every entry alike, so the shares
		 * are the same. Entries that decayed to nothing are dropped.
		 */
		hist_decay(h, TOP_DECAY_NUM, TOP_DECAY_DEN);
		for (size_t i = 0; i < t->at.n; i++) {
			struct top_count *c = &t->at.v[i];
			c->samples = (uint64_t)((unsigned __int128)c->samples * TOP_DECAY_NUM / TOP_DECAY_DEN);
			c->period = (uint64_t)((unsigned __int128)c->period * TOP_DECAY_NUM / TOP_DECAY_DEN);
		}
		if (t->remap_ok)
			hist_remap_release(&t->remap);
		t->dropped_entries += hist_drop_decayed(h, &t->remap);
		t->remap_ok = true;
	}
	const struct hist *sh = top_hist(t);
	if (sh) {
		t->cur.entries = sh->entries.n;
		t->cur.nodes = sh->nodes.n;
	}
	t->cur.dropped_entries = t->dropped_entries;
	t->cur.reaped = t->reaped;
	t->cur.threads = t->s.m.threads.n;
	t->cur.retired_dsos = t->retired_dsos;
	check_cpus(t, &t->cur);
	*st = t->cur;
	memset(&t->cur, 0, sizeof(t->cur));
#ifdef __GLIBC__
	/* The hists rebuilt, the symbols dropped: give the freed pages back. */
	malloc_trim(0);
#endif
}

const struct hist *top_hist(const struct top *t)
{
	if (t->o.zero)
		return t->frozen_ok ? &t->frozen : NULL;
	return live_hist(t);
}

struct session *top_session(struct top *t)
{
	return &t->s;
}

int top_symhist(struct top *t, uint32_t dso, uint32_t sym, struct symhist *out)
{
	const struct hist *h = top_hist(t);
	const struct symbolizer *sz = &t->s.sz;
	const struct top_count *at = t->o.zero ? t->at_shown.v : t->at.v;
	size_t n = t->o.zero ? t->at_shown.n : t->at.n;
	if (n > sz->entries.n)
		n = sz->entries.n;
	/* the binary of that name with the most of the symbol's period */
	uint32_t best = SYM_NONE;
	uint64_t best_period = 0;
	struct hashmap per_dso;
	hashmap_init(&per_dso);
	for (size_t i = 0; i < n; i++) {
		const struct sym *e = &sz->entries.v[i];
		if (!at[i].samples || e->name != sym || e->dso == SYM_NONE ||
		    (dso != UINT32_MAX && report_consumer_dso_name(&t->rep, &t->s, e->dso, 0) != dso))
			continue;
		uint64_t *p = hashmap_slot(&per_dso, e->dso, 0, NULL);
		*p += at[i].period;
		if (best == SYM_NONE || *p > best_period) {
			best = e->dso;
			best_period = *p;
		}
	}
	hashmap_release(&per_dso);
	if (best == SYM_NONE || !h)
		return err_set(-ENOENT, "no samples on its addresses now");
	struct symhist_event *ev = VEC_PUSH_ZERO(&out->events);
	snprintf(ev->name, sizeof(ev->name), "%s", top_event(t));
	ev->period = h->total;
	struct symhist_group g = { .dso = best, .name = sym, .raw = SYM_NONE, .first = 0 };
	for (size_t i = 0; i < n; i++) {
		const struct sym *e = &sz->entries.v[i];
		if (!at[i].samples || e->name != sym || e->dso != best)
			continue;
		if (!g.samples) {
			g.kernel = e->kernel;
			g.raw = e->raw;
			g.start = e->addr - e->symoff;
		}
		struct annotate_sample *a = VEC_PUSH_ZERO(&out->samples);
		a->addr = e->addr;
		a->samples = at[i].samples;
		a->period = at[i].period;
		g.samples += at[i].samples;
		g.period += at[i].period;
	}
	const struct elf_image *img =
		g.kernel ? NULL : dso_symbols(&t->s.dsos, dso_set_get(&t->s.dsos, best));
	uint64_t start, end;
	if (img && elf_image_lookup_range(img, g.start, &start, &end) && start == g.start)
		g.end = end;
	g.n = out->samples.n;
	g.rank = g.period;
	ev->samples = g.samples;
	VEC_PUSH(&out->groups, g);
	out->nsamples = g.samples;
	return 0;
}

const struct hist_remap *top_remap(const struct top *t)
{
	return t->remap_ok && !t->o.zero ? &t->remap : NULL;
}

const char *top_event(const struct top *t)
{
	return t->nattrs ? t->names[0] : "";
}

unsigned top_freq(const struct top *t)
{
	return t->nattrs && t->attrs[0].freq ? (unsigned)t->attrs[0].sample_freq : 0;
}

unsigned top_ncpus(const struct top *t)
{
	return t->ncpus;
}

struct strtab *top_strs(struct top *t)
{
	return t->d.strs;
}

int top_stop(struct top *t, struct record_result *res)
{
	if (!t->started) {
		*res = t->res;
		return t->rc;
	}
	char c = 'q';
	if (write(t->stop_pipe[1], &c, 1) < 0) {
		/* the pipe is ours and empty: cannot fail */
	}
	pthread_join(t->th, NULL);
	t->started = false;
	*res = t->res;
	if (t->rc)
		err_restore(&t->err);
	return t->rc;
}

void top_free(struct top *t)
{
	if (!t)
		return;
	if (t->started) {
		struct record_result r;
		top_stop(t, &r);
	}
	if (t->frozen_ok)
		hist_release(&t->frozen);
	if (t->remap_ok)
		hist_remap_release(&t->remap);
	if (t->session_open) {
		report_consumer_free(&t->rep);
		session_close(&t->s);
		report_data_release(&t->d);
	}
	for (size_t i = 0; i < t->nattrs; i++) {
		free(t->names[i]);
		free(t->ids[i]);
	}
	free(t->attrs);
	free(t->names);
	free(t->ids);
	free(t->nids);
	free(t->in.p);
	free(t->out.p);
	if (t->stop_pipe[0] > 0) {
		close(t->stop_pipe[0]);
		close(t->stop_pipe[1]);
	}
	hashmap_release(&t->exited);
	VEC_FREE(&t->at);
	VEC_FREE(&t->at_shown);
	free(t->cpus);
	free(t->cpu_off);
	pthread_mutex_destroy(&t->mu);
	pthread_cond_destroy(&t->cv);
	free(t);
}
