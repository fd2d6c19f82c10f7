/*
 * trace: system calls of a command, processes or the whole machine, one
 * readable line each (trace, L7).
 *
 * Events come from the kernel's raw_syscalls:sys_enter/sys_exit
 * tracepoints, either through a BPF program (bpfsrc.c: it also copies the
 * string arguments, paths, at entry) or, where BPF is not built or not
 * allowed, through perf_event_open ring buffers (perfsrc.c: pointers
 * instead of strings, said once through log_warn). Syscall names come from
 * the build machine's <asm/unistd.h>, argument names and types from the
 * tracefs format files (syscalls:sys_enter_NAME), their values decoded by
 * kiln's tables (argfmt.c). Lines are printed as perf trace prints them;
 * summaries as perf trace -s and strace -c print them (stats.c).
 */
#ifndef KILN_TRACE_TRACE_H
#define KILN_TRACE_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

enum trace_summary {
	TRACE_LINES,          /* lines only (default) */
	TRACE_SUMMARY_ONLY,   /* -s */
	TRACE_LINES_SUMMARY,  /* -S */
};

enum trace_callgraph {
	TRACE_CG_NONE,
	TRACE_CG_FP,    /* --call-graph fp, -g: frame pointers, walked by the kernel */
	TRACE_CG_DWARF, /* --call-graph dwarf: registers and a stack copy, unwound by kiln */
};

/* -F: page faults shown (bits) */
#define TRACE_PF_MIN 1u
#define TRACE_PF_MAJ 2u

struct kiln_env;

struct trace_opts {
	char **argv;            /* -- CMD, or NULL */
	const pid_t *pids;      /* -p targets */
	size_t npids;
	bool system_wide;       /* -a */
	FILE *out;              /* where lines and summaries go */
	enum trace_summary summary;
	bool strace_table;      /* -c: strace -c's table at the end (alone: no lines) */
	const char *expr;       /* -e: "open*,close", "!read"; NULL: all */
	bool failure;           /* --failure: failed calls only */
	double duration_ms;     /* --duration: calls longer than this only (0: all) */
	const pid_t *only_pids; /* --pid */
	size_t nonly_pids;
	const pid_t *only_tids; /* --tid */
	size_t nonly_tids;
	const char *comm;       /* --comm */
	bool no_bpf;            /* --no-bpf: the raw tracepoints even where BPF works */
	unsigned mmap_pages;    /* per-CPU ring pages (0: default) */
	const char *tracefs;    /* tracefs root; NULL: /sys/kernel/tracing, then debugfs */
	enum trace_callgraph callgraph; /* the user stack under each call (BPF source only) */
	unsigned faults;                /* -F: TRACE_PF_MIN | TRACE_PF_MAJ */
	const struct kiln_env *env;     /* HOME and the cache directory, for debug files */
};

struct trace_result {
	uint64_t calls;          /* system calls seen (exits, plus calls that never return) */
	uint64_t lost;           /* events the kernel dropped (full buffers) */
	uint64_t lost_bpf;       /* those of them the BPF ring buffer dropped (-m does not size it) */
	bool bpf;                /* strings were read (the BPF program ran) */
	bool workload;           /* a command was run */
	int workload_status;     /* its wait status */
	int signal;              /* the signal that stopped tracing, or 0 */
	int exec_errno;          /* the command could not be executed */
	int open_errno;          /* perf_event_open's errno when it failed */
	int paranoid;            /* kernel.perf_event_paranoid */
	bool no_tracefs;         /* the tracepoints' formats could not be read */
};

/*
 * Trace until the command (or every -p target) ends, or SIGINT, SIGTERM
 * or SIGHUP (which are blocked meanwhile and reported in res->signal);
 * every event received is printed, then the summary. 0, or -errno with
 * err_last() saying what failed.
 */
int trace_run(const struct trace_opts *o, struct trace_result *res);

/* Check an -e expression without running; 0 or -EINVAL (err_last() says why). */
int trace_check_expr(const char *expr);

#endif
