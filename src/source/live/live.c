/*
 * live: perf_event_open events and their ring buffers (source/live, L2).
 *
 * Layout: for each CPU c, the first event opened on c owns the ring
 * buffer (mmap of 1 + mmap_pages pages); every other event on c is
 * redirected into it. Inherited child events write into their parent
 * event's buffer, so one buffer per CPU sees everything.
 *
 * The buffer protocol (kernel's contract): read data_head, smp_rmb, read
 * the records in [tail, head), smp_mb, write data_tail. head and tail run
 * freely and are masked with (size - 1) to index the buffer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/err.h"
#include "base/vec.h"
#include "base/xalloc.h"
#include "source/live/live.h"

struct ring {
	int fd;
	void *base; /* the mmap: control page + data */
	size_t data_size;
	uint8_t *bounce; /* for records that wrap */
};

struct live {
	VEC(int) fds; /* every event fd */
	VEC(struct ring) rings;
	uint64_t **ids; /* per attr */
	size_t *nids;
	size_t nattrs;
	unsigned ncpus;
};

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
				unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/* CPUs from /sys/devices/system/cpu/online ("0-3,5"); falls back to sysconf. */
static void online_cpus(int **cpus, unsigned *n)
{
	*n = 0;
	*cpus = NULL;
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char line[4096];
	if (f && fgets(line, sizeof(line), f)) {
		char *p = line;
		while (*p && *p != '\n') {
			char *e;
			long a = strtol(p, &e, 10), b = a;
			if (e == p)
				break;
			p = e;
			if (*p == '-') {
				b = strtol(p + 1, &e, 10);
				p = e;
			}
			for (long c = a; c <= b && c < 65536; c++) {
				XREALLOC_ARRAY(*cpus, *n + 1);
				(*cpus)[(*n)++] = (int)c;
			}
			if (*p == ',')
				p++;
		}
	}
	if (f)
		fclose(f);
	if (*n == 0) {
		long nc = sysconf(_SC_NPROCESSORS_ONLN);
		for (long c = 0; c < (nc > 0 ? nc : 1); c++) {
			XREALLOC_ARRAY(*cpus, *n + 1);
			(*cpus)[(*n)++] = (int)c;
		}
	}
}

int live_parse_cpus(const char *list, int **cpus, size_t *n)
{
	int *on;
	unsigned non;
	online_cpus(&on, &non);
	*cpus = NULL;
	*n = 0;
	const char *p = list;
	int err = 0;
	bool said = false;
	while (!err && *p) {
		char *e;
		errno = 0;
		long a = strtol(p, &e, 10), b = a;
		if (e == p || errno || a < 0 || a > 65535) {
			err = -EINVAL;
			break;
		}
		p = e;
		if (*p == '-') {
			b = strtol(p + 1, &e, 10);
			if (e == p + 1 || b < a || b > 65535) {
				err = -EINVAL;
				break;
			}
			p = e;
		}
		for (long c = a; c <= b; c++) {
			bool online = false;
			for (unsigned i = 0; i < non; i++)
				online |= on[i] == (int)c;
			if (!online) {
				err = err_set(-EINVAL, "-C: CPU %ld is not online", c);
				said = true;
				break;
			}
			bool dup = false;
			for (size_t i = 0; i < *n; i++)
				dup |= (*cpus)[i] == (int)c;
			if (!dup) {
				XREALLOC_ARRAY(*cpus, *n + 1);
				(*cpus)[(*n)++] = (int)c;
			}
		}
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			err = -EINVAL;
	}
	if (!err && !*n)
		err = -EINVAL;
	if (err && !said)
		err_set(err, "-C takes a CPU list (as 0-3,5), not '%s'", list);
	free(on);
	if (err) {
		free(*cpus);
		*cpus = NULL;
		*n = 0;
		return err;
	}
	for (size_t i = 1; i < *n; i++) /* insertion sort: lists are short */
		for (size_t j = i; j > 0 && (*cpus)[j - 1] > (*cpus)[j]; j--) {
			int t = (*cpus)[j];
			(*cpus)[j] = (*cpus)[j - 1];
			(*cpus)[j - 1] = t;
		}
	return 0;
}

static int open_one(struct live *l, struct perf_event_attr *attr, size_t ai, pid_t pid, int cpu,
		    int *ring_fd)
{
	int fd = (int)sys_perf_event_open(attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	VEC_PUSH(&l->fds, fd);
	uint64_t id = 0;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0) {
		XREALLOC_ARRAY(l->ids[ai], l->nids[ai] + 1);
		l->ids[ai][l->nids[ai]++] = id;
	}
	if (*ring_fd < 0) {
		*ring_fd = fd;
		return 1; /* caller maps a buffer for it */
	}
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *ring_fd) < 0)
		return -errno;
	return 0;
}

static int map_ring(struct live *l, int fd, unsigned pages)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(pages + 1) * (size_t)psz;
	void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	struct ring *r = VEC_PUSH_ZERO(&l->rings);
	r->fd = fd;
	r->base = base;
	r->data_size = (size_t)pages * (size_t)psz;
	r->bounce = xmalloc(65536);
	return 0;
}

int live_open(struct live **out, const struct live_opts *o, size_t *failed_attr)
{
	struct live *l = xcalloc(1, sizeof(*l));
	int *cpus;
	unsigned ncpus;
	int err = 0;
	*out = NULL;
	if (o->cpus && o->ncpus) {
		ncpus = (unsigned)o->ncpus;
		XALLOC_ARRAY(cpus, ncpus);
		memcpy(cpus, o->cpus, ncpus * sizeof(*cpus));
	} else {
		online_cpus(&cpus, &ncpus);
	}
	l->ncpus = ncpus;
	l->nattrs = o->nattrs;
	XALLOC_ARRAY(l->ids, o->nattrs);
	XALLOC_ARRAY(l->nids, o->nattrs);
	size_t nt = o->system_wide ? 1 : o->ntids;
	for (unsigned ci = 0; ci < ncpus && !err; ci++) {
		int ring_fd = -1;
		for (size_t ai = 0; ai < o->nattrs && !err; ai++) {
			for (size_t ti = 0; ti < nt && !err; ti++) {
				pid_t pid = o->system_wide ? -1 : o->tids[ti];
				int rc = open_one(l, &o->attrs[ai], ai, pid, cpus[ci], &ring_fd);
				if (rc == -ESRCH && !o->system_wide && ti > 0)
					continue; /* a thread exited meanwhile */
				if (rc >= 0 && o->filters && o->filters[ai] &&
				    (err = live_set_filter(l->fds.v[l->fds.n - 1], o->filters[ai]))) {
					if (failed_attr)
						*failed_attr = ai;
					break;
				}
				if (rc < 0) {
					err = rc;
					if (failed_attr)
						*failed_attr = ai;
					err_set(rc, "perf_event_open failed for cpu %d, pid %d: %s",
						cpus[ci], (int)pid, strerror(-rc));
				} else if (rc == 1) {
					rc = map_ring(l, ring_fd, o->mmap_pages);
					if (rc < 0) {
						err = rc;
						if (failed_attr)
							*failed_attr = SIZE_MAX;
						err_set(rc, "cannot map a %u-page ring buffer: %s",
							o->mmap_pages, strerror(-rc));
					}
				}
			}
		}
	}
	free(cpus);
	if (err) {
		live_close(l);
		return err;
	}
	*out = l;
	return 0;
}

void live_close(struct live *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->rings.n; i++) {
		munmap(l->rings.v[i].base, l->rings.v[i].data_size + (size_t)sysconf(_SC_PAGESIZE));
		free(l->rings.v[i].bounce);
	}
	for (size_t i = 0; i < l->fds.n; i++)
		close(l->fds.v[i]);
	for (size_t i = 0; i < l->nattrs; i++)
		free(l->ids[i]);
	free(l->ids);
	free(l->nids);
	VEC_FREE(&l->rings);
	VEC_FREE(&l->fds);
	free(l);
}

int live_set_filter(int fd, const char *filter)
{
	if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) == 0)
		return 0;
	int err = errno;
	return err_set(-err, "the kernel refused the filter '%s': %s (the syntax: FIELD OP VALUE, "
			     "OP one of == != < <= > >= & ~, joined by && || and (); the fields "
			     "are those script prints)",
		       filter, strerror(err));
}

const uint64_t *live_ids(const struct live *l, size_t idx, size_t *n)
{
	*n = l->nids[idx];
	return l->ids[idx];
}

static int ioctl_all(struct live *l, unsigned long req)
{
	for (size_t i = 0; i < l->fds.n; i++)
		if (ioctl(l->fds.v[i], req, 0) < 0)
			return -errno;
	return 0;
}

int live_enable(struct live *l)
{
	return ioctl_all(l, PERF_EVENT_IOC_ENABLE);
}

int live_disable(struct live *l)
{
	return ioctl_all(l, PERF_EVENT_IOC_DISABLE);
}

size_t live_pollfds(const struct live *l, int *fds, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < l->rings.n && n < max; i++)
		fds[n++] = l->rings.v[i].fd;
	return n;
}

unsigned live_ncpus(const struct live *l)
{
	return l->ncpus;
}

static int drain_ring(struct ring *r, live_record_fn fn, void *arg, uint64_t *bytes)
{
	struct perf_event_mmap_page *pc = r->base;
	uint8_t *data = (uint8_t *)r->base + sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pc->data_tail;
	size_t mask = r->data_size - 1;
	int ret = 0;
	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail & mask;
		if (off + sizeof(h) <= r->data_size) {
			memcpy(&h, data + off, sizeof(h));
		} else { /* the header itself wraps */
			size_t first = r->data_size - off;
			memcpy(&h, data + off, first);
			memcpy((uint8_t *)&h + first, data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || h.size > head - tail)
			break; /* cannot happen with a sane kernel; stop rather than loop */
		const void *rec;
		if (off + h.size <= r->data_size) {
			rec = data + off;
		} else {
			size_t first = r->data_size - off;
			memcpy(r->bounce, data + off, first);
			memcpy(r->bounce + first, data, h.size - first);
			rec = r->bounce;
		}
		ret = fn(arg, rec, h.size);
		tail += h.size;
		*bytes += h.size;
		if (ret)
			break;
	}
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}

int live_drain(struct live *l, live_record_fn fn, void *arg, uint64_t *bytes)
{
	*bytes = 0;
	for (size_t i = 0; i < l->rings.n; i++) {
		int ret = drain_ring(&l->rings.v[i], fn, arg, bytes);
		if (ret)
			return ret;
	}
	return 0;
}
