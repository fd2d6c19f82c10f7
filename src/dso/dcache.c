/*
 * dcache: a per-user cache of expanded debug files (dso, L2). See
 * dcache.h for the rules.
 */
#include "dso/dcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/ofile.h"
#include "base/vec.h"

#define SUBDIR "expanded-v1"
/* Each entry ends with this and the image's length (little-endian u64). */
static const char TRAILER[8] = { 'K', 'I', 'L', 'N', 'X', 'P', 'D', '1' };
#define TRAILER_LEN 16
/* A temporary file this old was left by a writer that died. */
#define STALE_TMP_SECONDS 3600

void dcache_key(struct dcache_key *k, const struct stat *st)
{
	snprintf(k->name, sizeof(k->name), "f-%" PRIx64 "-%" PRIx64 "-%" PRIx64 "-%" PRId64 ".%09ld",
		 (uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
		 (int64_t)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec);
}

/*
 * mkdir with mode 0700 unless it exists; then it must be this user's
 * directory. 'private': the cache's own directory, whose entries name
 * other binaries' paths: made 0700 again if it was left open to others.
 */
static bool own_dir(const char *path, bool private)
{
	struct stat st;
	if (mkdir(path, 0700) != 0 && errno != EEXIST)
		return false;
	if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return false;
	return !private || !(st.st_mode & 077) || chmod(path, 0700) == 0;
}

/* The entries' directory, created as needed; false when the cache is off or unusable. */
static bool cache_dir(const struct kiln_env *e, char *out, size_t cap)
{
	if (!e)
		return false;
	const char *env = e->cache_dir, *xdg = e->xdg_cache_home;
	const char *home = e->home;
	char base[4096];
	int n;
	if (env) {
		if (!*env || !strcmp(env, "off"))
			return false;
		n = snprintf(base, sizeof(base), "%s", env);
	} else if (xdg && *xdg == '/') {
		n = snprintf(base, sizeof(base), "%s/kiln", xdg);
	} else if (home && *home == '/') {
		n = snprintf(base, sizeof(base), "%s/.cache", home);
		if (n <= 0 || (size_t)n >= sizeof(base) - 5 || (mkdir(base, 0700) != 0 && errno != EEXIST))
			return false;
		memcpy(base + n, "/kiln", 6);
	} else {
		return false;
	}
	if (n <= 0 || (size_t)n >= sizeof(base) || !own_dir(base, false))
		return false;
	n = snprintf(out, cap, "%s/" SUBDIR, base);
	return n > 0 && (size_t)n < cap && own_dir(out, true);
}

int dcache_get(const struct kiln_env *e, const struct dcache_key *k, uint8_t **map, size_t *len)
{
	char dir[4096], path[4400];
	if (!k->name[0] || !cache_dir(e, dir, sizeof(dir)))
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", dir, k->name);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size < 64 + TRAILER_LEN) {
		close(fd);
		return -ENOENT;
	}
	if (st.st_mode & 077)
		fchmod(fd, 0600); /* an entry of an older kiln, readable by others */
	size_t size = (size_t)st.st_size;
	uint8_t *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -ENOMEM;
	uint64_t n = 0;
	const uint8_t *t = m + size - TRAILER_LEN;
	for (int i = 7; i >= 0; i--)
		n = n << 8 | t[8 + i];
	if (memcmp(t, TRAILER, sizeof(TRAILER)) || n != size - TRAILER_LEN ||
	    memcmp(m, "\177ELF", 4)) {
		munmap(m, size);
		unlink(path); /* damaged: made again by the next put */
		return -ENOENT;
	}
	utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW); /* recently used: evicted last */
	*map = m;
	*len = (size_t)n;
	return 0;
}

void dcache_unmap(uint8_t *map, size_t len)
{
	if (map)
		munmap(map, len + TRAILER_LEN);
}

struct entry {
	char name[256];
	uint64_t size;
	struct timespec mtime;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The cap: $KILN_CACHE_MAX_MB if set, else DCACHE_MAX_BYTES. */
uint64_t dcache_max_bytes(const struct kiln_env *e)
{
	const char *env = e ? e->cache_max_mb : NULL;
	char *end;
	if (env && *env) {
		unsigned long long mb = strtoull(env, &end, 10);
		if (!*end && mb < (1ull << 40))
			return (uint64_t)mb << 20;
	}
	return DCACHE_MAX_BYTES;
}

/* Removes the oldest entries until 'want' more bytes fit under the cap,
 * and temporary files of writers that died. */
static void make_room(const char *dir, uint64_t want, uint64_t cap)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	VEC(struct entry) v = { 0 };
	uint64_t total = 0;
	struct dirent *de;
	time_t now = time(NULL);
	while ((de = readdir(d)) && v.n < 100000) {
		struct stat st;
		if (strlen(de->d_name) >= sizeof(v.v->name) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (de->d_name[0] == '.') { /* a writer's temporary file: left by one that died? */
			if (strstr(de->d_name, ".kiln-tmp-") && st.st_mtim.tv_sec + STALE_TMP_SECONDS < now)
				unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		struct entry *e = VEC_PUSH_ZERO(&v);
		snprintf(e->name, sizeof(e->name), "%s", de->d_name);
		e->size = (uint64_t)st.st_size;
		e->mtime = st.st_mtim;
		total += e->size;
	}
	if (total + want > cap && v.n) {
		qsort(v.v, v.n, sizeof(*v.v), entry_cmp);
		for (size_t i = 0; i < v.n && total + want > cap; i++)
			if (unlinkat(dirfd(d), v.v[i].name, 0) == 0)
				total -= v.v[i].size;
	}
	closedir(d);
	VEC_FREE(&v);
}

void dcache_put(const struct kiln_env *e, const struct dcache_key *k, const uint8_t *p, size_t len)
{
	char dir[4096], path[4400];
	uint64_t cap = dcache_max_bytes(e);
	if (!k->name[0] || len > cap / 2 || !cache_dir(e, dir, sizeof(dir)))
		return;
	make_room(dir, (uint64_t)len + TRAILER_LEN, cap);
	snprintf(path, sizeof(path), "%s/%s", dir, k->name);
	/* Best effort: a failure here must not replace the caller's last error. */
	struct err_report saved = *err_last();
	struct ofile of;
	if (ofile_open_mode(&of, path, 0600) == 0) {
		uint8_t t[TRAILER_LEN];
		memcpy(t, TRAILER, sizeof(TRAILER));
		for (int i = 0; i < 8; i++)
			t[8 + i] = (uint8_t)((uint64_t)len >> (8 * i));
		bool ok = fwrite(p, 1, len, of.f) == len && fwrite(t, 1, sizeof(t), of.f) == sizeof(t);
		ofile_close(&of, ok ? 0 : -EIO);
	}
	err_restore(&saved);
}
