/*
 * readahead: a perf.data reader on its own thread (pipeline, L8).
 *
 * The thread runs perf_reader_next() (file reading, zstd, time ordering,
 * decoding) and copies each record into a ring of four 256 KiB blocks; the
 * caller takes the records back in exactly the order the reader gave
 * them, decoded again against the reader's attrs. Only the order of
 * records crosses the threads, so results do not depend on timing.
 * Memory is bounded by the ring. For file-mode inputs only: pipe mode
 * adds attrs while reading, which the caller's decoding would race with.
 *
 * While a readahead runs, the reader belongs to its thread: use the
 * reader again (stats, partial, error) only after readahead_stop().
 */
#ifndef KILN_PIPELINE_READAHEAD_H
#define KILN_PIPELINE_READAHEAD_H

#include "event/event.h"
#include "source/perffile/perffile.h"

struct readahead;

/* Start reading 'r' on a new thread. NULL if no thread could be made
 * (the caller then reads 'r' itself). */
struct readahead *readahead_start(struct perf_reader *r);
/* The next record, as perf_reader_next() gives it: 1 with *ev (valid
 * until the next call), or the reader's final result (0 at the end,
 * negative on error). */
int readahead_next(struct readahead *ra, struct event *ev);
/* Stop the thread (early if the caller did not read to the end) and free
 * the readahead. */
void readahead_stop(struct readahead *ra);

#endif
