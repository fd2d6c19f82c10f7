/*
 * session: one input opened and resolved under one set of rules, for
 * every command that reads a profile (pipeline, L8).
 *
 * session_open() opens what kiln reads: a perf.data (a file, or a stream
 * on standard input, "-": file or pipe mode), perf script text or folded
 * stacks. The first bytes decide (session_input.c): "PERFILE2" (or a
 * form the perf.data reader explains) is a perf.data, anything else text,
 * read into memory (at most 4 GiB; a named regular file is mapped,
 * guarded against shrinking). A perf.data piped on standard input after
 * its first bytes were read still streams: a child process replays them.
 * Named inputs that are not regular files (FIFOs, devices, directories)
 * never block and never read without end.
 *
 * For a perf.data it sets up, once, what resolving needs, with the rules
 * perf 6.1 applies:
 *  - binaries are checked against the recorded build-id table (files by
 *    path, and [vdso] when it has an id);
 *  - /proc/kallsyms is used for the kernel only when the file records no
 *    kernel build-id or the running kernel's, and relocated by the
 *    difference between the running and the recorded address of the
 *    kernel MMAP's reference symbol (KASLR); when that symbol is not in
 *    kallsyms, the kernel has no symbols;
 *  - mappings are kept across exec until new ones cover them;
 *  - [vdso] symbols come from this process's vDSO unless its recorded
 *    build-id differs;
 *  - binaries under --symfs, debug files under --debug-dir, the
 *    environment (base/env.h) for the home and cache directories.
 *
 * session_run() then hands the consumer every record in time order:
 * sideband records (comm, mmap, fork, exit, lost, ...) after the machine
 * applied them, samples with their thread; a sample's stack (callchain
 * split at its context markers, DWARF-unwound user frames) on demand.
 * With 2+ CPUs and a file of 32 MB or more (KILN_THREADS=2: always;
 * =1: never), reading and DWARF unwinding run on a second thread
 * (readahead.h); the consumer sees the same records, stacks and order
 * either way.
 *
 * Errors are -errno with err_last() saying why; session_status_of()
 * classifies them once for every command.
 */
#ifndef KILN_PIPELINE_SESSION_H
#define KILN_PIPELINE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/env.h"
#include "base/strtab.h"
#include "dso/dso.h"
#include "event/event.h"
#include "proc/proc.h"
#include "source/perffile/perffile.h"
#include "symbolize/symbolize.h"
#include "unwind/dwarf.h"
#include "unwind/unwind.h"

/* What an input turned out to be. */
enum session_kind { SESSION_PERFDATA, SESSION_SCRIPT_TEXT, SESSION_FOLDED };

/* The kinds a command accepts (session_opts.accept). */
#define SESSION_ACCEPT_PERFDATA (1u << SESSION_PERFDATA)
#define SESSION_ACCEPT_SCRIPT (1u << SESSION_SCRIPT_TEXT)
#define SESSION_ACCEPT_FOLDED (1u << SESSION_FOLDED)

struct session_opts {
	const char *input;          /* a path, or "-" for standard input */
	const struct kiln_env *env; /* the environment (base/env.h), or NULL */
	unsigned accept;            /* SESSION_ACCEPT_*; 0: a perf.data only */
	/* How to stream a perf.data (for the message about a named FIFO):
	 * e.g. "'kiln collapse -'". */
	const char *stdin_hint;
	const char *symfs;     /* prefix for binary paths, or NULL */
	const char *debug_dir; /* instead of SYMFS/usr/lib/debug, or NULL */
	bool no_demangle;      /* keep C++/Rust names as the binary has them */
	bool names_only;       /* the symbolizer reads no line tables (names only) */
	/* Kernel symbols as perf 6.1 reads kallsyms (session_kallsyms), read on
	 * a second thread from session_run's start; else symbolize()'s table. */
	bool perf_kallsyms;
	/* Else: read symbolize()'s table on a second thread from session_run's
	 * start too (the kernel formats /proc/kallsyms slowly), when the file
	 * has kernel samples; joined when a kernel address is first resolved.
	 * Neither reading has a thread of its own under KILN_THREADS=1. */
	bool prefetch_kallsyms;
	/* Names are interned here (the caller's trie's), or NULL: the session's own. */
	struct strtab *strs;
	const struct perf_reader_opts *reader; /* perf.data reader options, or NULL */
};

struct readahead;
struct session_input;

/*
 * An open input. Consumers read the public part; the rest is the
 * session's. For text kinds only kind, name and text are set.
 */
struct session {
	enum session_kind kind;
	const char *input; /* as given */
	const char *name;  /* for messages: the path, or "<stdin>" */
	/* text kinds: the bytes (mapped or heap; session_close frees them) */
	const char *text;
	size_t text_len;
	/* perf.data: */
	struct perf_reader *r;
	const struct perf_header_info *h;
	const struct ev_attrs *attrs;
	struct strtab *strs;
	struct dso_set dsos;
	struct machine m;
	struct symbolizer sz;
	struct unwinder uw;
	bool partial; /* after session_run: the input broke part-way (err_last says where) */

	/* private */
	struct session_opts o;
	struct strtab own_strs;
	struct session_input *in;
	struct readahead *ra;
	struct unwind_stack *stack;
	bool stack_done; /* stack holds the current sample's */
	bool ready;      /* dsos, machine, symbolizer, unwinder initialised */
	/* kernel symbols (session_kernel.c) */
	bool ksyms_usable;      /* the recorded kernel may be this one (build-id rule) */
	char kref_name[64];     /* the recorded kernel's reference symbol ("_text") */
	uint64_t kref_addr;     /* ... and its recorded address (0: no kernel MMAP) */
	bool kdone, kok;        /* relocation worked out; kernel symbols usable */
	uint64_t kdelta;        /* running address - recorded address (mod 2^64) */
	struct kallsyms *kperf; /* perf_kallsyms: the table, once loaded */
	bool kperf_tried;
	struct session_kthread *kth; /* perf_ or prefetch_kallsyms: the reading thread, or NULL */
	/* live sessions (session_open_live) */
	bool live;
	VEC(struct event) batch; /* session_feed_batch's records (kept: reused) */
	struct perf_header_info *live_h;
	struct ev_attrs *live_attrs;
	uint64_t live_bad; /* records that did not decode */
};

/* A sample as session_run hands it over. */
struct session_sample {
	const struct event *ev;
	const struct thread *th; /* its thread (comm), created on first mention */
	bool dwarf;              /* user registers and stack recorded: DWARF-unwound */
};

/*
 * A command's side of session_run. Each callback may be NULL; a negative
 * return stops the run with that error.
 */
struct session_consumer {
	void *ctx;
	/* A sideband record (COMM, MMAP, FORK, EXIT, LOST, ...), applied to s->m. */
	int (*on_event)(void *ctx, struct session *s, const struct event *ev);
	int (*on_sample)(void *ctx, struct session *s, const struct session_sample *smp);
	/* After the last record (s->partial set); not called when a callback failed. */
	int (*on_end)(void *ctx, struct session *s);
	/* Before a record that may change what kernel addresses resolve to
	 * (machine_record_is_kernel) is applied: a consumer holding kernel
	 * addresses back (session_kernel_waiting) resolves them now. */
	int (*on_kernel_change)(void *ctx, struct session *s);
	/* Every sample's stack is wanted (session_stack): it may be unwound on
	 * a second thread, ahead of the samples. */
	bool unwind_all;
};

/*
 * Open o->input (*o is copied; its strings are borrowed). 0, or -errno
 * with err_last() saying why (the session is then closed). The input's
 * kind must be one o->accept allows.
 */
int session_open(struct session *s, const struct session_opts *o);
/* Deliver every record of a perf.data session (see above). 0, or the
 * first negative result of a callback. */
int session_run(struct session *s, const struct session_consumer *c);

/*
 * A live session (kiln top): no input; the records come from the running
 * kernel (pipeline/record's tap) and are handed in one at a time, under
 * the same rules as a perf.data's (kallsyms for the kernel: it is the
 * running one; maps kept across exec). Open it (o->input is unused),
 * declare each event with session_live_attr, then hand the raw records
 * to session_feed_batch: they are decoded and delivered as session_run
 * delivers them. A record that does not decode is counted (live_bad)
 * and skipped.
 */
int session_open_live(struct session *s, const struct session_opts *o);
void session_live_attr(struct session *s, const struct perf_event_attr *a, const char *name,
		       const uint64_t *ids, size_t nids);
/* After the last session_live_attr: 0, or -EBADMSG (attrs that disagree). */
int session_live_ready(struct session *s);
/* A batch of whole records (one drain of every ring), delivered in time
 * order: the rings are drained one after another, so a sample on one CPU
 * may come before the MMAP on another that it needs. */
int session_feed_batch(struct session *s, const struct session_consumer *c, const void *recs,
		       size_t len);
/*
 * A live session's eviction, between batches: the dsos no process known
 * maps (machine_dsos_used) are retired (dso_set_retire: images, perf maps
 * and their CFI and source-line files freed). Returns how many. Their ids
 * are reused after session_reuse_dsos.
 */
size_t session_retire_dsos(struct session *s);
/*
 * The symbolizer's cache and the unwinder's start over and the retired
 * dso ids become free for new paths. What a consumer keyed by symbolizer
 * entry or dso id must go too (report_consumer_forget).
 */
void session_reuse_dsos(struct session *s);
/* The current sample's stack, kernel and user frames leaf first (the
 * unwinder's, unwind/unwind.h); valid until the next sample. */
const struct unwind_stack *session_stack(struct session *s, const struct session_sample *smp);
/*
 * symbolize() under the session's kernel rules (the relocation is worked
 * out at the first kernel address). A frame's inline frames and source
 * lines: symbolize_inlines / symbolize_lines / symbolize_srcline on s->sz.
 */
void session_symbolize(struct session *s, uint32_t pid, uint64_t ip, bool kernel,
		       struct sym *out);
/*
 * Whether kernel symbols are still being read on their own thread
 * (perf_ or prefetch_kallsyms): the first kernel address resolved now
 * would wait for them. Never blocks; false once read, or with no thread.
 */
bool session_kernel_waiting(const struct session *s);
/*
 * perf_kallsyms sessions: the kernel's symbols as perf reads them, or
 * NULL when the rules above leave the kernel without symbols; *delta is
 * what to add to a recorded address to look it up.
 */
const struct kallsyms *session_kallsyms(struct session *s, uint64_t *delta);
/* A text input's mapping lost pages while it was read (they read as
 * zeros): true, with the offset. */
bool session_text_faulted(struct session *s, uint64_t *offset);
/* Free everything (a piped standard input's relay is stopped). */
void session_close(struct session *s);

/* How an error of session_open or session_run is reported: one exit
 * status per kind of failure, the same for every command. */
enum session_status {
	SESSION_OK,       /* 0 */
	SESSION_PARTIAL,  /* the input broke part-way; results are from a prefix */
	SESSION_UNUSABLE, /* not something kiln reads: not a perf.data nor text it
			   * knows, a bad header, empty, a directory, FIFO or device */
	SESSION_FAILED,   /* could not be read: missing, permission, I/O */
};
enum session_status session_status_of(int err);

#endif
