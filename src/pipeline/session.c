/*
 * session: an input opened, set up and run under one set of rules
 * (pipeline, L8). See session.h.
 */
#include "pipeline/session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "aggregate/foldedtext.h"
#include "base/err.h"
#include "base/xalloc.h"
#include "pipeline/readahead.h"
#include "pipeline/session_int.h"

void session_dsos_init(struct dso_set *d, const struct perf_header_info *h,
		       const struct session_files *f, bool kallsyms)
{
	dso_set_init(d);
	d->symfs = f->symfs;
	d->debug_dir = f->debug_dir;
	d->env = f->env;
	dso_set_use_kallsyms(d, kallsyms);
	d->vdso_always = true;
	/* Files by path; [vdso] when an id was recorded for it. */
	for (size_t i = 0; i < h->nbuild_ids; i++)
		if (h->build_ids[i].filename[0] == '/' ||
		    (!strcmp(h->build_ids[i].filename, "[vdso]") && h->build_ids[i].size))
			dso_set_expect_build_id(d, h->build_ids[i].filename, h->build_ids[i].id,
						h->build_ids[i].size);
}

void session_machine_init(struct machine *m, struct strtab *strs, struct dso_set *d)
{
	machine_init(m, strs, d);
	m->keep_maps_on_exec = true; /* perf keeps them: execve's own samples resolve */
}

/* Set up what resolving a perf.data needs (at session_run: a header
 * listing needs none of it, nor its messages). */
static void setup(struct session *s)
{
	const struct session_opts *o = &s->o;
	s->ksyms_usable = session_kallsyms_usable(s->h);
	struct session_files f = { o->symfs, o->debug_dir, o->env };
	/* symbolize() reads kallsyms itself unless perf's table is used. */
	session_dsos_init(&s->dsos, s->h, &f, s->ksyms_usable);
	s->dsos.jit_live = s->live; /* perf maps grow while top reads them */
	session_machine_init(&s->m, s->strs, &s->dsos);
	symbolizer_init(&s->sz, &s->m, s->strs);
	s->sz.no_demangle = o->no_demangle;
	s->sz.src.names_only = o->names_only;
	unwinder_init(&s->uw, &s->m);
	unwinder_set_arch(&s->uw, s->h->arch);
	s->stack = xmalloc(sizeof(*s->stack)); /* 16 KiB: off the C stack */
	s->ready = true;
}

/* Names go to the caller's strtab, or the session's own. */
static void use_strs(struct session *s, const struct session_opts *o)
{
	if (o->strs) {
		s->strs = o->strs;
	} else {
		strtab_init(&s->own_strs);
		s->strs = &s->own_strs;
	}
}

int session_open(struct session *s, const struct session_opts *o)
{
	memset(s, 0, sizeof(*s));
	s->o = *o;
	s->input = o->input;
	s->name = strcmp(o->input, "-") ? o->input : "<stdin>";
	unsigned accept = o->accept ? o->accept : SESSION_ACCEPT_PERFDATA;
	s->in = xcalloc(1, sizeof(*s->in));
	int err = session_input_open(o->input, o->stdin_hint, accept == SESSION_ACCEPT_PERFDATA,
				     (accept & SESSION_ACCEPT_FOLDED) != 0, s->in);
	if (err)
		goto fail;
	if (s->in->perfdata) {
		s->kind = SESSION_PERFDATA;
		err = perf_reader_open(&s->r, o->input, o->reader);
		if (err)
			goto fail;
		s->h = perf_reader_info(s->r);
		s->attrs = perf_reader_attrs(s->r);
		use_strs(s, o);
		return 0;
	}
	s->text = s->in->data;
	s->text_len = s->in->len;
	if (!s->text_len) {
		err = err_set(-ENODATA, "empty file");
		goto fail;
	}
	if ((accept & SESSION_ACCEPT_FOLDED) && foldedtext_detect(s->text, s->text_len))
		s->kind = SESSION_FOLDED;
	else
		s->kind = SESSION_SCRIPT_TEXT;
	if (!(accept & (1u << s->kind))) {
		err = err_set(-EINVAL, "not a perf.data file");
		goto fail;
	}
	return 0;
fail:
	session_close(s);
	return err;
}

/* Read and unwind on a second thread (readahead.h) for a file input (pipe
 * mode adds attrs while reading) of at least READAHEAD_MIN bytes when
 * there is a second CPU: the thread opens the binaries a second time,
 * which small inputs do not repay. KILN_THREADS=1 never, =2 always (for
 * a file). The output is the same either way. */
#define READAHEAD_MIN ((off_t)32 << 20)

static bool use_readahead(const struct session *s)
{
	struct stat st;
	int threads = s->o.env ? s->o.env->threads : 0;
	/* Not for a foreign architecture's file either (nothing to unwind
	 * there, and its one warning is the main thread's to give: the
	 * reader thread is quiet). */
	if (s->h->pipe_mode || threads == 1 || s->uw.foreign_arch)
		return false;
	if (threads == 2)
		return true;
	return sysconf(_SC_NPROCESSORS_ONLN) > 1 && stat(s->input, &st) == 0 &&
	       st.st_size >= READAHEAD_MIN;
}

const struct unwind_stack *session_stack(struct session *s, const struct session_sample *smp)
{
	if (!s->stack_done) { /* with a readahead, its thread unwound it */
		unwinder_sample(&s->uw, smp->ev, s->stack);
		s->stack_done = true;
	}
	return s->stack;
}

/* One record to the machine and the consumer: 0 or the callback's error. */
static int deliver(struct session *s, const struct session_consumer *c, const struct event *ev)
{
	if (ev->type != PERF_RECORD_SAMPLE) {
		if (c->on_kernel_change && machine_record_is_kernel(ev)) {
			int err = c->on_kernel_change(c->ctx, s);
			if (err < 0)
				return err;
		}
		session_kernel_note(s, ev);
		machine_apply(&s->m, ev);
		return c->on_event ? c->on_event(c->ctx, s, ev) : 0;
	}
	uint64_t st = ev->attr ? ev->attr->attr.sample_type : 0;
	struct session_sample smp = {
		.ev = ev,
		.th = machine_thread(&s->m, ev->sid.pid, ev->sid.tid),
		.dwarf = (st & PERF_SAMPLE_REGS_USER) && (st & PERF_SAMPLE_STACK_USER),
	};
	s->stack_done = s->ra != NULL;
	return c->on_sample ? c->on_sample(c->ctx, s, &smp) : 0;
}

int session_run(struct session *s, const struct session_consumer *c)
{
	struct event ev;
	int rc, err = 0;
	if (!s->ready)
		setup(s);
	session_kernel_start(s);
	if (c->unwind_all && use_readahead(s)) {
		struct session_files f = { s->o.symfs, s->o.debug_dir, s->o.env };
		s->ra = readahead_start(s->r, true, &f);
	}
	while ((rc = s->ra ? readahead_next(s->ra, &ev, s->stack) : perf_reader_next(s->r, &ev)) ==
	       1) {
		if ((err = deliver(s, c, &ev)) < 0)
			break;
	}
	readahead_stop(s->ra);
	s->ra = NULL;
	if (err < 0)
		return err;
	s->partial = perf_reader_partial(s->r) || rc < 0;
	if (s->partial)
		err_restore(perf_reader_error(s->r));
	return c->on_end ? c->on_end(c->ctx, s) : 0;
}

int session_open_live(struct session *s, const struct session_opts *o)
{
	memset(s, 0, sizeof(*s));
	s->o = *o;
	s->input = s->name = "live";
	s->kind = SESSION_PERFDATA;
	s->live_h = xcalloc(1, sizeof(*s->live_h));
	struct utsname u;
	if (uname(&u) == 0)
		s->live_h->arch = xstrdup(u.machine);
	/* the events' names are the ones given (as a file's EVENT_DESC) */
	s->live_h->features[PERF_FEAT_EVENT_DESC / 64] |= 1ULL << (PERF_FEAT_EVENT_DESC % 64);
	s->h = s->live_h;
	s->live = true;
	s->live_attrs = xcalloc(1, sizeof(*s->live_attrs));
	ev_attrs_init(s->live_attrs);
	s->attrs = s->live_attrs;
	use_strs(s, o);
	return 0;
}

void session_live_attr(struct session *s, const struct perf_event_attr *a, const char *name,
		       const uint64_t *ids, size_t nids)
{
	size_t i = ev_attrs_add(s->live_attrs, a, (uint32_t)sizeof(*a), ids, nids);
	free(s->live_attrs->v.v[i].name);
	s->live_attrs->v.v[i].name = xstrdup(name);
}

int session_live_ready(struct session *s)
{
	int err = ev_attrs_finish(s->live_attrs);
	if (err)
		return err;
	setup(s);
	session_kernel_start(s);
	return 0;
}

/* Batch order: by time, then as drained (synthesized state has time 0). */
static int cmp_batch(const void *pa, const void *pb)
{
	const struct event *a = pa, *b = pb;
	uint64_t ta = a->sid.has_time ? a->sid.time : 0, tb = b->sid.has_time ? b->sid.time : 0;
	if (ta != tb)
		return ta < tb ? -1 : 1;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

size_t session_retire_dsos(struct session *s)
{
	size_t n = s->dsos.v.n, first = s->dsos.retired.n;
	uint8_t *used = xcalloc(n ? n : 1, 1);
	machine_dsos_used(&s->m, used, n);
	size_t retired = dso_set_retire(&s->dsos, used);
	for (size_t i = first; i < s->dsos.retired.n; i++) {
		unwinder_forget_dso(&s->uw, s->dsos.retired.v[i]);
		srclines_forget_dso(&s->sz.src, s->dsos.retired.v[i]);
	}
	free(used);
	return retired;
}

void session_reuse_dsos(struct session *s)
{
	symbolizer_forget(&s->sz);
	unwinder_forget(&s->uw);
	dso_set_reuse_retired(&s->dsos);
}

int session_feed_batch(struct session *s, const struct session_consumer *c, const void *recs,
		       size_t len)
{
	const uint8_t *p = recs;
	s->batch.n = 0;
	for (size_t off = 0; off + sizeof(struct perf_event_header) <= len;) {
		struct perf_event_header h;
		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || off + h.size > len)
			break;
		struct event *ev = VEC_PUSH_ZERO(&s->batch);
		if (ev_decode(ev, p + off, h.size, off, s->live_attrs)) {
			s->batch.n--;
			s->live_bad++;
		}
		off += h.size;
	}
	if (s->batch.n > 1)
		qsort(s->batch.v, s->batch.n, sizeof(s->batch.v[0]), cmp_batch);
	int err = 0;
	for (size_t i = 0; i < s->batch.n && !err; i++)
		err = deliver(s, c, &s->batch.v[i]);
	s->batch.n = 0;
	return err < 0 ? err : 0;
}

bool session_text_faulted(struct session *s, uint64_t *offset)
{
	return s->in && session_input_faulted(s->in, offset);
}

void session_close(struct session *s)
{
	readahead_stop(s->ra);
	s->ra = NULL;
	session_kernel_release(s);
	if (s->ready) {
		free(s->stack);
		unwinder_release(&s->uw);
		symbolizer_release(&s->sz);
		machine_release(&s->m);
		dso_set_release(&s->dsos);
		s->ready = false;
	}
	if (s->strs == &s->own_strs)
		strtab_release(&s->own_strs);
	s->strs = NULL;
	perf_reader_free(s->r);
	s->r = NULL;
	if (s->in) {
		session_input_close(s->in);
		free(s->in);
		s->in = NULL;
	}
	s->text = NULL;
	s->text_len = 0;
	VEC_FREE(&s->batch);
	if (s->live_attrs) {
		ev_attrs_release(s->live_attrs);
		free(s->live_attrs);
		s->live_attrs = NULL;
	}
	if (s->live_h) {
		perf_header_info_release(s->live_h);
		free(s->live_h);
		s->live_h = NULL;
	}
}

enum session_status session_status_of(int err)
{
	switch (err) {
	case 0:
		return SESSION_OK;
	case -EBADMSG: /* corrupt or truncated header, not a perf.data */
	case -EINVAL:  /* not a kind kiln reads; not a regular file */
	case -EFBIG:   /* larger than kiln reads */
	case -EISDIR:
	case -ENODATA: /* empty, or no samples */
	case -ENOEXEC:
	case -EPROTO:
		return SESSION_UNUSABLE;
	default:
		return SESSION_FAILED;
	}
}
