/*
 * record: the recording session, live events into a perf.data file
 * (pipeline, L8).
 *
 * Targets: a command (events follow it and its children from its exec),
 * existing processes (-p: every thread, until they exit or, with a
 * command, until that command exits), or the whole machine (-a). The
 * session synthesizes pre-existing state, drains the ring buffers into
 * the writer with a FINISHED_ROUND after every pass that wrote something,
 * and finishes the file on target exit, SIGINT, SIGTERM or SIGHUP (a
 * second signal while finishing does not interrupt it, so the file is
 * always complete). The file replaces the output path only once it is
 * whole; a non-empty regular file there is first kept as PATH.old, as
 * perf does. A command still running when a signal stopped the recording
 * then gets SIGTERM and SIGCONT (it may be stopped), and SIGKILL after
 * RECORD_STOP_GRACE_MS or at a further signal to kiln.
 */
#ifndef KILN_PIPELINE_RECORD_H
#define KILN_PIPELINE_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/env.h"
#include "pipeline/offcpu.h"
#include "source/live/offcpubpf.h"

#define RECORD_DEFAULT_FREQ 4000
/* --call-graph dwarf: perf's register set (AX..R15 but DS ES FS GS) and stack size. */
#define RECORD_DWARF_REGS 0xff0fffULL
#define RECORD_DWARF_STACK 8192u
#define RECORD_DWARF_STACK_MAX 65528u
/* How long a command has to exit after SIGTERM before it gets SIGKILL. */
#define RECORD_STOP_GRACE_MS 2000

/* --off-cpu: how blocked time is recorded (pipeline/offcpu.h). */
enum record_offcpu {
	RECORD_OFFCPU_NONE = 0,
	RECORD_OFFCPU_AUTO,  /* the best method this build and machine have */
	RECORD_OFFCPU_SCHED, /* sched:sched_switch with callchains, paired in user space */
	RECORD_OFFCPU_BPF,   /* in-kernel sums by a BPF program (source/live/offcpubpf.h) */
};

struct live;

/*
 * A live consumer beside (or instead of) the file: kiln top. 'opened' is
 * called once the events are open (their final attrs and names, after any
 * fallback; live_ids() gives their ids), 'record' with every record the
 * file receives (synthesized state first), in the same order. A non-zero
 * return stops the recording. When 'stop_fd' (>= 0) becomes readable the
 * recording ends as at a signal, without one.
 */
struct record_tap {
	void *arg;
	int (*opened)(void *arg, const struct perf_event_attr *attrs, char *const *names,
		      size_t n, const struct live *l);
	int (*record)(void *arg, const void *rec, size_t len);
	int stop_fd;
};

struct record_opts {
	const struct kiln_env *env; /* the environment (base/env.h), or NULL */
	const char *output;     /* perf.data path; NULL: no file (a tap only) */
	const struct record_tap *tap; /* or NULL */
	const pid_t *tids;      /* -t: these threads only (not their children) */
	size_t ntids;
	const int *cpus;        /* -C: only these CPUs, or NULL */
	size_t ncpus;
	char **argv;            /* command to run, or NULL */
	const pid_t *pids;      /* -p targets */
	size_t npids;
	bool system_wide;       /* -a */
	bool callgraph;         /* -g: call graphs */
	bool dwarf;             /* --call-graph dwarf: user regs + stack copies */
	bool user_callchains;   /* --user-callchains: no kernel part in callchains */
	unsigned stack_size;    /* bytes of user stack per sample (dwarf), 0: 8192 */
	const char *const *events; /* -e specs; NULL/0: default (cycles, else cpu-clock) */
	size_t nevents;
	const char *const *filters; /* per -e spec: its --filter, or NULL; or NULL for none */
	unsigned freq;          /* -F Hz (0: default unless period is set) */
	uint64_t period;        /* -c */
	unsigned mmap_pages;    /* -m (0: default) */
	int off_cpu;            /* enum record_offcpu */
	uint64_t off_cpu_thresh_ns; /* --off-cpu-thresh: shorter blocked intervals left out */
	bool off_cpu_kernel;    /* --off-cpu-kernel: blocked stacks with their kernel part
				 * (else user stacks only, as perf's --off-cpu) */
	char **cmdline;         /* kiln's own argv, for the header */
	int cmdline_n;
};

struct record_result {
	uint64_t samples, lost, lost_samples, bytes;
	bool workload;      /* a command was run */
	int workload_status; /* its wait status */
	int signal;         /* the signal that stopped recording, or 0 */
	bool kernel_excluded; /* fell back to user-only sampling */
	bool event_fallback;  /* cycles unavailable: used cpu-clock */
	bool no_pmu;          /* a hardware event (-e) has no PMU on this machine */
	bool ring_failed;     /* the events opened, a ring buffer could not be mapped */
	bool tracepoint;      /* the event refused is a tracepoint */
	bool filter_refused;  /* the kernel refused a --filter */
	pid_t foreign_pid;    /* refused: this -p target belongs to another user */
	uid_t foreign_uid;    /* ... this one */
	int exec_errno;     /* the command could not be executed */
	int open_errno;     /* perf_event_open's errno when it failed */
	int paranoid;       /* kernel.perf_event_paranoid, -100 if unknown */
	bool offcpu_refused;  /* --off-cpu: the method (forced, or the last tried) was refused */
	bool offcpu_unbuilt;  /* --off-cpu=bpf in a kiln built without BPF */
	bool offcpu;          /* off-CPU time was recorded: offcpu_stats says what */
	int offcpu_method;    /* the method used or refused: RECORD_OFFCPU_SCHED or _BPF */
	char offcpu_bpf_why[512]; /* why the BPF method is not used ("" when it is) */
	struct offcpu_stats offcpu_stats;
	struct offcpubpf_stats offcpu_bpf_stats; /* the BPF method's counts */
	bool salvaged;      /* a write failed; the file keeps the records written before */
	uint64_t salvaged_bytes;
};

/* 0 on success; -errno on failure with err_last() describing it and
 * result fields (open_errno, paranoid, exec_errno, no_pmu, ring_failed,
 * tracepoint, foreign_pid, offcpu_refused) telling the CLI what hint to give. No output file is left behind on
 * failure. SIGINT, SIGTERM and SIGHUP are blocked while it runs and the
 * caller's mask is restored at the end; one that arrived while the file
 * was being finished is consumed and reported in res->signal, so a caller
 * that blocks them around the call can report before it dies of it. */
int record_run(const struct record_opts *o, struct record_result *res);
int record_read_paranoid(void);

#endif
