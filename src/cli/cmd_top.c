/*
 * cmd_top: `kiln top` (cli, L9): the hottest code of the machine (or of
 * -p/-t/-u targets, or of a command), live, as perf top shows it. The
 * session is pipeline/top (record's sampling on a thread of its own,
 * report's entries with perf top's decay); this file holds the options,
 * the --stdio tables and the exit status; cli/top_tui.c the browser.
 */
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/record_cli.h"
#include "cli/top_tui.h"
#include "output/report_text.h"
#include "pipeline/top.h"
#include "source/live/live.h"

#define TOP_DEFAULT_DELAY 2.0
#define TOP_DASHES 79

struct top_args {
	struct record_cli rc;
	const char *output, *sort, *tids, *user, *cpus;
	double delay, percent_limit;
	unsigned long long entries;
	bool stdio, tui, hide_kernel, hide_user, zero, nr_samples;
	int children; /* -1: with -g */
	/* worked out */
	pid_t *tid_list;
	size_t ntids;
	int *cpu_list;
	size_t ncpus;
	pid_t *user_pids;
	size_t nuser;
	uid_t uid;
};

#define TA_OFF(field) offsetof(struct top_args, field)

static int opt_children(struct opts_parser *p, const struct opt *opt, const char *arg,
			void *field)
{
	(void)p, (void)opt;
	*(int *)field = arg ? 1 : 0;
	return 0;
}

static const struct opt top_opts[] = {
	OPT_INCLUDE(record_cli_sampling_opts, TA_OFF(rc)),
	OPT_STRING('t', "tid", TA_OFF(tids), "TID[,TID]",
		   "sample these threads only (not the threads they start)"),
	OPT_STRING('u', "uid", TA_OFF(user), "USER",
		   "sample the processes of this user (a name or a number), as they are at the "
		   "start"),
	OPT_STRING('C', "cpu", TA_OFF(cpus), "CPUS",
		   "sample only on these CPUs (as 0-3,5)"),
	OPT_BOOL('K', "hide_kernel_symbols", TA_OFF(hide_kernel),
		 "leave kernel samples out of the entries (the header still counts them)"),
	OPT_BOOL('U', "hide_user_symbols", TA_OFF(hide_user),
		 "leave user samples out of the entries"),
	OPT_DOUBLE('d', "delay", TA_OFF(delay), "SECS",
		   "refresh every SECS seconds (default 2)"),
	OPT_BOOL('z', "zero", TA_OFF(zero),
		 "show each period's samples alone (default: perf top's decay, the counts shown "
		 "scaled by 7/8 at each refresh, entries dropped once they decay to nothing)"),
	OPT_STRING('s', "sort", TA_OFF(sort), "KEYS",
		   "sort and group by these keys: comm, pid, dso, sym, cpu (default dso,sym)"),
	OPT_U64('E', "entries", TA_OFF(entries), "N",
		"show at most N entries (default: what the terminal holds; 18 when not a "
		"terminal)"),
	OPT_DOUBLE(0, "percent-limit", TA_OFF(percent_limit), "PCT",
		   "leave out entries below PCT percent"),
	OPT_BOOL('n', "show-nr-samples", TA_OFF(nr_samples), "add the Samples column (--stdio)"),
	{ .kind = OPT_KIND_CALLBACK, .long_name = "children", .offset = TA_OFF(children),
	  .help = "add callees' samples to their callers (Children column; the default with -g)",
	  .cb = opt_children, .flags = OPT_NOARG | OPT_NEG_CB },
	OPT_FILENAME('o', "output", TA_OFF(output), "FILE",
		     "also write everything sampled to FILE, a perf.data that kiln and perf read "
		     "(finished when top ends)"),
	OPT_BOOL(0, "stdio", TA_OFF(stdio),
		 "print a table at each refresh (the default when standard output is not a "
		 "terminal: no screen clearing then, one table after another)"),
	OPT_BOOL(0, "tui", TA_OFF(tui),
		 "the terminal browser (the default when standard input and output are a "
		 "terminal)"),
	OPT_END(),
};

const struct opts_cmd top_cmd = {
	.name = "top",
	.summary = "Show the hottest code of the machine (or of processes), live",
	.synopsis = "[options] [-- command [args...]]",
	.description =
		"Sample every CPU (by default), processes (-p), threads (-t), a user's\n"
		"processes (-u) or a command, and show the hottest entries (by default\n"
		"shared object and symbol), refreshed every -d seconds, as perf top does:\n"
		"a header line with the samples per second, the kernel's share, lost\n"
		"(ring buffer full) and dropped (kiln behind) samples, the event and the\n"
		"scope; then the entries, hottest first. Counts decay by 7/8 at each\n"
		"refresh (perf top's rule), or are zeroed with -z.\n"
		"\n"
		"On a terminal the entries open in the browser of kiln report: Enter\n"
		"unfolds an entry's callchain (-g), '/' filters by symbol, 'a' annotates\n"
		"the selected symbol live, 'h' lists the keys, 'q' quits. --stdio prints\n"
		"a table per refresh instead (the default when standard output is not a\n"
		"terminal).\n"
		"\n"
		"Samples are resolved as they arrive, on a thread apart from the one\n"
		"that drains the ring buffers, so processes that exit, exec or map\n"
		"libraries between refreshes keep their names, and reading a new\n"
		"binary's symbols never stalls sampling.\n",
	.opts = top_opts,
	.notes =
		"Top ends at q, Ctrl-C, SIGTERM or SIGHUP (the terminal is restored), when\n"
		"the -p/-t targets or the command exit. With -o the perf.data is finished\n"
		"first. No hardware PMU: cpu-clock is sampled instead (said once). Exit\n"
		"status: 0; 1 if sampling could not start (with perf_event_paranoid's\n"
		"hint); 2 usage; 128+N when signal N ended it; a command's own status.\n",
	.examples = "kiln top                              # the whole machine, in the browser\n"
		    "kiln top -g -p 1234                   # one process, with callchains\n"
		    "kiln top --stdio -d 1 -E 10 > top.log # a table per second\n"
		    "kiln top -z -s comm,dso -K            # per period, user space only\n"
		    "kiln top -a -o incident.data          # keep what was shown\n",
	.flags = OPTS_STOP_AT_ARG,
};

/* A comma-separated list of positive numbers. 0 or -1 (p->err set). */
static int parse_ids(struct opts_parser *p, const char *what, const char *list, pid_t **out,
		     size_t *n)
{
	const char *s = list;
	while (*s) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(s, &end, 10);
		if (end == s || errno || v == 0 || v > 0x7fffffff || (*end && *end != ','))
			return opts_error(p, "%s takes ids (as 12,34), not '%s'", what, list);
		XREALLOC_ARRAY(*out, *n + 1);
		(*out)[(*n)++] = (pid_t)v;
		s = *end ? end + 1 : end;
	}
	if (!*n)
		return opts_error(p, "%s takes ids (as 12,34), not '%s'", what, list);
	return 0;
}

/* -s: the sort keys into 'h'. */
static int sort_keys(struct opts_parser *p, const char *list, struct hist_opts *h)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *save = NULL, *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		int key = hist_sort_parse(!strcmp(k, "symbol") ? "sym" : k);
		if (key < 0 || h->nkeys == HIST_MAX_KEYS)
			return opts_error(p, "unknown sort key '%s' (comm, pid, dso, sym, cpu)", k);
		h->keys[h->nkeys++] = (enum hist_sort)key;
	}
	if (!h->nkeys)
		return opts_error(p, "no sort key in '%s'", list);
	return 0;
}

/* -u: a user name or number -> uid and its processes. */
static int user_targets(struct opts_parser *p, struct top_args *a)
{
	char *end;
	unsigned long v = strtoul(a->user, &end, 10);
	if (*a->user && !*end) {
		a->uid = (uid_t)v;
	} else {
		struct passwd *pw = getpwnam(a->user);
		if (!pw)
			return opts_error(p, "-u: no such user: '%s'", a->user);
		a->uid = pw->pw_uid;
	}
	if (live_user_pids(a->uid, &a->user_pids, &a->nuser) || !a->nuser)
		return opts_error(p, "-u: user '%s' has no processes", a->user);
	return 0;
}

/* The options' combination and the scope. 0 or -1 (p->err set). */
static int finish_args(struct opts_parser *p, struct top_args *a, int first, int argc)
{
	struct record_opts *o = &a->rc.o;
	if (record_cli_finish(&a->rc, p))
		return -1;
	if (a->rc.x.nprobes) /* record makes and removes them around its file */
		return opts_error(p, "--probe is record's: make the probe with kiln probe, then "
				     "kiln top -e its event");
	if (a->tids && parse_ids(p, "-t", a->tids, &a->tid_list, &a->ntids))
		return -1;
	if (a->user && user_targets(p, a))
		return -1;
	if (a->cpus && live_parse_cpus(a->cpus, &a->cpu_list, &a->ncpus))
		return opts_error(p, "%s", err_last()->msg);
	int scopes = (o->npids > 0) + (a->ntids > 0) + (a->nuser > 0) + (first < argc);
	if (scopes > 1)
		return opts_error(p, "-p, -t, -u and a command exclude each other");
	if (scopes && o->system_wide)
		return opts_error(p, "-a samples every process: not with -p, -t, -u or a command");
	if (a->delay < 0 || a->delay > 3600)
		return opts_error(p, "-d takes seconds (0.1 to 3600)");
	if (a->delay == 0)
		a->delay = TOP_DEFAULT_DELAY;
	if (a->delay < 0.1)
		a->delay = 0.1;
	if (a->stdio && a->tui)
		return opts_error(p, "--stdio and --tui exclude each other");
	if (a->hide_kernel && a->hide_user)
		return opts_error(p, "-K and -U together leave nothing to show");
	if (a->percent_limit < 0 || a->percent_limit > 100)
		return opts_error(p, "--percent-limit is a percentage");
	if (!scopes)
		o->system_wide = true; /* perf top's default */
	if (a->nuser) {
		o->pids = a->user_pids;
		o->npids = a->nuser;
	}
	o->tids = a->tid_list;
	o->ntids = a->ntids;
	o->cpus = a->cpu_list;
	o->ncpus = a->ncpus;
	o->output = a->output;
	return 0;
}

/* ---- the header and the --stdio table ---- */

struct view {
	const struct top_args *a;
	struct top *t;
};

/* perf top's header line. */
static void header(void *arg, const struct top_stats *st, struct buf *out)
{
	const struct view *v = arg;
	const struct top_args *a = v->a;
	/* the rate of sampling (what the rings gave in the period), not of
	 * resolving, which lags after a burst or a slow start */
	double rate = st->secs > 0 ? (double)st->taken / st->secs : 0;
	double kpct = st->samples ? 100.0 * (double)st->kernel / (double)st->samples : 0;
	double epct = st->samples ? 100.0 * (double)st->exact / (double)st->samples : 0;
	buf_addf(out,
		 "   PerfTop:%8.0f irqs/sec  kernel:%4.1f%%  exact: %4.1f%% lost: %" PRIu64
		 "/%" PRIu64 " drop: %" PRIu64 "/%" PRIu64 " [",
		 rate, kpct, epct, st->lost, st->lost_total, st->drop, st->drop_total);
	unsigned freq = top_freq(v->t);
	if (freq)
		buf_addf(out, "%uHz ", freq);
	else if (a->rc.o.period)
		buf_addf(out, "%" PRIu64 " ", a->rc.o.period);
	/* perf top's default event keeps its precise modifier through the
	 * fallback to cpu-clock: "cpu-clock:ppp" */
	const char *ev = top_event(v->t);
	buf_addf(out, "%s%s],  ", ev, !a->rc.x.nevents && strcmp(ev, "cycles") ? ":ppp" : "");
	if (a->rc.x.npids) {
		buf_addstr(out, "(target_pid: ");
		for (size_t i = 0; i < a->rc.x.npids; i++)
			buf_addf(out, "%s%d", i ? "," : "", (int)a->rc.x.pids[i]);
	} else if (a->ntids) {
		buf_addf(out, "(target_tid: %s", a->tids);
	} else if (a->nuser) {
		buf_addf(out, "(uid: %s", a->user);
	} else if (a->rc.o.argv) {
		buf_addf(out, "(command: %s", a->rc.o.argv[0]);
	} else {
		buf_addstr(out, "(all");
	}
	unsigned n = top_ncpus(v->t);
	if (a->cpus)
		buf_addf(out, ", CPU%s: %s)", n > 1 ? "s" : "", a->cpus);
	else if (a->ntids)
		buf_addstr(out, ")");
	else
		buf_addf(out, ", %u CPU%s)", n, n > 1 ? "s" : "");
	if (st->offline[0])
		buf_addf(out, "  [offline: CPU %s]", st->offline);
}

/* Said once per change: a sampled CPU went offline, or came back. */
static void cpus_changed(void *arg, const struct top_stats *st)
{
	(void)arg;
	if (st->went_offline[0])
		cli_err("warning: CPU %s went offline: the kernel dropped its events, no samples "
			"from it from now on\n", st->went_offline);
	if (st->came_back[0])
		cli_err("note: CPU %s is online again; kiln top samples it again when restarted\n",
			st->came_back);
}

static void print_table(const struct view *v, const struct top_stats *st,
			const struct report_text_opts *text, bool tty, size_t entries)
{
	struct buf b;
	buf_init(&b, 4096);
	header((void *)v, st, &b);
	if (tty)
		fputs("\033[H\033[2J", stdout);
	fputs(buf_str(&b), stdout);
	fputc('\n', stdout);
	for (int i = 0; i < TOP_DASHES; i++)
		fputc('-', stdout);
	fputs("\n\n", stdout);
	const struct hist *h = top_hist(v->t);
	if (h)
		report_text_rows(stdout, text, h, entries);
	if (!tty)
		fputc('\n', stdout); /* a blank line ends each table */
	fflush(stdout);
	buf_release(&b);
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* --stdio: a table every -d seconds until sampling ends. */
static void stdio_loop(const struct view *v, const struct report_text_opts *text,
		       size_t entries)
{
	bool tty = isatty(STDOUT_FILENO);
	long period = (long)(v->a->delay * 1000);
	long next = now_ms() + period;
	for (;;) {
		long left = next - now_ms();
		bool done = top_poll(v->t, left < 100 ? (left > 0 ? (int)left : 0) : 100);
		if (done)
			break;
		if (now_ms() < next)
			continue;
		next += period;
		if (next < now_ms())
			next = now_ms() + period;
		struct top_stats st;
		top_refresh(v->t, &st);
		cpus_changed(NULL, &st);
		print_table(v, &st, text, tty, entries);
		if (ferror(stdout))
			break; /* a closed pipe: stop */
	}
}

static size_t default_entries(bool tty)
{
	struct winsize ws;
	if (tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 8)
		return (size_t)ws.ws_row - 6;
	return 18;
}

static int run(struct top_args *a, const struct kiln_env *env)
{
	struct top_opts to = { .rec = a->rc.o, .hide_kernel = a->hide_kernel,
			       .hide_user = a->hide_user, .zero = a->zero };
	struct report_load_opts *l = &to.load;
	l->env = env;
	l->hist.keys[0] = HIST_DSO;
	l->hist.keys[1] = HIST_SYM;
	l->hist.nkeys = 2;
	if (a->sort) {
		l->hist.nkeys = 0;
		struct opts_parser p = { .cmd = &top_cmd };
		if (sort_keys(&p, a->sort, &l->hist))
			return cli_usage_error(&p);
	}
	bool chains = a->rc.o.callgraph;
	l->want_chains = chains;
	l->children_auto = false;
	l->hist.children = a->children < 0 ? chains : a->children > 0;
	l->order_auto = true;
	struct report_text_opts text = { .graph = chains ? REPORT_GRAPH_ABS : REPORT_GRAPH_NONE,
					 .threshold = 0.5, .percent_limit = a->percent_limit,
					 .nr_samples = a->nr_samples };
	text.skip_first_sym = a->sort && !strncmp(a->sort, "sym", 3);
	bool use_tui = !a->stdio && (a->tui || (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)));

	sigset_t old;
	cli_block_stops(&old);
	err_clear();
	struct top *t;
	struct record_result res;
	int err = top_start(&t, &to, &res);
	if (err) {
		int code = record_cli_failed(&a->rc.o, &res, err);
		top_free(t);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return code;
	}
	if (!a->rc.x.nevents && strcmp(top_event(t), "cycles"))
		cli_err("warning: no hardware PMU: sampling %s instead of cycles\n", top_event(t));
	struct view v = { .a = a, .t = t };
	size_t entries = a->entries ? (size_t)a->entries : default_entries(!use_tui && isatty(1));
	int tui_err = -1;
	if (use_tui) {
		struct top_tui tt = { .t = t, .delay_ms = (int)(a->delay * 1000), .threshold = 0.5,
				      .percent_limit = a->percent_limit, .term = env->term,
				      .header = header, .refreshed = cpus_changed, .arg = &v };
		tui_err = top_tui_run(&tt);
		if (tui_err)
			cli_err("note: kiln top: the terminal (TERM=%s) cannot show the browser; "
				"printing tables\n", env->term ? env->term : "");
	}
	if (tui_err)
		stdio_loop(&v, &text, entries);
	err = top_stop(t, &res);
	int code = KILN_EXIT_OK;
	if (err) {
		cli_error_last(NULL);
		code = KILN_EXIT_FAIL;
	} else {
		if (res.lost)
			cli_err("warning: lost %llu samples (the ring buffer was full; try a larger "
				"-m or a lower -F)\n", (unsigned long long)res.lost);
		if (a->output)
			cli_err("[ kiln top: wrote %llu samples to %s ]\n",
				(unsigned long long)res.samples, a->output);
		if (res.workload)
			code = cli_status_code(res.workload_status);
	}
	top_free(t);
	if (!err && res.signal)
		code = cli_die_of(res.signal);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return code;
}

int cmd_top(int argc, char **argv, const struct kiln_env *env)
{
	struct top_args a = { .rc = { .o = { .env = env } }, .children = -1 };
	a.rc.o.cmdline = argv - 1;
	a.rc.o.cmdline_n = argc + 1;
	struct opts_parser p;
	int code;
	int first = cli_parse(&p, &top_cmd, argc, argv, &a, &code);
	if (first >= 0) {
		if (finish_args(&p, &a, first, argc)) {
			code = cli_usage_error(&p);
		} else {
			if (first < argc)
				a.rc.o.argv = argv + first;
			code = run(&a, env);
		}
	}
	record_cli_extra_release(&a.rc.x);
	free(a.tid_list);
	free(a.cpu_list);
	free(a.user_pids);
	return code;
}
