/*
 * writer: perf.data writing (source/perffile, L2). Layout, as perf writes
 * it: header (104 bytes) | id arrays | attr entries | data records |
 * feature index | feature payloads. The header is written last, over a
 * placeholder, so a file whose writer died has data.size 0 and readers
 * know it was not finished. The file is written beside the target under a
 * temporary name and renamed over it when done; a non-empty regular file
 * already at the target is kept as TARGET.old first, as perf keeps it (a
 * symlink there is replaced, never followed).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/xalloc.h"
#include "source/perffile/perffile.h"

#define HDR_SIZE 104
#define WRITE_ATTR_SIZE PERF_ATTR_SIZE_VER7 /* 128: what perf 6.1 knows */
#define WBUF_SIZE (1u << 20)

struct wattr {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	size_t nids;
};

struct perf_writer {
	char *path, *tmp_path;
	int fd;
	VEC(struct wattr) attrs;
	bool started; /* the first record was written (attrs are fixed) */
	uint64_t data_offset, data_size;
	uint64_t data_ok; /* bytes of data known to be in the file (whole records) */
	bool started_ok;  /* header placeholder, ids and attrs were written */
	uint64_t attrs_offset;
	char *wbuf;
	size_t wlen;
	int err; /* sticky write error */
};

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int perf_writer_open(struct perf_writer **out, const char *path)
{
	*out = NULL;
	/* The file is renamed over the target: never over a device or FIFO
	 * (as root, /dev/null would become a regular file). Not -EINVAL, which
	 * the CLI reads as a usage error. */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return err_set(-EISDIR, "cannot write '%s': not a regular file", path);
	/* The previous file will be kept as PATH.old: refuse now, not after
	 * recording, what would stop that. */
	char *old = xasprintf("%s.old", path);
	int old_dir = lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
		      lstat(old, &st) == 0 && S_ISDIR(st.st_mode);
	free(old);
	if (old_dir)
		return err_set(-EISDIR, "cannot keep the previous '%s' as '%s.old': it is a directory",
			       path, path);
	char *dup = xstrdup(path);
	char *dir = dirname(dup);
	char *tmp = xasprintf("%s/.%s.kiln-tmp-%d", dir, strrchr(path, '/') ? strrchr(path, '/') + 1 : path,
			      (int)getpid());
	free(dup);
	/* O_EXCL|O_NOFOLLOW: never write through a planted file or symlink. */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		int e = errno;
		int ret = err_set(-e, "cannot create '%s': %s", tmp, strerror(e));
		free(tmp);
		return ret;
	}
	struct perf_writer *w = xcalloc(1, sizeof(*w));
	w->path = xstrdup(path);
	w->tmp_path = tmp;
	w->fd = fd;
	w->wbuf = xmalloc(WBUF_SIZE);
	*out = w;
	return 0;
}

void perf_writer_add_attr(struct perf_writer *w, const struct perf_event_attr *attr,
			  const char *name, const uint64_t *ids, size_t nids)
{
	if (w->started)
		BUG("perf_writer_add_attr after the first record");
	struct wattr *a = VEC_PUSH_ZERO(&w->attrs);
	a->attr = *attr;
	a->attr.size = WRITE_ATTR_SIZE;
	a->name = xstrdup(name);
	XALLOC_ARRAY(a->ids, nids ? nids : 1);
	if (nids)
		memcpy(a->ids, ids, nids * sizeof(*ids));
	a->nids = nids;
}

/* Write the header placeholder, id arrays and attrs; data follows. */
static int start(struct perf_writer *w)
{
	w->started = true;
	uint8_t zero[HDR_SIZE] = { 0 };
	int err = write_all(w->fd, zero, sizeof(zero));
	uint64_t off = HDR_SIZE;
	uint64_t *ids_off;
	XALLOC_ARRAY(ids_off, w->attrs.n ? w->attrs.n : 1);
	for (size_t i = 0; i < w->attrs.n && !err; i++) {
		ids_off[i] = off;
		err = write_all(w->fd, w->attrs.v[i].ids, w->attrs.v[i].nids * 8);
		off += w->attrs.v[i].nids * 8;
	}
	w->attrs_offset = off;
	for (size_t i = 0; i < w->attrs.n && !err; i++) {
		uint64_t sect[2] = { ids_off[i], w->attrs.v[i].nids * 8 };
		err = write_all(w->fd, &w->attrs.v[i].attr, WRITE_ATTR_SIZE);
		if (!err)
			err = write_all(w->fd, sect, sizeof(sect));
		off += WRITE_ATTR_SIZE + 16;
	}
	free(ids_off);
	w->data_offset = off;
	return err;
}

/* write() as much as possible; 0 or -errno, with *done bytes written. */
static int write_count(int fd, const void *p, size_t n, size_t *done)
{
	const char *c = p;
	*done = 0;
	while (*done < n) {
		ssize_t k = write(fd, c + *done, n - *done);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		*done += (size_t)k;
	}
	return 0;
}

static int flush(struct perf_writer *w)
{
	if (w->wlen && !w->err) {
		size_t done;
		w->err = write_count(w->fd, w->wbuf, w->wlen, &done);
		if (w->err) {
			/* Keep the whole records that reached the file. */
			size_t at = 0;
			while (at + 8 <= done) {
				uint16_t size;
				memcpy(&size, w->wbuf + at + 6, 2);
				if (size < 8 || at + size > done)
					break;
				at += size;
			}
			w->data_ok += at;
		} else {
			w->data_ok = w->data_size;
		}
	}
	w->wlen = 0;
	return w->err;
}

int perf_writer_write(struct perf_writer *w, const void *rec, size_t len)
{
	if (w->err)
		return w->err;
	if (!w->started) {
		if ((w->err = start(w)))
			return w->err;
		w->started_ok = true;
	}
	if (w->wlen + len > WBUF_SIZE && flush(w))
		return w->err;
	if (len > WBUF_SIZE) {
		w->err = write_all(w->fd, rec, len);
		if (!w->err)
			w->data_ok = w->data_size + len;
	} else {
		memcpy(w->wbuf + w->wlen, rec, len);
		w->wlen += len;
	}
	if (!w->err)
		w->data_size += len;
	return w->err;
}

/* Feature payload helpers: perf pads strings to a multiple of 64 with NULs. */
static void put_string(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t len = (uint32_t)((n + 63) & ~(size_t)63);
	static const char zeros[64];
	buf_add(b, &len, 4);
	buf_add(b, s, n - 1);
	buf_add(b, zeros, len - (n - 1));
}

static void put_u32(struct buf *b, uint32_t v)
{
	buf_add(b, &v, 4);
}

static void feature_payload(struct perf_writer *w, unsigned feat,
			    const struct perf_header_info *info, struct buf *b)
{
	switch (feat) {
	case PERF_FEAT_TRACING_DATA:
		buf_add(b, info->tracing_data, info->tracing_data_len);
		break;
	case PERF_FEAT_BUILD_ID:
		for (size_t i = 0; i < info->nbuild_ids; i++) {
			const struct perf_build_id *id = &info->build_ids[i];
			size_t nlen = strlen(id->filename) + 1;
			size_t size = (36 + nlen + 7) & ~(size_t)7;
			uint8_t rec[36] = { 0 };
			uint16_t misc = (uint16_t)(id->cpumode | (1u << 15)), sz = (uint16_t)size;
			uint32_t pid = (uint32_t)id->pid;
			memcpy(rec + 4, &misc, 2);
			memcpy(rec + 6, &sz, 2);
			memcpy(rec + 8, &pid, 4);
			memcpy(rec + 12, id->id, id->size);
			rec[32] = id->size;
			buf_add(b, rec, sizeof(rec));
			buf_add(b, id->filename, nlen - 1);
			static const char zeros[8];
			buf_add(b, zeros, size - 36 - (nlen - 1));
		}
		break;
	case PERF_FEAT_HOSTNAME:
		put_string(b, info->hostname);
		break;
	case PERF_FEAT_OSRELEASE:
		put_string(b, info->osrelease);
		break;
	case PERF_FEAT_VERSION:
		put_string(b, info->version);
		break;
	case PERF_FEAT_ARCH:
		put_string(b, info->arch);
		break;
	case PERF_FEAT_CPUDESC:
		put_string(b, info->cpudesc);
		break;
	case PERF_FEAT_NRCPUS:
		put_u32(b, info->nr_cpus_avail);
		put_u32(b, info->nr_cpus_online);
		break;
	case PERF_FEAT_TOTAL_MEM:
		buf_add(b, &info->total_mem_kb, 8);
		break;
	case PERF_FEAT_CMDLINE:
		put_u32(b, (uint32_t)info->cmdline_n);
		for (size_t i = 0; i < info->cmdline_n; i++)
			put_string(b, info->cmdline[i]);
		break;
	case PERF_FEAT_EVENT_DESC:
		put_u32(b, (uint32_t)w->attrs.n);
		put_u32(b, WRITE_ATTR_SIZE);
		for (size_t i = 0; i < w->attrs.n; i++) {
			const struct wattr *a = &w->attrs.v[i];
			buf_add(b, &a->attr, WRITE_ATTR_SIZE);
			put_u32(b, (uint32_t)a->nids);
			put_string(b, a->name);
			buf_add(b, a->ids, a->nids * 8);
		}
		break;
	default:
		break;
	}
}

static bool have_feature(const struct perf_writer *w, unsigned feat,
			 const struct perf_header_info *info)
{
	switch (feat) {
	case PERF_FEAT_TRACING_DATA:
		return info->tracing_data != NULL;
	case PERF_FEAT_BUILD_ID:
		return info->nbuild_ids > 0;
	case PERF_FEAT_HOSTNAME:
		return info->hostname;
	case PERF_FEAT_OSRELEASE:
		return info->osrelease;
	case PERF_FEAT_VERSION:
		return info->version;
	case PERF_FEAT_ARCH:
		return info->arch;
	case PERF_FEAT_CPUDESC:
		return info->cpudesc;
	case PERF_FEAT_NRCPUS:
		return info->nr_cpus_avail > 0;
	case PERF_FEAT_TOTAL_MEM:
		return info->total_mem_kb > 0;
	case PERF_FEAT_CMDLINE:
		return info->cmdline_n > 0;
	case PERF_FEAT_EVENT_DESC:
		return w->attrs.n > 0;
	default:
		return false;
	}
}

/* Rename the temporary file over the target, keeping a non-empty regular
 * file there as TARGET.old (perf's rule). The old file is linked to its
 * new name before the new one replaces it, so the target path never goes
 * missing (a file system without hard links: renamed). 0 or -errno, with
 * err_last() set. */
static int install(struct perf_writer *w)
{
	struct stat st;
	if (lstat(w->path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		char *old = xasprintf("%s.old", w->path);
		int err = 0;
		if (unlink(old) < 0 && errno != ENOENT)
			err = -errno;
		if (!err && link(w->path, old) < 0 && rename(w->path, old) < 0)
			err = -errno;
		if (err)
			err_set(err, "cannot keep the previous '%s' as '%s': %s", w->path, old,
				strerror(-err));
		free(old);
		if (err)
			return err;
	}
	if (rename(w->tmp_path, w->path) < 0) {
		int err = -errno;
		return err_set(err, "cannot write '%s': %s", w->path, strerror(-err));
	}
	return 0;
}

int perf_writer_finish(struct perf_writer *w, const struct perf_header_info *info, uint64_t *kept)
{
	int err = 0;
	*kept = UINT64_MAX;
	if (!w->started) {
		err = start(w);
		w->started_ok = !err;
	}
	if (!err)
		err = flush(w);
	if (err && w->started_ok) {
		/* The data did not all fit (disk full, file size limit): keep what did. */
		char *path = xstrdup(w->path);
		if (perf_writer_salvage(w, kept))
			*kept = UINT64_MAX;
		err_set(err, "cannot write '%s': %s", path, strerror(-err));
		free(path);
		return err;
	}
	uint64_t bitmap[4] = { 0 };
	struct buf payloads;
	buf_init(&payloads, 1u << 30);
	VEC(uint64_t) index = { 0 }; /* offset, size pairs, relative to payload start */
	for (unsigned feat = 1; feat < PERF_FEAT_MAX && !err; feat++) {
		if (!have_feature(w, feat, info))
			continue;
		size_t before = payloads.len;
		feature_payload(w, feat, info, &payloads);
		bitmap[feat / 64] |= 1ULL << (feat % 64);
		VEC_PUSH(&index, (uint64_t)before);
		VEC_PUSH(&index, (uint64_t)(payloads.len - before));
	}
	uint64_t index_off = w->data_offset + w->data_size;
	uint64_t payload_off = index_off + index.n * 8;
	for (size_t i = 0; i < index.n; i += 2)
		index.v[i] += payload_off;
	if (!err)
		err = write_all(w->fd, index.v, index.n * 8);
	if (!err)
		err = write_all(w->fd, buf_str(&payloads), payloads.len);
	VEC_FREE(&index);
	buf_release(&payloads);

	if (!err) {
		uint8_t hdr[HDR_SIZE];
		uint64_t f[9] = {
			0x32454c4946524550ULL, HDR_SIZE, WRITE_ATTR_SIZE + 16,
			w->attrs_offset,       w->attrs.n * (WRITE_ATTR_SIZE + 16),
			w->data_offset,        w->data_size,
			0,                     0,
		};
		memcpy(hdr, f, sizeof(f));
		memcpy(hdr + 72, bitmap, sizeof(bitmap));
		if (pwrite(w->fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr))
			err = errno ? -errno : -EIO;
	}
	if (!err && fsync(w->fd) < 0)
		err = -errno;
	if (close(w->fd) < 0 && !err)
		err = -errno;
	w->fd = -1;
	if (err)
		err_set(err, "cannot write '%s': %s", w->path, strerror(-err));
	else
		err = install(w);
	if (err)
		unlink(w->tmp_path);
	perf_writer_abort(w);
	return err;
}

void perf_writer_abort(struct perf_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0) {
		close(w->fd);
		unlink(w->tmp_path);
	}
	for (size_t i = 0; i < w->attrs.n; i++) {
		free(w->attrs.v[i].name);
		free(w->attrs.v[i].ids);
	}
	VEC_FREE(&w->attrs);
	free(w->wbuf);
	free(w->path);
	free(w->tmp_path);
	free(w);
}

int perf_writer_salvage(struct perf_writer *w, uint64_t *kept)
{
	int err = w->started_ok ? 0 : -EIO;
	*kept = w->data_ok;
	if (!err) {
		/* Header only: it overwrites the placeholder, so it needs no new space. */
		uint8_t hdr[HDR_SIZE] = { 0 };
		uint64_t f[7] = {
			0x32454c4946524550ULL, HDR_SIZE, WRITE_ATTR_SIZE + 16, w->attrs_offset,
			w->attrs.n * (WRITE_ATTR_SIZE + 16), w->data_offset, w->data_ok,
		};
		memcpy(hdr, f, sizeof(f));
		if (pwrite(w->fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr))
			err = -EIO;
	}
	if (!err && ftruncate(w->fd, (off_t)(w->data_offset + w->data_ok)) < 0)
		err = -errno;
	if (!err)
		fsync(w->fd);
	if (close(w->fd) < 0 && !err)
		err = -errno;
	w->fd = -1;
	if (!err)
		err = install(w);
	if (err)
		unlink(w->tmp_path);
	perf_writer_abort(w);
	return err;
}
