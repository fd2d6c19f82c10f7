/*
 * record: live → perf.data (pipeline, L8). See record.h for the session's
 * shape. record_run tells it in steps: set up the events and the signals,
 * set up the targets, open the events and their rings, open the output
 * (attrs, synthesized state), start, loop (poll over the rings plus a
 * signalfd for SIGINT/SIGTERM/SIGHUP/SIGCHLD, so the loop never races a
 * signal), finish the file, and end a command that is still running.
 */
#include "pipeline/record.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "pipeline/buildids.h"
#include "pipeline/nscache.h"
#include "source/live/evspec.h"
#include "source/live/ktext.h"
#include "source/live/live.h"
#include "source/live/offcpubpf.h"
#include "source/live/schedsw.h"
#include "source/live/tracedata.h"
#include "source/perffile/perffile.h"

struct sink {
	struct perf_writer *w;
	struct record_result *res;
	struct nscache *ns;
	struct buildids *bi;
	struct offcpu *oc; /* --off-cpu: takes the sched_switch records */
	const struct record_tap *tap;
	int err;
};

static int on_record(void *arg, const void *rec, size_t len)
{
	struct sink *s = arg;
	struct perf_event_header h;
	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_MMAP2 && s->w) { /* for the file's build-id table */
		nscache_record(s->ns, rec, len);
		buildids_record(s->bi, rec, len);
	}
	if (s->oc && offcpu_take(s->oc, rec, len))
		return 0; /* the off-CPU method's own: summed, not written */
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
	if (s->tap && s->tap->record) {
		int rc = s->tap->record(s->tap->arg, rec, len);
		if (rc) {
			s->err = rc < 0 ? rc : -ECANCELED;
			return s->err;
		}
	}
	int err = s->w ? perf_writer_write(s->w, rec, len) : 0;
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
		a->exclude_callchain_kernel = o->user_callchains;
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
		a->inherit = !o->ntids; /* -t: those threads only, as perf */
		a->enable_on_exec = o->argv && !o->system_wide && !o->npids && !o->ntids;
		a->sample_id_all = 1;
		a->exclude_guest = 1;
		if (i == 0) {
			a->mmap = 1;
			a->mmap2 = 1;
			a->comm = 1;
			a->comm_exec = 1;
			a->task = 1;
			a->ksymbol = 1; /* BPF programs loaded meanwhile: named, as perf names them */
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

/* The state of one recording, shared by its steps. */
struct session {
	const struct record_opts *o;
	struct record_result *res;
	size_t n; /* events */
	struct perf_event_attr *attrs;
	char **names;
	uint8_t *tracing_data;
	size_t tracing_data_len;
	bool profile_child; /* the events follow the command from its exec */
	struct live_workload wl;
	pid_t *tids;
	size_t ntids;
	struct live *live;
	struct perf_writer *w;
	struct sink sink;
	struct nscache ns; /* containerised binaries kept while reachable */
	struct buildids bi; /* the build-id table */
	size_t sched_idx;   /* --off-cpu=sched: the sched_switch attr (the last), else 0 */
	struct offcpubpf *ob; /* --off-cpu=bpf: the loaded program */
	struct offcpu *oc;  /* --off-cpu: the sums, written as offcpu-time samples */
	struct ktext kt;    /* the running kernel's text, read once (source/live/ktext.h) */
	struct schedsw_layout lay;
	int sfd;
	sigset_t mask, oldmask;
	unsigned signals; /* SIGINT/SIGTERM/SIGHUP received */
};

static bool is_missing_pmu(int e)
{
	return e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == ENXIO;
}

static bool is_hardware(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	       a->type == PERF_TYPE_RAW;
}

/* The first -p target owned by another user, or 0: the kernel lets only
 * its owner, root, CAP_PERFMON or CAP_SYS_PTRACE sample it. */
static pid_t foreign_target(const struct record_opts *o, uid_t *uid)
{
	for (size_t i = 0; i < o->npids; i++) {
		char path[32];
		struct stat st;
		snprintf(path, sizeof(path), "/proc/%d", (int)o->pids[i]);
		if (stat(path, &st) == 0 && st.st_uid != getuid()) {
			*uid = st.st_uid;
			return o->pids[i];
		}
	}
	return 0;
}

static int write_failed(const struct session *s, int err)
{
	if (err == -ENOSPC || err == -EDQUOT)
		return err_set(err, "cannot write '%s': %s (the file system holding it is full)",
			       s->o->output, strerror(-err));
	return err_set(err, "cannot write '%s': %s", s->o->output, strerror(-err));
}

/* Blocked stacks with their kernel part: --off-cpu-kernel (else the user
 * stack only, as perf's --off-cpu). */
static bool offcpu_kernel(const struct record_opts *o)
{
	return o->off_cpu_kernel && !o->user_callchains;
}

/* --off-cpu's sched_switch: every switch, a frame-pointer callchain (also
 * with --call-graph dwarf: stacks are summed at the end of the recording,
 * not unwound; its kernel part with --off-cpu-kernel only, whatever the
 * sampling events take), the payload; switch-ins of followed threads as
 * SWITCH records (with -a, sched_switch's next_pid tells them). */
static void offcpu_sched_attr(const struct record_opts *o, struct perf_event_attr *a)
{
	a->sample_type = OFFCPU_SCHED_SAMPLE_TYPE;
	a->freq = 0;
	a->sample_period = 1;
	a->exclude_callchain_kernel = !offcpu_kernel(o);
	a->exclude_callchain_user = 0;
	a->sample_regs_user = 0;
	a->sample_stack_user = 0;
	a->mmap_data = 0;
	a->context_switch = !o->system_wide;
}

/* --off-cpu: the BPF program when it loads (forced by =bpf, tried first
 * without a method), else the sched_switch event (the last attr). */
static int choose_offcpu(struct session *s)
{
	const struct record_opts *o = s->o;
	struct record_result *res = s->res;
	if (o->off_cpu == RECORD_OFFCPU_NONE)
		return 0;
	res->offcpu_method = RECORD_OFFCPU_SCHED;
	if (o->off_cpu == RECORD_OFFCPU_SCHED)
		return 0;
	struct offcpubpf_opts bo = { .system_wide = o->system_wide,
				     .thresh_ns = o->off_cpu_thresh_ns,
				     .user_only = !offcpu_kernel(o) };
	int err = offcpubpf_open(&s->ob, &bo);
	if (!err) {
		res->offcpu_method = RECORD_OFFCPU_BPF;
		s->n--; /* no sched_switch event */
		s->sched_idx = 0;
		return 0;
	}
	snprintf(res->offcpu_bpf_why, sizeof(res->offcpu_bpf_why), "%s", err_last()->msg);
	if (o->off_cpu == RECORD_OFFCPU_BPF) {
		res->offcpu_method = RECORD_OFFCPU_BPF;
		res->offcpu_refused = true;
		res->offcpu_unbuilt = !offcpubpf_built();
		return err;
	}
	err_clear();
	return 0;
}

/* Parse -e (or take the default, cycles), fill the attrs, and read the
 * tracepoint formats so perf.data readers can print the payloads. */
static int setup_events(struct session *s)
{
	const struct record_opts *o = s->o;
	int err = choose_offcpu(s);
	if (err)
		return err;
	for (size_t i = 0; i < s->n; i++) {
		if (s->sched_idx && i == s->sched_idx) {
			err = schedsw_open_attr(&s->attrs[i], &s->lay);
			if (err) {
				s->res->offcpu_refused = err == -EACCES || err == -EPERM;
				return err;
			}
			s->names[i] = xstrdup("sched:sched_switch");
		} else if (o->nevents) {
			err = evspec_parse(o->events[i], &s->attrs[i], &s->names[i]);
			if (err)
				return err;
			if (o->filters && o->filters[i] && s->attrs[i].type != PERF_TYPE_TRACEPOINT)
				return err_set(-EINVAL, "--filter '%s': '%s' is not a tracepoint or probe "
							"event (filters apply to those only)",
					       o->filters[i], o->events[i]);
		} else {
			s->attrs[i].type = PERF_TYPE_HARDWARE;
			s->attrs[i].config = PERF_COUNT_HW_CPU_CYCLES;
			s->names[i] = xstrdup("cycles");
		}
	}
	unsigned freq = o->freq ? o->freq : RECORD_DEFAULT_FREQ;
	unsigned maxrate = max_sample_rate();
	if (!o->period && freq > maxrate) {
		log_warn("-F %u is above kernel.perf_event_max_sample_rate; using %u", freq, maxrate);
		freq = maxrate;
	}
	build_attrs(o, s->attrs, s->n, freq);
	for (size_t i = 0; s->ob && i < s->n; i++) /* beside the offcpu-time event */
		s->attrs[i].sample_type |= PERF_SAMPLE_IDENTIFIER;
	if (s->sched_idx)
		offcpu_sched_attr(o, &s->attrs[s->sched_idx]);
	return live_tracing_data(s->attrs, s->n, &s->tracing_data, &s->tracing_data_len);
}

/* SIGINT/SIGTERM/SIGHUP/SIGCHLD were blocked at the start; they now
 * arrive through a signalfd. */
static int setup_signals(struct session *s)
{
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN); /* past ulimit -f: get EFBIG and stop cleanly, not die */
	signal(SIGCHLD, SIG_DFL); /* an inherited SIG_IGN would reap the command unseen */
	s->sfd = signalfd(-1, &s->mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->sfd < 0)
		return err_set(-errno, "signalfd: %s", strerror(errno));
	return 0;
}

/* The command, forked and held at a pipe until its events are open, or
 * every thread of the -p targets. */
static int setup_targets(struct session *s)
{
	const struct record_opts *o = s->o;
	if (s->profile_child) {
		int err = live_workload_prepare(&s->wl, o->argv);
		if (err)
			return err_set(err, "cannot start '%s': %s", o->argv[0], strerror(-err));
		XALLOC_ARRAY(s->tids, 1);
		s->tids[0] = s->wl.pid;
		s->ntids = 1;
		/* Followed from its exec, as the events are enabled. */
		return s->ob ? offcpubpf_follow(s->ob, s->wl.pid, true) : 0;
	}
	for (size_t i = 0; s->ob && !o->system_wide && i < o->npids; i++) {
		int err = offcpubpf_follow(s->ob, o->pids[i], false);
		if (err)
			return err;
	}
	if (o->ntids) {
		XALLOC_ARRAY(s->tids, o->ntids);
		memcpy(s->tids, o->tids, o->ntids * sizeof(*s->tids));
		s->ntids = o->ntids;
		for (size_t i = 0; i < o->ntids; i++)
			if (kill(o->tids[i], 0) && errno == ESRCH)
				return err_set(-ESRCH, "no such thread: %d", (int)o->tids[i]);
	}
	return live_append_threads(o->pids, o->npids, &s->tids, &s->ntids);
}

/* Open the events, falling back as perf does: no PMU → cpu-clock;
 * kernel sampling refused (paranoid ≥ 2) → user-only. */
static int open_events(struct session *s)
{
	const struct record_opts *o = s->o;
	struct record_result *res = s->res;
	struct live_opts lo = { .attrs = s->attrs, .nattrs = s->n, .tids = s->tids,
				.ntids = s->ntids, .system_wide = o->system_wide,
				.mmap_pages = o->mmap_pages ? o->mmap_pages : default_pages(),
				.cpus = o->cpus, .ncpus = o->ncpus };
	const char **filters = NULL;
	if (o->filters) { /* per attr: the -e events come first */
		filters = xcalloc(s->n, sizeof(*filters));
		for (size_t i = 0; i < o->nevents && i < s->n; i++)
			filters[i] = o->filters[i];
		lo.filters = filters;
	}
	/* Every switch is a record with a callchain: a root's rings get 2 MiB. */
	if (!o->mmap_pages && s->sched_idx && geteuid() == 0)
		lo.mmap_pages *= 4;
	for (int attempt = 0; attempt < 4; attempt++) {
		size_t bad = 0;
		int err = live_open(&s->live, &lo, &bad);
		if (!err) {
			free(filters);
			err_clear(); /* the failed attempts are not this session's error */
			return 0;
		}
		res->open_errno = -err;
		if (filters && bad < s->n && filters[bad] && err == -EINVAL) {
			res->filter_refused = true;
			char why[600];
			if (live_filter_unknown_field(s->names[bad], filters[bad], why, sizeof(why)))
				err_set(err, "the kernel refused the filter '%s': %s", filters[bad], why);
			free(filters);
			return err;
		}
		if (bad == SIZE_MAX) {
			res->ring_failed = true; /* not a permission on the events */
			free(filters);
			return err;
		}
		struct perf_event_attr *a = &s->attrs[bad];
		if (a->type == PERF_TYPE_TRACEPOINT)
			res->tracepoint = true;
		if (s->sched_idx && bad == s->sched_idx && (err == -EACCES || err == -EPERM))
			res->offcpu_refused = true;
		if (is_hardware(a) && is_missing_pmu(-err)) {
			if (o->nevents) {
				res->no_pmu = true;
				free(filters);
				return err_set(err, "cannot sample '%s': this machine has no hardware "
						    "PMU for it (perf_event_open: %s)",
					       s->names[bad], strerror(-err));
			}
			a->type = PERF_TYPE_SOFTWARE;
			a->config = PERF_COUNT_SW_CPU_CLOCK;
			free(s->names[bad]);
			s->names[bad] = xstrdup("cpu-clock");
			res->event_fallback = true;
			continue;
		}
		if (err != -EACCES && err != -EPERM)
			break;
		if (!res->foreign_pid)
			res->foreign_pid = foreign_target(o, &res->foreign_uid);
		if (!a->exclude_kernel && !o->system_wide && res->paranoid > 1) {
			for (size_t i = 0; i < s->n; i++) {
				s->attrs[i].exclude_kernel = 1;
				s->attrs[i].exclude_hv = 1;
				char *nm = xasprintf("%s%s", s->names[i],
						     strchr(s->names[i], ':') ? "" : ":u");
				free(s->names[i]);
				s->names[i] = nm;
			}
			res->kernel_excluded = true;
			continue;
		}
		break;
	}
	free(filters);
	if (err_last()->msg[0] == '\0')
		err_set(-res->open_errno, "perf_event_open failed: %s", strerror(res->open_errno));
	return -res->open_errno;
}

/* --off-cpu: declare the offcpu-time event its samples will be written
 * as; with sched_switch, hand its ids to the pairing. */
static void setup_offcpu(struct session *s)
{
	struct perf_event_attr oa;
	uint64_t ids[16];
	offcpu_attr(&oa, &s->attrs[0]);
	perf_writer_add_attr(s->w, &oa, OFFCPU_EVENT, ids, offcpu_ids(ids, 16));
	struct offcpu_opts oo = { .lay = s->lay, .thresh_ns = s->o->off_cpu_thresh_ns,
				  .system_wide = s->o->system_wide };
	if (s->sched_idx) {
		oo.sched_lo = s->kt.sched_lo;
		oo.sched_hi = s->kt.sched_hi;
	}
	if (s->ob)
		offcpubpf_set_sched(s->ob, s->kt.sched_lo, s->kt.sched_hi);
	s->oc = offcpu_new(&oo);
	if (!s->sched_idx)
		return;
	size_t nids;
	const uint64_t *sids = live_ids(s->live, s->sched_idx, &nids);
	for (size_t i = 0; i < nids; i++)
		offcpu_add_id(s->oc, sids[i]);
}

static int add_bpf_sum(void *arg, uint32_t pid, uint32_t tid, char state, const uint64_t *chain,
		       size_t n, uint64_t ns)
{
	offcpu_add(arg, pid, tid, state, chain, n, ns);
	return 0;
}

/* --off-cpu=bpf, after the program is detached: its sums into the
 * offcpu-time samples' sums, its counts into the stats. */
static void read_offcpu_bpf(struct session *s)
{
	struct offcpubpf_stats *b = &s->res->offcpu_bpf_stats;
	if (offcpubpf_read(s->ob, add_bpf_sum, s->oc, b))
		log_warn("off-CPU: %s: the intervals still open at the end are left out",
			 err_last()->msg);
}

static int write_offcpu(void *arg, const void *rec, size_t len)
{
	struct sink *sk = arg;
	int err = perf_writer_write(sk->w, rec, len);
	if (!err)
		sk->res->bytes += len;
	return err;
}

/* The process a thread belongs to (/proc/TID/status Tgid), or 0. */
static pid_t thread_group(pid_t tid)
{
	char path[64], line[128];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	FILE *f = fopen(path, "re");
	pid_t tgid = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	if (f)
		fclose(f);
	return tgid;
}

/* Create the output, declare the events, and write what existed before
 * recording (the kernel's map, -a's and -p's processes) and FINISHED_INIT. */
static int open_output(struct session *s)
{
	const struct record_opts *o = s->o;
	int err = o->output ? perf_writer_open(&s->w, o->output) : 0;
	if (err)
		return err;
	if (o->tap && o->tap->opened &&
	    (err = o->tap->opened(o->tap->arg, s->attrs, s->names, s->n, s->live)))
		return err;
	for (size_t i = 0; s->w && i < s->n; i++) {
		size_t nids;
		const uint64_t *ids = live_ids(s->live, i, &nids);
		perf_writer_add_attr(s->w, &s->attrs[i], s->names[i], ids, nids);
	}
	/* After the off-CPU program's load: kallsyms names its code too. */
	ktext_read(&s->kt);
	if (s->sched_idx || s->ob)
		setup_offcpu(s);
	size_t nid0;
	const uint64_t *ids0 = live_ids(s->live, 0, &nid0);
	uint64_t id0 = nid0 ? ids0[0] : 0;
	s->sink = (struct sink){ .w = s->w, .res = s->res, .ns = &s->ns, .bi = &s->bi,
				 .oc = s->sched_idx ? s->oc : NULL, .tap = o->tap };
	err = live_synth_kernel(&s->attrs[0], id0, &s->kt, on_record, &s->sink);
	if (!err && o->system_wide)
		err = live_synth_all(&s->attrs[0], id0, on_record, &s->sink);
	for (size_t i = 0; !err && !o->system_wide && i < o->npids; i++)
		err = live_synth_process(o->pids[i], &s->attrs[0], id0, on_record, &s->sink);
	for (size_t i = 0; !err && !o->system_wide && i < o->ntids; i++) {
		/* -t: the thread's process (its maps), once per process */
		pid_t tgid = thread_group(o->tids[i]);
		bool seen = false;
		for (size_t j = 0; j < i; j++)
			seen |= thread_group(o->tids[j]) == tgid;
		if (tgid > 0 && !seen)
			err = live_synth_process(tgid, &s->attrs[0], id0, on_record, &s->sink);
	}
	if (!err) {
		struct perf_event_header fi = { .type = 82 /* FINISHED_INIT */, .size = 8 };
		err = s->sink.err = s->w ? perf_writer_write(s->w, &fi, sizeof(fi)) : 0;
	}
	if (err && s->sink.err) /* the file, not /proc: a full disk shows here */
		return write_failed(s, s->sink.err);
	return err;
}

/* Enable the events (a child's are enabled by its exec) and run the command. */
static int start(struct session *s)
{
	const struct record_opts *o = s->o;
	int err;
	if (s->ob && (err = offcpubpf_attach(s->ob)))
		return err;
	if (!s->profile_child && (err = live_enable(s->live)))
		return err_set(err, "cannot enable events: %s", strerror(-err));
	if (o->argv && !s->profile_child) {
		err = live_workload_prepare(&s->wl, o->argv);
		if (err)
			return err_set(err, "cannot start '%s': %s", o->argv[0], strerror(-err));
	}
	if (o->argv) {
		s->res->workload = true;
		err = live_workload_start(&s->wl);
		if (err) {
			s->res->exec_errno = -err;
			waitpid(s->wl.pid, NULL, 0);
			s->wl.pid = 0;
			return err_set(err, "cannot run '%s': %s", o->argv[0], strerror(-err));
		}
	}
	return 0;
}

/* Reap the command if it has ended (flags: WNOHANG, or 0 to wait). */
static bool reap(struct session *s, int flags)
{
	struct live_stops st = { 0 };
	if (!live_workload_reap(&s->wl, flags, &st))
		return false;
	s->res->workload_status = st.status;
	return true;
}

/* Read the pending signals; true when one of them ends the recording
 * (the command exited, or SIGINT/SIGTERM/SIGHUP: the first one is kept). */
static bool read_signals(struct session *s)
{
	struct live_stops st = { .status = s->res->workload_status, .signal = s->res->signal,
				 .signals = s->signals };
	bool stop = live_read_stops(s->sfd, &s->wl, &st);
	s->res->workload_status = st.status;
	s->res->signal = st.signal;
	s->signals = st.signals;
	return stop;
}

/* -p without a command: true when every target is gone. */
static bool targets_gone(const struct session *s, const struct pollfd *pfd, size_t nr, int pr)
{
	const struct record_opts *o = s->o;
	if (o->argv || !o->npids)
		return false;
	if (pr > 0) {
		size_t hup = 0;
		for (size_t i = 0; i < nr; i++)
			if (pfd[i].revents & POLLHUP)
				hup++;
		if (hup == nr)
			return true;
	}
	for (size_t i = 0; i < o->npids; i++)
		if (kill(o->pids[i], 0) == 0 || errno == EPERM)
			return false;
	return true;
}

static int write_round(struct session *s)
{
	struct perf_event_header fr = { .type = 68 /* FINISHED_ROUND */, .size = 8 };
	return s->w ? perf_writer_write(s->w, &fr, sizeof(fr)) : 0;
}

/* poll → drain the rings into the file → FINISHED_ROUND, until the
 * targets end, a signal arrives or a write fails (s->sink.err). */
static void loop(struct session *s)
{
	int stop_fd = s->o->tap ? s->o->tap->stop_fd : -1;
	size_t nfds = live_ncpus(s->live) + 2;
	struct pollfd *pfd;
	int *rfds;
	XALLOC_ARRAY(pfd, nfds);
	XALLOC_ARRAY(rfds, nfds);
	size_t nr = live_pollfds(s->live, rfds, nfds - 2);
	bool stop = false;
	while (!stop) {
		for (size_t i = 0; i < nr; i++)
			pfd[i] = (struct pollfd){ .fd = rfds[i], .events = POLLIN };
		pfd[nr] = (struct pollfd){ .fd = s->sfd, .events = POLLIN };
		pfd[nr + 1] = (struct pollfd){ .fd = stop_fd, .events = POLLIN };
		int pr = poll(pfd, nr + 2, 100);
		uint64_t bytes = 0;
		if (live_drain(s->live, on_record, &s->sink, &bytes) || s->sink.err)
			break;
		s->res->bytes += bytes;
		if (s->sink.oc)
			offcpu_round(s->sink.oc);
		if (bytes && (s->sink.err = write_round(s)))
			break;
		stop = read_signals(s);
		if (targets_gone(s, pfd, nr, pr))
			stop = true;
		if (stop_fd >= 0 && (pfd[nr + 1].revents & POLLIN))
			stop = true;
	}
	free(pfd);
	free(rfds);
}

/* Stop sampling, drain what is left and write the header; the file is
 * renamed into place. After a write error, keep the records that made it. */
static int finish(struct session *s)
{
	const struct record_opts *o = s->o;
	struct record_result *res = s->res;
	live_disable(s->live);
	offcpubpf_detach(s->ob);
	uint64_t bytes = 0;
	if (!s->sink.err && !live_drain(s->live, on_record, &s->sink, &bytes) && bytes)
		s->sink.err = write_round(s);
	res->bytes += bytes;
	if (!s->w) /* no file: a tap only */
		return s->sink.err;
	if (!s->sink.err && s->oc) {
		if (s->ob)
			read_offcpu_bpf(s);
		s->sink.err = offcpu_finish(s->oc, write_offcpu, &s->sink);
		res->offcpu = true;
		res->offcpu_stats = *offcpu_stats(s->oc);
		if (s->ob) {
			const struct offcpubpf_stats *b = &res->offcpu_bpf_stats;
			struct offcpu_stats *st = &res->offcpu_stats;
			st->switches = b->switches;
			st->intervals = b->intervals;
			st->below_thresh = b->below_thresh;
			st->at_end = b->at_end;
		}
	}
	if (s->sink.err) {
		/* Disk full or file size limit: keep the records that made it. */
		uint64_t kept = 0;
		int serr = perf_writer_salvage(s->w, &kept);
		s->w = NULL;
		res->salvaged = serr == 0;
		res->salvaged_bytes = kept;
		return write_failed(s, s->sink.err);
	}
	struct perf_header_info info;
	fill_info(o, &info);
	buildids_take(&s->bi, &info);
	nscache_take(&s->ns, &info);
	info.tracing_data = s->tracing_data; /* the info owns it now */
	info.tracing_data_len = s->tracing_data_len;
	s->tracing_data = NULL;
	uint64_t kept;
	int err = perf_writer_finish(s->w, &info, &kept);
	s->w = NULL;
	perf_header_info_release(&info);
	if (err && kept != UINT64_MAX) {
		res->salvaged = true;
		res->salvaged_bytes = kept;
	}
	return err;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)(t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* The recording ended while the command still runs (a signal to kiln, a
 * write error): SIGTERM it, SIGCONT it (a stopped command would otherwise
 * never act on the SIGTERM), and SIGKILL it after RECORD_STOP_GRACE_MS or
 * at the next SIGINT/SIGTERM/SIGHUP to kiln, whichever comes first. */
static void end_workload(struct session *s)
{
	if (s->wl.pid <= 0)
		return;
	kill(s->wl.pid, SIGTERM);
	kill(s->wl.pid, SIGCONT);
	unsigned signals = s->signals;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		reap(s, WNOHANG);
		if (s->wl.pid <= 0)
			return; /* reaped here or by read_signals */
		long left = RECORD_STOP_GRACE_MS - ms_since(&t0);
		if (left <= 0 || s->signals != signals)
			break;
		/* SIGCHLD wakes the poll; the timeout also covers a SIGCHLD
		 * that is ignored (children reaped by the kernel). */
		struct pollfd p = { .fd = s->sfd, .events = POLLIN };
		poll(&p, 1, left < 100 ? (int)left : 100);
		read_signals(s);
	}
	kill(s->wl.pid, SIGKILL);
	reap(s, 0);
}

static void session_init(struct session *s, const struct record_opts *o,
			 struct record_result *res)
{
	memset(s, 0, sizeof(*s));
	memset(res, 0, sizeof(*res));
	s->o = o;
	s->res = res;
	res->paranoid = record_read_paranoid();
	s->n = o->nevents ? o->nevents : 1;
	if (o->off_cpu != RECORD_OFFCPU_NONE)
		s->sched_idx = s->n++;
	XALLOC_ARRAY(s->attrs, s->n);
	XALLOC_ARRAY(s->names, s->n);
	s->wl = (struct live_workload){ .pid = 0, .go_fd = -1, .err_fd = -1 };
	s->profile_child = o->argv && !o->system_wide && !o->npids;
	s->sfd = -1;
	nscache_init(&s->ns, o->env ? o->env->home : NULL);
	buildids_init(&s->bi);
	sigemptyset(&s->mask);
	sigaddset(&s->mask, SIGINT);
	sigaddset(&s->mask, SIGTERM);
	sigaddset(&s->mask, SIGHUP);
	sigaddset(&s->mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &s->mask, &s->oldmask);
}

static void session_release(struct session *s)
{
	nscache_release(&s->ns);
	buildids_release(&s->bi);
	offcpu_free(s->oc);
	offcpubpf_close(s->ob);
	ktext_release(&s->kt);
	if (s->w)
		perf_writer_abort(s->w);
	if (s->wl.pid > 0)
		live_workload_cancel(&s->wl);
	live_close(s->live);
	if (s->sfd >= 0) {
		/* A signal that came while finishing is the caller's to act on. */
		read_signals(s);
		close(s->sfd);
	}
	sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	for (size_t i = 0; i < s->n; i++)
		free(s->names[i]);
	free(s->names);
	free(s->attrs);
	free(s->tids);
	free(s->tracing_data);
}

int record_run(const struct record_opts *o, struct record_result *res)
{
	struct session s;
	session_init(&s, o, res);
	int err = setup_events(&s);
	if (!err)
		err = setup_signals(&s);
	if (!err)
		err = setup_targets(&s);
	if (!err)
		err = open_events(&s);
	if (!err)
		err = open_output(&s);
	if (!err)
		err = start(&s);
	if (!err) {
		loop(&s);
		err = finish(&s);
		end_workload(&s);
	}
	session_release(&s);
	return err;
}
