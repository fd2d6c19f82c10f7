/*
 * core: calls paired per thread, printed as perf trace prints them, and
 * the summaries (trace, L7).
 *
 * An entry is formatted when it arrives (fds and strings as they were
 * then) and printed with its result at the exit: "  1.311 ( 0.020 ms):
 * cat/6439 openat(...) = -1 ENOENT (No such file or directory)". When
 * another thread's event comes between a call's entry and its exit, the
 * entry is printed first, ending in " ...", and the exit later as
 * " ... [continued]: name()) = result", as perf does. With --failure or
 * --duration only whole lines are printed, at the exit. Calls that never
 * return (exit, exit_group) print at entry with "= ?". With --call-graph,
 * the stack an exit brought is printed under its line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_int.h"

#define ALIGN 70 /* perf trace's args_alignment */

int core_init(struct tr_core *c, const struct trace_opts *o, struct trace_result *res,
	      struct tr_systab *tab)
{
	memset(c, 0, sizeof(*c));
	c->o = o;
	c->res = res;
	c->tab = tab;
	fdcache_init(&c->fds);
	stats_init(&c->stats);
	hashmap_init(&c->threads);
	buf_init(&c->line, 1 << 20);
	/* -c alone prints its table only, as strace -c. */
	c->lines = o->summary == TRACE_LINES_SUMMARY ||
		   (o->summary == TRACE_LINES && !o->strace_table);
	c->stream = !o->failure && o->duration_ms <= 0;
	return filter_init(&c->filter, o); /* core_release() after a failure too */
}

void core_release(struct tr_core *c)
{
	for (size_t i = 0; i < c->th.n; i++) {
		buf_release(&c->th.v[i].entry);
		buf_release(&c->th.v[i].argv);
	}
	VEC_FREE(&c->th);
	hashmap_release(&c->threads);
	stats_release(&c->stats);
	fdcache_release(&c->fds);
	filter_release(&c->filter);
	buf_release(&c->line);
}

static void read_comm(uint32_t pid, uint32_t tid, char *comm)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	FILE *f = fopen(path, "re");
	comm[0] = '\0';
	if (f) {
		if (fgets(comm, TR_COMM, f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	if (!comm[0])
		snprintf(comm, TR_COMM, ":%u", tid);
}

static struct tr_thread *thread_get(struct tr_core *c, uint32_t pid, uint32_t tid, const char *comm)
{
	bool ins;
	uint64_t *slot = hashmap_slot(&c->threads, tid, 0, &ins);
	if (ins) {
		*slot = c->th.n + 1;
		struct tr_thread t = { .tid = tid, .pid = pid };
		if (comm)
			memcpy(t.comm, comm, strnlen(comm, TR_COMM - 1));
		else
			read_comm(pid, tid, t.comm);
		buf_init(&t.entry, 1 << 16);
		buf_init(&t.argv, 1 << 16);
		VEC_PUSH(&c->th, t);
	}
	struct tr_thread *t = &c->th.v[*slot - 1];
	/* comm: TR_COMM bytes, zero-padded (a task's comm as the kernel keeps it). */
	if (comm && memcmp(t->comm, comm, TR_COMM - 1) != 0) {
		memset(t->comm, 0, sizeof(t->comm));
		memcpy(t->comm, comm, strnlen(comm, TR_COMM - 1));
	}
	t->pid = pid;
	return t;
}

static struct tr_thread *thread_find(struct tr_core *c, uint32_t tid)
{
	uint64_t i;
	return hashmap_get(&c->threads, tid, &i) ? &c->th.v[i - 1] : NULL;
}

void core_comm(struct tr_core *c, uint32_t pid, uint32_t tid, const char *comm)
{
	thread_get(c, pid, tid, comm);
}

void core_fork(struct tr_core *c, uint32_t pid, uint32_t tid, uint32_t ptid)
{
	struct tr_thread *p = thread_find(c, ptid);
	char comm[TR_COMM];
	if (p)
		memcpy(comm, p->comm, sizeof(comm));
	thread_get(c, pid, tid, p ? comm : NULL);
}

static void emit(struct tr_core *c)
{
	fwrite(c->line.p, 1, c->line.len, c->o->out);
	buf_reset(&c->line);
}

static const char spaces[] = "                                                                      ";

/* ns as milliseconds with 3 decimals, right-aligned in 'width' ("%*.3f"
 * without the cost of printf's floating point: lines are the hot path). */
static void add_ms(struct buf *b, uint64_t ns, int width)
{
	uint64_t us = (ns + 500) / 1000;
	char tmp[32];
	int n = 0;
	for (int i = 0; i < 3; i++, us /= 10)
		tmp[n++] = (char)('0' + us % 10);
	tmp[n++] = '.';
	do {
		tmp[n++] = (char)('0' + us % 10);
		us /= 10;
	} while (us);
	if (n < width)
		buf_add(b, spaces, (size_t)(width - n));
	while (n)
		buf_addch(b, tmp[--n]);
}

/* "     1.311 ( 0.020 ms): cat/6439 " */
static void head(struct tr_core *c, const struct tr_thread *t, uint64_t when, bool known,
		 uint64_t dur, bool has_dur)
{
	if (known) {
		add_ms(&c->line, when > c->base ? when - c->base : 0, 10);
		buf_addch(&c->line, ' ');
	} else {
		buf_addstr(&c->line, "         ? ");
	}
	if (has_dur) {
		buf_addch(&c->line, '(');
		add_ms(&c->line, dur, 6);
		buf_addstr(&c->line, " ms): ");
	} else {
		buf_addstr(&c->line, "(         ): ");
	}
	buf_addstr(&c->line, t->comm);
	buf_addf(&c->line, "/%u ", t->tid);
}

/* ")" then perf's padding to the " = " column. */
static void pad_result(struct buf *l, size_t entry_len)
{
	size_t printed = entry_len + 1;
	size_t n = printed < ALIGN ? ALIGN - printed : 1;
	buf_addch(l, ')');
	buf_add(l, spaces, n);
	buf_addstr(l, "= ");
}

/* Keep the entry (its strings copied) to format when it is printed: at
 * the exit, whose event may bring strings the entry could not read, or
 * when another line interrupts it. */
static void keep_entry(struct tr_thread *t, const struct tr_event *e)
{
	t->ev = *e;
	t->formatted = false;
	memset(t->ev.text, 0, sizeof(t->ev.text));
	for (unsigned a = 0; a < TR_MAXARGS; a++) {
		if (!e->str[a])
			continue;
		size_t n = e->slen[a] < TR_STRMAX ? e->slen[a] : TR_STRMAX;
		memcpy(t->strs[a], e->str[a], n);
		t->strs[a][n] = '\0';
		t->ev.str[a] = t->strs[a];
		t->ev.slen[a] = (uint16_t)n;
	}
	t->ev.comm = NULL;
}

/* Strings an exit event brings for arguments the entry could not read. */
static void merge_strings(struct tr_thread *t, const struct tr_event *e)
{
	for (unsigned a = 0; a < TR_MAXARGS; a++) {
		if (!e->str[a] || t->ev.str[a])
			continue;
		size_t n = e->slen[a] < TR_STRMAX ? e->slen[a] : TR_STRMAX;
		memcpy(t->strs[a], e->str[a], n);
		t->strs[a][n] = '\0';
		t->ev.str[a] = t->strs[a];
		t->ev.slen[a] = (uint16_t)n;
		t->ev.strunc[a] = e->strunc[a];
	}
}

/* The entry's strings live in the thread (t->strs): point at them where
 * the thread is now (the thread table moves as threads are added). */
static void rebase_strings(struct tr_thread *t)
{
	for (unsigned a = 0; a < TR_MAXARGS; a++)
		if (t->ev.str[a])
			t->ev.str[a] = t->strs[a];
}

/* Only the path an fd-making call was given (its line is not printed). */
static void format_entry_path(struct tr_thread *t)
{
	rebase_strings(t);
	t->path[0] = '\0';
	for (unsigned a = 0; a < TR_MAXARGS; a++) {
		if (t->ev.str[a] && !t->ev.strunc[a]) {
			snprintf(t->path, sizeof(t->path), "%s", t->ev.str[a]);
			break;
		}
	}
}

static void format_entry(struct tr_core *c, struct tr_thread *t)
{
	if (t->formatted)
		return;
	buf_reset(&t->entry);
	rebase_strings(t);
	argfmt_entry(&t->entry, c->tab, &t->ev, &c->fds);
	t->formatted = true;
	format_entry_path(t);
}

/* The current thread's entry, printed before another line interrupts it. */
static void flush_interrupted(struct tr_core *c, uint32_t except)
{
	if (!c->current || c->current == except)
		return;
	struct tr_thread *t = thread_find(c, c->current);
	c->current = 0;
	if (!t || !t->pending || t->shown || t->hidden)
		return;
	format_entry(c, t);
	head(c, t, t->entry_time, true, 0, false);
	buf_add(&c->line, t->entry.p, t->entry.len);
	buf_addch(&c->line, ')');
	size_t len = t->entry.len + 1;
	if (len < ALIGN - 4)
		buf_add(&c->line, spaces, ALIGN - 4 - len);
	buf_addstr(&c->line, " ...\n");
	emit(c);
	t->shown = true;
}

static void on_enter(struct tr_core *c, struct tr_thread *t, const struct tr_event *e)
{
	const struct tr_syscall *sc = systab_get(c->tab, e->nr);
	char nb[24];
	t->pending = true;
	t->shown = false;
	t->entry_time = e->time;
	t->nr = e->nr;
	t->a0 = e->args[0];
	t->a1 = e->args[1];
	t->hidden = !filter_call(&c->filter, systab_name(c->tab, e->nr, nb), t->pid, t->tid, t->comm);
	t->path[0] = '\0';
	keep_entry(t, e);
	if (t->hidden || !c->lines)
		return;
	if (sc && sc->ret == RK_NONE) {
		format_entry(c, t);
		/* exit, exit_group: no sys_exit follows. */
		t->pending = false;
		c->res->calls++;
		if (!c->stream)
			return;
		flush_interrupted(c, t->tid);
		head(c, t, e->time, true, 0, false);
		buf_add(&c->line, t->entry.p, t->entry.len);
		pad_result(&c->line, t->entry.len);
		buf_addstr(&c->line, "?\n");
		emit(c);
		return;
	}
	if (c->stream) {
		flush_interrupted(c, t->tid);
		c->current = t->tid;
	}
}

/* What the call did to the process's fds. */
static void fd_effects(struct tr_core *c, struct tr_thread *t, const struct tr_syscall *sc,
		       int64_t ret)
{
	if (!sc || ret < 0)
		return;
	const char *n = sc->name;
	if (strcmp(n, "close") == 0)
		fdcache_set(&c->fds, t->pid, (int32_t)t->a0, NULL);
	else if (strcmp(n, "dup") == 0 || strcmp(n, "dup2") == 0 || strcmp(n, "dup3") == 0 ||
		 (strcmp(n, "fcntl") == 0 && (t->a1 == 0 || t->a1 == 1030))) /* F_DUPFD(_CLOEXEC) */
		fdcache_dup(&c->fds, t->pid, (int32_t)t->a0, ret);
	else if (strcmp(n, "pipe") == 0 || strcmp(n, "pipe2") == 0 || strcmp(n, "socketpair") == 0)
		fdcache_reopen(&c->fds, t->pid);
	else if (sc->ret == RK_FD)
		fdcache_set(&c->fds, t->pid, ret, t->path[0] ? t->path : NULL);
}

static void on_return(struct tr_core *c, struct tr_thread *t, const struct tr_event *e)
{
	const struct tr_syscall *sc = systab_get(c->tab, e->nr);
	bool known = t->pending && t->nr == e->nr;
	double dur = known ? (double)(e->time - t->entry_time) / 1e6 : 0;
	bool hidden = known ? t->hidden : false;
	char nb[24];
	if (!known)
		hidden = !filter_call(&c->filter, systab_name(c->tab, e->nr, nb), t->pid, t->tid,
				      t->comm);
	bool err = argfmt_is_error(sc, e->ret);
	c->res->calls++;
	if (known) {
		merge_strings(t, e);
		if (!hidden && c->lines && !t->shown)
			format_entry(c, t);
		else if (!t->formatted)
			format_entry_path(t);
	}
	fd_effects(c, t, sc, e->ret);
	bool shown = t->shown;
	t->pending = false;
	if (c->current == t->tid)
		c->current = 0;
	if (hidden)
		return;
	/* A new task's first return (0 from clone in the child) is the parent's call. */
	if (known || !(sc && sc->ret == RK_PID && e->ret == 0))
		stats_add(&c->stats, t->tid, e->nr, err, dur);
	if (!c->lines || (c->o->failure && !err) ||
	    (c->o->duration_ms > 0 && (!known || dur <= c->o->duration_ms)))
		return;
	flush_interrupted(c, t->tid);
	head(c, t, t->entry_time, known, known ? e->time - t->entry_time : 0, known);
	size_t start = c->line.len;
	if (known && !shown)
		buf_add(&c->line, t->entry.p, t->entry.len);
	else
		buf_addf(&c->line, " ... [continued]: %s()", systab_name(c->tab, e->nr, nb));
	pad_result(&c->line, c->line.len - start);
	argfmt_result(&c->line, sc, e->ret);
	if (sc && sc->ret == RK_PID && e->ret > 0) {
		struct tr_thread *ch = thread_find(c, (uint32_t)e->ret);
		if (ch)
			buf_addf(&c->line, " (%s)", ch->comm);
	}
	buf_addch(&c->line, '\n');
	if (c->cg && e->stack)
		cg_format(c->cg, &c->line, e->stack);
	emit(c);
}

static int arg_index(const struct tr_syscall *sc, const char *name)
{
	for (unsigned a = 0; sc && a < sc->nargs; a++)
		if (sc->argname[a] && !strcmp(sc->argname[a], name))
			return (int)a;
	return -1;
}

void core_exec_args(struct tr_core *c, const struct tr_exec_args *x)
{
	struct tr_thread *t = thread_find(c, x->tid);
	if (!t || !t->pending || t->nr != x->nr || t->formatted || x->bad)
		return;
	const struct tr_syscall *sc = systab_get(c->tab, t->nr);
	int av = arg_index(sc, "argv"), ev = arg_index(sc, "envp");
	buf_reset(&t->argv);
	argfmt_argv(&t->argv, x);
	size_t at = t->argv.len + 1;
	buf_addch(&t->argv, '\0');
	if (ev >= 0 && t->ev.args[ev])
		buf_addf(&t->argv, "%#llx /* %u%s vars */", (unsigned long long)t->ev.args[ev],
			 x->envc, x->env_more ? "+" : "");
	/* Set both once the buffer is whole (it may have moved while growing). */
	if (av >= 0 && t->ev.args[av])
		t->ev.text[av] = t->argv.p;
	if (ev >= 0 && t->ev.args[ev] && t->argv.len >= at)
		t->ev.text[ev] = t->argv.p + at;
}

/* perf trace prints a fault with a duration of 0 and its stack; with
 * --failure or --duration only calls are shown. */
void core_fault(struct tr_core *c, const struct event *ev, bool major)
{
	if (!c->base)
		c->base = ev->sid.time;
	struct tr_thread *t = thread_get(c, ev->sid.pid, ev->sid.tid, NULL);
	t->nevents++;
	c->nevents++;
	if (major)
		t->pfmaj++;
	else
		t->pfmin++;
	if (!c->lines || !c->stream || !filter_call(&c->filter, NULL, t->pid, t->tid, t->comm))
		return;
	flush_interrupted(c, 0);
	head(c, t, ev->sid.time, true, 0, true);
	cg_fault(c->cg, &c->line, ev, major);
	emit(c);
}

void core_late_strings(struct tr_core *c, const struct tr_event *e)
{
	struct tr_thread *t = thread_find(c, e->tid);
	if (t && t->pending && t->nr == e->nr)
		merge_strings(t, e);
}

void core_event(struct tr_core *c, const struct tr_event *e)
{
	if (!c->base)
		c->base = e->time;
	struct tr_thread *t = thread_get(c, e->pid, e->tid, e->comm);
	t->nevents++;
	c->nevents++;
	if (e->enter)
		on_enter(c, t, e);
	else
		on_return(c, t, e);
}

void core_exec_name(struct tr_core *c, uint32_t tid, const char *name, size_t len)
{
	struct tr_thread *t = thread_find(c, tid);
	if (!t || !t->pending || t->formatted || t->ev.str[0] || t->ev.args[0] == 0)
		return;
	const struct tr_syscall *sc = systab_get(c->tab, t->nr);
	if (!sc || !sc->nargs || sc->kind[0] != AK_STR)
		return;
	if (len > TR_STRMAX)
		len = TR_STRMAX;
	memcpy(t->strs[0], name, len);
	t->strs[0][len] = '\0';
	t->ev.str[0] = t->strs[0];
	t->ev.slen[0] = (uint16_t)len;
}

/* ---- summaries ---- */

static int cmp_thread(const void *a, const void *b)
{
	const struct tr_thread *x = *(const struct tr_thread *const *)a;
	const struct tr_thread *y = *(const struct tr_thread *const *)b;
	if (x->nevents != y->nevents)
		return x->nevents > y->nevents ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_total(const void *a, const void *b)
{
	const struct tr_stat *x = *(const struct tr_stat *const *)a;
	const struct tr_stat *y = *(const struct tr_stat *const *)b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

static void perf_summary(struct tr_core *c, FILE *out)
{
	struct tr_thread **th = xcalloc(c->th.n + 1, sizeof(*th));
	size_t nth = 0;
	for (size_t i = 0; i < c->th.n; i++)
		th[nth++] = &c->th.v[i];
	qsort(th, nth, sizeof(*th), cmp_thread);
	struct tr_stat **rows = xcalloc(c->stats.v.n + 1, sizeof(*rows));
	fprintf(out, "\n Summary of events:\n\n");
	for (size_t i = 0; i < nth; i++) {
		size_t nr = 0;
		for (size_t k = 0; k < c->stats.v.n; k++)
			if (c->stats.v.v[k].tid == th[i]->tid)
				rows[nr++] = &c->stats.v.v[k];
		if (!nr && !th[i]->pfmaj && !th[i]->pfmin)
			continue;
		qsort(rows, nr, sizeof(*rows), cmp_total);
		fprintf(out, " %s (%u), %llu events, %.1f%%", th[i]->comm, th[i]->tid,
			(unsigned long long)th[i]->nevents,
			c->nevents ? 100.0 * (double)th[i]->nevents / (double)c->nevents : 0.0);
		if (th[i]->pfmaj)
			fprintf(out, ", %llu majfaults", (unsigned long long)th[i]->pfmaj);
		if (th[i]->pfmin)
			fprintf(out, ", %llu minfaults", (unsigned long long)th[i]->pfmin);
		fprintf(out, "\n\n");
		fprintf(out, "   syscall            calls  errors  total       min       avg       max       stddev\n"
			     "                                     (msec)    (msec)    (msec)    (msec)        (%%)\n"
			     "   --------------- --------  ------ -------- --------- --------- ---------     ------\n");
		for (size_t k = 0; k < nr; k++) {
			const struct tr_stat *s = rows[k];
			char nb[24];
			double n = (double)s->calls, avg = s->total / n, pct = 0;
			if (s->calls > 1 && avg > 0) {
				double m2 = s->sumsq - n * avg * avg;
				double var = (m2 > 0 ? m2 : 0) / (n - 1);
				pct = 100.0 * sqrt(var / n) / avg;
			}
			fprintf(out, "   %-15s %8llu %6llu %9.3f %9.3f %9.3f %9.3f %9.2f%%\n",
				systab_name(c->tab, s->nr, nb), (unsigned long long)s->calls,
				(unsigned long long)s->errors, s->total, s->min, avg, s->max, pct);
		}
		fprintf(out, "\n");
	}
	free(rows);
	free(th);
}

struct ctot {
	int64_t nr;
	uint64_t calls, errors;
	double total;
};

static int cmp_ctot(const void *a, const void *b)
{
	const struct ctot *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

/* strace -c's table: every thread together. */
static void strace_summary(struct tr_core *c, FILE *out)
{
	struct ctot *v = xcalloc(c->stats.v.n + 1, sizeof(*v));
	size_t n = 0;
	struct hashmap idx;
	hashmap_init(&idx);
	for (size_t k = 0; k < c->stats.v.n; k++) {
		const struct tr_stat *s = &c->stats.v.v[k];
		bool ins;
		uint64_t *slot = hashmap_slot(&idx, (uint64_t)s->nr, 0, &ins);
		if (ins) {
			*slot = n + 1;
			v[n++] = (struct ctot){ .nr = s->nr };
		}
		struct ctot *t = &v[*slot - 1];
		t->calls += s->calls;
		t->errors += s->errors;
		t->total += s->total;
	}
	hashmap_release(&idx);
	qsort(v, n, sizeof(*v), cmp_ctot);
	double all = 0;
	uint64_t calls = 0, errors = 0;
	for (size_t i = 0; i < n; i++) {
		all += v[i].total;
		calls += v[i].calls;
		errors += v[i].errors;
	}
	const char *rule = "------ ----------- ----------- --------- --------- ----------------\n";
	fprintf(out, "%% time     seconds  usecs/call     calls    errors syscall\n%s", rule);
	for (size_t i = 0; i < n; i++) {
		char nb[24], eb[24] = "";
		if (v[i].errors)
			snprintf(eb, sizeof(eb), "%llu", (unsigned long long)v[i].errors);
		fprintf(out, "%6.2f %11.6f %11llu %9llu %9s %s\n",
			all > 0 ? 100.0 * v[i].total / all : 0.0, v[i].total / 1e3,
			(unsigned long long)(v[i].total * 1e3 / (double)v[i].calls),
			(unsigned long long)v[i].calls, eb, systab_name(c->tab, v[i].nr, nb));
	}
	char eb[24] = "";
	if (errors)
		snprintf(eb, sizeof(eb), "%llu", (unsigned long long)errors);
	fprintf(out, "%s%6.2f %11.6f %11llu %9llu %9s total\n", rule, all > 0 ? 100.0 : 0.0,
		all / 1e3, (unsigned long long)(calls ? all * 1e3 / (double)calls : 0),
		(unsigned long long)calls, eb);
	free(v);
}

void core_finish(struct tr_core *c)
{
	/* Calls still blocked when tracing ended: their entries, unfinished. */
	if (c->lines && c->stream) {
		for (size_t i = 0; i < c->th.n; i++) {
			struct tr_thread *t = &c->th.v[i];
			if (t->pending && !t->shown && !t->hidden) {
				c->current = t->tid;
				flush_interrupted(c, 0);
			}
		}
	}
	if (c->o->summary != TRACE_LINES)
		perf_summary(c, c->o->out);
	if (c->o->strace_table)
		strace_summary(c, c->o->out);
}
