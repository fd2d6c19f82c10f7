/*
 * cmd_record: `kiln record` (cli, L9). Options as perf record names them;
 * the session itself is pipeline/record.c. This file turns results into
 * messages, hints and the exit status.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/probe_cli.h"
#include "cli/record_cli.h"
#include "pipeline/record.h"

static void permission_hint(const struct record_result *r, const struct record_opts *o)
{
	int p = r->paranoid;
	cli_err("error: perf_event_open was refused: %s (kernel.perf_event_paranoid is %d)\n",
		strerror(r->open_errno), p);
	if (r->foreign_pid) {
		/* The kernel's ptrace check: no paranoid level lets one user sample another's process. */
		cli_err("hint: process %d belongs to another user (uid %u): sampling it needs "
				"root, CAP_PERFMON or CAP_SYS_PTRACE, whatever kernel.perf_event_paranoid "
				"says;\n",
			(int)r->foreign_pid, (unsigned)r->foreign_uid);
		cli_err("hint: run kiln as that user or as root, or grant CAP_PERFMON "
				"(setcap cap_perfmon,cap_ipc_lock+ep kiln)\n");
		return;
	}
	int want = 1; /* the paranoid level that allows it */
	if (p >= 3) {
		cli_err("hint: paranoid %d (a distribution setting) refuses all "
				"unprivileged profiling;\n",
			p);
	} else if (o->system_wide) {
		cli_err("hint: -a needs kernel.perf_event_paranoid <= 0;\n");
		want = 0;
	} else if (r->tracepoint) {
		cli_err("hint: tracepoints need kernel.perf_event_paranoid <= -1;\n");
		want = -1;
	} else if (p >= 2 && !r->kernel_excluded) {
		cli_err("hint: kernel stacks need kernel.perf_event_paranoid <= 1, user-only "
				"sampling (-e cpu-clock:u) works at 2;\n");
	} else {
		/* User-only sampling was refused too, or kernel sampling was allowed. */
		want = -1;
	}
	cli_err("hint: run as root, grant CAP_PERFMON (setcap cap_perfmon,cap_ipc_lock+ep "
			"kiln), or lower it: sysctl -w kernel.perf_event_paranoid=%d\n",
		want);
}

int record_cli_failed(const struct record_opts *o, const struct record_result *r, int err)
{
	if (r->exec_errno) {
		cli_err("error: cannot run '%s': %s\n", o->argv[0], strerror(r->exec_errno));
		return r->exec_errno == ENOENT ? 127 : 126;
	}
	if (r->offcpu_refused) {
		cli_error_last(NULL);
		if (r->offcpu_unbuilt)
			return KILN_EXIT_FAIL; /* the error says it all; no hint helps */
		if (r->offcpu_method == RECORD_OFFCPU_SCHED && r->offcpu_bpf_why[0])
			cli_err("note: --off-cpu=bpf was tried first: %s\n", r->offcpu_bpf_why);
		cli_err("hint: --off-cpu=bpf loads a BPF program: it needs root, or CAP_BPF and "
				"CAP_PERFMON, and the kernel's BTF (/sys/kernel/btf/vmlinux); "
				"--off-cpu=sched records the sched:sched_switch tracepoint: it needs "
				"tracefs readable (/sys/kernel/tracing) and root, CAP_PERFMON, or "
				"kernel.perf_event_paranoid <= -1 (it is %d)\n",
			r->paranoid);
		return KILN_EXIT_FAIL;
	}
	if ((r->open_errno == EACCES || r->open_errno == EPERM) && !r->ring_failed) {
		permission_hint(r, o);
		return KILN_EXIT_FAIL;
	}
	cli_error_last(NULL);
	if (r->ring_failed)
		cli_err("hint: the ring buffers' locked memory is limited "
				"(kernel.perf_event_mlock_kb, ulimit -l): use a smaller -m, or "
				"none for a size that fits\n");
	if (r->no_pmu)
		cli_err("hint: sample a software event instead: -e cpu-clock\n");
	if (r->salvaged)
		cli_err("hint: recording stopped; %s keeps the %.3f MB of records "
				"written before the failure\n",
			o->output, (double)r->salvaged_bytes / (1024.0 * 1024.0));
	return err == -EINVAL ? KILN_EXIT_USAGE : KILN_EXIT_FAIL;
}

/* What --off-cpu=bpf left out. */
static void offcpu_bpf_report(const struct offcpubpf_stats *b)
{
	if (b->over_cap)
		cli_err("warning: off-CPU: %llu blocked intervals (%.3f s) could not be added to "
				"the BPF map of sums (over %u distinct stacks, or the map busy): left "
				"out\n",
			(unsigned long long)b->over_cap, (double)b->over_cap_ns / 1e9, OFFCPU_MAX_STACKS);
	if (b->stacks_lost)
		cli_err("warning: off-CPU: %llu stacks were not kept (over %u distinct stacks in "
				"the BPF stack map, or the map busy): their time is kept without them\n",
			(unsigned long long)b->stacks_lost, OFFCPUBPF_MAX_STACKS);
	if (b->stacks_unread)
		cli_err("warning: off-CPU: the kernel could not walk %llu stacks of blocked "
				"threads: their time is kept without them\n",
			(unsigned long long)b->stacks_unread);
	if (b->threads_over)
		cli_err("warning: off-CPU: %llu switch-outs could not be noted (no memory for "
				"the thread's BPF task storage, or the storage busy on that CPU): their "
				"blocked time is left out\n",
			(unsigned long long)b->threads_over);
	if (b->follow_over)
		cli_err("warning: off-CPU: over %u processes: %llu child processes were not "
				"followed\n",
			OFFCPUBPF_MAX_FOLLOW, (unsigned long long)b->follow_over);
}

/* What --off-cpu found: its caps and losses, and (unless quiet) a summary. */
static void offcpu_report(const struct record_result *r, bool quiet)
{
	const struct offcpu_stats *s = &r->offcpu_stats;
	bool bpf = r->offcpu_method == RECORD_OFFCPU_BPF;
	if (bpf)
		offcpu_bpf_report(&r->offcpu_bpf_stats);
	else if (r->offcpu_bpf_why[0] && !quiet)
		cli_err("note: off-CPU: recording sched_switch: the BPF method is not usable: %s\n",
			r->offcpu_bpf_why);
	if (s->over_cap)
		cli_err("warning: off-CPU: over %u distinct stacks: %llu blocked intervals are "
				"summed under their thread and state without a stack\n",
			OFFCPU_MAX_STACKS, (unsigned long long)s->over_cap);
	if (s->threads_over)
		cli_err("warning: off-CPU: over %u threads: %llu switches of further threads "
				"were not followed\n",
			OFFCPU_MAX_THREADS, (unsigned long long)s->threads_over);
	if (s->unpaired)
		cli_err("warning: off-CPU: %llu switch-outs had no switch-in after them (lost "
				"records, or CPUs' clocks apart): left out\n",
			(unsigned long long)s->unpaired);
	if (s->throttled)
		cli_err("warning: off-CPU: the kernel throttled the sched_switch event %llu times "
				"(over kernel.perf_event_max_sample_rate): switches were dropped and "
				"their intervals left out\n",
			(unsigned long long)s->throttled);
	if (s->malformed)
		cli_err("warning: off-CPU: %llu sched_switch records too short for their "
				"format: left out\n",
			(unsigned long long)s->malformed);
	if (!quiet)
		cli_err("[ kiln record: off-CPU (%s): %llu switches, %.3f s blocked in %llu stacks "
				"(offcpu-time samples); %llu intervals under the threshold ]\n",
			bpf ? "bpf" : "sched", (unsigned long long)s->switches, (double)s->blocked_ns / 1e9,
			(unsigned long long)s->stacks, (unsigned long long)s->below_thresh);
}

/* Warnings and the summary of a finished recording. */
static void record_report(const struct record_opts *o, const struct record_result *r, bool quiet)
{
	if (r->event_fallback && !quiet)
		cli_err("warning: no hardware PMU: sampling cpu-clock instead of cycles\n");
	if (r->kernel_excluded)
		cli_err("warning: kernel.perf_event_paranoid is %d: sampled user space only "
				"(kernel samples need <= 1, or root/CAP_PERFMON)\n",
			r->paranoid);
	if (r->lost)
		cli_err("warning: lost %llu samples (the ring buffer was full; try a larger "
				"-m or a lower -F)\n",
			(unsigned long long)r->lost);
	if (r->lost_samples)
		cli_err("warning: the kernel dropped %llu samples\n",
			(unsigned long long)r->lost_samples);
	if (r->offcpu)
		offcpu_report(r, quiet);
	if (!quiet) {
		struct stat st;
		double mb = stat(o->output, &st) == 0 ? (double)st.st_size / (1024.0 * 1024.0) : 0;
		cli_err("[ kiln record: wrote %llu samples (%.3f MB) to %s ]\n",
			(unsigned long long)r->samples, mb, o->output);
	}
}

/* o with the events of the probes made for it (--probe) after its -e events. */
static void with_probes(const struct record_opts *o, const struct record_cli_extra *x,
			char **names, size_t nnames, struct record_opts *o2, const char ***ev,
			const char ***filters)
{
	*o2 = *o;
	size_t n = o->nevents + nnames;
	*ev = xcalloc(n, sizeof(**ev));
	*filters = xcalloc(n, sizeof(**filters));
	for (size_t i = 0; i < o->nevents; i++) {
		(*ev)[i] = o->events[i];
		(*filters)[i] = o->filters ? o->filters[i] : NULL;
	}
	for (size_t i = 0; i < nnames; i++) {
		(*ev)[o->nevents + i] = names[i];
		(*filters)[o->nevents + i] = i < x->nprobes ? x->probe_filters[i] : NULL;
	}
	o2->events = *ev;
	o2->nevents = n;
	o2->filters = *filters;
}

int record_cli_run(const struct record_opts *o, const struct record_cli_extra *x)
{
	/* SIGINT/SIGTERM/SIGHUP stay blocked until the report is out: a second
	 * one must not kill kiln between the finished file and its summary
	 * (nor before the probes made for this recording are removed). */
	bool quiet = x->quiet;
	sigset_t old;
	cli_block_stops(&old);
	struct probe_tmp tmp;
	char **names = NULL;
	size_t nnames = 0;
	int pcode = probe_tmp_create(&tmp, x->probes, x->probe_bins, x->nprobes, &names, &nnames);
	if (pcode) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return pcode;
	}
	struct record_opts o2;
	const char **ev = NULL, **filters = NULL;
	if (nnames) {
		with_probes(o, x, names, nnames, &o2, &ev, &filters);
		o = &o2;
	}
	struct record_result r;
	err_clear();
	int err = record_run(o, &r);
	int code;
	if (err) {
		code = record_cli_failed(o, &r, err);
	} else {
		record_report(o, &r, quiet);
		code = r.workload ? cli_status_code(r.workload_status) : KILN_EXIT_OK;
	}
	probe_tmp_remove(&tmp);
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	free(ev);
	free(filters);
	if (!err && r.signal) /* finished cleanly; now die of the signal we got (the others,
			       * still blocked, die with us) */
		code = cli_die_of(r.signal);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return code;
}

static int add_list(const char *arg, char ***v, size_t *n)
{
	char *dup = xstrdup(arg), *save = NULL;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		XREALLOC_ARRAY(*v, *n + 1);
		(*v)[(*n)++] = xstrdup(t);
	}
	free(dup);
	return 0;
}

#define RC_OFF(field) offsetof(struct record_cli, field)

static int opt_freq(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	unsigned long long v;
	(void)o;
	if (cli_parse_u64(arg, &v) || v == 0 || v > 1000000)
		return opts_error(p, "-F takes a frequency in Hz (1..1000000), not '%s'", arg);
	*(unsigned *)field = (unsigned)v;
	return 0;
}

static int opt_count(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	unsigned long long v;
	(void)o;
	if (cli_parse_u64(arg, &v) || v == 0)
		return opts_error(p, "-c takes a positive event count, not '%s'", arg);
	*(uint64_t *)field = v;
	return 0;
}

static int opt_event(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct record_cli_extra *x = field;
	(void)p, (void)o;
	x->last_arg = x->nevents;
	x->last_probe = false;
	int err = add_list(arg, &x->events, &x->nevents);
	XREALLOC_ARRAY(x->filters, x->nevents ? x->nevents : 1);
	for (size_t i = 0; i < x->nevents; i++)
		if (i >= x->nfilters)
			x->filters[i] = NULL;
	x->nfilters = x->nevents;
	return err;
}

/* --filter: for the events of the -e before it, as perf. */
static int opt_filter(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct record_cli_extra *x = field;
	(void)o;
	if (x->last_probe) {
		if (x->probe_filters[x->nprobes - 1])
			return opts_error(p, "a second --filter for --probe '%s' (join the conditions "
					     "with &&)",
					  x->probes[x->nprobes - 1]);
		x->probe_filters[x->nprobes - 1] = arg;
		return 0;
	}
	if (!x->nevents)
		return opts_error(p, "--filter must follow the -e event (a tracepoint or probe) it "
				     "filters");
	if (x->filters[x->nevents - 1])
		return opts_error(p, "a second --filter for '%s' (join the conditions with &&)",
				  x->events[x->nevents - 1]);
	for (size_t i = x->last_arg; i < x->nevents; i++)
		x->filters[i] = (char *)arg;
	return 0;
}

static int opt_probe(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct record_cli_extra *x = field;
	(void)p, (void)o;
	XREALLOC_ARRAY(x->probes, x->nprobes + 1);
	XREALLOC_ARRAY(x->probe_bins, x->nprobes + 1);
	XREALLOC_ARRAY(x->probe_filters, x->nprobes + 1);
	x->probes[x->nprobes] = xstrdup(arg);
	x->probe_bins[x->nprobes] = x->probe_exec;
	x->probe_filters[x->nprobes] = NULL;
	x->nprobes++;
	x->last_probe = true;
	return 0;
}

static int opt_call_graph(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct record_opts *ro = field;
	unsigned long long v;
	(void)o;
	if (!strcmp(arg, "fp")) {
		ro->callgraph = true;
		ro->dwarf = false;
	} else if (!strncmp(arg, "dwarf", 5) && (arg[5] == '\0' || arg[5] == ',')) {
		ro->callgraph = true;
		ro->dwarf = true;
		if (arg[5] == ',') {
			if (cli_parse_u64(arg + 6, &v) || v == 0 || v > RECORD_DWARF_STACK_MAX)
				return opts_error(p, "--call-graph dwarf,SIZE takes 8..%u bytes, not '%s'",
						  RECORD_DWARF_STACK_MAX, arg + 6);
			ro->stack_size = (unsigned)((v + 7) & ~7ULL); /* a multiple of 8, as perf */
		}
	} else {
		return opts_error(p, "--call-graph '%s' is not supported (fp or dwarf[,SIZE])", arg);
	}
	return 0;
}

static int opt_pid(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct record_cli_extra *x = field;
	char **list = NULL;
	size_t n = 0;
	int ret = 0;
	unsigned long long v;
	(void)o;
	add_list(arg, &list, &n);
	for (size_t i = 0; i < n; i++) {
		if (cli_parse_u64(list[i], &v) || v == 0 || v > 0x7fffffff) {
			if (!ret)
				ret = opts_error(p, "-p takes process ids, not '%s'", list[i]);
		} else {
			XREALLOC_ARRAY(x->pids, x->npids + 1);
			x->pids[x->npids++] = (pid_t)v;
		}
		free(list[i]);
	}
	free(list);
	return ret;
}

static int opt_off_cpu(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	(void)o;
	if (!arg)
		*(int *)field = RECORD_OFFCPU_AUTO;
	else if (!strcmp(arg, "sched"))
		*(int *)field = RECORD_OFFCPU_SCHED;
	else if (!strcmp(arg, "bpf"))
		*(int *)field = RECORD_OFFCPU_BPF;
	else
		return opts_error(p, "--off-cpu takes sched or bpf, not '%s'", arg);
	return 0;
}

/* A time: a number with ns, us, ms or s after it (milliseconds without). */
static int opt_off_cpu_thresh(struct opts_parser *p, const struct opt *o, const char *arg,
			      void *field)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 }, { "", 1000000 } };
	(void)o;
	char num[32];
	size_t n = strspn(arg, "0123456789");
	if (n == 0 || n >= sizeof(num))
		return opts_error(p, "--off-cpu-thresh takes a time (500us, 2ms, 1s), not '%s'", arg);
	memcpy(num, arg, n);
	num[n] = '\0';
	unsigned long long v;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(arg + n, units[i].unit))
			continue;
		if (cli_parse_u64(num, &v) || v > UINT64_MAX / units[i].ns)
			break;
		*(uint64_t *)field = v * units[i].ns;
		return 0;
	}
	return opts_error(p, "--off-cpu-thresh takes a time (500us, 2ms, 1s), not '%s'", arg);
}

const struct opt record_cli_sampling_opts[] = {
	OPT_CALLBACK('F', "freq", RC_OFF(o.freq), "HZ",
		     "samples per second per CPU (default 4000)", opt_freq),
	OPT_CALLBACK('c', "count", RC_OFF(o.period), "N",
		     "sample every N events instead of a frequency", opt_count),
	OPT_CALLBACK('e', "event", RC_OFF(x), "SPEC",
		     "event(s), comma-separated, repeatable: cycles, instructions, cpu-clock, "
		     "task-clock, page-faults, rNNN, sys:tracepoint, with :u :k modifiers (default: "
		     "cycles, or cpu-clock where the machine has no hardware PMU); a tracepoint "
		     "samples every hit (unless -c) with its payload, and the file keeps the event "
		     "formats (TRACING_DATA) for kiln/perf script",
		     opt_event),
	OPT_CALLBACK(0, "filter", RC_OFF(x), "EXPR",
		     "keep only the hits of the tracepoint or probe event of the -e before it that "
		     "match EXPR, the kernel's filter syntax (PERF_EVENT_IOC_SET_FILTER): 'fd == 1', "
		     "'count > 4096 && fd != 2', 'comm ~ \"ba*\"'; a filter the kernel refuses "
		     "is an error (exit 2)",
		     opt_filter),
	OPT_CALLBACK(0, "probe", RC_OFF(x), "PROBE",
		     "make a probe for this recording only, as kiln probe makes it (kiln probe's "
		     "PROBE [ARG...] text; a uprobe in the --probe-exec binary given before it, "
		     "else a kernel probe), record it like an -e event (--filter after it filters "
		     "it), and remove it when the recording ends, Ctrl-C included",
		     opt_probe),
	OPT_FILENAME(0, "probe-exec", RC_OFF(x.probe_exec), "BINARY",
		     "the binary of the --probe options after it (as kiln probe -x)"),
	OPT_BOOL('g', NULL, RC_OFF(o.callgraph),
		 "record call graphs (kernel and user, frame pointers)"),
	OPT_CALLBACK(0, "call-graph", RC_OFF(o), "MODE",
		     "fp (frame pointers; as -g), or dwarf[,SIZE]: copy SIZE bytes of user stack "
		     "per sample (default 8192, at most 65528) and unwind it later with DWARF CFI, "
		     "for code built without frame pointers",
		     opt_call_graph),
	OPT_CALLBACK('p', "pid", RC_OFF(x), "PID[,PID]",
		     "sample existing processes (all their threads); with a command, only for as "
		     "long as that command runs",
		     opt_pid),
	OPT_BOOL('a', "all-cpus", RC_OFF(o.system_wide), "sample every process on every CPU"),
	OPT_CALLBACK('m', "mmap-pages", RC_OFF(o.mmap_pages), "N",
		     "ring buffer data pages per CPU (power of two)", cli_opt_mmap_pages),
	OPT_END(),
};

const struct opt record_cli_opts[] = {
	OPT_FILENAME('o', "output", RC_OFF(o.output), "FILE",
		     "output file (default perf.data); written to a temporary file and renamed "
		     "when complete"),
	OPT_INCLUDE(record_cli_sampling_opts, 0),
	OPT_BOOL('q', "quiet", RC_OFF(x.quiet), "no summary line, no note of the cpu-clock fallback"),
	{ .kind = OPT_KIND_CALLBACK, .long_name = "off-cpu", .offset = RC_OFF(o.off_cpu),
	  .metavar = "METHOD", .flags = OPT_OPTARG, .cb = opt_off_cpu,
	  .help = "also record where threads wait: each switch-out's user stack (the kernel's "
		  "too with --off-cpu-kernel) and state, and how long the thread stayed off the "
		  "CPU, written as perf's offcpu-time samples (period = nanoseconds blocked); "
		  "METHOD bpf (the default where it loads): a BPF program on sched_switch sums "
		  "blocked time per stack in the kernel (needs root or CAP_BPF+CAP_PERFMON, and "
		  "the kernel's BTF); sched (the fallback): the sched:sched_switch tracepoint "
		  "with callchains, paired at the end of the recording (needs root, CAP_PERFMON "
		  "or kernel.perf_event_paranoid <= -1, and tracefs readable)" },
	OPT_BOOL(0, "off-cpu-kernel", RC_OFF(o.off_cpu_kernel),
		 "with --off-cpu, blocked stacks with their kernel part too (what the thread "
		 "waited on: pipe, futex, disk; both methods); without it they are user stacks "
		 "only, as perf's --off-cpu records them; the kernel stack walk at each "
		 "switch-out is most of the off-CPU cost on a program that switches often "
		 "(docs/cmd/record.md)"),
	OPT_BOOL(0, "user-callchains", RC_OFF(o.user_callchains),
		 "callchains without their kernel part (perf's exclude_callchain_kernel), in "
		 "samples and --off-cpu stacks alike"),
	OPT_CALLBACK(0, "off-cpu-thresh", RC_OFF(o.off_cpu_thresh_ns), "TIME",
		     "with --off-cpu, leave out blocked intervals shorter than TIME (ns, us, ms, "
		     "s; a bare number is milliseconds; default 0: all)",
		     opt_off_cpu_thresh),
	OPT_END(),
};

int record_cli_finish(struct record_cli *rc, struct opts_parser *p)
{
	struct record_opts *o = &rc->o;
	o->pids = rc->x.pids;
	o->npids = rc->x.npids;
	o->events = (const char *const *)rc->x.events;
	o->nevents = rc->x.nevents;
	o->filters = NULL;
	for (size_t i = 0; i < rc->x.nevents; i++)
		if (rc->x.filters[i])
			o->filters = (const char *const *)rc->x.filters;
	if (o->system_wide && o->npids)
		return opts_error(p, "-a and -p cannot be used together");
	if (o->off_cpu_thresh_ns && o->off_cpu == RECORD_OFFCPU_NONE)
		return opts_error(p, "--off-cpu-thresh needs --off-cpu");
	if (o->off_cpu_kernel && o->off_cpu == RECORD_OFFCPU_NONE)
		return opts_error(p, "--off-cpu-kernel needs --off-cpu");
	if (o->off_cpu_kernel && o->user_callchains)
		return opts_error(p, "--off-cpu-kernel and --user-callchains cannot be used "
				     "together (--user-callchains leaves the kernel part out of every "
				     "callchain)");
	return 0;
}

void record_cli_extra_release(struct record_cli_extra *x)
{
	for (size_t i = 0; i < x->nevents; i++)
		free(x->events[i]);
	free(x->events);
	free(x->filters);
	free(x->pids);
	for (size_t i = 0; i < x->nprobes; i++)
		free(x->probes[i]);
	free(x->probes);
	free(x->probe_bins);
	free(x->probe_filters);
}

const struct opts_cmd record_cmd = {
	.name = "record",
	.summary = "Run a command (or watch processes, or the machine) and record a perf.data",
	.synopsis = "[options] [--] [command [args...]]",
	.description =
		"Sample a command, running processes (-p) or the whole machine (-a) with\n"
		"perf_event_open and write a perf.data that kiln and perf both read.\n",
	.opts = record_cli_opts,
	.notes =
		"Recording stops when the command exits, when all -p targets exit, or on\n"
		"Ctrl-C/SIGTERM/SIGHUP; the file is always finished, then a command still running\n"
		"gets SIGTERM (and SIGCONT), and SIGKILL 2 s later or at a second Ctrl-C. An\n"
		"existing non-empty output file is kept as FILE.old. Lost samples are reported.\n"
		"Exit status: the command's own (128+N if killed by signal N); 126/127 if it cannot\n"
		"be executed/found; 1 if recording failed (no file is left behind); 2 usage.\n",
	.examples =
		"kiln record -F 999 -g -o perf.data -- ./myprog args   # a command\n"
		"kiln record -g -p 1234 -- sleep 10                     # a running PID for 10 s\n"
		"kiln record -a -g -- sleep 5                           # the whole machine\n"
		"kiln record -e cpu-clock:u -c 100000 -- make -j2       # user-only, fixed period\n"
		"kiln record --call-graph dwarf -- ./prog_without_fp    # DWARF stacks\n"
		"kiln record -g --off-cpu --off-cpu-kernel -- ./server  # where it waits, kernel too\n",
	.flags = OPTS_STOP_AT_ARG,
};

int cmd_record(int argc, char **argv, const struct kiln_env *env)
{
	struct record_cli rc = { .o = { .env = env } };
	struct opts_parser p;
	rc.o.output = "perf.data";
	rc.o.cmdline = argv - 1;
	rc.o.cmdline_n = argc + 1;
	int code;
	int first = cli_parse(&p, &record_cmd, argc, argv, &rc, &code);
	if (first < 0) {
		/* the help, or a usage error: code is set */
	} else if (record_cli_finish(&rc, &p)) {
		code = cli_usage_error(&p);
	} else if (first == argc && !rc.o.npids && !rc.o.system_wide) {
		opts_error(&p, "nothing to record: give a command, -p PID or -a");
		code = cli_usage_error(&p);
	} else {
		if (first < argc)
			rc.o.argv = argv + first;
		code = record_cli_run(&rc.o, &rc.x);
	}
	record_cli_extra_release(&rc.x);
	return code;
}
