/* counting: counting fds per (event, cell), read on demand (source/live, L2). */
#include "source/live/counting.h"
#include "source/live/live.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xalloc.h"

struct counting {
	size_t nev, ncells;
	int *fds;                      /* [ev * ncells + cell], -1 unopened */
	struct counting_value *vals;   /* the same shape */
	bool *group_read;              /* per event: a leader read with PERF_FORMAT_GROUP */
	int *leader;                   /* per event: its leader's index, or -1 */
	int *errs;                     /* per event: the errno of a cell it failed on */
	bool *supported;
	bool *user_only;               /* per event: kernel counting refused, user space counted */
};

static long sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

static bool unsupported_errno(int e)
{
	return e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL || e == ENXIO;
}

static size_t members(const struct evcat_event *evs, size_t nev, size_t lead)
{
	size_t m = 0;
	for (size_t i = 0; i < nev; i++)
		if (evs[i].leader == (int)lead)
			m++;
	return m;
}

/* One fd per cell: raise the soft RLIMIT_NOFILE towards the hard one when
 * they would not fit (as perf does; -a with many events and CPUs). */
static void room_for_fds(size_t want)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= want + 64)
		return;
	rlim_t need = (rlim_t)want + 64;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

int counting_open(struct counting **out, const struct evcat_event *evs, size_t nev,
		  const struct counting_target *t, size_t *failed)
{
	struct counting *c = xcalloc(1, sizeof(*c));
	c->nev = nev;
	c->ncells = t->tids ? t->ntids : t->ncpus;
	size_t cells = nev * c->ncells;
	room_for_fds(cells);
	c->fds = xmalloc((cells ? cells : 1) * sizeof(int));
	for (size_t i = 0; i < cells; i++)
		c->fds[i] = -1;
	c->vals = xcalloc(cells ? cells : 1, sizeof(*c->vals));
	c->group_read = xcalloc(nev ? nev : 1, sizeof(bool));
	c->supported = xcalloc(nev ? nev : 1, sizeof(bool));
	c->user_only = xcalloc(nev ? nev : 1, sizeof(bool));
	c->leader = xcalloc(nev ? nev : 1, sizeof(int));
	c->errs = xcalloc(nev ? nev : 1, sizeof(int));
	for (size_t e = 0; e < nev; e++) {
		c->leader[e] = evs[e].leader;
		bool is_leader = evs[e].leader == (int)e;
		bool is_member = evs[e].leader >= 0 && !is_leader;
		c->group_read[e] = is_leader && members(evs, nev, e) > 1;
		if (evs[e].attr.type == EVCAT_TYPE_TOOL)
			continue; /* measured by the caller */
		for (size_t k = 0; k < c->ncells; k++) {
			struct perf_event_attr a = evs[e].attr;
			a.size = sizeof(a);
			a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
			if (c->group_read[e])
				a.read_format |= PERF_FORMAT_GROUP;
			a.inherit = t->inherit;
			/* a member follows its leader's enabling */
			a.disabled = t->enable_on_exec && !is_member;
			a.enable_on_exec = t->enable_on_exec && !is_member;
			pid_t pid = t->tids ? t->tids[k] : -1;
			int cpu = t->tids ? -1 : t->cpus[k];
			int gfd = -1;
			if (is_member) {
				gfd = c->fds[(size_t)evs[e].leader * c->ncells + k];
				if (gfd < 0) {
					c->errs[e] = c->errs[evs[e].leader];
					continue;
				}
			}
			long fd = sys_perf_event_open(&a, pid, cpu, gfd);
			if (fd < 0 && errno == EINVAL && c->group_read[e]) {
				/* older kernels: no group reads with inherit */
				a.read_format &= ~(uint64_t)PERF_FORMAT_GROUP;
				fd = sys_perf_event_open(&a, pid, cpu, gfd);
				if (fd >= 0)
					c->group_read[e] = false;
			}
			if (fd < 0 && (errno == EACCES || errno == EPERM) && !a.exclude_kernel &&
			    a.type != PERF_TYPE_TRACEPOINT) {
				/* perf's fallback: kernel.perf_event_paranoid >= 2 allows user space only */
				a.exclude_kernel = a.exclude_hv = 1;
				fd = sys_perf_event_open(&a, pid, cpu, gfd);
				if (fd >= 0)
					c->user_only[e] = true;
			}
			if (fd < 0) {
				int err = errno;
				c->errs[e] = err;
				if (err == ESRCH)
					continue; /* the thread is gone */
				if (unsupported_errno(err))
					continue;
				if (failed)
					*failed = e;
				int ret = err_set(-err, "cannot count '%s': %s", evs[e].name,
						  strerror(err));
				counting_close(c);
				return ret;
			}
			if (evs[e].filter && live_set_filter((int)fd, evs[e].filter)) {
				char why[600];
				if (live_filter_unknown_field(evs[e].name, evs[e].filter, why, sizeof(why)))
					err_set(-EINVAL, "the kernel refused the filter '%s': %s",
						evs[e].filter, why);
				close((int)fd);
				if (failed)
					*failed = e;
				counting_close(c);
				return -EINVAL;
			}
			c->fds[e * c->ncells + k] = (int)fd;
			c->supported[e] = true;
		}
	}
	*out = c;
	return 0;
}

void counting_close(struct counting *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nev * c->ncells; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	free(c->fds);
	free(c->vals);
	free(c->group_read);
	free(c->supported);
	free(c->user_only);
	free(c->leader);
	free(c->errs);
	free(c);
}

static int ioctl_all(struct counting *c, unsigned long req)
{
	for (size_t i = 0; i < c->nev * c->ncells; i++)
		if (c->fds[i] >= 0 && ioctl(c->fds[i], req, 0) < 0)
			return -errno;
	return 0;
}

int counting_enable(struct counting *c)
{
	return ioctl_all(c, PERF_EVENT_IOC_ENABLE);
}

int counting_disable(struct counting *c)
{
	return ioctl_all(c, PERF_EVENT_IOC_DISABLE);
}

static int read_full(int fd, void *p, size_t len)
{
	ssize_t n;
	do
		n = read(fd, p, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int counting_read(struct counting *c)
{
	for (size_t e = 0; e < c->nev; e++) {
		bool grouped_member = c->leader[e] >= 0 && c->leader[e] != (int)e &&
				      c->group_read[c->leader[e]];
		if (grouped_member)
			continue; /* read with its leader */
		for (size_t k = 0; k < c->ncells; k++) {
			int fd = c->fds[e * c->ncells + k];
			if (fd < 0)
				continue;
			if (!c->group_read[e]) {
				uint64_t v[3];
				int err = read_full(fd, v, sizeof(v));
				if (err)
					return err_set(err, "reading a counter: %s", strerror(-err));
				c->vals[e * c->ncells + k] =
					(struct counting_value){ .val = v[0], .ena = v[1], .run = v[2] };
				continue;
			}
			/* { nr, ena, run, value[nr] }: the leader, then its members in order */
			size_t nr = 0;
			for (size_t m = e; m < c->nev; m++)
				if (c->leader[m] == (int)e && c->fds[m * c->ncells + k] >= 0)
					nr++;
			uint64_t *buf = xmalloc((3 + nr) * sizeof(uint64_t));
			int err = read_full(fd, buf, (3 + nr) * sizeof(uint64_t));
			if (err) {
				free(buf);
				return err_set(err, "reading a group: %s", strerror(-err));
			}
			size_t j = 0;
			for (size_t m = e; m < c->nev && j < buf[0] && j < nr; m++)
				if (c->leader[m] == (int)e && c->fds[m * c->ncells + k] >= 0)
					c->vals[m * c->ncells + k] = (struct counting_value){
						.val = buf[3 + j++], .ena = buf[1], .run = buf[2]
					};
			free(buf);
		}
	}
	return 0;
}

const struct counting_value *counting_cell(const struct counting *c, size_t ev, size_t cell)
{
	return &c->vals[ev * c->ncells + cell];
}

size_t counting_ncells(const struct counting *c)
{
	return c->ncells;
}

bool counting_supported(const struct counting *c, size_t ev)
{
	return c->supported[ev];
}

bool counting_user_only(const struct counting *c, size_t ev)
{
	return c->user_only[ev];
}

int counting_errno(const struct counting *c, size_t ev)
{
	return c->errs[ev];
}

double counting_scale(const struct counting_value *v, bool *counted)
{
	*counted = v->run != 0 && v->ena != 0;
	if (!*counted)
		return 0;
	if (v->run < v->ena)
		return (double)v->val * (double)v->ena / (double)v->run;
	return (double)v->val;
}
