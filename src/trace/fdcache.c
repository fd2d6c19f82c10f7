/*
 * fdcache: what a process's fd is (trace, L7).
 *
 * readlink(/proc/PID/fd/N) on first use, kept per pid and fd until the
 * core says the fd changed (close, dup2 onto it, a call that returned it,
 * an exec). Lines are printed a little after the calls happened, so a
 * link read late can name what the fd became since; a process that is
 * gone shows the bare number.
 */
#include <stdio.h>
#include <unistd.h>

#include "trace/trace_int.h"

void fdcache_init(struct tr_fdcache *c)
{
	hashmap_init(&c->map);
	c->names.v = NULL;
	c->names.n = c->names.cap = 0;
}

void fdcache_release(struct tr_fdcache *c)
{
	for (size_t i = 0; i < c->names.n; i++)
		free(c->names.v[i]);
	VEC_FREE(&c->names);
	hashmap_release(&c->map);
}

static uint64_t key(uint32_t pid, int64_t fd)
{
	return (uint64_t)pid << 32 | (uint32_t)fd;
}

const char *fdcache_get(struct tr_fdcache *c, uint32_t pid, int64_t fd)
{
	if (fd < 0 || fd > INT32_MAX)
		return NULL;
	uint64_t idx;
	if (hashmap_get(&c->map, key(pid, fd), &idx) && idx)
		return idx == FD_BARE ? NULL : c->names.v[idx - 1];
	if (c->names.n >= (1u << 20))
		return NULL; /* bounded: a process churning fds does not grow this forever */
	char path[64], link[4096];
	snprintf(path, sizeof(path), "/proc/%u/fd/%d", pid, (int)fd);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return NULL;
	link[n] = '\0';
	VEC_PUSH(&c->names, xstrdup(link));
	hashmap_put(&c->map, key(pid, fd), c->names.n);
	return c->names.v[c->names.n - 1];
}

void fdcache_set(struct tr_fdcache *c, uint32_t pid, int64_t fd, const char *name)
{
	if (fd < 0 || fd > INT32_MAX)
		return;
	if (!name || c->names.n >= (1u << 20)) {
		hashmap_put(&c->map, key(pid, fd), FD_BARE);
		return;
	}
	VEC_PUSH(&c->names, xstrdup(name));
	hashmap_put(&c->map, key(pid, fd), c->names.n);
}

void fdcache_dup(struct tr_fdcache *c, uint32_t pid, int64_t oldfd, int64_t newfd)
{
	if (oldfd < 0 || oldfd > INT32_MAX || newfd < 0 || newfd > INT32_MAX)
		return;
	uint64_t v;
	if (!hashmap_get(&c->map, key(pid, oldfd), &v)) {
		fdcache_get(c, pid, oldfd);
		if (!hashmap_get(&c->map, key(pid, oldfd), &v))
			v = FD_BARE;
	}
	hashmap_put(&c->map, key(pid, newfd), v);
}

void fdcache_reopen(struct tr_fdcache *c, uint32_t pid)
{
	size_t pos = 0;
	uint64_t k, v;
	while (hashmap_next(&c->map, &pos, &k, &v))
		if (k >> 32 == pid && v == FD_BARE)
			hashmap_put(&c->map, k, 0);
}
