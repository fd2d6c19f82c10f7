/*
 * trace: the tracing session (trace, L7).
 *
 * Reads the syscall table, opens a source (BPF where built and allowed,
 * else the raw tracepoints, said once), starts the command held at a
 * pipe (source/live's workload), and loops: poll the source and a
 * signalfd, hand events to the core, until the command exits (its exit
 * status is kept), every -p target is gone, or SIGINT/SIGTERM/SIGHUP.
 * Then the last events are drained and the summaries printed: a command
 * that dies or ignores signals ends the trace with every event received.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "source/live/live.h"
#include "trace/trace_int.h"

struct session {
	const struct trace_opts *o;
	struct trace_result *res;
	struct tr_systab tab;
	struct tr_core core;
	struct tr_source *src;
	struct tr_cg cg;
	struct live_workload wl;
	pid_t *tids;
	size_t ntids;
	int sfd;
	sigset_t mask, oldmask;
};

static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = -100;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -100;
		fclose(f);
	}
	return v;
}

static int list_targets(struct session *s)
{
	const struct trace_opts *o = s->o;
	return live_append_threads(o->pids, o->npids, &s->tids, &s->ntids);
}

/* BPF first (strings at entry), else the raw tracepoints. */
static int open_source(struct session *s)
{
	const struct trace_opts *o = s->o;
	bool child = o->argv != NULL;
	struct tr_target t = { .system_wide = o->system_wide, .on_exec = child };
	pid_t one;
	if (child) {
		one = s->wl.pid;
		t.tids = &one;
		t.ntids = 1;
		t.pids = &one;
		t.npids = 1;
	} else {
		t.tids = s->tids;
		t.ntids = s->ntids;
		t.pids = o->pids;
		t.npids = o->npids;
	}
	unsigned pages = o->mmap_pages ? o->mmap_pages : (geteuid() == 0 ? 1024 : 16);
	/* Beside the BPF ring: the mappings (few records), or page faults. */
	unsigned side = o->faults ? pages : 64;
	if (!o->no_bpf) {
		int err = bpfsrc_open(&s->src, &s->core, &t, side);
		if (!err) {
			s->res->bpf = true;
			return 0;
		}
		if (o->callgraph)
			return err_set(err, "--call-graph needs kiln's BPF program: %s",
				       err_last()->msg);
		log_warn("kiln trace: %s; string arguments are shown as pointers",
			 err_last()->msg);
		err_clear();
	}
	int err = perfsrc_open(&s->src, &s->core, &t, pages);
	if (err) {
		s->res->open_errno = -err;
		if (err_last()->msg[0] == '\0')
			err_set(err, "perf_event_open (raw_syscalls): %s", strerror(-err));
	}
	return err;
}

static bool reap(struct session *s, int flags)
{
	struct live_stops st = { 0 };
	if (!live_workload_reap(&s->wl, flags, &st))
		return false;
	s->res->workload_status = st.status;
	return true;
}

static bool read_signals(struct session *s)
{
	struct live_stops st = { .status = s->res->workload_status, .signal = s->res->signal };
	bool stop = live_read_stops(s->sfd, &s->wl, &st);
	s->res->workload_status = st.status;
	s->res->signal = st.signal;
	return stop;
}

static bool targets_gone(const struct session *s)
{
	const struct trace_opts *o = s->o;
	if (o->argv || !o->npids)
		return false;
	for (size_t i = 0; i < o->npids; i++)
		if (kill(o->pids[i], 0) == 0 || errno == EPERM)
			return false;
	return true;
}

static int loop(struct session *s)
{
	int fds[1024];
	size_t nr = s->src->ops->pollfds(s->src, fds, 1023);
	struct pollfd pfd[1024];
	int err = 0;
	bool stop = false;
	while (!stop) {
		for (size_t i = 0; i < nr; i++)
			pfd[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		pfd[nr] = (struct pollfd){ .fd = s->sfd, .events = POLLIN };
		poll(pfd, nr + 1, 100);
		stop = read_signals(s);
		if (targets_gone(s))
			stop = true;
		if ((err = s->src->ops->drain(s->src)))
			break;
	}
	return err;
}

/* Tracing stopped while the command runs: SIGTERM, then SIGKILL after 2 s. */
static void end_workload(struct session *s)
{
	if (s->wl.pid <= 0)
		return;
	kill(s->wl.pid, SIGTERM);
	kill(s->wl.pid, SIGCONT);
	for (int i = 0; i < 20 && s->wl.pid > 0; i++) {
		struct pollfd p = { .fd = s->sfd, .events = POLLIN };
		poll(&p, 1, 100);
		read_signals(s);
		reap(s, WNOHANG);
	}
	if (s->wl.pid > 0) {
		kill(s->wl.pid, SIGKILL);
		reap(s, 0);
	}
}

static int run(struct session *s)
{
	const struct trace_opts *o = s->o;
	int err = systab_load(&s->tab, o->tracefs);
	if (err) {
		s->res->no_tracefs = true;
		return err;
	}
	if ((err = core_init(&s->core, o, s->res, &s->tab)))
		return err;
	if (o->callgraph || o->faults) {
		cg_init(&s->cg, o);
		s->core.cg = &s->cg;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_DFL);
	s->sfd = signalfd(-1, &s->mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->sfd < 0)
		return err_set(-errno, "signalfd: %s", strerror(errno));
	if (o->argv) {
		err = live_workload_prepare(&s->wl, o->argv);
		if (err)
			return err_set(err, "cannot start '%s': %s", o->argv[0], strerror(-err));
	} else if ((err = list_targets(s))) {
		return err;
	}
	if ((err = open_source(s)))
		return err;
	if (!o->argv && (err = s->src->ops->enable(s->src)))
		return err_set(err, "cannot enable events: %s", strerror(-err));
	if (o->argv) {
		s->res->workload = true;
		if (o->argv && s->res->bpf && (err = s->src->ops->enable(s->src)))
			return err_set(err, "cannot enable events: %s", strerror(-err));
		err = live_workload_start(&s->wl);
		if (err) {
			s->res->exec_errno = -err;
			waitpid(s->wl.pid, NULL, 0);
			s->wl.pid = 0;
			return err_set(err, "cannot run '%s': %s", o->argv[0], strerror(-err));
		}
	}
	err = loop(s);
	end_workload(s);
	s->src->ops->disable(s->src);
	int derr = s->src->ops->drain(s->src);
	if (!err)
		err = derr;
	s->res->lost = s->src->ops->lost(s->src);
	uint64_t side = s->core.cg ? s->core.cg->lost : 0;
	if (s->res->bpf && s->res->lost >= side)
		s->res->lost_bpf = s->res->lost - side;
	core_finish(&s->core);
	return err;
}

int trace_run(const struct trace_opts *o, struct trace_result *res)
{
	struct session s;
	memset(&s, 0, sizeof(s));
	memset(res, 0, sizeof(*res));
	s.o = o;
	s.res = res;
	s.sfd = -1;
	s.wl = (struct live_workload){ .pid = 0, .go_fd = -1, .err_fd = -1 };
	res->paranoid = read_paranoid();
	sigemptyset(&s.mask);
	sigaddset(&s.mask, SIGINT);
	sigaddset(&s.mask, SIGTERM);
	sigaddset(&s.mask, SIGHUP);
	sigaddset(&s.mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &s.mask, &s.oldmask);
	bool core = false;
	int err = run(&s);
	core = s.core.o != NULL;
	if (s.src)
		s.src->ops->close(s.src);
	if (s.wl.pid > 0)
		live_workload_cancel(&s.wl);
	if (core)
		core_release(&s.core);
	cg_release(&s.cg);
	systab_release(&s.tab);
	free(s.tids);
	if (s.sfd >= 0)
		close(s.sfd);
	/* Drop a pending SIGCHLD of ours before the caller's mask returns. */
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	struct timespec zero = { 0, 0 };
	while (sigtimedwait(&chld, NULL, &zero) > 0)
		;
	sigprocmask(SIG_SETMASK, &s.oldmask, NULL);
	return err;
}
