/*
 * live: sampling from the running kernel (source/live, L2).
 *
 * Opens perf_event_open events for a set of threads (one event per
 * thread per CPU, as perf record does) or for whole CPUs, gives every
 * CPU one ring buffer (the other events of that CPU are redirected into
 * it with PERF_EVENT_IOC_SET_OUTPUT), and drains the buffers: load
 * data_head with acquire order, copy records out (a record that wraps
 * the end of the buffer is copied in two parts into a bounce buffer),
 * then store data_tail with release order. Records are handed to a
 * callback as raw bytes, exactly as the kernel wrote them.
 *
 * It also synthesizes the records the kernel does not send for state
 * that existed before recording (COMM, FORK and MMAP2 for running
 * processes, the kernel's own MMAP) from /proc, and launches a workload
 * command held at a pipe until the events are ready.
 */
#ifndef KILN_SOURCE_LIVE_LIVE_H
#define KILN_SOURCE_LIVE_LIVE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct live;

struct live_opts {
	struct perf_event_attr *attrs; /* events; attrs[0] carries the sideband bits */
	size_t nattrs;
	const pid_t *tids; /* threads to follow (pid argument), or NULL ... */
	size_t ntids;
	bool system_wide;     /* ... every task on every CPU (pid -1) */
	unsigned mmap_pages;  /* data pages per ring buffer, a power of two */
	const char *const *filters; /* per attr: a tracepoint filter (--filter), or NULL */
	const int *cpus;      /* only these CPUs (perf's -C), or NULL: every online one */
	size_t ncpus;
};

/* Called for every drained record; a non-zero return stops the drain and
 * is passed back. */
typedef int (*live_record_fn)(void *arg, const void *rec, size_t len);

/*
 * Open every event and its buffers, each tracepoint with its filter if it
 * has one (PERF_EVENT_IOC_SET_FILTER: the kernel's filter syntax; a filter
 * it refuses fails the open with -EINVAL). 0 or -errno; on failure err_last()
 * describes which event failed and why, and *failed_attr (if non-NULL)
 * is set to the index of the attr that was refused, or to SIZE_MAX when
 * the events opened but a ring buffer could not be mapped (locked memory:
 * kernel.perf_event_mlock_kb, RLIMIT_MEMLOCK).
 */
int live_open(struct live **out, const struct live_opts *o, size_t *failed_attr);
void live_close(struct live *l);

/* Set a tracepoint filter (the kernel's syntax) on event fd. 0, or -errno
 * with err_last() giving the kernel's refusal and the syntax. */
int live_set_filter(int fd, const char *filter);
/* For a refused filter: when it names a field 'event' ("sys:name") does not
 * have (its tracefs format file says), a sentence saying so and listing the
 * fields into why[len], and true (filtercheck.c). */
bool live_filter_unknown_field(const char *event, const char *filter, char *why, size_t len);

/* The kernel ids of attr 'idx' (for the perf.data header). */
const uint64_t *live_ids(const struct live *l, size_t idx, size_t *n);
int live_enable(struct live *l);
int live_disable(struct live *l);
/* The ring buffer fds, for poll(). */
size_t live_pollfds(const struct live *l, int *fds, size_t max);
/* Drain every ring once; *bytes gets the number of record bytes handed out. */
int live_drain(struct live *l, live_record_fn fn, void *arg, uint64_t *bytes);
/* Number of CPUs events were opened on. */
unsigned live_ncpus(const struct live *l);

/* ---- synthesized state (synth.c) ---- */

/* Emit COMM for each thread of 'pid', FORK for its non-leader threads
 * and MMAP2 for its executable mappings, all with time 0; 'tracking' is
 * attrs[0] and 'id' its first kernel id (for the sample_id trailer). */
int live_synth_process(pid_t pid, const struct perf_event_attr *tracking, uint64_t id,
		       live_record_fn fn, void *arg);
/* The same for every process in /proc. */
int live_synth_all(const struct perf_event_attr *tracking, uint64_t id, live_record_fn fn,
		   void *arg);
/* The kernel's MMAP ([kernel.kallsyms]_text) from kt (source/live/ktext.h,
 * read once per recording), and a KSYMBOL for each function of each BPF
 * program already loaded (named as kallsyms names it), as perf writes
 * them; nothing when kt has no _text (hidden addresses). */
struct ktext;
int live_synth_kernel(const struct perf_event_attr *tracking, uint64_t id, const struct ktext *kt,
		      live_record_fn fn, void *arg);
/* The tids in /proc/PID/task, sorted. Caller frees *tids. 0 or -errno. */
int live_list_threads(pid_t pid, pid_t **tids, size_t *n);
/* The threads of every process in pids[0..npids), appended to *tids
 * (*n entries, grown as needed). 0, or -ESRCH with the error recorded
 * ("no such process: PID") for the first process that is gone. */
int live_append_threads(const pid_t *pids, size_t npids, pid_t **tids, size_t *n);

/* Parse a CPU list ("0-3,5", perf's -C) into *cpus (sorted, no repeats;
 * caller frees). 0, or -EINVAL for a malformed list or a CPU that is not
 * online (err_last says which). */
int live_parse_cpus(const char *list, int **cpus, size_t *n);

/* The processes owned by 'uid' (perf's -u), sorted; caller frees *pids.
 * 0 or -errno. */
int live_user_pids(uid_t uid, pid_t **pids, size_t *n);

/* Read a small file (sysfs, procfs) into out[max] as text, cut at the first
 * newline. 0 or -errno. */
int live_read_small(const char *path, char *out, size_t max);

/* ---- workload (workload.c) ---- */

struct live_workload {
	pid_t pid;
	int go_fd;  /* write end: one byte releases the child */
	int err_fd; /* read end: the child's exec errno, EOF on success */
};

/* Fork a child that waits, then execvp(argv). 0 or -errno. */
int live_workload_prepare(struct live_workload *w, char *const argv[]);
/* Release the child; returns 0 once it has exec'd, or -errno from exec
 * (-ENOENT: not found; -EACCES: not executable). */
int live_workload_start(struct live_workload *w);
/* Kill and reap a child that was never started. */
void live_workload_cancel(struct live_workload *w);

/* The stop signals of a session (a workload's SIGCHLD; SIGINT, SIGTERM,
 * SIGHUP), read from a signalfd. */
struct live_stops {
	int status;       /* the workload's wait status, once reaped */
	int signal;       /* the first stop signal, or 0 */
	unsigned signals; /* stop signals received */
};
/* Reap the workload if it has ended (flags: WNOHANG, or 0 to wait): its
 * status goes to st->status, w->pid becomes 0. */
bool live_workload_reap(struct live_workload *w, int flags, struct live_stops *st);
/* Read the pending signals of signalfd sfd; true when one ends the session
 * (the workload exited, or a stop signal: the first one is kept). */
bool live_read_stops(int sfd, struct live_workload *w, struct live_stops *st);

#endif
