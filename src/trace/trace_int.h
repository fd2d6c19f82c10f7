/*
 * trace_int: what the trace files share (trace, L7).
 *
 * systab.c: the syscall table (names by number, arguments from tracefs);
 * argfmt.c: argument and result text; fdcache.c: what an fd is;
 * filter.c: -e and the other filters; stats.c: summaries; queue.c: a
 * pass's records in time order; core.c: per-
 * thread state, lines and interleaving; perfsrc.c and bpfsrc.c: the two
 * event sources; callchain.c: the stacks of --call-graph, symbolized;
 * trace.c: the session (targets, signals, the loop).
 */
#ifndef KILN_TRACE_TRACE_INT_H
#define KILN_TRACE_TRACE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/buf.h"
#include "base/hashmap.h"
#include "base/vec.h"
#include "dso/dso.h"
#include "event/event.h"
#include "proc/proc.h"
#include "source/live/live.h"
#include "symbolize/symbolize.h"
#include "trace/trace.h"
#include "unwind/dwarf.h"

#define TR_MAXARGS 6
#define TR_STRMAX 256 /* bytes of a string argument read at entry */
#define TR_COMM 16

/* ---- systab.c ---- */

enum tr_argkind {
	AK_SKIP, AK_INT, AK_UINT, AK_HEX, AK_PTR, AK_STR, AK_FD, AK_DFD, AK_OPEN_FLAGS,
	AK_MODE, AK_SIG, AK_PROT, AK_MMAP_FLAGS, AK_ACCESS_MODE, AK_PID,
};

enum tr_retkind { RK_INT, RK_HEX, RK_FD, RK_PID, RK_NONE };

struct tr_syscall {
	const char *name; /* NULL: no such number */
	unsigned nargs;
	char *argname[TR_MAXARGS];
	enum tr_argkind kind[TR_MAXARGS];
	unsigned argsize[TR_MAXARGS];
	bool int32[TR_MAXARGS]; /* a C int: the low 32 bits, signed */
	enum tr_retkind ret;
	bool fmt; /* its tracefs format was read */
};

struct tr_systab {
	struct tr_syscall *v;
	size_t n; /* indexed by number */
	uint32_t enter_id, exit_id; /* raw_syscalls tracepoint ids */
	uint32_t off_id, off_args, off_ret; /* payload offsets of id, args[], ret */
	char *tracefs;
};

/* Read the table; 0, or -errno (err_last() names the tracefs file). */
int systab_load(struct tr_systab *t, const char *tracefs);
void systab_release(struct tr_systab *t);
const struct tr_syscall *systab_get(const struct tr_systab *t, int64_t nr);
/* "nr_123" for unknown numbers; buf has 24 bytes. */
const char *systab_name(const struct tr_systab *t, int64_t nr, char *buf);
/* String arguments of a call, as a bit mask of argument indexes. */
unsigned systab_strmask(const struct tr_systab *t, int64_t nr);

/* ---- events (both sources) ---- */

struct tr_event {
	uint64_t time;
	uint32_t pid, tid;
	int64_t nr;
	bool enter;
	uint64_t args[TR_MAXARGS]; /* enter */
	int64_t ret;               /* exit */
	const char *str[TR_MAXARGS]; /* strings read at entry, or NULL */
	uint16_t slen[TR_MAXARGS];
	bool strunc[TR_MAXARGS];   /* the string went on past what was read */
	const char *comm;          /* the task's comm (TR_COMM bytes, zero-padded), or NULL */
	const struct event *stack; /* exit, --call-graph: a sample with the user stack, or NULL */
	const char *text[TR_MAXARGS]; /* a value already written out (execve's argv), or NULL */
};

/* An exec's argument vector as read at its entry (the BPF program). */
#define TR_ARGMAX 16
struct tr_exec_args {
	uint32_t tid;
	int64_t nr;
	unsigned argc;           /* strings read */
	bool more;               /* the vector went on past them */
	bool bad;                /* the vector could not be read */
	const char *arg[TR_ARGMAX]; /* NULL: unreadable, shown by its pointer */
	uint16_t len[TR_ARGMAX];
	bool trunc[TR_ARGMAX];
	uint64_t ptr[TR_ARGMAX];
	uint32_t envc;           /* envp entries */
	bool env_more;           /* at least envc */
};

/* ---- fdcache.c ---- */

struct tr_fdcache {
	struct hashmap map; /* pid << 32 | fd → index + 1 into names, or FD_BARE */
	VEC(char *) names;
};
#define FD_BARE UINT64_MAX /* known to be new or closed, its target unknown: the number alone */
void fdcache_init(struct tr_fdcache *c);
void fdcache_release(struct tr_fdcache *c);
/* What fd is in process pid ("/etc/passwd", "pipe:[42477]"), or NULL. */
const char *fdcache_get(struct tr_fdcache *c, uint32_t pid, int64_t fd);
/* The fd was closed, or made by a call: 'name' (a path the call was given),
 * or NULL: shown as the number alone (/proc, read later, would name what it
 * became since). */
void fdcache_set(struct tr_fdcache *c, uint32_t pid, int64_t fd, const char *name);
/* newfd is now what oldfd is (dup, dup2, fcntl F_DUPFD). */
void fdcache_dup(struct tr_fdcache *c, uint32_t pid, int64_t oldfd, int64_t newfd);
/* New fds at unknown numbers (pipe, socketpair): closed ones are looked up again. */
void fdcache_reopen(struct tr_fdcache *c, uint32_t pid);

/* ---- argfmt.c ---- */

/* Append "name(arg: value, ..." (no closing parenthesis) to out. */
void argfmt_entry(struct buf *out, const struct tr_systab *t, const struct tr_event *e,
		  struct tr_fdcache *fds);
/* Append a result: "0", "-1 ENOENT (No such file or directory)", "0x7f..". */
void argfmt_result(struct buf *out, const struct tr_syscall *sc, int64_t ret);
/* A string as strace quotes it, with "..." after when truncated. */
void argfmt_string(struct buf *out, const char *s, size_t len, bool truncated);
/* An exec's argv as strace shows it: ["ls", "-l"], "..." for more. */
void argfmt_argv(struct buf *out, const struct tr_exec_args *x);
bool argfmt_is_error(const struct tr_syscall *sc, int64_t ret);

/* ---- filter.c ---- */

struct tr_filter {
	char **globs;
	size_t nglobs;
	bool negate;
	const struct trace_opts *o;
};
int filter_init(struct tr_filter *f, const struct trace_opts *o);
void filter_release(struct tr_filter *f);
/* The name, pid, tid and comm filters (not --failure, --duration); name
 * NULL (a page fault): not the name filter. */
bool filter_call(const struct tr_filter *f, const char *name, uint32_t pid, uint32_t tid,
		 const char *comm);

/* ---- stats.c ---- */

struct tr_stat {
	uint32_t tid;
	int64_t nr;
	uint64_t calls, errors;
	double total, min, max, sumsq; /* ms */
};
struct tr_stats {
	struct hashmap map; /* tid << 20 | nr → index + 1 */
	VEC(struct tr_stat) v;
};
void stats_init(struct tr_stats *s);
void stats_release(struct tr_stats *s);
void stats_add(struct tr_stats *s, uint32_t tid, int64_t nr, bool error, double ms);

/* ---- queue.c ---- */

struct tr_qrec {
	uint64_t time;
	size_t off, len; /* in the queue's bytes */
	uint64_t seq;    /* reading order */
	int kind;        /* the source's: which ring it came from */
};
struct tr_queue {
	VEC(uint8_t) bytes;
	VEC(struct tr_qrec) recs;
};
void queue_reset(struct tr_queue *q);
void queue_release(struct tr_queue *q);
/* Copy a record in. */
void queue_push(struct tr_queue *q, const void *rec, size_t len, uint64_t time, int kind);
/* Time order, ties in reading order. */
void queue_sort(struct tr_queue *q);

/* ---- callchain.c ---- */

#define CG_MAX_FRAMES 127 /* frames printed per call (perf trace's max-stack) */

struct tr_target;
struct tr_core;
struct tr_cg {
	bool ready;
	enum trace_callgraph mode;
	unsigned faults; /* TRACE_PF_* */
	bool on_exec;    /* enabled by the command's exec */
	struct strtab strs;
	struct dso_set dsos;
	struct machine m;
	struct unwinder uw;
	struct symbolizer sz;
	struct unwind_stack *st;
	struct live *live; /* the sideband event (MMAP2, COMM, FORK, EXIT), the fault events */
	struct perf_event_attr attr[3];
	size_t nattr;
	struct ev_attrs attrs;
	uint64_t lost;     /* records the kernel dropped from these rings */
};
void cg_init(struct tr_cg *g, const struct trace_opts *o);
void cg_release(struct tr_cg *g);
/* Open the events on the targets (times CLOCK_MONOTONIC, as the BPF
 * program's, when 'monotonic'; else perf's clock, as the raw
 * tracepoints') and synthesize the mappings of running ones; 0 or -errno
 * (err_last() says why). */
int cg_open(struct tr_cg *g, const struct tr_target *t, bool monotonic, unsigned pages);
int cg_enable(struct tr_cg *g);
void cg_disable(struct tr_cg *g);
/* Hand every pending record to fn. */
int cg_drain(struct tr_cg *g, live_record_fn fn, void *arg);
/* A record's time, 0 if unknown. */
uint64_t cg_time(const struct tr_cg *g, const void *rec, size_t len);
/* Apply a record: mappings and tasks to the machine, a page fault to the
 * core (c may be NULL for synthesized records). */
void cg_apply(struct tr_cg *g, struct tr_core *c, const void *rec, size_t len);
/* "minfault [code] => data (d.)" as perf trace prints a page fault, with
 * its newline. */
void cg_fault(struct tr_cg *g, struct buf *out, const struct event *ev, bool major);
/* The user frames of 'sample' (a decoded or synthesized SAMPLE), one line
 * each, as perf trace prints callchains. */
void cg_format(struct tr_cg *g, struct buf *out, const struct event *sample);

/* ---- core.c ---- */

struct tr_thread {
	uint32_t tid, pid;
	char comm[TR_COMM];
	bool pending;      /* entered, not returned */
	bool shown;        /* its entry was printed as interrupted */
	uint64_t entry_time;
	int64_t nr;
	uint64_t a0, a1;   /* its first two arguments (close, dup2: the fds) */
	char path[TR_STRMAX + 1]; /* its first string argument, if read whole */
	bool hidden;       /* filtered out */
	bool formatted;    /* entry holds the text of ev */
	struct tr_event ev; /* the entry, its strings in strs */
	char strs[TR_MAXARGS][TR_STRMAX + 1];
	struct buf entry;  /* "name(args" */
	struct buf argv;   /* an exec's argv and envp, written out ("argv\0envp") */
	uint64_t nevents;
	uint64_t pfmaj, pfmin; /* page faults (-F) */
};

struct tr_core {
	const struct trace_opts *o;
	struct trace_result *res;
	struct tr_systab *tab;
	struct tr_filter filter;
	struct tr_fdcache fds;
	struct tr_stats stats;
	struct hashmap threads; /* tid → index + 1 */
	VEC(struct tr_thread) th;
	uint32_t current; /* tid whose entry is pending and unprinted, or 0 */
	uint64_t base;    /* time of the first event */
	uint64_t nevents;
	bool stream;      /* lines printed as events come (no --failure/--duration) */
	bool lines;
	struct buf line;
	struct tr_cg *cg; /* --call-graph, or NULL */
};

int core_init(struct tr_core *c, const struct trace_opts *o, struct trace_result *res,
	      struct tr_systab *tab);
void core_release(struct tr_core *c);
void core_event(struct tr_core *c, const struct tr_event *e);
/* A COMM record (exec or prctl): the thread's new name (TR_COMM bytes, zero-padded). */
void core_comm(struct tr_core *c, uint32_t pid, uint32_t tid, const char *comm);
/* A FORK record: the child inherits the parent's comm. */
void core_fork(struct tr_core *c, uint32_t pid, uint32_t tid, uint32_t ptid);
/* The file an execve in progress runs, for its filename when the entry
 * could not read it. */
void core_exec_name(struct tr_core *c, uint32_t tid, const char *name, size_t len);
/* An exec's argv and envp, for the entry just seen: shown as strace
 * shows them (["ls", "-l"], 0x7ffc... /\* 20 vars *\/). */
void core_exec_args(struct tr_core *c, const struct tr_exec_args *x);
/* A page fault (a sample of a page-fault event): its line, its count. */
void core_fault(struct tr_core *c, const struct event *ev, bool major);
/* Strings read at a call's exit, for arguments its entry could not read. */
void core_late_strings(struct tr_core *c, const struct tr_event *e);
/* End: entries still pending are printed as unfinished; then the summaries. */
void core_finish(struct tr_core *c);

/* ---- sources ---- */

struct tr_source;
struct tr_source_ops {
	/* Poll fds into fds[0..max); returns their count. */
	size_t (*pollfds)(struct tr_source *s, int *fds, size_t max);
	/* Hand every pending event to the core; 0 or -errno. */
	int (*drain)(struct tr_source *s);
	int (*enable)(struct tr_source *s);
	void (*disable)(struct tr_source *s);
	uint64_t (*lost)(struct tr_source *s);
	void (*close)(struct tr_source *s);
};
struct tr_source {
	const struct tr_source_ops *ops;
	struct tr_core *core;
};

struct tr_target {
	const pid_t *tids; /* threads (perfsrc) */
	size_t ntids;
	const pid_t *pids; /* processes to follow with their children (bpfsrc) */
	size_t npids;
	bool system_wide;
	bool on_exec;      /* start at the command's exec (perfsrc: enable_on_exec) */
};

/* 0, or -errno; *failed_tp set when the tracepoint open was refused. */
int perfsrc_open(struct tr_source **out, struct tr_core *c, const struct tr_target *t,
		 unsigned pages);
/* 0, or -errno with err_last() saying why BPF cannot be used (not built,
 * not allowed). 'pages': ring pages per CPU of the perf events beside it
 * (mappings, page faults). */
int bpfsrc_open(struct tr_source **out, struct tr_core *c, const struct tr_target *t,
		unsigned pages);

#endif
