/*
 * cmd_stat: `kiln stat` (cli, L9): count events for a command, processes,
 * threads or CPUs and print them as perf stat does. Events are parsed by
 * source/live/evcat, counted by source/live/counting, written by
 * output/stat_text; this file runs the command (-r times), times it,
 * sums cells into perf's aggregates and picks the exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/ofile.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "output/stat_text.h"
#include "source/live/counting.h"
#include "source/live/evcat.h"
#include "source/live/live.h"

struct stat_cli {
	char **events;
	size_t nevents;
	const char **filters; /* per -e argument: its --filter, or NULL */
	const char *sep, *output, *cpu_list, *pid_list, *tid_list;
	bool json, append, all, per_cpu, per_thread, per_core, per_socket, big_num;
	uint64_t repeat, interval;
};

/* What is counted where. */
struct stat_run {
	struct evcat_event *evs;
	size_t nev;
	int *cpus;
	size_t ncpus;
	pid_t *tids;
	size_t ntids;
	char **argv;          /* the command, or NULL */
	struct stat_opts so;
	struct buf out;
	struct ofile of;
	FILE *append;         /* --append's stream */
	bool to_file;
	int sfd;              /* signalfd */
	double interval_s;    /* -I, or 0 */
	double tool_ns[3];    /* duration_time, user_time, system_time of the run shown */
	char **user_names;    /* per event: NAME:u, for counts perf's fallback made user-only */
};

#define SC_OFF(f) offsetof(struct stat_cli, f)

static int opt_event(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct stat_cli *c = field;
	(void)p, (void)o;
	XREALLOC_ARRAY(c->events, c->nevents + 1);
	XREALLOC_ARRAY(c->filters, c->nevents + 1);
	c->filters[c->nevents] = NULL;
	c->events[c->nevents++] = xstrdup(arg);
	return 0;
}

/* --filter: for the events of the -e before it, as perf. */
static int opt_filter(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct stat_cli *c = field;
	(void)o;
	if (!c->nevents)
		return opts_error(p, "--filter must follow the -e event (a tracepoint or probe) it "
				     "filters");
	if (c->filters[c->nevents - 1])
		return opts_error(p, "a second --filter for '%s' (join the conditions with &&)",
				  c->events[c->nevents - 1]);
	c->filters[c->nevents - 1] = arg;
	return 0;
}

static const struct opt stat_opts_table[] = {
	OPT_CALLBACK('e', "event", 0, "SPEC",
		     "event(s), comma-separated, repeatable: hardware (cycles, instructions, ...), "
		     "software (task-clock, page-faults, ...), cache (L1-dcache-load-misses), raw "
		     "rNNNN, pmu/config=...,umask=.../, tracepoints with globs (sched:*, "
		     "syscalls:sys_enter_*), :u :k :h modifiers, groups {a,b} (default: perf's "
		     "default set)",
		     opt_event),
	OPT_CALLBACK(0, "filter", 0, "EXPR",
		     "count only the hits of the tracepoint or probe events of the -e before it "
		     "that match EXPR, the kernel's filter syntax ('fd == 1', 'count > 4096'); a "
		     "filter the kernel refuses is an error (exit 2)",
		     opt_filter),
	OPT_STRING('x', "field-separator", SC_OFF(sep), "SEP",
		   "CSV output: value, unit, event, run time, running %, metric value, metric "
		   "unit, separated by SEP"),
	OPT_BOOL('j', "json-output", SC_OFF(json), "one JSON object per count, as perf stat -j"),
	{ .kind = OPT_KIND_BOOL, .long_name = "json", .offset = SC_OFF(json),
	  .flags = OPT_HIDDEN, .help = "as --json-output" },
	OPT_FILENAME('o', "output", SC_OFF(output), "FILE", "write the counts to FILE, not stderr"),
	OPT_BOOL(0, "append", SC_OFF(append), "with -o: append to FILE"),
	OPT_U64('r', "repeat", SC_OFF(repeat), "N",
		"run the command N times: mean counts and their spread"),
	OPT_U64('I', "interval-print", SC_OFF(interval), "MS",
		"print the counts of every MS milliseconds (at least 10)"),
	OPT_BOOL('a', "all-cpus", SC_OFF(all), "count every task on every CPU"),
	OPT_STRING('C', "cpu", SC_OFF(cpu_list), "CPUS", "count on these CPUs only (0,2-3)"),
	OPT_STRING('p', "pid", SC_OFF(pid_list), "PID[,PID]",
		   "count existing processes (all their threads); with a command, for as long "
		   "as it runs"),
	OPT_STRING('t', "tid", SC_OFF(tid_list), "TID[,TID]", "count existing threads"),
	OPT_BOOL('A', "no-aggr", SC_OFF(per_cpu), "a count per CPU (with -a or -C)"),
	{ .kind = OPT_KIND_BOOL, .long_name = "per-cpu", .offset = SC_OFF(per_cpu),
	  .flags = OPT_HIDDEN, .help = "as --no-aggr" },
	OPT_BOOL(0, "per-thread", SC_OFF(per_thread), "a count per thread (with -p or -t)"),
	OPT_BOOL(0, "per-core", SC_OFF(per_core), "a count per core (with -a or -C)"),
	OPT_BOOL(0, "per-socket", SC_OFF(per_socket), "a count per socket (with -a or -C)"),
	OPT_BOOL(0, "big-num", SC_OFF(big_num),
		 "group digits as the locale does (default; --no-big-num: never)"),
	OPT_END(),
};

const struct opts_cmd stat_cmd = {
	.name = "stat",
	.summary = "Count events for a command, processes, threads or CPUs (perf stat)",
	.synopsis = "[options] [--] [command [args...]]",
	.description =
		"Count events in the kernel (no sampling) while a command runs, or for running\n"
		"processes (-p), threads (-t) or CPUs (-a, -C) until Ctrl-C, and print the counts\n"
		"as perf stat does, with perf's derived figures (CPUs utilized, rates, insn per\n"
		"cycle, miss ratios). Events the machine does not have read <not supported>;\n"
		"multiplexed counts are scaled and show the share of time they ran.\n",
	.opts = stat_opts_table,
	.notes =
		"The counts go to stderr (or -o FILE). Exit status: the command's own (128+N if\n"
		"killed by signal N); 126/127 if it cannot be executed/found; 1 if counting\n"
		"failed; 2 usage (an unknown event is named with the closest known one).\n",
	.examples =
		"kiln stat -- ./myprog args                          # perf's default set\n"
		"kiln stat -e 'sched:*' -- make -j2                  # every sched tracepoint\n"
		"kiln stat -e page-faults,task-clock -r 5 -- ./prog  # mean and spread of 5 runs\n"
		"kiln stat -x, -e cs -I 1000 -a                      # CSV, every second, all CPUs\n"
		"kiln stat -j -e '{cycles,instructions}' -- ./prog   # a group, JSON lines\n",
	.flags = OPTS_STOP_AT_ARG,
};

/* "0,2-3" → ints. 0 or -1. */
static int parse_list(const char *s, int **v, size_t *n, int max)
{
	*v = NULL;
	*n = 0;
	while (*s) {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;
		if (end == s || lo < 0 || lo > max)
			return -1;
		if (*end == '-') {
			const char *h = end + 1;
			hi = strtol(h, &end, 10);
			if (end == h || hi < lo || hi > max)
				return -1;
		}
		for (long i = lo; i <= hi; i++) {
			XREALLOC_ARRAY(*v, *n + 1);
			(*v)[(*n)++] = (int)i;
		}
		if (*end == ',')
			end++;
		else if (*end && *end != '\n')
			return -1;
		s = end;
	}
	return *n ? 0 : -1;
}

static int online_cpus(int **v, size_t *n)
{
	char text[4096] = "";
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	if (f) {
		if (!fgets(text, sizeof(text), f))
			text[0] = '\0';
		fclose(f);
	}
	if (text[0] && parse_list(text, v, n, 1 << 20) == 0)
		return 0;
	long c = sysconf(_SC_NPROCESSORS_ONLN);
	*n = c > 0 ? (size_t)c : 1;
	*v = xmalloc(*n * sizeof(int));
	for (size_t i = 0; i < *n; i++)
		(*v)[i] = (int)i;
	return 0;
}

static int topo(int cpu, const char *what)
{
	char path[128], text[32];
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	int v = fgets(text, sizeof(text), f) ? atoi(text) : 0;
	fclose(f);
	return v;
}

static enum stat_kind kind_of(const struct perf_event_attr *a)
{
	if (a->type == EVCAT_TYPE_TOOL)
		return STAT_K_TOOL;
	if (a->type == PERF_TYPE_SOFTWARE &&
	    (a->config == PERF_COUNT_SW_TASK_CLOCK || a->config == PERF_COUNT_SW_CPU_CLOCK))
		return STAT_K_TASK_CLOCK;
	if (a->type == PERF_TYPE_HARDWARE) {
		switch (a->config) {
		case PERF_COUNT_HW_CPU_CYCLES: return STAT_K_CYCLES;
		case PERF_COUNT_HW_INSTRUCTIONS: return STAT_K_INSTRUCTIONS;
		case PERF_COUNT_HW_BRANCH_INSTRUCTIONS: return STAT_K_BRANCHES;
		case PERF_COUNT_HW_BRANCH_MISSES: return STAT_K_BRANCH_MISSES;
		case PERF_COUNT_HW_CACHE_REFERENCES: return STAT_K_CACHE_REFS;
		case PERF_COUNT_HW_CACHE_MISSES: return STAT_K_CACHE_MISSES;
		default: return STAT_K_OTHER;
		}
	}
	if (a->type == PERF_TYPE_HW_CACHE && ((a->config >> 8) & 0xff) == 0) {
		static const enum stat_kind k[][2] = {
			{ STAT_K_L1D_LOADS, STAT_K_L1D_LOAD_MISSES },
			{ STAT_K_L1I_LOADS, STAT_K_L1I_LOAD_MISSES },
			{ STAT_K_LLC_LOADS, STAT_K_LLC_LOAD_MISSES },
			{ STAT_K_DTLB_LOADS, STAT_K_DTLB_LOAD_MISSES },
			{ STAT_K_ITLB_LOADS, STAT_K_ITLB_LOAD_MISSES },
		};
		unsigned c = a->config & 0xff, res = (a->config >> 16) & 0xff;
		if (c < 5 && res < 2)
			return k[c][res];
	}
	return STAT_K_OTHER;
}

static void comm_of(pid_t tid, char *out, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	FILE *f = fopen(path, "re");
	out[0] = '\0';
	if (f) {
		if (fgets(out, (int)len, f))
			out[strcspn(out, "\n")] = '\0';
		fclose(f);
	}
}

/* The aggregate of cell k (a CPU or a thread). */
static void aggr_of(const struct stat_run *r, size_t k, struct stat_row *row)
{
	row->cpu = row->socket = row->die = row->core = -1;
	row->tid = -1;
	row->nr = 1;
	switch (r->so.aggr) {
	case STAT_AGGR_CPU:
		row->cpu = r->cpus[k];
		break;
	case STAT_AGGR_THREAD:
		row->tid = r->tids[k];
		break;
	case STAT_AGGR_CORE:
		row->core = topo(r->cpus[k], "core_id");
		/* fall through */
	case STAT_AGGR_SOCKET:
		row->socket = topo(r->cpus[k], "physical_package_id");
		row->die = r->so.aggr == STAT_AGGR_CORE ? topo(r->cpus[k], "die_id") : -1;
		break;
	case STAT_AGGR_GLOBAL:
		break;
	}
}

static bool aggr_same(const struct stat_row *a, const struct stat_row *b)
{
	return a->cpu == b->cpu && a->socket == b->socket && a->die == b->die &&
	       a->core == b->core && a->tid == b->tid;
}

static int cmp_aggr(const struct stat_row *a, const struct stat_row *b)
{
	int ka[] = { a->socket, a->die, a->core, a->cpu, a->tid };
	int kb[] = { b->socket, b->die, b->core, b->cpu, b->tid };
	for (int i = 0; i < 5; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return 0;
}

/* Whether the event is named NAME:u: it was counted in user space only
 * (perf's fallback), or it is not supported where the others fell back
 * (perf marks every event so). */
static bool user_only(const struct stat_run *r, const struct counting *c, size_t e)
{
	if (!r->user_names)
		return false;
	if (counting_user_only(c, e))
		return true;
	const struct perf_event_attr *a = &r->evs[e].attr;
	if (counting_supported(c, e) || a->type == PERF_TYPE_TRACEPOINT || a->exclude_kernel ||
	    strchr(r->evs[e].name, ':'))
		return false;
	for (size_t i = 0; i < r->nev; i++)
		if (counting_user_only(c, i))
			return true;
	return false;
}

/*
 * Rows from cell values 'vals' ([ev][cell]); names and comms live in
 * 'names' (freed by the caller). Rows come in perf's order: per CPU and
 * per thread, event by event; per core and per socket, aggregate by
 * aggregate.
 */
static struct stat_row *make_rows(const struct stat_run *r, const struct counting *c,
				  const struct counting_value *vals, size_t *nrows, char ***comms)
{
	size_t ncells = counting_ncells(c);
	/* the aggregates, in order */
	struct stat_row *keys = NULL;
	size_t nkeys = 0;
	size_t *cell_key = xmalloc((ncells ? ncells : 1) * sizeof(size_t));
	for (size_t k = 0; k < ncells; k++) {
		struct stat_row key = { 0 };
		aggr_of(r, k, &key);
		size_t j = 0;
		while (j < nkeys && !aggr_same(&keys[j], &key))
			j++;
		if (j == nkeys) {
			XREALLOC_ARRAY(keys, nkeys + 1);
			keys[nkeys++] = key;
		} else {
			keys[j].nr++;
		}
		cell_key[k] = j;
	}
	if (nkeys == 0) {
		XREALLOC_ARRAY(keys, 1);
		aggr_of(r, 0, &keys[0]);
		keys[0].cpu = keys[0].tid = -1;
		nkeys = 1;
	}
	/* sort keys (and remap cells) */
	size_t *order = xmalloc(nkeys * sizeof(size_t));
	for (size_t i = 0; i < nkeys; i++)
		order[i] = i;
	for (size_t i = 1; i < nkeys; i++)
		for (size_t j = i; j > 0 && cmp_aggr(&keys[order[j - 1]], &keys[order[j]]) > 0; j--) {
			size_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	*comms = xcalloc(nkeys, sizeof(char *));
	struct stat_row *rows = xcalloc(r->nev * nkeys, sizeof(*rows));
	bool event_major = r->so.aggr == STAT_AGGR_GLOBAL || r->so.aggr == STAT_AGGR_CPU ||
			   r->so.aggr == STAT_AGGR_THREAD;
	size_t nr = 0;
	for (size_t a = 0; a < r->nev * nkeys; a++) {
		size_t e = event_major ? a / nkeys : a % r->nev;
		size_t key = order[event_major ? a % nkeys : a / r->nev];
		struct stat_row *row = &rows[nr++];
		*row = keys[key];
		row->event = r->evs[e].name;
		if (user_only(r, c, e))
			row->event = r->user_names[e];
		row->kind = kind_of(&r->evs[e].attr);
		if (r->so.aggr == STAT_AGGR_THREAD) {
			if (!(*comms)[key]) {
				char comm[64];
				comm_of(row->tid, comm, sizeof(comm));
				(*comms)[key] = xstrdup(comm);
			}
			row->comm = (*comms)[key];
		}
		bool any = false;
		double sum = 0;
		for (size_t k = 0; k < ncells; k++) {
			if (ncells && cell_key[k] != key)
				continue;
			const struct counting_value *v = &vals[e * ncells + k];
			bool counted;
			double s = counting_scale(v, &counted);
			any |= counted;
			sum += s;
			row->run += v->run;
			row->ena += v->ena;
		}
		if (r->evs[e].attr.type == EVCAT_TYPE_TOOL && r->evs[e].attr.config < 3) {
			double t = r->tool_ns[r->evs[e].attr.config];
			row->value = t;
			row->run = row->ena = (uint64_t)t;
			row->state = t > 0 ? STAT_COUNTED : STAT_NOT_COUNTED;
			continue;
		}
		row->state = !counting_supported(c, e) ? STAT_NOT_SUPPORTED
			     : any			   ? STAT_COUNTED
							   : STAT_NOT_COUNTED;
		if (row->state != STAT_COUNTED)
			row->run = row->ena = 0;
		row->value = row->kind == STAT_K_TASK_CLOCK ? sum / 1e6 : sum;
	}
	if (r->so.aggr == STAT_AGGR_THREAD) /* perf: each event's threads, biggest count first */
		for (size_t e = 0; e < r->nev; e++) {
			struct stat_row *b = rows + e * nkeys;
			for (size_t i = 1; i < nkeys; i++)
				for (size_t j = i; j > 0 && b[j - 1].value < b[j].value; j--) {
					struct stat_row t = b[j];
					b[j] = b[j - 1];
					b[j - 1] = t;
				}
		}
	free(order);
	free(keys);
	free(cell_key);
	*nrows = nr;
	return rows;
}

static void free_comms(char **comms, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(comms[i]);
	free(comms);
}

/* Send what is in r->out to its destination. */
static int flush_out(struct stat_run *r)
{
	int err = 0;
	if (r->to_file) {
		FILE *f = r->append ? r->append : r->of.f;
		if (r->out.len && fwrite(r->out.p, 1, r->out.len, f) != r->out.len)
			err = -EIO;
		if (r->append)
			fflush(f);
	} else {
		const char *p = buf_str(&r->out);
		while (*p) {
			size_t l = strcspn(p, "\n");
			cli_err("%.*s%s", (int)l, p, p[l] ? "\n" : "");
			p += l + (p[l] != '\0');
		}
	}
	buf_reset(&r->out);
	return err;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct one_result {
	double elapsed, user, sys;
	int status;      /* wait status of the command */
	bool workload;
	int exec_err;
	int signal;      /* a stop signal that ended counting */
};

static bool targets_alive(const struct stat_run *r)
{
	for (size_t i = 0; i < r->ntids; i++)
		if (kill(r->tids[i], 0) == 0 || errno != ESRCH)
			return true;
	return false;
}

/* Print one interval's deltas. */
static void print_interval(struct stat_run *r, const struct counting *c,
			   struct counting_value *prev, double ts, double len_s)
{
	size_t cells = r->nev * counting_ncells(c);
	struct counting_value *d = xcalloc(cells ? cells : 1, sizeof(*d));
	for (size_t e = 0; e < r->nev; e++)
		for (size_t k = 0; k < counting_ncells(c); k++) {
			const struct counting_value *v = counting_cell(c, e, k);
			struct counting_value *p = &prev[e * counting_ncells(c) + k];
			d[e * counting_ncells(c) + k] = (struct counting_value){
				v->val - p->val, v->ena - p->ena, v->run - p->run
			};
			*p = *v;
		}
	size_t nrows;
	char **comms;
	r->tool_ns[EVCAT_DURATION_TIME] = len_s * 1e9;
	r->tool_ns[EVCAT_USER_TIME] = r->tool_ns[EVCAT_SYSTEM_TIME] = 0;
	struct stat_row *rows = make_rows(r, c, d, &nrows, &comms);
	stat_text_rows(&r->out, &r->so, rows, nrows, ts, len_s * 1e9);
	free_comms(comms, nrows / (r->nev ? r->nev : 1));
	free(rows);
	free(d);
	flush_out(r);
}

/* One measurement: open, run, read. Cell values go to *vals (caller frees). */
static int measure(struct stat_run *r, struct one_result *res, struct counting **cout)
{
	struct live_workload w = { .pid = 0, .go_fd = -1, .err_fd = -1 };
	memset(res, 0, sizeof(*res));
	res->workload = r->argv != NULL;
	pid_t tid = 0;
	struct counting_target t = { 0 };
	if (r->argv) {
		int err = live_workload_prepare(&w, r->argv);
		if (err)
			return err_set(err, "cannot start '%s': %s", r->argv[0], strerror(-err));
	}
	if (r->cpus) { /* a command only times -a, -C, -p and -t */
		t.cpus = r->cpus;
		t.ncpus = r->ncpus;
	} else if (r->tids) {
		t.tids = r->tids;
		t.ntids = r->ntids;
		t.inherit = true;
	} else {
		tid = w.pid;
		t.tids = &tid;
		t.ntids = 1;
		t.inherit = true;
		t.enable_on_exec = true;
	}
	struct counting *c;
	int err = counting_open(&c, r->evs, r->nev, &t, NULL);
	if (err) {
		live_workload_cancel(&w);
		return err;
	}
	double t0 = now_s();
	if (r->argv) {
		err = live_workload_start(&w);
		if (err) {
			res->exec_err = -err;
			waitpid(w.pid, NULL, 0);
			counting_close(c);
			return err;
		}
	}
	size_t cells = r->nev * counting_ncells(c);
	struct counting_value *prev = xcalloc(cells ? cells : 1, sizeof(*prev));
	double next = t0 + r->interval_s, last = t0;
	bool done = false;
	while (!done) {
		int timeout = -1;
		double now = now_s();
		if (r->interval_s > 0)
			timeout = next > now ? (int)ceil((next - now) * 1000) : 0;
		if (!r->argv && r->tids && (timeout < 0 || timeout > 250))
			timeout = 250; /* notice when the -p/-t targets are gone */
		struct pollfd pfd = { .fd = r->sfd, .events = POLLIN };
		int pr = poll(&pfd, 1, timeout);
		if (pr < 0 && errno != EINTR)
			break;
		if (pr > 0) {
			struct signalfd_siginfo si;
			if (read(r->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo == SIGCHLD && r->argv) {
					struct rusage ru;
					pid_t got = wait4(w.pid, &res->status, WNOHANG, &ru);
					if (got == w.pid) {
						res->elapsed = now_s() - t0;
						res->user = (double)ru.ru_utime.tv_sec +
							    (double)ru.ru_utime.tv_usec / 1e6;
						res->sys = (double)ru.ru_stime.tv_sec +
							   (double)ru.ru_stime.tv_usec / 1e6;
						done = true;
					}
				} else if (si.ssi_signo != SIGCHLD) {
					if (r->argv)
						kill(w.pid, (int)si.ssi_signo);
					else
						done = true;
					res->signal = (int)si.ssi_signo;
				}
			}
		}
		if (!r->argv && r->tids && !targets_alive(r))
			done = true;
		now = now_s();
		if (done && !res->elapsed)
			res->elapsed = now - t0;
		if (r->interval_s > 0 && (now >= next || done)) {
			if ((err = counting_read(c)))
				break;
			print_interval(r, c, prev, now - t0, now - last);
			last = now;
			while (next <= now)
				next += r->interval_s;
		}
	}
	free(prev);
	if (!err)
		err = counting_read(c);
	if (err) {
		if (r->argv && !done) {
			kill(w.pid, SIGKILL);
			waitpid(w.pid, NULL, 0);
		}
		counting_close(c);
		return err;
	}
	*cout = c;
	return 0;
}

/* Validate the options and set up the run. 0; -1, a usage error in p; -2, a
 * target that does not exist (reported). */
static int setup(struct stat_run *r, struct stat_cli *sc, struct opts_parser *p, char **cmd)
{
	if (sc->json && sc->sep)
		return opts_error(p, "-x and --json cannot be used together");
	if (sc->append && !sc->output)
		return opts_error(p, "--append needs -o FILE");
	if (sc->interval && sc->interval < 10)
		return opts_error(p, "-I takes at least 10 ms, not %llu",
				  (unsigned long long)sc->interval);
	if (sc->repeat > 1 && !cmd)
		return opts_error(p, "-r repeats a command: give one");
	if (sc->repeat > 1 && sc->interval)
		return opts_error(p, "-r and -I cannot be used together");
	if ((sc->pid_list || sc->tid_list) && (sc->all || sc->cpu_list))
		return opts_error(p, "-p/-t and -a/-C cannot be used together");
	if (!cmd && !sc->pid_list && !sc->tid_list && !sc->all && !sc->cpu_list)
		return opts_error(p, "nothing to count: give a command, -p PID, -t TID, -a or -C");
	bool cpus = sc->all || sc->cpu_list;
	if ((sc->per_cpu || sc->per_core || sc->per_socket) && !cpus)
		return opts_error(p, "--per-cpu, --per-core and --per-socket need -a or -C");
	if (sc->per_thread && !sc->pid_list && !sc->tid_list)
		return opts_error(p, "--per-thread needs -p or -t");
	r->so.fmt = sc->json ? STAT_JSON : sc->sep ? STAT_CSV : STAT_TEXT;
	r->so.sep = sc->sep ? sc->sep : " ";
	r->so.runs = sc->repeat > 1 ? (unsigned)(sc->repeat > 100000 ? 100000 : sc->repeat) : 1;
	r->so.aggr = sc->per_cpu      ? STAT_AGGR_CPU
		     : sc->per_core   ? STAT_AGGR_CORE
		     : sc->per_socket ? STAT_AGGR_SOCKET
		     : sc->per_thread ? STAT_AGGR_THREAD
				      : STAT_AGGR_GLOBAL;
	r->interval_s = (double)sc->interval / 1000.0;
	r->argv = cmd;
	if (sc->cpu_list) {
		if (parse_list(sc->cpu_list, &r->cpus, &r->ncpus, 1 << 20))
			return opts_error(p, "-C takes CPU numbers (0,2-3), not '%s'", sc->cpu_list);
	} else if (sc->all) {
		online_cpus(&r->cpus, &r->ncpus);
	}
	const char *ids = sc->pid_list ? sc->pid_list : sc->tid_list;
	if (ids) {
		int *v;
		size_t n;
		if (parse_list(ids, &v, &n, 0x7fffffff))
			return opts_error(p, "%s takes ids, not '%s'", sc->pid_list ? "-p" : "-t", ids);
		for (size_t i = 0; i < n; i++) {
			pid_t *t = NULL;
			size_t nt = 0;
			if (sc->pid_list && live_list_threads(v[i], &t, &nt) == 0) {
				XREALLOC_ARRAY(r->tids, r->ntids + nt);
				memcpy(r->tids + r->ntids, t, nt * sizeof(pid_t));
				r->ntids += nt;
				free(t);
			} else if (sc->pid_list) {
				cli_err("error: -p %d: no such process\n", v[i]);
				free(v);
				return -2;
			} else {
				XREALLOC_ARRAY(r->tids, r->ntids + 1);
				r->tids[r->ntids++] = v[i];
			}
		}
		free(v);
	}
	return 0;
}

static const char *const default_events[] = { "task-clock",   "context-switches",
					      "cpu-migrations", "page-faults",
					      "cycles",       "instructions",
					      "branches",     "branch-misses" };

static int parse_events(struct stat_run *r, struct stat_cli *sc)
{
	size_t n = sc->nevents ? sc->nevents : sizeof(default_events) / sizeof(default_events[0]);
	for (size_t i = 0; i < n; i++) {
		char *bad = NULL;
		err_clear();
		const char *arg = sc->nevents ? sc->events[i] : default_events[i];
		if (!sc->nevents && i == 0 && r->cpus)
			arg = "cpu-clock"; /* perf's default set counts CPUs with cpu-clock */
		size_t before = r->nev;
		int err = evcat_parse(arg, &r->evs, &r->nev, &bad);
		const char *filter = sc->nevents ? sc->filters[i] : NULL;
		for (size_t k = before; !err && filter && k < r->nev; k++) {
			if (r->evs[k].attr.type != PERF_TYPE_TRACEPOINT) {
				cli_err("error: --filter '%s': '%s' is not a tracepoint or probe event "
					"(filters apply to those only)\n",
					filter, r->evs[k].name);
				return KILN_EXIT_USAGE;
			}
			r->evs[k].filter = filter;
		}
		if (err) {
			cli_error_last(NULL);
			char *close = bad ? evcat_closest(bad) : NULL;
			if (close)
				cli_err("hint: did you mean '%s'? ('kiln list' shows the events "
					"here)\n",
					close);
			else
				cli_err("hint: 'kiln list' shows the events here\n");
			free(close);
			free(bad);
			return KILN_EXIT_USAGE;
		}
	}
	return 0;
}

static char *join_cmd(char **argv)
{
	struct buf b;
	buf_init(&b, 1 << 16);
	for (size_t i = 0; argv[i]; i++)
		buf_addf(&b, "%s%s", i ? " " : "", argv[i]);
	char *s = buf_detach(&b, NULL);
	return s ? s : xstrdup("");
}

static void header(struct stat_run *r, struct stat_cli *sc)
{
	char *what;
	const char *kind = "";
	if (sc->all) {
		what = xstrdup("system wide");
	} else if (sc->cpu_list) {
		what = xasprintf("CPU(s) %s", sc->cpu_list);
	} else if (sc->pid_list) {
		kind = "process id ";
		what = xstrdup(sc->pid_list);
	} else if (sc->tid_list) {
		kind = "thread id ";
		what = xstrdup(sc->tid_list);
	} else {
		what = join_cmd(r->argv);
	}
	stat_text_header(&r->out, &r->so, kind, what);
	free(what);
}

static int count_failed(const struct one_result *res, struct stat_run *r, int err)
{
	if (res->exec_err) {
		cli_err("error: cannot run '%s': %s\n", r->argv[0], strerror(res->exec_err));
		return res->exec_err == ENOENT ? 127 : 126;
	}
	cli_error_last(NULL);
	if (err == -EINVAL)
		return KILN_EXIT_USAGE; /* a --filter the kernel refused */
	if (err == -EACCES || err == -EPERM)
		cli_err("hint: run as root or lower kernel.perf_event_paranoid (tracepoints "
			"need -1, -a needs 0)\n");
	return KILN_EXIT_FAIL;
}

/* All runs, then the report. Returns the exit code. */
static int run_all(struct stat_run *r, struct stat_cli *sc)
{
	size_t nrows = 0;
	double *sum = NULL, *sum2 = NULL, esum = 0, esum2 = 0;
	struct stat_row *rows = NULL;
	char **comms = NULL;
	struct one_result res = { 0 };
	int code = KILN_EXIT_OK;
	if (r->interval_s > 0 && r->so.fmt == STAT_TEXT) {
		stat_text_interval_header(&r->out, &r->so);
		flush_out(r);
	}
	for (unsigned run = 0; run < r->so.runs; run++) {
		struct counting *c = NULL;
		err_clear();
		int merr = measure(r, &res, &c);
		if (merr) {
			code = count_failed(&res, r, merr);
			goto done;
		}
		size_t cells = r->nev * counting_ncells(c);
		struct counting_value *vals = xcalloc(cells ? cells : 1, sizeof(*vals));
		for (size_t e = 0; e < r->nev; e++)
			for (size_t k = 0; k < counting_ncells(c); k++)
				vals[e * counting_ncells(c) + k] = *counting_cell(c, e, k);
		if (rows)
			free_comms(comms, nrows / (r->nev ? r->nev : 1));
		free(rows);
		r->tool_ns[EVCAT_DURATION_TIME] = res.elapsed * 1e9;
		r->tool_ns[EVCAT_USER_TIME] = res.user * 1e9;
		r->tool_ns[EVCAT_SYSTEM_TIME] = res.sys * 1e9;
		rows = make_rows(r, c, vals, &nrows, &comms);
		free(vals);
		counting_close(c);
		if (!sum) {
			sum = xcalloc(nrows ? nrows : 1, sizeof(double));
			sum2 = xcalloc(nrows ? nrows : 1, sizeof(double));
		}
		for (size_t i = 0; i < nrows; i++) {
			sum[i] += rows[i].value;
			sum2[i] += rows[i].value * rows[i].value;
		}
		esum += res.elapsed;
		esum2 += res.elapsed * res.elapsed;
		if (res.workload) {
			if (WIFEXITED(res.status))
				code = WEXITSTATUS(res.status);
			else if (WIFSIGNALED(res.status))
				code = 128 + WTERMSIG(res.status);
		}
		if (res.signal)
			break;
	}
	double n = r->so.runs, elapsed = esum / n, sd = 0;
	if (n > 1) {
		for (size_t i = 0; i < nrows; i++) {
			double mean = sum[i] / n;
			double var = (sum2[i] - sum[i] * sum[i] / n) / (n - 1);
			rows[i].value = mean;
			rows[i].noise = mean > 0 && var > 0 ? 100.0 * sqrt(var / n) / mean : 0;
		}
		double var = (esum2 - esum * esum / n) / (n - 1);
		sd = var > 0 ? sqrt(var / n) : 0;
	}
	if (r->interval_s <= 0) {
		header(r, sc);
		stat_text_rows(&r->out, &r->so, rows, nrows, -1, elapsed * 1e9);
		stat_text_footer(&r->out, &r->so, elapsed, sd,
				 res.workload && !r->cpus && !r->tids && n == 1, res.user,
				 res.sys);
	}
	if (flush_out(r))
		code = KILN_EXIT_FAIL;
done:
	if (rows)
		free_comms(comms, nrows / (r->nev ? r->nev : 1));
	free(rows);
	free(sum);
	free(sum2);
	return code;
}

static void thousands_sep(struct stat_run *r, char *out, size_t len)
{
	out[0] = '\0';
	if (r->so.fmt != STAT_TEXT)
		return;
	/* perf prints counts with the locale's digit groups (LC_NUMERIC) */
	if (setlocale(LC_NUMERIC, "")) {
		const struct lconv *lc = localeconv();
		if (lc && lc->thousands_sep)
			snprintf(out, len, "%s", lc->thousands_sep);
		setlocale(LC_NUMERIC, "C");
	}
}

int cmd_stat(int argc, char **argv, const struct kiln_env *env)
{
	struct stat_cli sc = { .big_num = true };
	struct stat_run r = { .sfd = -1 };
	struct opts_parser p;
	int code;
	(void)env;
	int first = cli_parse(&p, &stat_cmd, argc, argv, &sc, &code);
	if (first < 0)
		goto out;
	int bad = setup(&r, &sc, &p, first < argc ? argv + first : NULL);
	if (bad) {
		code = bad == -2 ? KILN_EXIT_FAIL : cli_usage_error(&p);
		goto out;
	}
	if ((code = parse_events(&r, &sc)))
		goto out;
	r.user_names = xcalloc(r.nev ? r.nev : 1, sizeof(char *));
	for (size_t i = 0; i < r.nev; i++)
		r.user_names[i] = xasprintf("%s:u", r.evs[i].name);
	char sepbuf[16] = "";
	if (sc.big_num)
		thousands_sep(&r, sepbuf, sizeof(sepbuf));
	r.so.thousands = sepbuf;
	buf_init(&r.out, (size_t)1 << 30);
	if (sc.output) {
		r.to_file = true;
		int err = 0;
		if (sc.append) {
			r.append = fopen(sc.output, "ae");
			if (!r.append)
				err = err_set(-errno, "%s: %s", sc.output, strerror(errno));
		} else {
			err = ofile_open(&r.of, sc.output);
		}
		if (err) {
			cli_error_last(NULL);
			code = KILN_EXIT_FAIL;
			buf_release(&r.out);
			goto out;
		}
	}
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	r.sfd = signalfd(-1, &set, SFD_CLOEXEC);
	code = run_all(&r, &sc);
	close(r.sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (r.append) {
		if (fclose(r.append) != 0 && code == KILN_EXIT_OK)
			code = KILN_EXIT_FAIL;
	} else if (r.to_file) {
		if (ofile_close(&r.of, code == KILN_EXIT_FAIL ? -EIO : 0)) {
			cli_error_last(NULL);
			code = KILN_EXIT_FAIL;
		}
	}
	buf_release(&r.out);
out:
	if (r.user_names)
		for (size_t i = 0; i < r.nev; i++)
			free(r.user_names[i]);
	free(r.user_names);
	evcat_events_free(r.evs, r.nev);
	free(r.cpus);
	free(r.tids);
	for (size_t i = 0; i < sc.nevents; i++)
		free(sc.events[i]);
	free(sc.events);
	free(sc.filters);
	return code;
}
