/*
 * readahead: a perf.data reader and DWARF unwinder on its own thread
 * (pipeline, L8).
 *
 * The thread runs perf_reader_next() (file reading, zstd, time ordering,
 * decoding) and copies each record into a ring of four 256 KiB blocks.
 * With 'unwind' set it also keeps its own machine (threads, mappings,
 * binaries opened for their CFI) from the sideband records and unwinds
 * every sample there, storing the stack beside the record: the caller
 * keeps a machine of its own for symbols and never unwinds. The caller
 * takes the records back in exactly the order the reader gave them,
 * decoded again against the reader's attrs; the unwinding is the same
 * computation in the same order as on one thread. So results do not
 * depend on timing. Memory is bounded by the ring. For file-mode inputs
 * only: pipe mode adds attrs while reading, which the caller's decoding
 * would race with. The thread's messages about binaries are dropped (the
 * caller's machine opens the same binaries and reports them).
 *
 * While a readahead runs, the reader belongs to its thread: use the
 * reader again (stats, partial, error) only after readahead_stop().
 */
#ifndef KILN_PIPELINE_READAHEAD_H
#define KILN_PIPELINE_READAHEAD_H

#include <stdbool.h>

#include "base/env.h"
#include "event/event.h"
#include "source/perffile/perffile.h"
#include "unwind/unwind.h"

struct readahead;

/* Start reading 'r' on a new thread; with 'unwind', unwind samples there
 * too, with a dso set and machine set up as the session's (session_int.h;
 * 'f' is copied, its strings borrowed). NULL if no thread could be made
 * (the caller then reads 'r' itself). Used by session_run only. */
struct session_files;
struct readahead *readahead_start(struct perf_reader *r, bool unwind,
				   const struct session_files *f);
/* The next record, as perf_reader_next() gives it: 1 with *ev (valid
 * until the next call), or the reader's final result (0 at the end,
 * negative on error). With 'unwind', a sample's stack (unwinder_sample's
 * result) is copied into *st. */
int readahead_next(struct readahead *ra, struct event *ev, struct unwind_stack *st);
/* Stop the thread (early if the caller did not read to the end) and free
 * the readahead. */
void readahead_stop(struct readahead *ra);

#endif
