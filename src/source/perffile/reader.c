/*
 * reader: perf.data reading (source/perffile, L2). Parses the file header,
 * attrs and features (reader_features.c) up front, then walks the data
 * section record by record, feeding timed records through a min-heap that
 * releases them by perf's FINISHED_ROUND rule (see perffile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "base/cursor.h"
#include "base/err.h"
#include "base/log.h"
#include "base/mapguard.h"
#include "base/xalloc.h"
#include "source/perffile/reader_int.h"

#define PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" read little-endian */
#define PERF_MAGIC2_SWAPPED 0x50455246494c4532ULL
#define PERF_MAGIC1 0x454c494646524550ULL /* "PERFFILE" */
#define DEFAULT_REORDER_WINDOW (256u << 20)

static int read_sect(struct cursor *c, uint64_t *off, uint64_t *size)
{
	return cursor_u64(c, off) || cursor_u64(c, size) ? -1 : 0;
}

static int open_file_mode(struct perf_reader *r, struct cursor *c, uint64_t hdr_size)
{
	uint64_t attr_size, attrs_off, attrs_size, ev_off, ev_size, dummy[2];
	struct perf_header_info *h = &r->info;
	if (r->len < hdr_size)
		return err_corrupt_at(r->len, "header truncated at %zu bytes (needs %llu)", r->len,
				      (unsigned long long)hdr_size);
	if (cursor_u64(c, &attr_size) || read_sect(c, &attrs_off, &attrs_size) ||
	    read_sect(c, &h->data_offset, &h->data_size) || read_sect(c, &ev_off, &ev_size))
		return CORRUPT(c, "header truncated");
	(void)dummy;
	if (hdr_size >= 104) {
		for (int i = 0; i < 4; i++)
			cursor_u64(c, &h->features[i]);
	}
	if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > 4096)
		return err_corrupt_at(16, "bad attr size %llu in header",
				      (unsigned long long)attr_size);
	if (attrs_off > r->len || attrs_size > r->len - attrs_off)
		return err_corrupt_at(24, "attrs section (0x%llx, %llu bytes) lies past the end "
					  "of the file (%zu bytes)",
				      (unsigned long long)attrs_off, (unsigned long long)attrs_size,
				      r->len);
	if (attrs_size % attr_size)
		return err_corrupt_at(32, "attrs section size %llu is not a multiple of %llu",
				      (unsigned long long)attrs_size, (unsigned long long)attr_size);
	for (uint64_t a = 0; a < attrs_size / attr_size; a++) {
		uint64_t off = attrs_off + a * attr_size;
		uint32_t asize;
		memcpy(&asize, r->data + off + 4, 4);
		if (asize == 0)
			asize = PERF_ATTR_SIZE_VER0;
		if ((uint64_t)asize + 16 > attr_size) /* 64-bit: a huge asize must not wrap */
			return err_corrupt_at(off + 4, "attr %llu: size %u does not fit the entry "
						       "size %llu",
					      (unsigned long long)a, asize,
					      (unsigned long long)attr_size);
		struct perf_event_attr attr;
		memset(&attr, 0, sizeof(attr));
		memcpy(&attr, r->data + off, asize < sizeof(attr) ? asize : sizeof(attr));
		if (asize > sizeof(attr)) {
			/* A newer perf's bigger struct: fine if the extra bytes are zero. */
			for (uint32_t i = sizeof(attr); i < asize; i++)
				if (r->data[off + i])
					return err_corrupt_at(off, "attr %llu is from a newer ABI "
								   "(size %u) with unknown fields set",
							      (unsigned long long)a, asize);
		}
		uint64_t ids_off, ids_size;
		memcpy(&ids_off, r->data + off + asize, 8);
		memcpy(&ids_size, r->data + off + asize + 8, 8);
		size_t idx = ev_attrs_add(&r->attrs, &attr, asize, NULL, 0);
		if (ids_off > r->len || ids_size > r->len - ids_off) {
			log_warn("%s: ids of attr %llu lie past the end of the file", r->name,
				 (unsigned long long)a);
			continue;
		}
		for (uint64_t i = 0; i < ids_size / 8; i++) {
			uint64_t id;
			memcpy(&id, r->data + ids_off + i * 8, 8);
			ev_attrs_add_id(&r->attrs, idx, id);
		}
	}
	if (r->attrs.v.n == 0)
		return err_corrupt_at(24, "no event attributes in the header");
	if (h->data_offset > r->len)
		return err_corrupt_at(40, "data section offset 0x%llx lies past the end of the file "
					  "(%zu bytes)",
				      (unsigned long long)h->data_offset, r->len);
	if (h->data_offset < hdr_size)
		return err_corrupt_at(40, "data section offset 0x%llx overlaps the header",
				      (unsigned long long)h->data_offset);
	r->pos = h->data_offset;
	if (h->data_size == 0) {
		log_warn("%s: data size is 0 (was the recording properly finished?); reading to "
			 "the end of the file",
			 r->name);
		err_corrupt_at(40, "data size is 0 in the header: the recording was not finished");
		r->errrep = *err_last();
		r->end = r->len;
		r->partial = true;
		memset(h->features, 0, sizeof(h->features));
	} else if (h->data_size > r->len - h->data_offset) {
		r->end = r->len;
		r->partial = true;
		err_corrupt_at(r->len, "data section claims %llu bytes but the file ends after %llu: "
				       "truncated",
			       (unsigned long long)h->data_size,
			       (unsigned long long)(r->len - h->data_offset));
		r->errrep = *err_last();
		memset(h->features, 0, sizeof(h->features));
	} else {
		r->end = h->data_offset + h->data_size;
	}
	reader_parse_features(r);
	return ev_attrs_finish(&r->attrs);
}

int perf_reader_open_mem(struct perf_reader **out, const void *data, size_t len, const char *name,
			 const struct perf_reader_opts *o)
{
	struct perf_reader *r = xcalloc(1, sizeof(*r));
	r->name = xstrdup(name);
	r->data = data;
	r->len = len;
	r->window = o && o->reorder_window ? o->reorder_window : DEFAULT_REORDER_WINDOW;
	if (o) {
		r->on_feature = o->on_feature;
		r->on_feature_arg = o->on_feature_arg;
	}
	r->fd = -1;
	r->guard = -1;
	r->map_fd = -1;
	ev_attrs_init(&r->attrs);
	reader_header_info_init(&r->info);
	*out = NULL;

	struct cursor c;
	cursor_init(&c, data, len, 0, false);
	uint64_t magic, hdr_size;
	int err;
	if (len == 0) {
		err = err_set(-EBADMSG, "empty file");
		goto fail;
	}
	if (cursor_u64(&c, &magic)) {
		err = err_corrupt_at(0, "header truncated at %zu bytes", len);
		goto fail;
	}
	if (magic == PERF_MAGIC2_SWAPPED) {
		err = err_corrupt_at(0, "big-endian perf.data is not supported");
		goto fail;
	}
	if (magic == PERF_MAGIC1) {
		err = err_corrupt_at(0, "legacy perf.data (PERFFILE, version 1) is not supported");
		goto fail;
	}
	if (magic != PERF_MAGIC2) {
		char hex[40];
		const uint8_t *b = data;
		snprintf(hex, sizeof(hex), "%02x %02x %02x %02x %02x %02x %02x %02x", b[0], b[1],
			 b[2], b[3], b[4], b[5], b[6], b[7]);
		err = err_corrupt_at(0, "not a perf.data file (magic bytes %s)", hex);
		goto fail;
	}
	if (cursor_u64(&c, &hdr_size)) {
		err = err_corrupt_at(8, "header truncated at %zu bytes", len);
		goto fail;
	}
	if (hdr_size == 16) {
		r->info.pipe_mode = true;
		r->pos = 16;
		r->end = len;
		err = 0;
	} else if (hdr_size == 104 || hdr_size == 72) {
		err = open_file_mode(r, &c, hdr_size);
	} else {
		err = err_corrupt_at(8, "bad header size %llu", (unsigned long long)hdr_size);
	}
	if (err)
		goto fail;
	*out = r;
	return 0;
fail:
	perf_reader_free(r);
	return err;
}

/*
 * Standard input: a pipe-mode stream is read record by record as it
 * arrives; a file-mode perf.data (it needs seeking) is read into memory,
 * up to a cap.
 */
#define STDIN_FILE_MAX ((size_t)4 << 30)

static int open_stdin(struct perf_reader **out, const struct perf_reader_opts *o)
{
	uint8_t hdr[16];
	size_t got = 0;
	while (got < sizeof(hdr)) {
		ssize_t k = read(0, hdr + got, sizeof(hdr) - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	uint64_t magic = 0, size = 0;
	if (got == sizeof(hdr)) {
		memcpy(&magic, hdr, 8);
		memcpy(&size, hdr + 8, 8);
	}
	/*
	 * The header decides before anything else is read: what is not a
	 * perf.data (its magic, its header size) fails here, on these 16
	 * bytes, not after the rest of the stream has been read into memory.
	 */
	if (magic != PERF_MAGIC2 || (size != 16 && size != 104 && size != 72))
		return perf_reader_open_mem(out, hdr, got, "<stdin>", o);
	if (size == 16) {
		int err = perf_reader_open_mem(out, hdr, sizeof(hdr), "<stdin>", o);
		if (err)
			return err;
		(*out)->fd = 0;
		(*out)->stream_off = 16;
		(*out)->data = NULL;
		(*out)->len = 0;
		(*out)->pos = (*out)->end = 0;
		return 0;
	}
	/* File mode: slurp, bounded. */
	size_t cap = 1 << 20, len = got;
	uint8_t *buf = xmalloc(cap);
	memcpy(buf, hdr, got);
	for (;;) {
		if (len == cap) {
			if (cap >= STDIN_FILE_MAX) {
				free(buf);
				return err_set(-EFBIG, "a file-mode perf.data on standard input larger "
						       "than %zu GiB; give it as a file",
					       STDIN_FILE_MAX >> 30);
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		ssize_t k = read(0, buf + len, cap - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;
			free(buf);
			return err_set(-e, "cannot read standard input: %s", strerror(e));
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	int err = perf_reader_open_mem(out, buf, len, "<stdin>", o);
	if (err) {
		free(buf);
		return err;
	}
	(*out)->owned_data = buf;
	return 0;
}

int perf_reader_open(struct perf_reader **out, const char *path, const struct perf_reader_opts *o)
{
	*out = NULL;
	if (!strcmp(path, "-"))
		return open_stdin(out, o);
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return err_set(-errno, "cannot open '%s': %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(-EINVAL, "'%s' is not a regular file", path);
	}
	void *map = NULL;
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			int e = errno;
			close(fd);
			return err_set(-e, "cannot map '%s': %s", path, strerror(e));
		}
	}
	/* Another process may truncate the file while it is mapped. */
	int guard = mapguard_add(map, map ? (size_t)st.st_size : 0);
	struct perf_reader *r;
	int err = perf_reader_open_mem(&r, map ? map : "", (size_t)st.st_size, path, o);
	uint64_t lost;
	if (mapguard_faulted(guard, &lost)) { /* whatever was parsed read zeros */
		if (!err)
			perf_reader_free(r);
		err = err_corrupt_at(lost, "file shrank while being read");
	}
	if (err) {
		mapguard_remove(guard);
		if (map)
			munmap(map, (size_t)st.st_size);
		close(fd);
		return err;
	}
	r->map = map;
	r->map_len = (size_t)st.st_size;
	r->guard = guard;
	r->map_fd = fd;
	*out = r;
	return 0;
}

void perf_reader_free(struct perf_reader *r)
{
	if (!r)
		return;
	mapguard_remove(r->guard);
	if (r->map)
		munmap(r->map, r->map_len);
	if (r->map_fd >= 0)
		close(r->map_fd);
	ev_attrs_release(&r->attrs);
	perf_header_info_release(&r->info);
	for (size_t i = 0; i < r->heap.n; i++)
		if (r->heap.v[i].owned)
			free((void *)r->heap.v[i].rec);
	VEC_FREE(&r->heap);
	free(r->last_owned);
	free(r->zdata);
	free(r->owned_data);
	if (r->zs)
		ZSTD_freeDStream(r->zs);
	free(r->name);
	free(r);
}

const struct ev_attrs *perf_reader_attrs(const struct perf_reader *r)
{
	return &r->attrs;
}

const struct perf_header_info *perf_reader_info(const struct perf_reader *r)
{
	return &r->info;
}

const struct perf_reader_stats *perf_reader_stats(const struct perf_reader *r)
{
	return &r->stats;
}

bool perf_reader_partial(const struct perf_reader *r)
{
	return r->partial;
}

const struct err_report *perf_reader_error(const struct perf_reader *r)
{
	return &r->errrep;
}

/* ---- the time-order queue: a binary min-heap on (time, seq) ---- */

static bool q_less(const struct qent *a, const struct qent *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void q_push(struct perf_reader *r, struct qent e)
{
	VEC_PUSH(&r->heap, e);
	size_t i = r->heap.n - 1;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!q_less(&r->heap.v[i], &r->heap.v[p]))
			break;
		struct qent t = r->heap.v[i];
		r->heap.v[i] = r->heap.v[p];
		r->heap.v[p] = t;
		i = p;
	}
	r->queued_bytes += e.len;
}

static struct qent q_pop(struct perf_reader *r)
{
	struct qent top = r->heap.v[0];
	r->heap.v[0] = r->heap.v[--r->heap.n];
	size_t i = 0, n = r->heap.n;
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && q_less(&r->heap.v[l], &r->heap.v[m]))
			m = l;
		if (l + 1 < n && q_less(&r->heap.v[l + 1], &r->heap.v[m]))
			m = l + 1;
		if (m == i)
			break;
		struct qent t = r->heap.v[i];
		r->heap.v[i] = r->heap.v[m];
		r->heap.v[m] = t;
		i = m;
	}
	r->queued_bytes -= top.len;
	return top;
}

/* ---- the record walk ---- */

/* Pipe-mode bookkeeping records that define the stream. */
static int pipe_record(struct perf_reader *r, uint32_t type, const uint8_t *rec, uint16_t size,
		       uint64_t off)
{
	struct cursor c;
	cursor_init(&c, rec + 8, (size_t)size - 8, off + 8, false);
	if (type == EV_HEADER_ATTR) {
		uint32_t asize;
		if (size < 8 + PERF_ATTR_SIZE_VER0)
			return err_corrupt_at(off, "ATTR (64) record too short (%u bytes)", size);
		memcpy(&asize, rec + 8 + 4, 4);
		if (asize == 0)
			asize = PERF_ATTR_SIZE_VER0;
		if (asize > (uint32_t)size - 8)
			return err_corrupt_at(off, "ATTR (64) record: attr size %u beyond record",
					      asize);
		struct perf_event_attr attr;
		memset(&attr, 0, sizeof(attr));
		memcpy(&attr, rec + 8, asize < sizeof(attr) ? asize : sizeof(attr));
		size_t idx = ev_attrs_add(&r->attrs, &attr, asize, NULL, 0);
		size_t nids = ((size_t)size - 8 - asize) / 8;
		for (size_t i = 0; i < nids; i++) {
			uint64_t id;
			memcpy(&id, rec + 8 + asize + i * 8, 8);
			ev_attrs_add_id(&r->attrs, idx, id);
		}
		return ev_attrs_finish(&r->attrs);
	}
	if (type == EV_EVENT_UPDATE) {
		/* {u64 type; u64 id; data}: type 2 (NAME) names the event owning id. */
		uint64_t utype, id;
		if (cursor_u64(&c, &utype) || cursor_u64(&c, &id))
			return 0; /* too short to mean anything: ignore, as perf does */
		if (utype != 2)
			return 0;
		const uint8_t *nul = memchr(c.p, 0, cursor_left(&c));
		if (!nul)
			return 0;
		uint64_t idx;
		if (!hashmap_get(&r->attrs.by_id, id, &idx))
			return 0;
		free(r->attrs.v.v[idx].name);
		r->attrs.v.v[idx].name = xstrndup((const char *)c.p, (size_t)(nul - c.p));
		return 0;
	}
	if (type == EV_HEADER_FEATURE) {
		uint64_t feat;
		if (cursor_u64(&c, &feat))
			return err_corrupt_at(off, "FEATURE (80) record too short");
		if (feat > 0 && feat < PERF_FEAT_MAX) {
			r->info.features[feat / 64] |= 1ULL << (feat % 64);
			bool ok = reader_parse_feature(r, (unsigned)feat, &c) == 0;
			if (!ok)
				log_repeat(LOG_REPEAT_FEATURE,
					   "%s: feature %llu skipped: %s at offset 0x%llx", r->name,
					   (unsigned long long)feat, err_last()->msg,
					   (unsigned long long)err_last()->offset);
			else
				r->info.parsed[feat / 64] |= 1ULL << (feat % 64);
			if (r->on_feature)
				r->on_feature(r->on_feature_arg, (unsigned)feat, ok);
		}
		return 0;
	}
	return 0;
}

/*
 * The file shrank while mapped (base/mapguard.h): the pages past its new
 * end read as zeros. Once that is seen, reading stops there (partial).
 */
static int shrank(struct perf_reader *r)
{
	uint64_t off;
	struct stat st;
	if (r->guard < 0 || !mapguard_faulted(r->guard, &off))
		return 0;
	if (r->map_fd >= 0 && fstat(r->map_fd, &st) == 0 && (uint64_t)st.st_size < off)
		off = (uint64_t)st.st_size; /* the end now, inside the last page */
	r->partial = true;
	return err_corrupt_at(off, "file shrank while being read");
}

/* The bytes between the new end and the end of its page read as zeros
 * without a fault: a record broken there is the shrinking too. */
static int broken_or_shrank(struct perf_reader *r, int err)
{
	struct stat st;
	if (err >= 0 || r->map_fd < 0 || fstat(r->map_fd, &st) != 0 || (uint64_t)st.st_size >= r->len)
		return err;
	r->partial = true;
	return err_corrupt_at((uint64_t)st.st_size, "file shrank while being read");
}

/* file_next without the check of broken_or_shrank. */
static int file_next_(struct perf_reader *r, const uint8_t **rec, uint32_t *len, uint64_t *off)
{
	int gone = shrank(r);
	if (gone)
		return gone;
	if (r->pos >= r->end)
		return 0;
	uint64_t left = r->end - r->pos;
	uint32_t type;
	uint16_t size;
	if (r->guard >= 0) { /* a lost page faults here, not in whoever uses the record */
		mapguard_touch(r->data + r->pos, left < 8 ? (size_t)left : 8);
		if ((gone = shrank(r)))
			return gone;
	}
	if (left < 8) {
		r->partial = true;
		return err_corrupt_at(r->pos, "data ends in the middle of a record header "
					      "(%llu bytes left)",
				      (unsigned long long)left);
	}
	memcpy(&type, r->data + r->pos, 4);
	memcpy(&size, r->data + r->pos + 6, 2);
	if (size < 8) {
		r->partial = true;
		return err_corrupt_at(r->pos, "bad record size %u in %s (%u) record", size,
				      ev_type_name(type), type);
	}
	if (size > left) {
		r->partial = true;
		return err_corrupt_at(r->pos, "%s (%u) record of %u bytes runs past the end of the "
					      "data (%llu bytes left): truncated",
				      ev_type_name(type), type, size, (unsigned long long)left);
	}
	if (r->guard >= 0) {
		mapguard_touch(r->data + r->pos, size);
		if ((gone = shrank(r)))
			return gone;
	}
	*rec = r->data + r->pos;
	*len = size;
	*off = r->pos;
	r->pos += size;
	/* Records whose payload follows outside hdr.size. */
	uint64_t extra = 0;
	if (type == EV_HEADER_TRACING_DATA && size >= 12) {
		uint32_t n;
		memcpy(&n, *rec + 8, 4);
		extra = n;
	} else if (type == EV_AUXTRACE && size >= 16) {
		memcpy(&extra, *rec + 8, 8);
	}
	if (extra) {
		if (extra > r->end - r->pos) {
			r->partial = true;
			return err_corrupt_at(*off, "%s (%u) payload of %llu bytes runs past the end",
					      ev_type_name(type), type, (unsigned long long)extra);
		}
		if (type == EV_HEADER_TRACING_DATA && r->guard >= 0) {
			mapguard_touch(r->data + r->pos, (size_t)extra);
			if ((gone = shrank(r)))
				return gone;
		}
		if (type == EV_HEADER_TRACING_DATA &&
		    reader_keep_tracing_data(&r->info, r->data + r->pos, (size_t)extra, r->pos))
			log_repeat(LOG_REPEAT_RECORD, "%s: %s at offset 0x%llx", r->name,
				   err_last()->msg, (unsigned long long)err_last()->offset);
		r->pos += extra;
	}
	return 1;
}

/*
 * Read the next raw record from the data. Returns 1 with rec/len/off set,
 * 0 at the end, or a negative errno (the data is broken at r->pos, or the
 * file shrank).
 */
static int file_next(struct perf_reader *r, const uint8_t **rec, uint32_t *len, uint64_t *off)
{
	return broken_or_shrank(r, file_next_(r, rec, len, off));
}

/* Read exactly n bytes from the stream; 1 done, 0 clean EOF before any byte, <0 error. */
static int stream_read(struct perf_reader *r, void *dst, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = read(r->fd, (uint8_t *)dst + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return err_set(-errno, "read error: %s", strerror(errno));
		if (k == 0)
			break;
		got += (size_t)k;
	}
	r->stream_off += got;
	if (got == n)
		return 1;
	if (got == 0)
		return 0;
	r->partial = true;
	return err_corrupt_at(r->stream_off, "the stream ends in the middle of a record: truncated");
}

/* The next record from a pipe-mode stream: a heap copy. */
static int stream_next(struct perf_reader *r, const uint8_t **rec, uint32_t *len, uint64_t *off)
{
	struct perf_event_header h;
	uint64_t at = r->stream_off;
	int rc = stream_read(r, &h, sizeof(h));
	if (rc <= 0)
		return rc;
	if (h.size < 8) {
		r->partial = true;
		return err_corrupt_at(at, "bad record size %u in %s (%u) record", h.size,
				      ev_type_name(h.type), h.type);
	}
	uint8_t *p = xmalloc(h.size);
	memcpy(p, &h, sizeof(h));
	rc = stream_read(r, p + 8, h.size - 8u);
	if (rc <= 0) {
		free(p);
		r->partial = true;
		return rc ? rc : err_corrupt_at(at, "%s (%u) record truncated at the end of the stream",
						ev_type_name(h.type), h.type);
	}
	/* Payloads that follow outside hdr.size: read and drop (tracing data: kept). */
	uint64_t extra = 0;
	if (h.type == EV_HEADER_TRACING_DATA && h.size >= 12) {
		uint32_t n;
		memcpy(&n, p + 8, 4);
		extra = n;
		if (!r->info.tracing_data && extra <= PERF_TRACING_DATA_MAX) {
			/* grown as it arrives: a claimed size is not trusted with memory */
			uint8_t *td = xmalloc(1);
			uint64_t td_off = r->stream_off;
			for (size_t got = 0; got < extra;) {
				size_t step = extra - got < (1u << 20) ? (size_t)extra - got : (1u << 20);
				td = xrealloc(td, got + step);
				rc = stream_read(r, td + got, step);
				if (rc <= 0) {
					free(td);
					free(p);
					r->partial = true;
					return rc ? rc : err_corrupt_at(at, "%s (%u) payload truncated",
									ev_type_name(h.type), h.type);
				}
				got += step;
			}
			r->info.tracing_data = td;
			r->info.tracing_data_len = (size_t)extra;
			r->info.tracing_data_off = td_off;
			extra = 0;
		}
	} else if (h.type == EV_AUXTRACE && h.size >= 16) {
		memcpy(&extra, p + 8, 8);
	}
	while (extra) {
		uint8_t sink[4096];
		size_t n = extra < sizeof(sink) ? (size_t)extra : sizeof(sink);
		rc = stream_read(r, sink, n);
		if (rc <= 0) {
			free(p);
			r->partial = true;
			return rc ? rc : err_corrupt_at(at, "%s (%u) payload truncated",
							ev_type_name(h.type), h.type);
		}
		extra -= n;
	}
	*rec = p;
	*len = h.size;
	*off = at;
	return 1;
}

/* Expand n bytes of zstd data (from the record at 'off') onto zdata. */
static int inflate(struct perf_reader *r, const uint8_t *p, size_t n, uint64_t off)
{
	if (!r->zs) {
		r->zs = ZSTD_createDStream();
		if (!r->zs || ZSTD_isError(ZSTD_initDStream(r->zs)))
			return err_corrupt_at(off, "cannot set up zstd decompression");
	}
	/* Drop what was already cut into records. */
	if (r->zpos) {
		memmove(r->zdata, r->zdata + r->zpos, r->zlen - r->zpos);
		r->zlen -= r->zpos;
		r->zpos = 0;
	}
	ZSTD_inBuffer in = { p, n, 0 };
	size_t produced = 0;
	for (;;) {
		if (r->zcap - r->zlen < (128u << 10)) {
			if (r->zlen > ZSTD_PENDING_MAX)
				return err_corrupt_at(off, "COMPRESSED (81) data holds a record over %u MiB",
						      ZSTD_PENDING_MAX >> 20);
			r->zcap = r->zcap ? r->zcap * 2 : (1u << 20);
			r->zdata = xrealloc(r->zdata, r->zcap);
		}
		ZSTD_outBuffer out = { r->zdata + r->zlen, r->zcap - r->zlen, 0 };
		size_t ret = ZSTD_decompressStream(r->zs, &out, &in);
		if (ZSTD_isError(ret))
			return err_corrupt_at(off, "COMPRESSED (81) record: zstd: %s",
					      ZSTD_getErrorName(ret));
		r->zlen += out.pos;
		produced += out.pos;
		if (produced > ZSTD_RECORD_MAX)
			return err_corrupt_at(off, "COMPRESSED (81) record expands past %u MiB",
					      ZSTD_RECORD_MAX >> 20);
		/* Done when the input is used up and zstd did not fill the output. */
		if (in.pos == in.size && out.pos < out.size)
			return 0;
	}
}

/*
 * The next raw record: from decompressed data first, else from the file
 * (expanding COMPRESSED records as they come). 1 with *owned telling
 * whether *rec is a heap copy; 0 at the end; negative errno when broken.
 */
static int raw_next(struct perf_reader *r, const uint8_t **rec, uint32_t *len, uint64_t *off,
		    bool *owned)
{
	for (;;) {
		size_t left = r->zlen - r->zpos;
		if (left >= 8) {
			uint16_t size;
			uint32_t type;
			memcpy(&type, r->zdata + r->zpos, 4);
			memcpy(&size, r->zdata + r->zpos + 6, 2);
			if (size < 8) {
				r->partial = true;
				return err_corrupt_at(r->zoff, "bad record size %u in %s (%u) record "
								"inside compressed data",
						      size, ev_type_name(type), type);
			}
			if (left >= size) {
				uint8_t *copy = xmalloc(size);
				memcpy(copy, r->zdata + r->zpos, size);
				r->zpos += size;
				*rec = copy;
				*len = size;
				*off = r->zoff;
				*owned = true;
				return 1;
			}
		}
		int rc = r->fd >= 0 ? stream_next(r, rec, len, off) : file_next(r, rec, len, off);
		if (rc <= 0) {
			if (rc == 0 && r->zlen > r->zpos) {
				r->partial = true;
				return err_corrupt_at(r->zoff, "compressed data ends in the middle of a "
								"record (%zu bytes left)",
						      r->zlen - r->zpos);
			}
			return rc;
		}
		uint32_t type;
		memcpy(&type, *rec, 4);
		bool stream_copy = r->fd >= 0;
		if (type == EV_COMPRESSED || type == EV_COMPRESSED2) {
			const uint8_t *p = *rec + 8;
			size_t n = *len - 8;
			if (type == EV_COMPRESSED2) {
				uint64_t dsize = 0;
				if (n >= 8)
					memcpy(&dsize, p, 8);
				if (n < 8 || dsize > n - 8) {
					int err = err_corrupt_at(*off, n < 8 ? "COMPRESSED2 (83) record too short"
									    : "COMPRESSED2 (83) data size beyond the record");
					if (stream_copy)
						free((void *)*rec);
					r->partial = true;
					return err;
				}
				p += 8;
				n = dsize;
			}
			r->stats.records[type]++;
			r->stats.bytes += *len;
			r->zoff = *off;
			int err = inflate(r, p, n, *off);
			if (stream_copy)
				free((void *)*rec);
			if (err) {
				r->partial = true;
				return err;
			}
			continue;
		}
		*owned = stream_copy;
		return 1;
	}
}

/*
 * Queued records stay where they were read, in the file mapping; a record
 * queued more than PIN_MAX bytes behind the read position (its time far
 * ahead of the others') is copied out, so that it does not hold the pages
 * between it and the read position. The lowest offset still queued in the
 * mapping, or 'upto' when none is below it.
 */
static uint64_t queued_floor(struct perf_reader *r, uint64_t upto)
{
	uint64_t pin = r->pos > PIN_MAX ? r->pos - PIN_MAX : 0;
	for (size_t i = 0; i < r->heap.n; i++) {
		struct qent *q = &r->heap.v[i];
		if (q->owned)
			continue;
		if (q->offset < pin) {
			uint8_t *copy = xmalloc(q->len);
			memcpy(copy, q->rec, q->len);
			q->rec = copy;
			q->owned = true;
			continue;
		}
		if (q->offset < upto)
			upto = q->offset;
	}
	return upto;
}

/* Give file pages well behind the read position, and behind every record
 * still queued there, back to the kernel. */
static void drop_pages(struct perf_reader *r)
{
	if (!r->map || r->pos < r->dropped + DROP_STEP + (1u << 20) ||
	    r->pos < r->floor_scanned + DROP_STEP)
		return;
	r->floor_scanned = r->pos; /* the queue is scanned once per DROP_STEP read */
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t upto = queued_floor(r, r->pos - (1u << 20)) & ~(uint64_t)(psz - 1);
	if (upto > r->dropped) {
		madvise((uint8_t *)r->map + r->dropped, (size_t)(upto - r->dropped), MADV_DONTNEED);
		r->dropped = upto;
	}
}

static int deliver(struct perf_reader *r, const struct qent *q, struct event *ev)
{
	int err = ev_decode(ev, q->rec, q->len, q->offset, &r->attrs);
	if (err)
		return err;
	if (ev->sid.has_time && ev->sid.time > r->last_delivered)
		r->last_delivered = ev->sid.time;
	return 1;
}

int perf_reader_next(struct perf_reader *r, struct event *ev)
{
	free(r->last_owned); /* the previous event's bytes */
	r->last_owned = NULL;
	drop_pages(r);
	for (;;) {
		/* 1. Anything in the queue old enough to go? */
		if (r->heap.n && (r->done || r->heap.v[0].time <= r->flush_limit)) {
			struct qent q = q_pop(r);
			if (q.owned)
				r->last_owned = (uint8_t *)q.rec;
			int err = deliver(r, &q, ev);
			if (err == 1)
				return 1;
			free(r->last_owned);
			r->last_owned = NULL;
			log_repeat(LOG_REPEAT_RECORD, "%s: %s at offset 0x%llx; record skipped", r->name,
				   err_last()->msg, (unsigned long long)err_last()->offset);
			continue;
		}
		if (r->done)
			return r->err;

		/* 2. Read the next raw record. */
		const uint8_t *rec = NULL;
		uint32_t len = 0;
		uint64_t off = 0;
		bool owned = false;
		int rc = raw_next(r, &rec, &len, &off, &owned);
		if (rc <= 0) {
			r->done = true;
			r->err = rc;
			if (rc < 0)
				r->errrep = *err_last();
			continue;
		}
		uint32_t type;
		memcpy(&type, rec, 4);
		r->stats.bytes += len;
		if (type < EV_TYPE_MAX)
			r->stats.records[type]++;
		else
			r->stats.unknown_records++;

		if (type == EV_FINISHED_ROUND) {
			r->flush_limit = r->next_flush;
			r->next_flush = r->max_time;
			goto drop;
		}
		if (type == EV_HEADER_ATTR || type == EV_HEADER_FEATURE || type == EV_EVENT_UPDATE) {
			int err = pipe_record(r, type, rec, (uint16_t)len, off);
			if (err < 0) {
				r->done = true;
				r->err = err;
				r->partial = true;
				r->errrep = *err_last();
			}
			goto drop;
		}
		if (type >= EV_HEADER_ATTR && type != EV_HEADER_BUILD_ID)
			goto drop; /* bookkeeping that later stages do not need */
		if (type >= EV_TYPE_MAX || (type > PERF_RECORD_AUX_OUTPUT_HW_ID && type < 64))
			goto drop; /* unknown: counted above, skipped by size */
		if (r->attrs.v.n == 0) {
			r->done = true;
			r->partial = true;
			r->err = err_corrupt_at(off, "%s (%u) record before any event attribute",
						ev_type_name(type), type);
			r->errrep = *err_last();
			goto drop;
		}

		/* 3. Decode; timed records go through the queue. */
		int err = ev_decode(ev, rec, len, off, &r->attrs);
		if (err) {
			log_repeat(LOG_REPEAT_RECORD, "%s: %s at offset 0x%llx; record skipped", r->name,
				   err_last()->msg, (unsigned long long)err_last()->offset);
			goto drop;
		}
		uint64_t t = ev->sid.time;
		if (!ev->sid.has_time || t == 0 || t == (uint64_t)-1) {
			if (owned)
				r->last_owned = (uint8_t *)rec;
			return 1;
		}
		if (t < r->last_delivered)
			r->stats.out_of_order++;
		if (t > r->max_time)
			r->max_time = t;
		/* Queued as they are: in the file mapping (or the memory input),
		 * whose pages behind them are kept (drop_pages), or owned. */
		q_push(r, (struct qent){ .time = t, .seq = r->seq++, .rec = rec, .offset = off,
					 .len = len, .owned = owned });
		while (r->queued_bytes > r->window && r->heap.n) {
			struct qent q = q_pop(r);
			r->stats.reorder_overflows++;
			if (q.owned)
				r->last_owned = (uint8_t *)q.rec;
			if (deliver(r, &q, ev) == 1)
				return 1;
			free(r->last_owned);
			r->last_owned = NULL;
		}
		continue;
drop:
		if (owned)
			free((void *)rec);
	}
}
