/*
 * report: perf.data → hists → perf report text (see report.h).
 */
#include "pipeline/report.h"

#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "dso/dso.h"
#include "output/script.h"
#include "aggregate/scripttext.h"
#include "pipeline/script_int.h"
#include "pipeline/session.h"
#include "proc/proc.h"
#include "symbolize/symbolize.h"
#include "unwind/unwind.h"

#define KERNEL_NAME "[kernel.kallsyms]"
#define MAX_STACK 127 /* perf report's default --max-stack */

/* A comma-separated list, as strtab ids (names) or numbers. */
typedef VEC(uint32_t) u32_vec;

struct src_ids {
	uint32_t line, file, cline, cfile;
	bool done;
};

struct report_ctx {
	const struct report_load_opts *o;
	struct report_data *d;
	struct strtab *strs;
	u32_vec comms, dsos, syms, pids, tids;
	bool has_comms, has_dsos, has_syms, has_pids, has_tids;
	uint64_t t_start, t_end;
	u32_vec dso_names; /* dso id -> strtab id + 1 of perf's short name (0: not yet) */
	struct hist_frame *frames; /* a sample's, inline frames included */
	size_t frames_cap;
	/* A user frame's inline frames per symbolizer cache entry (DWARF
	 * samples): worked out once, then copied. */
	VEC(uint64_t) inl_at; /* by entry: (first << 8 | count) + 1, 0 unknown */
	VEC(struct hist_frame) inl;
	/* -s srcline / srcfile: per symbolizer cache entry, both ids + 1 (0: not yet) */
	bool want_src;
	VEC(struct src_ids) src_at;
	struct src_ids src_now; /* an uncached address's */
	/* -s parent: the pattern, and per symbol name id whether it matches */
	bool want_parent;
	regex_t parent_re;
	struct hashmap parent_match; /* name id -> 1 + matches */
};

/* ---- filters ---- */

static void parse_names(struct strtab *strs, const char *list, u32_vec *out)
{
	const char *p = list;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n)
			VEC_PUSH(out, strtab_intern(strs, p, n));
		p += n + (e != NULL);
	}
}

static int parse_numbers(const char *what, const char *list, u32_vec *out)
{
	const char *p = list;
	while (*p) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p || errno || v > INT32_MAX || (*end && *end != ','))
			return err_set(-EINVAL, "--%s: not a list of numbers: '%s'", what, list);
		VEC_PUSH(out, (uint32_t)v);
		p = *end ? end + 1 : end;
	}
	return 0;
}

static bool in_list(const u32_vec *v, uint32_t x)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i] == x)
			return true;
	return false;
}

/* perf's --time: "start,end" in seconds with up to 9 decimals. */
static int parse_secs(const char *s, size_t n, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	size_t i = 0, digits = 0;
	*ns = 0;
	if (!n)
		return 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (sec > UINT64_MAX / 10 / 1000000000u)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++)
			if (digits < 9)
				frac = frac * 10 + (uint64_t)(s[i] - '0');
	}
	if (i != n)
		return -EINVAL;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000u + frac;
	return 0;
}

int report_parse_time(const char *spec, uint64_t *start, uint64_t *end)
{
	const char *comma = strchr(spec, ',');
	size_t n = comma ? (size_t)(comma - spec) : strlen(spec);
	if (parse_secs(spec, n, start) || (comma && parse_secs(comma + 1, strlen(comma + 1), end)))
		return err_set(-EINVAL, "--time: not a time range (start,end in seconds): '%s'",
			       spec);
	if (!comma)
		*end = 0;
	if (*end && *start > *end)
		return err_set(-EINVAL, "--time: the start is after the end: '%s'", spec);
	return 0;
}

static int ctx_init(struct report_ctx *x, const struct report_load_opts *o, struct report_data *d)
{
	memset(x, 0, sizeof(*x));
	x->o = o;
	x->d = d;
	x->strs = d->strs;
	int err = 0;
	if (o->comms)
		parse_names(x->strs, o->comms, &x->comms), x->has_comms = true;
	if (o->dsos)
		parse_names(x->strs, o->dsos, &x->dsos), x->has_dsos = true;
	if (o->syms)
		parse_names(x->strs, o->syms, &x->syms), x->has_syms = true;
	if (!err && o->pids)
		err = parse_numbers("pid", o->pids, &x->pids), x->has_pids = true;
	if (!err && o->tids)
		err = parse_numbers("tid", o->tids, &x->tids), x->has_tids = true;
	if (!err && o->time)
		err = report_parse_time(o->time, &x->t_start, &x->t_end);
	for (size_t i = 0; i < o->hist.nkeys; i++) {
		x->want_src |= o->hist.keys[i] == HIST_SRCLINE || o->hist.keys[i] == HIST_SRCFILE;
		x->want_parent |= o->hist.keys[i] == HIST_PARENT;
	}
	hashmap_init(&x->parent_match);
	if (!err && x->want_parent) {
		const char *re = o->parent ? o->parent : REPORT_PARENT_DEFAULT;
		if (regcomp(&x->parent_re, re, REG_EXTENDED | REG_NOSUB)) {
			x->want_parent = false;
			err = err_set(-EINVAL, "--parent: not a regular expression: '%s'", re);
		}
	}
	x->frames_cap = (size_t)MAX_STACK * (SRCLINE_MAX_INLINE + 1) + 1;
	XALLOC_ARRAY(x->frames, x->frames_cap);
	d->filtered = x->has_comms || x->has_dsos || x->has_syms || x->has_pids || x->has_tids;
	return err;
}

static void ctx_release(struct report_ctx *x)
{
	VEC_FREE(&x->comms);
	VEC_FREE(&x->dsos);
	VEC_FREE(&x->syms);
	VEC_FREE(&x->pids);
	VEC_FREE(&x->tids);
	VEC_FREE(&x->dso_names);
	VEC_FREE(&x->inl_at);
	VEC_FREE(&x->inl);
	VEC_FREE(&x->src_at);
	hashmap_release(&x->parent_match);
	if (x->want_parent)
		regfree(&x->parent_re);
	free(x->frames);
}

/* ---- names ---- */

/* perf's short name of a kernel module (dso_module_name), interned. */
static uint32_t module_name(struct strtab *strs, const char *path)
{
	char buf[512];
	return strtab_intern_str(strs, dso_module_name(path, buf, sizeof(buf)));
}

static uint32_t dso_name(struct report_ctx *x, struct session *s, uint32_t id, uint32_t pid)
{
	while (x->dso_names.n <= id)
		VEC_PUSH(&x->dso_names, 0);
	if (!x->dso_names.v[id]) {
		const struct dso *d = dso_set_get(&s->dsos, id);
		uint32_t name;
		if (!strncmp(d->path, KERNEL_NAME, strlen(KERNEL_NAME))) {
			name = strtab_intern_str(x->strs, KERNEL_NAME);
		} else if (d->kind == DSO_KERNEL) {
			name = module_name(x->strs, d->path);
		} else if (dso_is_anon_code(d)) {
			char buf[64];
			snprintf(buf, sizeof(buf), "perf-%u.map", pid);
			return strtab_intern_str(x->strs, buf); /* per process: not cached */
		} else {
			const char *b = strrchr(d->path, '/');
			name = strtab_intern_str(x->strs, b && b[1] ? b + 1 : d->path);
		}
		x->dso_names.v[id] = name + 1;
	}
	return x->dso_names.v[id] - 1;
}

/*
 * perf's srcline sort key (map__srcline with the symbol) of address
 * 'addr' (dso-relative, or as perf looks up an inclusive entry: the
 * unmapped address, which DWARF of a PIE or library does not know):
 * "file:line" (innermost, basename) from DWARF; "??:0" outside a mapping
 * or when DWARF says so; else "name+offset" (decimal, from 'ip'), or
 * "dso[addr]" without a symbol. *file gets the file part, or "".
 */
static uint32_t srcline_text(struct report_ctx *x, struct session *s, const struct sym *sym,
			     uint32_t dso, uint64_t addr, uint64_t ip, uint32_t *file)
{
	char buf[4200];
	uint32_t text = 0;
	struct sym at = *sym;
	at.addr = addr;
	enum sym_srcline r = symbolize_srcline(&s->sz, &at, &text);
	if (r == SYM_SRCLINE_TEXT)
		snprintf(buf, sizeof(buf), "%s", strtab_get(x->strs, text));
	else if (r == SYM_SRCLINE_QUIET)
		snprintf(buf, sizeof(buf), "??:0");
	else if (sym->name != SYM_NONE)
		snprintf(buf, sizeof(buf), "%s+%" PRIu64, strtab_get(x->strs, sym->name),
			 ip - (sym->addr - sym->symoff));
	else
		snprintf(buf, sizeof(buf), "%s[%" PRIx64 "]", strtab_get(x->strs, dso), addr);
	uint32_t line = strtab_intern_str(x->strs, buf);
	char *colon = strchr(buf, ':');
	if (r != SYM_SRCLINE_TEXT || !colon)
		colon = buf;
	*colon = '\0';
	*file = strtab_intern_str(x->strs, buf);
	return line;
}

/* A frame's srcline and srcfile keys, its own and its inclusive entry's;
 * once per symbolizer cache entry. */
static void srcline_key(struct report_ctx *x, struct session *s, const struct sym *sym,
			uint64_t ip, struct hist_frame *out)
{
	struct src_ids *c = NULL;
	if (sym->entry != SYM_NONE) {
		while (x->src_at.n <= sym->entry)
			(void)VEC_PUSH_ZERO(&x->src_at);
		c = &x->src_at.v[sym->entry];
	}
	if (!c || !c->done) {
		struct src_ids v = { .done = true };
		v.line = srcline_text(x, s, sym, out->dso, sym->addr, sym->addr, &v.file);
		if (sym->kernel || sym->dso == SYM_NONE)
			v.cline = v.line, v.cfile = v.file;
		else
			v.cline = srcline_text(x, s, sym, out->dso, ip, ip, &v.cfile);
		if (!c)
			c = &x->src_now;
		*c = v;
	}
	out->srcline = c->line;
	out->srcfile = c->file;
	out->csrcline = c->cline;
	out->csrcfile = c->cfile;
}

static void resolve_sym(struct report_ctx *x, struct session *s, uint32_t pid,
			const struct unwind_frame *f, struct hist_frame *out, struct sym *symp)
{
	struct sym sym;
	session_symbolize(s, pid, f->ip, f->kernel, &sym);
	*symp = sym;
	out->kernel = f->kernel;
	out->ip = f->ip;
	out->dso = sym.dso == SYM_NONE ? HIST_NONE : dso_name(x, s, sym.dso, pid);
	out->sym = sym.name == SYM_NONE ? HIST_NONE : sym.name;
	/* perf prints an address without a symbol as its map does: the file
	 * offset in a mapped file, else the address */
	out->addr = sym.dso == SYM_NONE ? f->ip : sym.pc;
	out->start = sym.name == SYM_NONE ? f->ip : sym.addr - sym.symoff;
	out->off = sym.symoff;
	if (x->want_src)
		srcline_key(x, s, &sym, f->ip, out);
}

static void resolve(struct report_ctx *x, struct session *s, uint32_t pid,
		    const struct unwind_frame *f, struct hist_frame *out)
{
	struct sym sym;
	resolve_sym(x, s, pid, f, out, &sym);
}

/*
 * A DWARF-unwound user frame as perf's unwinder appends it: its inline
 * frames, innermost first ("name (inlined)" for the inlined ones), when
 * DWARF knows the address, else the frame itself. Returns how many were
 * written to out (at most room).
 */
static size_t resolve_unwound(struct report_ctx *x, struct session *s, uint32_t pid,
			      const struct unwind_frame *f, struct hist_frame *out, size_t room)
{
	struct sym sym;
	resolve_sym(x, s, pid, f, out, &sym);
	if (sym.entry == SYM_NONE || sym.dso == SYM_NONE)
		return 1;
	while (x->inl_at.n <= sym.entry)
		VEC_PUSH(&x->inl_at, 0);
	if (!x->inl_at.v[sym.entry]) {
		struct sym_inline in[SRCLINE_MAX_INLINE];
		size_t k = symbolize_inlines(&s->sz, &sym, in, SRCLINE_MAX_INLINE);
		size_t first = x->inl.n;
		for (size_t i = 0; i < k; i++) {
			struct hist_frame *h = VEC_PUSH_ZERO(&x->inl);
			*h = *out;
			h->sym = in[i].name;
			if (in[i].inlined) {
				char buf[1024];
				snprintf(buf, sizeof(buf), "%s (inlined)", strtab_get(x->strs, in[i].name));
				h->sym = strtab_intern_str(x->strs, buf);
			}
		}
		x->inl_at.v[sym.entry] = (((uint64_t)first << 8) | k) + 1;
	}
	uint64_t v = x->inl_at.v[sym.entry] - 1;
	size_t k = v & 0xff;
	if (!k)
		return 1;
	if (k > room)
		k = room;
	memcpy(out, x->inl.v + (v >> 8), k * sizeof(*out));
	return k;
}

/* ---- the consumer ---- */

static void data_init(struct report_data *d, struct strtab *shared);

/* An event as perf names it (free with free()): the file's name, or one
 * perf derives again when the file recorded none. */
static char *event_name(const struct session *s, const struct ev_attr *a)
{
	char tmp[64], buf[256];
	const struct perf_header_info *h = s->h;
	bool desc = !h->pipe_mode &&
		    ((h->features[PERF_FEAT_EVENT_DESC / 64] >> (PERF_FEAT_EVENT_DESC % 64)) & 1);
	if (desc || strcmp(a->name, ev_default_name(&a->attr, tmp, sizeof(tmp))))
		return xstrdup(a->name);
	return xstrdup(script_event_name(&a->attr, buf, sizeof(buf)));
}

static struct report_event *event_of(struct report_ctx *x, struct session *s,
				     const struct event *ev)
{
	size_t i = (size_t)(ev->attr - s->attrs->v.v);
	while (x->d->ev.n <= i)
		(void)VEC_PUSH_ZERO(&x->d->ev);
	struct report_event *e = &x->d->ev.v[i];
	if (!e->name) {
		const struct report_load_opts *o = x->o;
		e->name = event_name(s, ev->attr);
		struct hist_opts ho = o->hist;
		uint64_t st = ev->attr->attr.sample_type;
		bool cc = (st & PERF_SAMPLE_CALLCHAIN) ||
			  ((st & PERF_SAMPLE_REGS_USER) && (st & PERF_SAMPLE_STACK_USER));
		/* a pipe's callchains are not known when perf sets up: no children */
		if (o->children_auto)
			ho.children = cc && !s->h->pipe_mode;
		ho.callchains = cc && o->want_chains;
		e->callchains = cc;
		if (o->order_auto)
			ho.order = ho.children || s->h->pipe_mode ? HIST_CALLER : HIST_CALLEE;
		hist_init(&e->h, &ho, x->strs);
	}
	return e;
}

static int on_event(void *ctx, struct session *s, const struct event *ev)
{
	struct report_ctx *x = ctx;
	if (ev->type == PERF_RECORD_LOST_SAMPLES)
		x->d->lost += ev->u.lost.lost;
	if (ev->type == PERF_RECORD_READ && ev->attr) {
		struct report_data *d = x->d;
		uint32_t ai = (uint32_t)(ev->attr - s->attrs->v.v), c = 0;
		while (c < d->read_attr.n && d->read_attr.v[c] != ai)
			c++;
		if (c == d->read_attr.n) {
			VEC_PUSH(&d->read_attr, ai);
			VEC_PUSH(&d->read_names, event_name(s, ev->attr));
		}
		VEC_PUSH(&d->reads, ((struct report_thread_value){ ev->u.read.pid, ev->u.read.tid, c,
								   ev->u.read.value }));
	}
	return 0;
}

/* perf's parent: the first frame, in the chain's order, whose symbol
 * matches the pattern (default "^sys_|^do_page_fault"); HIST_NONE for none. */
static uint32_t parent_of(struct report_ctx *x, const struct hist *h, const struct hist_frame *f,
			  size_t n)
{
	for (size_t j = 0; j < n; j++) {
		uint32_t name = f[h->o.order == HIST_CALLER ? n - 1 - j : j].sym;
		if (name == HIST_NONE)
			continue;
		uint64_t m;
		if (!hashmap_get(&x->parent_match, name, &m)) {
			m = 1 + !regexec(&x->parent_re, strtab_get(x->strs, name), 0, NULL, 0);
			hashmap_put(&x->parent_match, name, m);
		}
		if (m == 2)
			return name;
	}
	return HIST_NONE;
}

static bool sample_filtered(struct report_ctx *x, const struct session_sample *smp,
			    const struct hist_frame *leaf)
{
	const struct event *ev = smp->ev;
	if (x->has_comms && !in_list(&x->comms, smp->th->comm))
		return true;
	if (x->has_pids && !in_list(&x->pids, ev->sid.pid))
		return true;
	if (x->has_tids && !in_list(&x->tids, ev->sid.tid))
		return true;
	if (x->has_dsos && (leaf->dso == HIST_NONE || !in_list(&x->dsos, leaf->dso)))
		return true;
	if (x->has_syms && (leaf->sym == HIST_NONE || !in_list(&x->syms, leaf->sym)))
		return true;
	return false;
}

static int on_sample(void *ctx, struct session *s, const struct session_sample *smp)
{
	struct report_ctx *x = ctx;
	const struct event *ev = smp->ev;
	unsigned cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (cpumode == PERF_RECORD_MISC_GUEST_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_USER)
		return 0; /* perf leaves guest samples out unless asked */
	if (ev->sid.has_time && ((x->t_start && ev->sid.time < x->t_start) ||
				 (x->t_end && ev->sid.time > x->t_end)))
		return 0;
	x->d->samples++;
	struct report_event *re = event_of(x, s, ev);
	if (x->want_parent && !re->callchains)
		return err_set(-EINVAL, "--sort parent needs callchains, and the samples of '%s' "
					"have none (record with -g)",
			       re->name);
	re->used = true;
	const struct unwind_stack *st = session_stack(s, smp);
	size_t n = 0;
	uint32_t pid = ev->sid.pid;
	struct hist_frame leaf;
	bool own_leaf = false;
	for (size_t i = 0; i < st->n && i < MAX_STACK; i++) {
		const struct unwind_frame *f = &st->frames[i];
		if (!smp->dwarf || f->kernel) {
			resolve(x, s, pid, f, &x->frames[n++]);
			continue;
		}
		size_t k = resolve_unwound(x, s, pid, f, &x->frames[n], x->frames_cap - n);
		if (i == 0) { /* the entry is the address's symbol, as perf's */
			resolve(x, s, pid, f, &leaf);
			own_leaf = true;
		}
		n += k;
	}
	if (!n) {
		struct unwind_frame f = { ev->u.sample.ip, cpumode == PERF_RECORD_MISC_KERNEL };
		resolve(x, s, pid, &f, &x->frames[n++]);
	}
	const struct ev_attr *a = ev->attr;
	struct hist_sample hs = {
		.comm = smp->th->comm,
		.pid = (int32_t)pid,
		.tid = (int32_t)ev->sid.tid,
		.cpu = (a->attr.sample_type & PERF_SAMPLE_CPU) ? ev->sid.cpu : UINT32_MAX,
		.period = (a->attr.sample_type & PERF_SAMPLE_PERIOD) ? ev->u.sample.period
								      : a->attr.sample_period,
		.frames = x->frames,
		.n = n,
		.leaf = own_leaf ? &leaf : NULL,
	};
	hs.filtered = sample_filtered(x, smp, &x->frames[0]);
	hs.parent = x->want_parent ? parent_of(x, &re->h, x->frames, n) : HIST_NONE;
	hist_add(&re->h, &hs);
	return 0;
}

static int on_end(void *ctx, struct session *s)
{
	struct report_ctx *x = ctx;
	x->d->partial = s->partial;
	for (size_t i = 0; i < x->d->ev.n; i++) {
		if (!x->d->ev.v[i].name)
			continue;
		hist_finish(&x->d->ev.v[i].h);
		if (x->d->ev.v[i].h.chains_cut)
			log_warn("%s: more than %u callchain nodes: the callchains of event '%s' "
				 "leave out later samples (its shares do not)",
				 s->name, (unsigned)HIST_MAX_NODES, x->d->ev.v[i].name);
	}
	return 0;
}

static void session_opts_of(const struct report_load_opts *o, struct strtab *strs,
			    struct session_opts *so)
{
	memset(so, 0, sizeof(*so));
	so->input = o->input;
	so->env = o->env;
	so->accept = SESSION_ACCEPT_PERFDATA | SESSION_ACCEPT_SCRIPT;
	so->stdin_hint = "'kiln report -i -'";
	so->symfs = o->symfs;
	so->debug_dir = o->debug_dir;
	so->no_demangle = o->no_demangle;
	so->prefetch_kallsyms = true;
	so->names_only = true; /* source lines only for -s srcline / srcfile */
	for (size_t i = 0; i < o->hist.nkeys; i++)
		if (o->hist.keys[i] == HIST_SRCLINE || o->hist.keys[i] == HIST_SRCFILE)
			so->names_only = false;
	so->strs = strs;
}

int report_consumer_init(const struct report_load_opts *o, struct report_data *d,
			 struct session_consumer *c)
{
	struct report_ctx *x = xmalloc(sizeof(*x));
	int err = ctx_init(x, o, d);
	*c = (struct session_consumer){ .ctx = x, .on_event = on_event, .on_sample = on_sample,
					.unwind_all = true };
	if (err) {
		report_consumer_free(c);
		return err;
	}
	return 0;
}

void report_consumer_free(struct session_consumer *c)
{
	if (!c->ctx)
		return;
	ctx_release(c->ctx);
	free(c->ctx);
	c->ctx = NULL;
}

void report_consumer_forget(struct session_consumer *c)
{
	struct report_ctx *x = c->ctx;
	VEC_FREE(&x->inl_at);
	VEC_FREE(&x->inl);
	VEC_FREE(&x->src_at);
	VEC_FREE(&x->dso_names);
}

uint32_t report_consumer_dso_name(struct session_consumer *c, struct session *s, uint32_t id,
				  uint32_t pid)
{
	return dso_name(c->ctx, s, id, pid);
}

void report_data_init(struct report_data *d, struct strtab *shared)
{
	data_init(d, shared);
}

static void data_init(struct report_data *d, struct strtab *shared)
{
	memset(d, 0, sizeof(*d));
	strtab_init(&d->own_strs);
	d->strs = shared ? shared : &d->own_strs;
}

/* ---- perf script text ---- */

static uint32_t span_id(struct strtab *strs, struct scripttext_span sp)
{
	return strtab_intern(strs, sp.p, sp.n);
}

static bool span_is(struct scripttext_span sp, const char *s)
{
	return sp.n == strlen(s) && !memcmp(sp.p, s, sp.n);
}

static struct report_event *text_event(struct report_ctx *x, struct scripttext_span name)
{
	struct report_data *d = x->d;
	for (size_t i = 0; i < d->ev.n; i++)
		if (strlen(d->ev.v[i].name) == name.n && !memcmp(d->ev.v[i].name, name.p, name.n))
			return &d->ev.v[i];
	struct report_event *e = VEC_PUSH_ZERO(&d->ev);
	e->name = xstrndup(name.p, name.n);
	struct hist_opts ho = x->o->hist;
	if (x->o->children_auto) /* frame lines: the samples have callchains */
		ho.children = true;
	ho.callchains = x->o->want_chains;
	if (x->o->order_auto)
		ho.order = ho.children ? HIST_CALLER : HIST_CALLEE;
	e->callchains = true;
	hist_init(&e->h, &ho, x->strs);
	return e;
}

/* A frame of the text as perf report names it: the dso's basename, [k]
 * for the kernel's and modules' ("[name]"), no symbol for "[unknown]". */
static void text_frame(struct report_ctx *x, const struct scripttext_frame *f,
		       struct hist_frame *out)
{
	memset(out, 0, sizeof(*out));
	struct scripttext_span dso = f->dso;
	if (span_is(dso, "[unknown]") || !dso.n) {
		out->dso = HIST_NONE;
	} else {
		/* Kernel: a bracketed dso but the vDSO's, or code in the kernel's
		 * half named otherwise (BPF programs: "bpf_prog_TAG_NAME"). */
		out->kernel = dso.p[0] == '[' ? !span_is(dso, "[vdso]") && !span_is(dso, "[vsyscall]")
					      : f->addr >= 0xffff800000000000ull;
		const char *b = memrchr(dso.p, '/', dso.n);
		if (b && (size_t)(b + 1 - dso.p) < dso.n)
			dso = (struct scripttext_span){ b + 1, dso.n - (size_t)(b + 1 - dso.p) };
		out->dso = span_id(x->strs, dso);
	}
	out->sym = span_is(f->sym, "[unknown]") ? HIST_NONE : span_id(x->strs, f->sym);
	out->addr = out->ip = f->addr;
	out->off = f->off;
	out->start = out->sym == HIST_NONE ? f->addr : f->addr - f->off;
}

static int on_text_sample(void *ctx, const struct scripttext_sample *t)
{
	struct report_ctx *x = ctx;
	static const struct scripttext_span no_event = { "(unknown)", 9 };
	struct report_event *re = text_event(x, t->event.n ? t->event : no_event);
	re->used = true;
	x->d->samples++;
	size_t n = t->n < MAX_STACK ? t->n : MAX_STACK;
	for (size_t i = 0; i < n; i++)
		text_frame(x, &t->frames[i], &x->frames[i]);
	if (!n) { /* no frame line: counted, as perf report counts it, where nothing is known */
		memset(&x->frames[0], 0, sizeof(x->frames[0]));
		x->frames[0].dso = x->frames[0].sym = HIST_NONE;
		n = 1;
	}
	uint32_t comm = span_id(x->strs, t->comm);
	int32_t tid = (int32_t)t->tid, pid = t->pid ? (int32_t)t->pid : tid;
	struct hist_sample hs = {
		.comm = comm, .pid = pid, .tid = tid, .cpu = t->cpu, .period = t->period,
		.frames = x->frames, .n = n,
	};
	const struct hist_frame *leaf = &x->frames[0];
	hs.filtered = (x->has_comms && !in_list(&x->comms, comm)) ||
		      (x->has_pids && !in_list(&x->pids, (uint32_t)pid)) ||
		      (x->has_tids && !in_list(&x->tids, (uint32_t)tid)) ||
		      (x->has_dsos && (leaf->dso == HIST_NONE || !in_list(&x->dsos, leaf->dso))) ||
		      (x->has_syms && (leaf->sym == HIST_NONE || !in_list(&x->syms, leaf->sym)));
	hs.parent = x->want_parent ? parent_of(x, &re->h, x->frames, n) : HIST_NONE;
	hist_add(&re->h, &hs);
	return 0;
}

static int load_text(struct session *s, const struct report_load_opts *o, struct report_data *d)
{
	for (size_t i = 0; i < o->hist.nkeys; i++)
		if (o->hist.keys[i] == HIST_SRCLINE || o->hist.keys[i] == HIST_SRCFILE)
			return err_set(-EINVAL, "-s %s: perf script text carries no source lines "
						"(report the perf.data instead)",
				       hist_sort_name(o->hist.keys[i]));
	if (o->time)
		return err_set(-EINVAL, "--time: not for perf script text (report the perf.data "
					"instead)");
	struct report_ctx x;
	int err = ctx_init(&x, o, d);
	struct scripttext_stats st;
	if (!err)
		err = scripttext_samples(s->text, s->text_len, on_text_sample, &x, &st);
	if (!err && st.samples == st.frameless)
		err = err_set(-EINVAL, "no sample with callchain lines in this perf script text "
				       "(perf script of a recording made with -g)");
	if (!err)
		for (size_t i = 0; i < d->ev.n; i++)
			hist_finish(&d->ev.v[i].h);
	ctx_release(&x);
	return err;
}

static int load_session(struct session *s, const struct report_load_opts *o,
			struct report_data *d)
{
	if (s->kind == SESSION_SCRIPT_TEXT)
		return load_text(s, o, d);
	struct report_ctx x;
	int err = ctx_init(&x, o, d);
	if (!err) {
		struct session_consumer c = {
			.ctx = &x,
			.on_event = on_event,
			.on_sample = on_sample,
			.on_end = on_end,
			.unwind_all = true,
		};
		err = session_run(s, &c);
	}
	ctx_release(&x);
	return err;
}

int report_load(const struct report_load_opts *o, struct report_data *d)
{
	data_init(d, o->strs);
	struct session s;
	struct session_opts so;
	session_opts_of(o, d->strs, &so);
	int err = session_open(&s, &so);
	if (err)
		return err;
	err = load_session(&s, o, d);
	session_close(&s);
	return err;
}

void report_data_release(struct report_data *d)
{
	for (size_t i = 0; i < d->ev.n; i++) {
		if (d->ev.v[i].name)
			hist_release(&d->ev.v[i].h);
		free(d->ev.v[i].name);
	}
	VEC_FREE(&d->ev);
	for (size_t i = 0; i < d->read_names.n; i++)
		free(d->read_names.v[i]);
	VEC_FREE(&d->read_names);
	VEC_FREE(&d->read_attr);
	VEC_FREE(&d->reads);
	strtab_release(&d->own_strs);
}

/* ---- report ---- */

static void print_header(FILE *out, struct session *s, const char *input)
{
	struct stat st;
	int rc = strcmp(input, "-") ? stat(input, &st) : fstat(0, &st);
	const char **names;
	size_t n = s->attrs->v.n;
	XALLOC_ARRAY(names, n ? n : 1);
	for (size_t i = 0; i < n; i++)
		names[i] = event_name(s, &s->attrs->v.v[i]);
	struct script_header_events ev = { names, n };
	script_header_print(out, s->h, rc ? 0 : st.st_mtime, &ev);
	for (size_t i = 0; i < n; i++)
		free((char *)names[i]);
	free(names);
}

/*
 * perf leaves out a sort key's column when its filter names one value,
 * and says so: "# comm: burn". In the order of the sort keys.
 */
static void elide_columns(const struct report_run_opts *o, struct report_text_opts *t,
			  struct hist_opts *h, bool print)
{
	for (size_t i = 0; i < h->nkeys; i++) {
		const char *list = NULL, *what = NULL;
		if (h->keys[i] == HIST_COMM)
			list = o->load.comms, what = "comm";
		else if (h->keys[i] == HIST_DSO)
			list = o->load.dsos, what = "dso";
		else if (h->keys[i] == HIST_SYM)
			list = o->load.syms, what = "symbol";
		if (!list || !*list || strchr(list, ','))
			continue;
		t->elide[h->keys[i]] = true;
		h->unsorted[h->keys[i]] = true;
		if (print)
			report_text_elided(o->out, what, list);
	}
}

void report_elide_columns(const struct report_run_opts *o, struct report_text_opts *t,
			  struct hist_opts *h)
{
	elide_columns(o, t, h, false);
}

int report_run(const struct report_run_opts *o, bool *partial)
{
	struct report_text_opts text = o->text;
	struct report_data d;
	data_init(&d, NULL);
	struct session s;
	struct session_opts so;
	session_opts_of(&o->load, d.strs, &so);
	*partial = false;
	int err = session_open(&s, &so);
	if (err) {
		report_data_release(&d);
		return err;
	}
	if ((o->header || o->header_only) && s.kind != SESSION_PERFDATA) {
		session_close(&s);
		report_data_release(&d);
		return err_set(-EINVAL, "--header: perf script text has no perf.data header");
	}
	if (o->header || o->header_only)
		print_header(o->out, &s, o->load.input);
	if (o->header_only) {
		session_close(&s);
		report_data_release(&d);
		return 0;
	}
	struct report_load_opts load = o->load;
	elide_columns(o, &text, &load.hist, false);
	err = load_session(&s, &load, &d);
	session_close(&s);
	if (!err) {
		*partial = d.partial;
		if (!o->header)
			report_text_hint(o->out);
		elide_columns(o, &text, &load.hist, true);
		report_text_lost(o->out, d.lost);
		for (size_t i = 0; i < d.ev.n; i++) {
			const struct report_event *e = &d.ev.v[i];
			if (!e->used)
				continue;
			struct report_section sec = {
				.h = &e->h, .event = e->name
			};
			report_text_section(o->out, &text, &sec);
		}
		if (o->threads)
			report_text_threads(o->out, d.reads.v, d.reads.n,
					    (const char *const *)d.read_names.v, d.read_names.n);
	}
	report_data_release(&d);
	return err;
}

/* The first event with samples, or NULL. */
static const struct report_event *first_event(const struct report_data *d)
{
	for (size_t i = 0; i < d->ev.n; i++)
		if (d->ev.v[i].used)
			return &d->ev.v[i];
	return NULL;
}

int report_diff_run(const struct report_load_opts *base, const char *other,
		    const struct report_diff_opts *o, FILE *out, unsigned *partial,
		    const char **failed)
{
	*partial = 0;
	*failed = base->input;
	struct strtab strs;
	strtab_init(&strs);
	struct report_load_opts la = *base, lb = *base;
	la.strs = lb.strs = &strs;
	lb.input = other;
	struct report_data a, b;
	int err = report_load(&la, &a);
	if (!err) {
		*failed = other;
		err = report_load(&lb, &b);
		if (!err) {
			*partial = (a.partial ? 1u : 0) | (b.partial ? 2u : 0);
			const struct report_event *ea = first_event(&a), *eb = first_event(&b);
			if (ea && eb)
				report_text_diff(out, o, &ea->h, &eb->h, ea->name, eb->name);
			else if (!ea)
				*failed = base->input;
			if (!ea || !eb)
				err = err_set(-EINVAL, "no samples");
		}
		report_data_release(&b);
	}
	report_data_release(&a);
	strtab_release(&strs);
	return err;
}
