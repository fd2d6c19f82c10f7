/*
 * cmd_trace: `kiln trace` (cli, L9): every system call of a command,
 * processes or the machine, one line each as perf trace prints them, or
 * their summary. The session is trace/trace.c.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/ofile.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "trace/trace.h"

struct trace_args {
	struct trace_opts o;
	const char *output;
	pid_t *pids, *tids;
	size_t npids, ntids;
	bool summary, with_summary;
};

#define TA_OFF(field) offsetof(struct trace_args, field)

static int add_ids(struct opts_parser *p, const char *arg, pid_t **v, size_t *n, const char *what)
{
	const char *s = arg;
	while (*s) {
		char num[24];
		size_t len = strcspn(s, ",");
		unsigned long long x;
		if (len == 0 || len >= sizeof(num))
			return opts_error(p, "%s takes ids separated by commas, not '%s'", what, arg);
		memcpy(num, s, len);
		num[len] = '\0';
		if (cli_parse_u64(num, &x) || x == 0 || x > 0x7fffffff)
			return opts_error(p, "%s takes ids separated by commas, not '%s'", what, arg);
		*v = xreallocarray(*v, *n + 1, sizeof(**v));
		(*v)[(*n)++] = (pid_t)x;
		s += len;
		if (*s == ',')
			s++;
	}
	return 0;
}

static int opt_pid(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct trace_args *a = field;
	(void)o;
	return add_ids(p, arg, &a->pids, &a->npids, "-p");
}

static int opt_tid(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct trace_args *a = field;
	(void)o;
	return add_ids(p, arg, &a->tids, &a->ntids, "--tid");
}

static int opt_expr(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	(void)o;
	if (trace_check_expr(arg))
		return opts_error(p, "%s", err_last()->msg);
	*(const char **)field = arg;
	return 0;
}

static int opt_call_graph(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	enum trace_callgraph *cg = field;
	(void)o;
	if (!strcmp(arg, "fp"))
		*cg = TRACE_CG_FP;
	else if (!strcmp(arg, "dwarf")) {
#ifndef __x86_64__
		return opts_error(p, "--call-graph dwarf is for x86_64 only (kiln's DWARF unwinder); "
				     "use fp");
#endif
		*cg = TRACE_CG_DWARF;
	}
	else
		return opts_error(p, "--call-graph '%s' is not supported (fp or dwarf)", arg);
	return 0;
}

/* -F/--pf maj|min|all. */
static int opt_pf(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	unsigned *pf = field;
	(void)o;
	if (!strcmp(arg, "maj"))
		*pf = TRACE_PF_MAJ;
	else if (!strcmp(arg, "min"))
		*pf = TRACE_PF_MIN;
	else if (!strcmp(arg, "all"))
		*pf = TRACE_PF_MIN | TRACE_PF_MAJ;
	else
		return opts_error(p, "-F takes maj, min or all, not '%s'", arg);
	return 0;
}

static const struct opt trace_opts_table[] = {
	OPT_FILENAME('o', "output", TA_OFF(output), "FILE",
		     "write the lines and summaries to FILE (whole, once tracing ends)"),
	OPT_CALLBACK('p', "pid", 0, "PID[,PID]",
		     "trace these running processes (their threads and children); with -a, "
		     "show only their calls",
		     opt_pid),
	OPT_CALLBACK(0, "tid", 0, "TID[,TID]", "show only the calls of these threads", opt_tid),
	OPT_BOOL('a', "all-cpus", TA_OFF(o.system_wide), "trace every process on the machine"),
	OPT_CALLBACK('e', "expr", TA_OFF(o.expr), "LIST",
		     "calls to show: names or globs separated by commas (open*,close); a "
		     "leading ! shows all but those (!read)",
		     opt_expr),
	OPT_BOOL(0, "failure", TA_OFF(o.failure), "show only the calls that failed"),
	OPT_DOUBLE(0, "duration", TA_OFF(o.duration_ms), "MS",
		   "show only the calls that took longer than MS milliseconds"),
	OPT_STRING(0, "comm", TA_OFF(o.comm), "NAME", "show only the calls of tasks named NAME"),
	OPT_BOOL('s', "summary", TA_OFF(summary),
		 "print a summary instead of the lines: per thread, per call, calls, errors and "
		 "times in ms, as perf trace -s"),
	OPT_BOOL('S', "with-summary", TA_OFF(with_summary), "print the lines and the summary"),
	OPT_BOOL('c', "summary-table", TA_OFF(o.strace_table),
		 "print strace -c's table (every thread together) at the end"),
	OPT_CALLBACK(0, "call-graph", TA_OFF(o.callgraph), "MODE",
		     "print the user stack that made each call under its line: fp (frame "
		     "pointers, walked by the kernel) or dwarf (registers and 8 KiB of stack "
		     "copied at the call, unwound by kiln with DWARF CFI: code built without "
		     "frame pointers)",
		     opt_call_graph),
	OPT_SET_INT('g', NULL, TA_OFF(o.callgraph), TRACE_CG_FP, "as --call-graph fp"),
	OPT_CALLBACK('F', "pf", TA_OFF(o.faults), "maj|min|all",
		     "also show page faults, major, minor or all: where the code was and the "
		     "address it touched, as perf trace -F",
		     opt_pf),
	OPT_BOOL(0, "no-bpf", TA_OFF(o.no_bpf),
		 "use the raw tracepoints even where BPF works (string arguments show as "
		 "pointers)"),
	OPT_CALLBACK('m', "mmap-pages", TA_OFF(o.mmap_pages), "N",
		     "ring buffer pages per CPU (a power of two)", cli_opt_mmap_pages),
	OPT_END(),
};

const struct opts_cmd trace_cmd = {
	.name = "trace",
	.summary = "Show every system call of a command, processes or the machine",
	.synopsis = "[options] [--] [command [args...]]",
	.description =
		"Trace the system calls of a command (and its children and threads), of\n"
		"running processes (-p) or of the whole machine (-a), one line per call as\n"
		"perf trace prints it: ms since the start, duration, comm/tid, the call with\n"
		"its arguments decoded (fds with what they are, flags and signals by name,\n"
		"modes in octal, paths as strings) and its result, errors by errno name and\n"
		"text.\n"
		"\n"
		"Paths and other string arguments are read at entry by a BPF program (built\n"
		"when clang, bpftool and libbpf are present; it needs root or CAP_BPF and\n"
		"CAP_PERFMON). Without it kiln uses the raw_syscalls tracepoints, says so once,\n"
		"and shows those arguments as pointers (kernel.perf_event_paranoid -1, or\n"
		"root, for tracepoints).\n"
		"\n"
		"With --call-graph the user stack of each call is printed under its line,\n"
		"as perf trace prints callchains (the BPF program takes it); with -F, page\n"
		"faults are printed among the calls, as perf trace -F prints them.\n",
	.opts = trace_opts_table,
	.notes =
		"A call that blocks while another thread's call is shown appears twice: its\n"
		"entry ending in \"...\", then \"... [continued]: name()) = result\".\n"
		"Tracing ends when the command exits (kiln's exit status is the command's,\n"
		"128+N if signal N killed it), when every -p process is gone, or on Ctrl-C,\n"
		"SIGTERM or SIGHUP: every event received is printed, then the summary so far.\n"
		"Events the kernel dropped (full buffers) are counted and reported.\n"
		"Exit status otherwise: 1 if tracing failed (permissions, no tracefs), 2 usage,\n"
		"126/127 if the command cannot be executed/found.\n",
	.examples = "kiln trace -- ls /tmp\n"
		    "kiln trace -e 'open*,close' --failure -- ./prog\n"
		    "kiln trace -s -- make -j2          # per-thread summary\n"
		    "kiln trace -c -- ./prog            # strace -c's table\n"
		    "kiln trace -p 1234 --duration 10   # calls over 10 ms of a running process\n"
		    "kiln trace -a -e '!read' -- sleep 5\n"
		    "kiln trace --call-graph dwarf -e connect -- ./client   # who connects\n"
		    "kiln trace -F min -e exit_group -- ./prog             # minor page faults\n",
	.flags = OPTS_STOP_AT_ARG,
};

static int trace_failed(const struct trace_opts *o, const struct trace_result *r)
{
	if (r->exec_errno) {
		cli_err("error: cannot run '%s': %s\n", o->argv[0], strerror(r->exec_errno));
		return r->exec_errno == ENOENT ? 127 : 126;
	}
	cli_err("error: kiln trace: %s\n", err_last()->msg);
	if (r->open_errno == EACCES || r->open_errno == EPERM)
		cli_err("hint: tracing system calls needs root, CAP_PERFMON, or "
			"kernel.perf_event_paranoid <= -1 (it is %d): sysctl -w "
			"kernel.perf_event_paranoid=-1\n",
			r->paranoid);
	else if (r->no_tracefs && geteuid() != 0)
		cli_err("hint: tracing system calls needs root (or CAP_PERFMON with tracefs "
			"readable and kernel.perf_event_paranoid <= -1, it is %d)\n",
			r->paranoid);
	else if (r->no_tracefs)
		cli_err("hint: kiln trace reads the syscall formats from tracefs: mount it\n");
	return KILN_EXIT_FAIL;
}

int cmd_trace(int argc, char **argv, const struct kiln_env *env)
{
	struct trace_args a = { .o = { .out = stdout } };
	struct opts_parser p;
	int code;
	int first = cli_parse(&p, &trace_cmd, argc, argv, &a, &code);
	if (first < 0)
		goto out;
	if (a.summary && a.with_summary) {
		opts_error(&p, "-s and -S cannot be used together");
		code = cli_usage_error(&p);
		goto out;
	}
	if (first == argc && !a.npids && !a.o.system_wide) {
		opts_error(&p, "nothing to trace: give a command, -p PID or -a");
		code = cli_usage_error(&p);
		goto out;
	}
	if (a.o.callgraph && a.o.no_bpf) {
		opts_error(&p, "--call-graph needs the BPF program: it cannot be used with --no-bpf");
		code = cli_usage_error(&p);
		goto out;
	}
	if (a.o.duration_ms < 0) {
		opts_error(&p, "--duration takes milliseconds, 0 or more");
		code = cli_usage_error(&p);
		goto out;
	}
	struct trace_opts o = a.o;
	o.env = env;
	if (first < argc)
		o.argv = argv + first;
	if (o.system_wide) {
		o.only_pids = a.pids;
		o.nonly_pids = a.npids;
	} else if (!o.argv) {
		o.pids = a.pids;
		o.npids = a.npids;
	} else if (a.npids) {
		opts_error(&p, "-p and a command cannot be used together");
		code = cli_usage_error(&p);
		goto out;
	}
	o.only_tids = a.tids;
	o.nonly_tids = a.ntids;
	o.summary = a.summary ? TRACE_SUMMARY_ONLY
				: a.with_summary ? TRACE_LINES_SUMMARY : TRACE_LINES;

	struct ofile of = { 0 };
	bool to_file = a.output && strcmp(a.output, "-") != 0;
	if (to_file) {
		if (ofile_open(&of, a.output)) {
			cli_error_last(NULL);
			code = KILN_EXIT_FAIL;
			goto out;
		}
		o.out = of.f;
	}
	/* A second signal must not kill kiln between the last events and the summary. */
	sigset_t old;
	cli_block_stops(&old);
	struct trace_result r;
	err_clear();
	int err = trace_run(&o, &r);
	if (err)
		code = trace_failed(&o, &r);
	else
		code = r.workload ? cli_status_code(r.workload_status) : KILN_EXIT_OK;
	if (to_file) {
		if (ofile_close(&of, err) && !err) {
			cli_error_last(NULL);
			code = KILN_EXIT_FAIL;
		}
	} else if (fflush(stdout) || ferror(stdout)) {
		cli_err("error: cannot write to standard output\n");
		code = KILN_EXIT_FAIL;
	}
	if (!err && r.lost && r.lost_bpf == r.lost)
		cli_err("warning: kiln trace: %llu events lost (the BPF ring buffer, 16 MiB, was "
			"full: kiln could not keep up; trace fewer calls with -e, or without "
			"--call-graph dwarf)\n",
			(unsigned long long)r.lost);
	else if (!err && r.lost)
		cli_err("warning: kiln trace: %llu events lost (buffers full): use a bigger -m\n",
			(unsigned long long)r.lost);
	if (!err && r.signal) /* die of it, the summary written */
		code = cli_die_of(r.signal);
	sigprocmask(SIG_SETMASK, &old, NULL);
out:
	free(a.pids);
	free(a.tids);
	return code;
}
