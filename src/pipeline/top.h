/*
 * top: kiln top's session, live samples into decaying report entries
 * (pipeline, L8).
 *
 * Two threads. The sampler runs pipeline/record's session (targets,
 * event fallbacks, signals, -o's perf.data) with a tap that copies every
 * record into a queue of at most TOP_QUEUE_MAX bytes; it only drains the
 * rings, so opening binaries and reading symbols on the other thread
 * never stalls them. When the queue is full, samples are dropped (and
 * counted: the header's "drop"); the records that name things (COMM,
 * MMAP, FORK, EXIT) are always queued. The caller's thread takes the
 * queue (top_poll) and feeds a live pipeline/session whose consumer is
 * pipeline/report's: each sample is resolved when it is taken, so a
 * process that exits or execs between refreshes keeps its names (its
 * maps stay in the session's machine). top_refresh shows the counts of
 * the period: perf top's decay (7/8 per refresh; -z: zero), entries that
 * decayed to nothing dropped (aggregate/hist); processes that exited are
 * forgotten TOP_REAP_AFTER refreshes later (proc's machine_forget), so
 * memory follows what runs, not how long top ran. Each batch the sampler
 * queued is delivered in time order (session_feed_batch).
 *
 * Signals: SIGINT, SIGTERM, SIGHUP and SIGCHLD are blocked in the
 * calling thread before the sampler starts (the sampler's signalfd takes
 * them: the recording is finished, then top_done() says so and
 * top_stop() reports the signal). The caller restores its mask after
 * top_stop.
 */
#ifndef KILN_PIPELINE_TOP_H
#define KILN_PIPELINE_TOP_H

#include <stdbool.h>
#include <stdint.h>

#include "aggregate/hist.h"
#include "pipeline/record.h"
#include "pipeline/report.h"

/* Records waiting for the resolving thread, at most (bytes). */
#define TOP_QUEUE_MAX ((size_t)64 << 20)
/* The CPU lists in top_stats, at most (longer ones end in "..."). */
#define TOP_CPULIST_MAX 64
/* perf top's decay per refresh. */
#define TOP_DECAY_NUM 7
#define TOP_DECAY_DEN 8
/* Resolved addresses cached at most (about 100 bytes each); past it the
 * cache starts over. */
#define TOP_SYMCACHE_MAX ((size_t)1 << 16)
/* An exited process is forgotten this many refreshes after its exit. */
#define TOP_REAP_AFTER 2
/* Binaries no process maps are unloaded at each refresh; once this many
 * wait, the address cache starts over and their slots are reused. */
#define TOP_RETIRED_MAX 4096

struct top_opts {
	struct record_opts rec;       /* targets, events, output (NULL: no file) */
	struct report_load_opts load; /* sort keys, children, callchains, symfs... */
	bool hide_kernel, hide_user;  /* -K, -U: such samples are left out of the entries */
	bool zero;                    /* -z: zero the counts at each refresh, no decay */
	size_t queue_max;             /* 0: TOP_QUEUE_MAX */
};

/* What one refresh period saw (perf top's header). */
struct top_stats {
	uint64_t taken;          /* samples drained from the rings in the period */
	uint64_t samples;        /* samples resolved in the period */
	uint64_t kernel, exact;  /* ... in kernel mode, with an exact IP */
	uint64_t lost, lost_total; /* samples the kernel lost (ring full) */
	uint64_t drop, drop_total; /* samples dropped here (queue full) */
	double secs;             /* the period's length */
	size_t entries, nodes;   /* the hist's size after the refresh */
	uint64_t dropped_entries; /* entries dropped after decaying to nothing, in all */
	uint64_t reaped;         /* exited processes forgotten, in all */
	uint64_t retired_dsos;   /* binaries unloaded (no process mapped them), in all */
	size_t threads;          /* threads known now */
	/* CPUs sampled that went offline in the period, came back online in
	 * it, and are offline now: lists as "1,3" ("" none). A CPU that went
	 * offline lost its events (the kernel's hotplug): it is not sampled
	 * again, also once back online. */
	char went_offline[TOP_CPULIST_MAX], came_back[TOP_CPULIST_MAX], offline[TOP_CPULIST_MAX];
};

struct top;

/*
 * Start sampling: the events open (with record's fallbacks) before this
 * returns. 0; or -errno with err_last() saying why and *res filled as
 * record_run fills it (the CLI's hints: permission, no PMU).
 */
int top_start(struct top **out, const struct top_opts *o, struct record_result *res);
/* Resolve what the sampler queued, waiting up to timeout_ms for records.
 * Returns true once the sampler has ended (a signal, the targets gone). */
bool top_poll(struct top *t, int timeout_ms);
/*
 * End the period: its stats, and the entries to show, sorted: perf top's
 * decay (7/8, entries that decayed to nothing dropped: indices change),
 * or with -z the period's samples alone.
 */
void top_refresh(struct top *t, struct top_stats *st);
/* The entries to show (NULL before the first sample). Between refreshes
 * (decay mode) samples keep coming in: new entries are appended, unsorted,
 * and existing entries and nodes keep their indices. */
const struct hist *top_hist(const struct top *t);
/* Where the last top_refresh moved the entries and nodes of top_hist
 * (hist_drop_decayed's map), or NULL: every index is new (-z). */
const struct hist_remap *top_remap(const struct top *t);
/* The event shown, as perf names it ("cpu-clock"); set after top_start. */
const char *top_event(const struct top *t);
/* The sampling frequency (0: a period, -c) and the CPUs sampled. */
unsigned top_freq(const struct top *t);
unsigned top_ncpus(const struct top *t);
/* The live session (its dsos and symbols: annotate_view's). */
struct session *top_session(struct top *t);
/*
 * Annotating live: the shown event's samples of symbol 'sym' (strtab id)
 * in the binary the entries name 'dso' (strtab id, the dso key;
 * UINT32_MAX: the one with most of its samples), by
 * address as they stand at the last refresh (decayed as the entries; -z:
 * the last period's), into 'out' (symhist_init'ed): one event (its period
 * the entries' total) and one group. 0, or -ENOENT (err_last() says so):
 * none of its addresses has samples now.
 */
struct symhist;
int top_symhist(struct top *t, uint32_t dso, uint32_t sym, struct symhist *out);
/* The strings the entries' names are interned in. */
struct strtab *top_strs(struct top *t);
/* Stop (if not done), finish -o's file and join the sampler: record_run's
 * result (0 or -errno; res filled). */
int top_stop(struct top *t, struct record_result *res);
void top_free(struct top *t);

#endif
