/*
 * nscache: copy containerised processes' binaries into perf's build-id
 * cache while they can still be reached (pipeline, L8).
 */
#include "pipeline/nscache.h"
#include "pipeline/buildids.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "dso/elf_image.h"
#include "dso/nsroot.h"

void nscache_init(struct nscache *c, const char *home)
{
	memset(c, 0, sizeof(*c));
	c->home = home;
	hashmap_init(&c->seen);
}

void nscache_release(struct nscache *c)
{
	for (size_t i = 0; i < c->ids.n; i++)
		free(c->ids.v[i].filename);
	VEC_FREE(&c->ids);
	hashmap_release(&c->seen);
}

/* mkdir -p for the directories of 'path' (its last component excluded). */
static int make_dirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int r = mkdir(path, 0755);
		*p = '/';
		if (r && errno != EEXIST)
			return -errno;
	}
	return 0;
}

/* Copy the open file 'fd' of 'size' bytes to 'dst' (temp file + rename). */
static int copy_to(int fd, uint64_t size, const char dst[4200])
{
	char tmp[4300];
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", dst, (int)getpid());
	int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0)
		return -errno;
	char buf[65536];
	uint64_t done = 0;
	int err = 0;
	while (done < size) {
		ssize_t n = pread(fd, buf, sizeof(buf), (off_t)done);
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		if (write(out, buf, (size_t)n) != n) {
			err = -EIO;
			break;
		}
		done += (uint64_t)n;
	}
	if (close(out) && !err)
		err = -EIO;
	if (!err && rename(tmp, dst))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static void cache_file(struct nscache *c, uint32_t pid, const char *path)
{
	int fd = nsroot_open(pid, path);
	if (fd < 0) {
		/* Not in its root: mapped before the process entered it (the
		 * unshare or runtime that started it), a host file. */
		if (fd != -ENOENT)
			log_warn("cannot keep %s of process %u: %s", path, pid, err_last()->msg);
		return;
	}
	struct stat st, host;
	/* The same file as the host's at that path: nothing to keep. */
	bool on_host = stat(path, &host) == 0;
	if (on_host && fstat(fd, &st) == 0 && st.st_dev == host.st_dev && st.st_ino == host.st_ino) {
		close(fd);
		return;
	}
	struct elf_image *img = NULL;
	uint8_t id[ELF_BUILD_ID_MAX];
	size_t n = 0;
	char name[4200];
	snprintf(name, sizeof(name), "/proc/%u/root%s", pid, path);
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_size <= NSCACHE_MAX_SIZE &&
	    elf_image_open_fd(&img, fd, name) == 0)
		n = elf_image_build_id(img, id);
	elf_image_free(img);
	const char *home = c->home;
	if (n < 2 || n > 20 || !home) {
		log_warn("cannot keep %s of process %u: %s", path, pid,
			 n ? "no home directory for the build-id cache" : "no build-id (or not ELF)");
		close(fd);
		return;
	}
	char hexid[41], dst[4200];
	for (size_t i = 0; i < n; i++)
		snprintf(hexid + 2 * i, 3, "%02x", id[i]);
	snprintf(dst, sizeof(dst), "%s/.debug/.build-id/%.2s/%s/elf", home, hexid, hexid + 2);
	int err = 0;
	if (access(dst, F_OK)) {
		err = make_dirs(dst);
		if (!err)
			err = copy_to(fd, (uint64_t)st.st_size, dst);
	}
	close(fd);
	if (err) {
		log_warn("cannot keep %s of process %u in %s: %s", path, pid, dst, strerror(-err));
		return;
	}
	/* kiln's readers know a binary by its path: an entry for a path the
	 * host has as another file would send the host's processes to this
	 * one. Cached, but not listed. */
	if (on_host)
		return;
	struct perf_build_id *b = VEC_PUSH_ZERO(&c->ids);
	b->pid = (int32_t)pid;
	b->cpumode = 2; /* PERF_RECORD_MISC_USER */
	b->size = (uint8_t)n;
	memcpy(b->id, id, n);
	b->filename = xstrdup(path);
}

void nscache_record(struct nscache *c, const void *rec, size_t len)
{
	uint32_t pid;
	size_t plen;
	const char *path = buildids_exec_path(rec, len, &pid, &plen);
	if (!path || c->ids.n >= NSCACHE_MAX_FILES)
		return;
	uint64_t key = hash_bytes(path, plen) ^ ((uint64_t)pid * 0x9e3779b97f4a7c15u);
	if (hashmap_get(&c->seen, key, NULL))
		return;
	hashmap_put(&c->seen, key, 1);
	/* Asked per mapping, not per process: a process enters its namespace
	 * (unshare, then exec) after its first mappings were seen. */
	if (nsroot_foreign(pid))
		cache_file(c, pid, path);
}

void nscache_take(struct nscache *c, struct perf_header_info *h)
{
	if (!c->ids.n)
		return;
	size_t n = h->nbuild_ids + c->ids.n;
	h->build_ids = xrealloc(h->build_ids, n * sizeof(*h->build_ids));
	memcpy(h->build_ids + h->nbuild_ids, c->ids.v, c->ids.n * sizeof(*c->ids.v));
	h->nbuild_ids = n;
	c->ids.n = 0;
}
