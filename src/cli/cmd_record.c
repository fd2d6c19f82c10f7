/*
 * cmd_record: `kiln record` (cli, L9). Options as perf record names them;
 * the session itself is pipeline/record.c. This file turns results into
 * messages, hints and the exit status.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "cli/record_cli.h"
#include "pipeline/record.h"

static const char usage_text[] =
	"usage: kiln record [options] [--] [command [args...]]\n"
	"\n"
	"Sample a command, running processes (-p) or the whole machine (-a) with\n"
	"perf_event_open and write a perf.data that kiln and perf both read.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE     output file (default perf.data); written to a temporary\n"
	"                        file and renamed when complete\n"
	"  -F, --freq HZ         samples per second per CPU (default 4000)\n"
	"  -c, --count N         sample every N events instead of a frequency\n"
	"  -e, --event SPEC      event(s), comma-separated, repeatable: cycles, instructions,\n"
	"                        cpu-clock, task-clock, page-faults, rNNN, sys:tracepoint,\n"
	"                        with :u :k modifiers (default: cycles, or cpu-clock where\n"
	"                        the machine has no hardware PMU); a tracepoint samples\n"
	"                        every hit (unless -c) with its payload, and the file\n"
	"                        keeps the event formats (TRACING_DATA) for kiln/perf script\n"
	"  -g                    record call graphs (kernel and user, frame pointers)\n"
	"      --call-graph MODE fp (frame pointers; as -g), or dwarf[,SIZE]: copy SIZE\n"
	"                        bytes of user stack per sample (default 8192, at most\n"
	"                        65528) and unwind it later with DWARF CFI, for code\n"
	"                        built without frame pointers\n"
	"  -p, --pid PID[,PID]   sample existing processes (all their threads); with a\n"
	"                        command, only for as long as that command runs\n"
	"  -a, --all-cpus        sample every process on every CPU\n"
	"  -m, --mmap-pages N    ring buffer data pages per CPU (power of two)\n"
	"  -q, --quiet           no summary line, no note of the cpu-clock fallback\n"
	"  -h, --help            this help\n"
	"\n"
	"Recording stops when the command exits, when all -p targets exit, or on\n"
	"Ctrl-C/SIGTERM/SIGHUP; the file is always finished, then a command still running\n"
	"gets SIGTERM (and SIGCONT), and SIGKILL 2 s later or at a second Ctrl-C. An\n"
	"existing non-empty output file is kept as FILE.old. Lost samples are reported.\n"
	"Exit status: the command's own (128+N if killed by signal N); 126/127 if it cannot\n"
	"be executed/found; 1 if recording failed (no file is left behind); 2 usage.\n"
	"\n"
	"EXAMPLES\n"
	"  kiln record -F 999 -g -o perf.data -- ./myprog args   # a command\n"
	"  kiln record -g -p 1234 -- sleep 10                     # a running PID for 10 s\n"
	"  kiln record -a -g -- sleep 5                           # the whole machine\n"
	"  kiln record -e cpu-clock:u -c 100000 -- make -j2        # user-only, fixed period\n"
	"  kiln record --call-graph dwarf -- ./prog_without_fp      # DWARF stacks\n";

static void permission_hint(const struct record_result *r, const struct record_opts *o)
{
	int p = r->paranoid;
	fprintf(stderr, "error: perf_event_open was refused: %s (kernel.perf_event_paranoid is %d)\n",
		strerror(r->open_errno), p);
	if (r->foreign_pid) {
		/* The kernel's ptrace check: no paranoid level lets one user sample another's process. */
		fprintf(stderr, "hint: process %d belongs to another user (uid %u): sampling it needs "
				"root, CAP_PERFMON or CAP_SYS_PTRACE, whatever kernel.perf_event_paranoid "
				"says;\n",
			(int)r->foreign_pid, (unsigned)r->foreign_uid);
		fprintf(stderr, "hint: run kiln as that user or as root, or grant CAP_PERFMON "
				"(setcap cap_perfmon,cap_ipc_lock+ep kiln)\n");
		return;
	}
	int want = 1; /* the paranoid level that allows it */
	if (p >= 3) {
		fprintf(stderr, "hint: paranoid %d (a distribution setting) refuses all "
				"unprivileged profiling;\n",
			p);
	} else if (o->system_wide) {
		fprintf(stderr, "hint: -a needs kernel.perf_event_paranoid <= 0;\n");
		want = 0;
	} else if (r->tracepoint) {
		fprintf(stderr, "hint: tracepoints need kernel.perf_event_paranoid <= -1;\n");
		want = -1;
	} else if (p >= 2 && !r->kernel_excluded) {
		fprintf(stderr, "hint: kernel stacks need kernel.perf_event_paranoid <= 1, user-only "
				"sampling (-e cpu-clock:u) works at 2;\n");
	} else {
		/* User-only sampling was refused too, or kernel sampling was allowed. */
		want = -1;
	}
	fprintf(stderr, "hint: run as root, grant CAP_PERFMON (setcap cap_perfmon,cap_ipc_lock+ep "
			"kiln), or lower it: sysctl -w kernel.perf_event_paranoid=%d\n",
		want);
}

/* Report a recording that failed; returns the exit code. */
static int record_failed(const struct record_opts *o, const struct record_result *r, int err)
{
	if (r->exec_errno) {
		fprintf(stderr, "error: cannot run '%s': %s\n", o->argv[0], strerror(r->exec_errno));
		return r->exec_errno == ENOENT ? 127 : 126;
	}
	if ((r->open_errno == EACCES || r->open_errno == EPERM) && !r->ring_failed) {
		permission_hint(r, o);
		return KILN_EXIT_FAIL;
	}
	cli_error_last(NULL);
	if (r->ring_failed)
		fprintf(stderr, "hint: the ring buffers' locked memory is limited "
				"(kernel.perf_event_mlock_kb, ulimit -l): use a smaller -m, or "
				"none for a size that fits\n");
	if (r->no_pmu)
		fprintf(stderr, "hint: sample a software event instead: -e cpu-clock\n");
	if (r->salvaged)
		fprintf(stderr, "hint: recording stopped; %s keeps the %.3f MB of records "
				"written before the failure\n",
			o->output, (double)r->salvaged_bytes / (1024.0 * 1024.0));
	return err == -EINVAL ? KILN_EXIT_USAGE : KILN_EXIT_FAIL;
}

/* Warnings and the summary of a finished recording. */
static void record_report(const struct record_opts *o, const struct record_result *r, bool quiet)
{
	if (r->event_fallback && !quiet)
		fprintf(stderr, "warning: no hardware PMU: sampling cpu-clock instead of cycles\n");
	if (r->kernel_excluded)
		fprintf(stderr, "warning: kernel.perf_event_paranoid is %d: sampled user space only "
				"(kernel samples need <= 1, or root/CAP_PERFMON)\n",
			r->paranoid);
	if (r->lost)
		fprintf(stderr, "warning: lost %llu samples (the ring buffer was full; try a larger "
				"-m or a lower -F)\n",
			(unsigned long long)r->lost);
	if (r->lost_samples)
		fprintf(stderr, "warning: the kernel dropped %llu samples\n",
			(unsigned long long)r->lost_samples);
	if (!quiet) {
		struct stat st;
		double mb = stat(o->output, &st) == 0 ? (double)st.st_size / (1024.0 * 1024.0) : 0;
		fprintf(stderr, "[ kiln record: wrote %llu samples (%.3f MB) to %s ]\n",
			(unsigned long long)r->samples, mb, o->output);
	}
}

int record_cli_run(const struct record_opts *o, bool quiet)
{
	/* SIGINT/SIGTERM/SIGHUP stay blocked until the report is out: a second
	 * one must not kill kiln between the finished file and its summary. */
	sigset_t stops, old;
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	sigprocmask(SIG_BLOCK, &stops, &old);
	struct record_result r;
	err_clear();
	int err = record_run(o, &r);
	int code;
	if (err) {
		code = record_failed(o, &r, err);
	} else {
		record_report(o, &r, quiet);
		code = KILN_EXIT_OK;
		if (r.workload && WIFEXITED(r.workload_status))
			code = WEXITSTATUS(r.workload_status);
		else if (r.workload && WIFSIGNALED(r.workload_status))
			code = 128 + WTERMSIG(r.workload_status);
	}
	if (!err && r.signal) {
		/* Finished cleanly; now die of the signal we got, so callers see it
		 * (the others, still blocked, die with us). */
		fflush(stderr);
		signal(r.signal, SIG_DFL);
		raise(r.signal);
		sigset_t one;
		sigemptyset(&one);
		sigaddset(&one, r.signal);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		code = 128 + r.signal;
	}
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

int record_cli_parse(int argc, char **argv, struct record_opts *o, struct record_cli_extra *x,
		     const char *extra_short, const struct option *extra_long,
		     int (*extra_fn)(int c, const char *arg, void *ctx), void *ctx)
{
	static const struct option base_long[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "freq", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'c' },
		{ "event", required_argument, NULL, 'e' },
		{ "call-graph", required_argument, NULL, 1000 },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
	};
	size_t nbase = sizeof(base_long) / sizeof(base_long[0]), nextra = 0;
	while (extra_long && extra_long[nextra].name)
		nextra++;
	struct option *longopts;
	XALLOC_ARRAY(longopts, nbase + nextra + 1);
	memcpy(longopts, base_long, sizeof(base_long));
	if (nextra)
		memcpy(longopts + nbase, extra_long, nextra * sizeof(*extra_long));
	char *shortopts = xasprintf("+o:F:c:e:gp:am:qh%s", extra_short ? extra_short : "");
	unsigned long long v;
	int c, ret = 0;
	optind = 1;
	opterr = 1;
	while (!ret && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'F':
			if (cli_parse_u64(optarg, &v) || v == 0 || v > 1000000) {
				fprintf(stderr, "error: -F takes a frequency in Hz (1..1000000), not '%s'\n", optarg);
				ret = -1;
			}
			o->freq = (unsigned)v;
			break;
		case 'c':
			if (cli_parse_u64(optarg, &v) || v == 0) {
				fprintf(stderr, "error: -c takes a positive event count, not '%s'\n", optarg);
				ret = -1;
			}
			o->period = v;
			break;
		case 'e':
			add_list(optarg, &x->events, &x->nevents);
			break;
		case 'g':
			o->callgraph = true;
			break;
		case 1000:
			if (!strcmp(optarg, "fp")) {
				o->callgraph = true;
				o->dwarf = false;
			} else if (!strncmp(optarg, "dwarf", 5) && (optarg[5] == '\0' || optarg[5] == ',')) {
				o->callgraph = true;
				o->dwarf = true;
				if (optarg[5] == ',') {
					if (cli_parse_u64(optarg + 6, &v) || v == 0 || v > RECORD_DWARF_STACK_MAX) {
						fprintf(stderr, "error: --call-graph dwarf,SIZE takes 8..%u bytes, not '%s'\n",
							RECORD_DWARF_STACK_MAX, optarg + 6);
						ret = -1;
					}
					o->stack_size = (unsigned)((v + 7) & ~7ULL); /* a multiple of 8, as perf */
				}
			} else {
				fprintf(stderr, "error: --call-graph '%s' is not supported (fp or dwarf[,SIZE])\n",
					optarg);
				ret = -1;
			}
			break;
		case 'p': {
			char **list = NULL;
			size_t n = 0;
			add_list(optarg, &list, &n);
			for (size_t i = 0; i < n; i++) {
				if (cli_parse_u64(list[i], &v) || v == 0 || v > 0x7fffffff) {
					fprintf(stderr, "error: -p takes process ids, not '%s'\n", list[i]);
					ret = -1;
				} else {
					XREALLOC_ARRAY(x->pids, x->npids + 1);
					x->pids[x->npids++] = (pid_t)v;
				}
				free(list[i]);
			}
			free(list);
			break;
		}
		case 'a':
			o->system_wide = true;
			break;
		case 'm':
			if (cli_parse_u64(optarg, &v) || v == 0 || (v & (v - 1)) || v > (1u << 20)) {
				fprintf(stderr, "error: -m takes a power of two number of pages, not '%s'\n", optarg);
				ret = -1;
			}
			o->mmap_pages = (unsigned)v;
			break;
		case 'q':
			x->quiet = true;
			break;
		case 'h':
			x->help = true;
			break;
		case '?':
			ret = -1;
			break;
		default:
			if (extra_fn && extra_fn(c, optarg, ctx) == 0)
				break;
			ret = -1;
			break;
		}
	}
	free(longopts);
	free(shortopts);
	if (ret)
		return ret;
	if (optind < argc)
		o->argv = argv + optind;
	o->pids = x->pids;
	o->npids = x->npids;
	o->events = (const char *const *)x->events;
	o->nevents = x->nevents;
	if (o->system_wide && o->npids) {
		fprintf(stderr, "error: -a and -p cannot be used together\n");
		return -1;
	}
	return 0;
}

void record_cli_extra_release(struct record_cli_extra *x)
{
	for (size_t i = 0; i < x->nevents; i++)
		free(x->events[i]);
	free(x->events);
	free(x->pids);
}

int cmd_record(int argc, char **argv, const struct kiln_env *env)
{
	struct record_opts o = { .env = env };
	struct record_cli_extra x = { 0 };
	o.output = "perf.data";
	o.cmdline = argv - 1;
	o.cmdline_n = argc + 1;
	int code;
	if (record_cli_parse(argc, argv, &o, &x, NULL, NULL, NULL, NULL)) {
		code = cli_usage(stderr, "usage: kiln record [options] [--] [command [args...]]\n"
					 "See 'kiln record --help'.\n",
				 KILN_EXIT_USAGE);
	} else if (x.help) {
		code = cli_usage(stdout, usage_text, KILN_EXIT_OK);
	} else if (!o.argv && !o.npids && !o.system_wide) {
		code = cli_usage(stderr, "error: nothing to record: give a command, -p PID or -a\n"
					 "See 'kiln record --help'.\n",
				 KILN_EXIT_USAGE);
	} else {
		code = record_cli_run(&o, x.quiet);
	}
	record_cli_extra_release(&x);
	return code;
}
