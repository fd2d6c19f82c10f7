/*
 * reader_int: what the perf.data reader's files share (source/perffile,
 * L2): the reader's state, and the header-feature parsers that
 * reader_features.c keeps apart from the record walk in reader.c.
 */
#ifndef KILN_SOURCE_PERFFILE_READER_INT_H
#define KILN_SOURCE_PERFFILE_READER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zstd.h>

#include "base/cursor.h"
#include "base/err.h"
#include "base/vec.h"
#include "source/perffile/perffile.h"

struct qent {
	uint64_t time;
	uint64_t seq;
	const uint8_t *rec;
	uint64_t offset;
	uint32_t len;
	bool owned; /* rec is a heap copy (decompressed or streamed data, or
		     * copied out of the mapping): freed after delivery */
};

/* A record queued this far behind the read position is copied out of the
 * file mapping (reader.c, queued_floor). */
#define PIN_MAX (64u << 20)
/* File pages behind the read position are handed back to the kernel in
 * steps of this size, keeping resident memory bounded on big files. */
#define DROP_STEP (4u << 20)

/* Caps on zstd output: per COMPRESSED record, and bytes pending a record's end. */
#define ZSTD_RECORD_MAX (64u << 20)
#define ZSTD_PENDING_MAX (64u << 20)

struct perf_reader {
	char *name;
	void *map; /* our mmap of the file, or NULL for memory input */
	size_t map_len;
	int guard; /* the map's mapguard slot, or -1 */
	int map_fd; /* the mapped file (its size now, once a read faulted), or -1 */
	const uint8_t *data; /* the whole input */
	size_t len;
	struct ev_attrs attrs;
	struct perf_header_info info;
	struct perf_reader_stats stats;
	uint8_t *owned_data; /* input slurped from stdin, freed with the reader */
	int fd; /* streaming input (pipe mode from a pipe), or -1 */
	uint64_t stream_off; /* bytes consumed from fd */
	/* record walk */
	uint64_t pos, end;
	bool done;    /* no more raw records */
	int err;      /* sticky error once the data broke */
	struct err_report errrep; /* its message and offset */
	bool partial; /* the data ended early */
	/* zstd-compressed data (COMPRESSED, COMPRESSED2): one stream for the file */
	ZSTD_DStream *zs;
	uint8_t *zdata; /* decompressed bytes not yet cut into records */
	size_t zlen, zpos, zcap;
	uint64_t zoff; /* file offset of the record they came from */
	uint8_t *last_owned; /* the owned record handed out last; freed on the next call */
	uint64_t dropped;    /* file bytes before this offset were handed back (madvise) */
	uint64_t floor_scanned; /* read position when the queue was last scanned (drop_pages) */
	/* ordering */
	VEC(struct qent) heap;
	size_t queued_bytes, window;
	uint64_t seq;
	uint64_t max_time, next_flush, flush_limit, last_delivered;
	void (*on_feature)(void *arg, unsigned feat, bool ok);
	void *on_feature_arg;
};

/* An empty header description (no features). */
void reader_header_info_init(struct perf_header_info *h);
/*
 * Parse feature 'feat' from its section (file mode) or FEATURE record
 * (pipe mode) into r->info; 0 or -EBADMSG (the error set).
 */
int reader_parse_feature(struct perf_reader *r, unsigned feat, struct cursor *c);
/* Every feature section a file-mode header lists; a bad one is warned about and skipped. */
void reader_parse_features(struct perf_reader *r);
/* Keep a copy of a TRACING_DATA blob (at file offset 'off') in h; 0 or -errno (the error set). */
int reader_keep_tracing_data(struct perf_header_info *h, const uint8_t *p, size_t n,
			     uint64_t off);

#endif
