/*
 * record: live → perf.data (pipeline, L8). See record.h for the session's
 * shape; the event loop is poll() over the ring buffers plus a signalfd
 * for SIGINT/SIGTERM/SIGHUP/SIGCHLD.
 */
#include "pipeline/record.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "pipeline/buildids.h"
#include "pipeline/nscache.h"
#include "source/live/evspec.h"
#include "source/live/live.h"
#include "source/live/tracedata.h"
#include "source/perffile/perffile.h"

struct sink {
	struct perf_writer *w;
	struct record_result *res;
	struct nscache *ns;
	struct buildids *bi;
	int err;
};

static int on_record(void *arg, const void *rec, size_t len)
{
	struct sink *s = arg;
	struct perf_event_header h;
	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_MMAP2) {
		nscache_record(s->ns, rec, len);
		buildids_record(s->bi, rec, len);
	}
	if (h.type == PERF_RECORD_SAMPLE) {
		s->res->samples++;
	} else if (h.type == PERF_RECORD_LOST && len >= 24) {
		uint64_t lost;
		memcpy(&lost, (const uint8_t *)rec + 16, 8);
		s->res->lost += lost;
	} else if (h.type == PERF_RECORD_LOST_SAMPLES && len >= 16) {
		uint64_t lost;
		memcpy(&lost, (const uint8_t *)rec + 8, 8);
		s->res->lost_samples += lost;
	}
	int err = perf_writer_write(s->w, rec, len);
	if (err) {
		s->err = err;
		return err;
	}
	return 0;
}

/* One integer from a sysctl file, or 'dflt' if it cannot be read. */
static long read_sysctl(const char *path, long dflt)
{
	FILE *f = fopen(path, "re");
	long v = dflt;
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

int record_read_paranoid(void)
{
	return (int)read_sysctl("/proc/sys/kernel/perf_event_paranoid", -100);
}

static unsigned max_sample_rate(void)
{
	long v = read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate", 100000);
	return v > 0 ? (unsigned)v : 100000;
}

static unsigned default_pages(void)
{
	if (geteuid() == 0)
		return 128; /* 512 KiB per CPU with 4 KiB pages */
	/* Unprivileged buffers share kernel.perf_event_mlock_kb (516 KiB by default). */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long psz = sysconf(_SC_PAGESIZE);
	long kb = read_sysctl("/proc/sys/kernel/perf_event_mlock_kb", 516);
	long pages = kb * 1024 / psz / (ncpu > 0 ? ncpu : 1) - 1;
	unsigned p = 1;
	while ((long)p * 2 <= pages && p < 128)
		p *= 2;
	return p;
}

static void build_attrs(const struct record_opts *o, struct perf_event_attr *attrs, size_t n,
			unsigned freq)
{
	for (size_t i = 0; i < n; i++) {
		struct perf_event_attr *a = &attrs[i];
		a->size = sizeof(*a);
		a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_PERIOD;
		if (o->callgraph)
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		if (o->dwarf) {
			/* As perf: kernel callchain, user regs and stack; the user part is
			 * unwound later from the copy. */
			a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
					  PERF_SAMPLE_STACK_USER;
			a->exclude_callchain_user = 1;
			a->sample_regs_user = RECORD_DWARF_REGS;
			a->sample_stack_user = o->stack_size ? o->stack_size : RECORD_DWARF_STACK;
			a->mmap_data = i == 0; /* perf's unwinder wants data maps ([stack]) */
		}
		if (o->system_wide)
			a->sample_type |= PERF_SAMPLE_CPU;
		if (n > 1)
			a->sample_type |= PERF_SAMPLE_IDENTIFIER;
		if (a->type == PERF_TYPE_TRACEPOINT) {
			/* As perf: every hit, with its payload and CPU. */
			a->sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_CPU;
			a->sample_period = o->period ? o->period : 1;
		} else if (o->period) {
			a->sample_period = o->period;
		} else {
			a->freq = 1;
			a->sample_freq = freq;
		}
		a->disabled = 1;
		a->inherit = 1;
		a->enable_on_exec = o->argv && !o->system_wide && !o->npids;
		a->sample_id_all = 1;
		a->exclude_guest = 1;
		if (i == 0) {
			a->mmap = 1;
			a->mmap2 = 1;
			a->comm = 1;
			a->comm_exec = 1;
			a->task = 1;
		}
	}
}

static void fill_info(const struct record_opts *o, struct perf_header_info *h)
{
	struct utsname u;
	memset(h, 0, sizeof(*h));
	if (uname(&u) == 0) {
		h->hostname = xstrdup(u.nodename);
		h->osrelease = xstrdup(u.release);
		h->arch = xstrdup(u.machine);
	}
	h->version = xstrdup("kiln " KILN_VERSION);
	h->nr_cpus_avail = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	h->nr_cpus_online = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	if (pages > 0 && psz > 0)
		h->total_mem_kb = (uint64_t)pages * (uint64_t)psz / 1024;
	if (o->cmdline_n > 0) {
		XALLOC_ARRAY(h->cmdline, (size_t)o->cmdline_n);
		char exe[4096];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		h->cmdline[0] = xstrdup(n > 0 ? exe : o->cmdline[0]);
		for (int i = 1; i < o->cmdline_n; i++)
			h->cmdline[i] = xstrdup(o->cmdline[i]);
		h->cmdline_n = (size_t)o->cmdline_n;
	}
}

static bool is_missing_pmu(int e)
{
	return e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == ENXIO;
}

/* Open the events, falling back as perf does: no PMU → cpu-clock;
 * kernel sampling refused (paranoid ≥ 2) → user-only. */
static int open_events(const struct record_opts *o, struct perf_event_attr *attrs, char **names,
		       size_t n, const pid_t *tids, size_t ntids, unsigned pages,
		       struct record_result *res, struct live **out)
{
	struct live_opts lo = { .attrs = attrs, .nattrs = n, .tids = tids, .ntids = ntids,
				.system_wide = o->system_wide, .mmap_pages = pages };
	for (int attempt = 0; attempt < 4; attempt++) {
		size_t bad = 0;
		int err = live_open(out, &lo, &bad);
		if (!err)
			return 0;
		res->open_errno = -err;
		struct perf_event_attr *a = &attrs[bad];
		if (o->nevents == 0 && a->type == PERF_TYPE_HARDWARE && is_missing_pmu(-err)) {
			a->type = PERF_TYPE_SOFTWARE;
			a->config = PERF_COUNT_SW_CPU_CLOCK;
			free(names[bad]);
			names[bad] = xstrdup("cpu-clock");
			res->event_fallback = true;
			continue;
		}
		if ((err == -EACCES || err == -EPERM) && !a->exclude_kernel && !o->system_wide &&
		    res->paranoid > 1) {
			for (size_t i = 0; i < n; i++) {
				attrs[i].exclude_kernel = 1;
				attrs[i].exclude_hv = 1;
				char *nm = xasprintf("%s%s", names[i], strchr(names[i], ':') ? "" : ":u");
				free(names[i]);
				names[i] = nm;
			}
			res->kernel_excluded = true;
			continue;
		}
		return err;
	}
	return -EACCES;
}

int record_run(const struct record_opts *o, struct record_result *res)
{
	memset(res, 0, sizeof(*res));
	res->paranoid = record_read_paranoid();
	size_t n = o->nevents ? o->nevents : 1;
	struct perf_event_attr *attrs;
	char **names;
	XALLOC_ARRAY(attrs, n);
	XALLOC_ARRAY(names, n);
	struct live *live = NULL;
	struct perf_writer *w = NULL;
	struct live_workload wl = { .pid = 0, .go_fd = -1, .err_fd = -1 };
	pid_t *tids = NULL;
	size_t ntids = 0;
	uint8_t *tracing_data = NULL;
	size_t tracing_data_len = 0;
	int sfd = -1, err = 0;
	sigset_t mask, oldmask;
	struct nscache ns; /* containerised binaries kept while reachable */
	nscache_init(&ns, o->env ? o->env->home : NULL);
	struct buildids bi; /* the build-id table */
	buildids_init(&bi);

	/* Signals arrive through a signalfd so the loop never races them. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &oldmask);

	for (size_t i = 0; i < n; i++) {
		if (o->nevents) {
			err = evspec_parse(o->events[i], &attrs[i], &names[i]);
			if (err)
				goto out;
		} else {
			attrs[i].type = PERF_TYPE_HARDWARE;
			attrs[i].config = PERF_COUNT_HW_CPU_CYCLES;
			names[i] = xstrdup("cycles");
		}
	}
	unsigned freq = o->freq ? o->freq : RECORD_DEFAULT_FREQ;
	unsigned maxrate = max_sample_rate();
	if (!o->period && freq > maxrate) {
		log_warn("-F %u is above kernel.perf_event_max_sample_rate; using %u", freq, maxrate);
		freq = maxrate;
	}
	build_attrs(o, attrs, n, freq);
	/* Tracepoint formats, so perf.data readers can print the payloads. */
	err = live_tracing_data(attrs, n, &tracing_data, &tracing_data_len);
	if (err)
		goto out;

	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN); /* past ulimit -f: get EFBIG and stop cleanly, not die */
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		err = err_set(-errno, "signalfd: %s", strerror(errno));
		goto out;
	}

	/* Targets. */
	bool profile_child = o->argv && !o->system_wide && !o->npids;
	if (profile_child) {
		err = live_workload_prepare(&wl, o->argv);
		if (err) {
			err_set(err, "cannot start '%s': %s", o->argv[0], strerror(-err));
			goto out;
		}
		XALLOC_ARRAY(tids, 1);
		tids[0] = wl.pid;
		ntids = 1;
	} else if (o->npids) {
		for (size_t i = 0; i < o->npids; i++) {
			pid_t *t;
			size_t nt;
			if (live_list_threads(o->pids[i], &t, &nt)) {
				err = err_set(-ESRCH, "no such process: %d", (int)o->pids[i]);
				goto out;
			}
			XREALLOC_ARRAY(tids, ntids + nt);
			memcpy(tids + ntids, t, nt * sizeof(*t));
			ntids += nt;
			free(t);
		}
	}

	err = open_events(o, attrs, names, n, tids, ntids, o->mmap_pages ? o->mmap_pages : default_pages(),
			  res, &live);
	if (err) {
		if (err_last()->msg[0] == '\0')
			err_set(err, "perf_event_open failed: %s", strerror(-err));
		goto out;
	}

	err = perf_writer_open(&w, o->output);
	if (err)
		goto out;
	for (size_t i = 0; i < n; i++) {
		size_t nids;
		const uint64_t *ids = live_ids(live, i, &nids);
		perf_writer_add_attr(w, &attrs[i], names[i], ids, nids);
	}
	size_t nid0;
	const uint64_t *ids0 = live_ids(live, 0, &nid0);
	uint64_t id0 = nid0 ? ids0[0] : 0;

	struct sink sink = { .w = w, .res = res, .ns = &ns, .bi = &bi };
	err = live_synth_kernel(&attrs[0], id0, on_record, &sink);
	if (!err && o->system_wide)
		err = live_synth_all(&attrs[0], id0, on_record, &sink);
	for (size_t i = 0; !err && !o->system_wide && i < o->npids; i++)
		err = live_synth_process(o->pids[i], &attrs[0], id0, on_record, &sink);
	if (!err) {
		struct perf_event_header fi = { .type = 82 /* FINISHED_INIT */, .size = 8 };
		err = perf_writer_write(w, &fi, sizeof(fi));
	}
	if (err)
		goto out;

	/* Go. */
	if (!profile_child && (err = live_enable(live))) {
		err_set(err, "cannot enable events: %s", strerror(-err));
		goto out;
	}
	if (o->argv && !profile_child) {
		err = live_workload_prepare(&wl, o->argv);
		if (err) {
			err_set(err, "cannot start '%s': %s", o->argv[0], strerror(-err));
			goto out;
		}
	}
	if (o->argv) {
		res->workload = true;
		int e = live_workload_start(&wl);
		if (e) {
			res->exec_errno = -e;
			waitpid(wl.pid, NULL, 0);
			wl.pid = 0;
			err = err_set(e, "cannot run '%s': %s", o->argv[0], strerror(-e));
			goto out;
		}
	}

	size_t nfds = live_ncpus(live) + 1;
	struct pollfd *pfd;
	int *rfds;
	XALLOC_ARRAY(pfd, nfds);
	XALLOC_ARRAY(rfds, nfds);
	size_t nr = live_pollfds(live, rfds, nfds - 1);
	bool stop = false;
	while (!stop) {
		for (size_t i = 0; i < nr; i++)
			pfd[i] = (struct pollfd){ .fd = rfds[i], .events = POLLIN };
		pfd[nr] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		int pr = poll(pfd, nr + 1, 100);
		uint64_t bytes = 0;
		if (live_drain(live, on_record, &sink, &bytes) || sink.err)
			break;
		res->bytes += bytes;
		if (bytes) {
			struct perf_event_header fr = { .type = 68 /* FINISHED_ROUND */, .size = 8 };
			if ((sink.err = perf_writer_write(w, &fr, sizeof(fr))))
				break;
		}
		struct signalfd_siginfo si;
		while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			if (si.ssi_signo == SIGCHLD) {
				int st;
				if (wl.pid > 0 && waitpid(wl.pid, &st, WNOHANG) == wl.pid) {
					res->workload_status = st;
					wl.pid = 0;
					stop = true;
				}
			} else {
				res->signal = (int)si.ssi_signo;
				stop = true;
			}
		}
		/* -p without a command: stop when every target thread is gone. */
		if (pr > 0 && !o->argv && o->npids) {
			size_t hup = 0;
			for (size_t i = 0; i < nr; i++)
				if (pfd[i].revents & POLLHUP)
					hup++;
			if (hup == nr)
				stop = true;
		}
		if (!o->argv && o->npids) {
			bool alive = false;
			for (size_t i = 0; i < o->npids; i++)
				if (kill(o->pids[i], 0) == 0 || errno == EPERM)
					alive = true;
			if (!alive)
				stop = true;
		}
	}
	free(pfd);
	free(rfds);

	/* Finish: stop sampling, drain what is left, write the header. */
	live_disable(live);
	uint64_t bytes = 0;
	if (!sink.err && !live_drain(live, on_record, &sink, &bytes) && bytes) {
		struct perf_event_header fr = { .type = 68, .size = 8 };
		sink.err = perf_writer_write(w, &fr, sizeof(fr));
	}
	res->bytes += bytes;
	if (wl.pid > 0) { /* we were interrupted while the command still runs */
		kill(wl.pid, SIGTERM);
		int st;
		if (waitpid(wl.pid, &st, 0) == wl.pid)
			res->workload_status = st;
		wl.pid = 0;
	}
	if (sink.err) {
		/* Disk full or file size limit: keep the records that made it. */
		uint64_t kept = 0;
		int serr = perf_writer_salvage(w, &kept);
		w = NULL;
		res->salvaged = serr == 0;
		res->salvaged_bytes = kept;
		err = err_set(sink.err, "cannot write '%s': %s", o->output, strerror(-sink.err));
		goto out;
	}
	struct perf_header_info info;
	fill_info(o, &info);
	buildids_take(&bi, &info);
	nscache_take(&ns, &info);
	info.tracing_data = tracing_data; /* the info owns it now */
	info.tracing_data_len = tracing_data_len;
	tracing_data = NULL;
	uint64_t kept;
	err = perf_writer_finish(w, &info, &kept);
	w = NULL;
	perf_header_info_release(&info);
	if (err && kept != UINT64_MAX) {
		res->salvaged = true;
		res->salvaged_bytes = kept;
	}

out:
	nscache_release(&ns);
	buildids_release(&bi);
	if (w)
		perf_writer_abort(w);
	if (wl.pid > 0)
		live_workload_cancel(&wl);
	live_close(live);
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(attrs);
	free(tids);
	free(tracing_data);
	return err;
}
