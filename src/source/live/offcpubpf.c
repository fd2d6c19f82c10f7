/*
 * offcpubpf: the off-CPU BPF program's loader and reader (source/live,
 * L2). See offcpubpf.h; the program is bpf/offcpu.bpf.c.
 */
#include "source/live/offcpubpf.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

#include "base/err.h"
#include "source/live/schedsw.h"

size_t offcpubpf_chain(uint64_t *out, size_t max, const uint64_t *k, size_t nk,
		       const uint64_t *u, size_t nu, uint64_t sched_lo, uint64_t sched_hi)
{
	size_t n = 0, kn = 0, un = 0;
	while (kn < nk && k[kn])
		kn++;
	while (un < nu && u[un])
		un++;
	size_t from = schedsw_sched_from(k, kn, sched_lo, sched_hi);
	if (from < kn && n + 1 < max) {
		out[n++] = PERF_CONTEXT_KERNEL;
		for (size_t i = from; i < kn && n < max; i++)
			out[n++] = k[i];
	}
	if (un && n + 1 < max) { /* a marker only with a frame after it */
		out[n++] = PERF_CONTEXT_USER;
		for (size_t i = 0; i < un && n < max; i++)
			out[n++] = u[i];
	}
	return n;
}

#ifndef KILN_HAVE_BPF

bool offcpubpf_built(void)
{
	return false;
}

int offcpubpf_open(struct offcpubpf **out, const struct offcpubpf_opts *o)
{
	(void)out, (void)o;
	return err_set(-ENOTSUP, "this kiln was built without BPF (building it needs clang, "
				 "bpftool, libbpf-dev and the build machine's BTF)");
}

int offcpubpf_follow(struct offcpubpf *b, int pid, bool hold)
{
	(void)b, (void)pid, (void)hold;
	return -ENOTSUP;
}

void offcpubpf_set_sched(struct offcpubpf *b, uint64_t lo, uint64_t hi)
{
	(void)b, (void)lo, (void)hi;
}

int offcpubpf_attach(struct offcpubpf *b)
{
	(void)b;
	return -ENOTSUP;
}

void offcpubpf_detach(struct offcpubpf *b)
{
	(void)b;
}

int offcpubpf_read(struct offcpubpf *b, offcpubpf_fn fn, void *arg, struct offcpubpf_stats *st)
{
	(void)b, (void)fn, (void)arg, (void)st;
	return -ENOTSUP;
}

void offcpubpf_close(struct offcpubpf *b)
{
	(void)b;
}

#else

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/xalloc.h"
#include "kiln_offcpu.skel.h"
#include "source/live/bpf/offcpu_bpf.h"

_Static_assert(OB_MAX_FOLLOW == OFFCPUBPF_MAX_FOLLOW, "the follow map's size");
_Static_assert(OB_STACKS == OFFCPUBPF_MAX_STACKS, "the stack map's size");

bool offcpubpf_built(void)
{
	return true;
}

struct offcpubpf {
	struct kiln_offcpu *skel;
	uint64_t thresh_ns;
	uint64_t sched_lo, sched_hi; /* __schedule's text (offcpubpf_set_sched) */
};

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

/* Why loading failed, naming what the method needs. */
static int fail(struct offcpubpf *b, int err, const char *what)
{
	if (b->skel)
		kiln_offcpu__destroy(b->skel);
	free(b);
	if (err == -EPERM || (err == -EACCES && geteuid() != 0))
		return err_set(err, "BPF is not allowed here (%s: %s; it needs root, or CAP_BPF "
				    "and CAP_PERFMON)", what, strerror(-err));
	if (err == -ENOENT || err == -ESRCH || err == -EINVAL)
		return err_set(err, "BPF is not usable here (%s: %s; it needs the kernel's BTF, "
				    "/sys/kernel/btf/vmlinux, and BPF trampolines: Linux 5.11 or later)",
			       what, strerror(-err));
	return err_set(err, "BPF is not usable here (%s: %s)", what, strerror(-err));
}

int offcpubpf_open(struct offcpubpf **out, const struct offcpubpf_opts *o)
{
	struct offcpubpf *b = xcalloc(1, sizeof(*b));
	b->thresh_ns = o->thresh_ns;
	libbpf_set_print(silent);
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return fail(b, -ENOENT, "/sys/kernel/btf/vmlinux");
	b->skel = kiln_offcpu__open();
	if (!b->skel)
		return fail(b, -errno, "opening the BPF object");
	b->skel->rodata->follow_all = o->system_wide;
	b->skel->rodata->self_tgid = (uint32_t)getpid();
	b->skel->rodata->thresh_ns = o->thresh_ns;
	b->skel->rodata->user_only = o->user_only;
	/* dump_open runs at the end, through a link of its own. */
	bpf_program__set_autoattach(b->skel->progs.dump_open, false);
	int err = kiln_offcpu__load(b->skel);
	if (err)
		return fail(b, err, "loading the off-CPU BPF program");
	*out = b;
	return 0;
}

int offcpubpf_follow(struct offcpubpf *b, int pid, bool hold)
{
	uint32_t k = (uint32_t)pid;
	uint8_t v = hold ? OB_HOLD : OB_FOLLOW;
	int err = bpf_map__update_elem(b->skel->maps.follow, &k, sizeof(k), &v, sizeof(v), 0);
	if (err)
		return err_set(err, "cannot follow process %d in the BPF map: %s", pid,
			       strerror(-err));
	return 0;
}

void offcpubpf_set_sched(struct offcpubpf *b, uint64_t lo, uint64_t hi)
{
	b->sched_lo = lo;
	b->sched_hi = hi;
}

int offcpubpf_attach(struct offcpubpf *b)
{
	int err = kiln_offcpu__attach(b->skel);
	if (err)
		return err_set(err, "cannot attach the off-CPU BPF program to sched_switch: %s",
			       strerror(-err));
	return 0;
}

void offcpubpf_detach(struct offcpubpf *b)
{
	if (b)
		kiln_offcpu__detach(b->skel);
}

static void read_counts(struct offcpubpf *b, uint64_t *c)
{
	int ncpu = libbpf_num_possible_cpus();
	memset(c, 0, OB_NCOUNTS * sizeof(*c));
	if (ncpu <= 0)
		return;
	uint64_t *v = xcalloc((size_t)ncpu, sizeof(*v));
	for (uint32_t k = 0; k < OB_NCOUNTS; k++) {
		if (bpf_map__lookup_elem(b->skel->maps.counts, &k, sizeof(k), v,
					 (size_t)ncpu * sizeof(*v), 0))
			continue;
		for (int i = 0; i < ncpu; i++)
			c[k] += v[i];
	}
	free(v);
}

/* A stack by key into buf (OB_DEPTH frames, zero-padded); its length or 0. */
static size_t stack_of(struct offcpubpf *b, uint64_t key, uint64_t *buf)
{
	if (!key)
		return 0;
	if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.stacks), &key, buf))
		return 0;
	return OB_DEPTH;
}

static int emit(struct offcpubpf *b, const struct ob_key *key, uint64_t ns, offcpubpf_fn fn,
		void *arg)
{
	uint64_t ks[OB_DEPTH], us[OB_DEPTH], chain[2 * OB_DEPTH + 2];
	size_t nk = stack_of(b, key->kstack, ks), nu = stack_of(b, key->ustack, us);
	size_t n = offcpubpf_chain(chain, sizeof(chain) / sizeof(chain[0]), ks, nk, us, nu,
				   b->sched_lo, b->sched_hi);
	return fn(arg, key->tgid, key->tid, (char)key->state, chain, n, ns);
}

/* The threads off the CPU now (dump_open's records): their intervals end
 * here. */
static int read_open(struct offcpubpf *b, uint64_t now, offcpubpf_fn fn, void *arg,
		     struct offcpubpf_stats *st)
{
	struct bpf_link *link = bpf_program__attach_iter(b->skel->progs.dump_open, NULL);
	if (!link)
		return err_set(-errno, "cannot read the threads still off the CPU (BPF task "
				       "iterator): %s", strerror(errno));
	int fd = bpf_iter_create(bpf_link__fd(link)), err = 0;
	if (fd < 0) {
		err = err_set(fd, "cannot read the threads still off the CPU (BPF task iterator): %s",
			      strerror(-fd));
		bpf_link__destroy(link);
		return err;
	}
	struct ob_open rec[64];
	size_t have = 0; /* bytes in rec */
	for (;;) {
		ssize_t r = read(fd, (char *)rec + have, sizeof(rec) - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = err_set(-errno, "cannot read the threads still off the CPU: %s",
				      strerror(errno));
			break;
		}
		have += (size_t)r;
		size_t n = have / sizeof(rec[0]);
		for (size_t i = 0; i < n && !err; i++) {
			const struct ob_start *s = &rec[i].s;
			st->intervals++;
			st->at_end++;
			uint64_t dt = now > s->time ? now - s->time : 0;
			if (!dt || dt < b->thresh_ns) {
				st->below_thresh++;
				continue;
			}
			struct ob_key k = { .tgid = s->tgid, .tid = rec[i].tid, .kstack = s->kstack,
					    .ustack = s->ustack, .state = s->state, .pad = 0 };
			err = emit(b, &k, dt, fn, arg);
		}
		have -= n * sizeof(rec[0]);
		memmove(rec, (char *)rec + n * sizeof(rec[0]), have);
		if (r == 0 || err)
			break;
	}
	close(fd);
	bpf_link__destroy(link);
	return err;
}

int offcpubpf_read(struct offcpubpf *b, offcpubpf_fn fn, void *arg, struct offcpubpf_stats *st)
{
	uint64_t c[OB_NCOUNTS];
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* bpf_ktime_get_ns's clock */
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	read_counts(b, c);
	memset(st, 0, sizeof(*st));
	st->switches = c[OB_SWITCHES];
	st->intervals = c[OB_INTERVALS];
	st->below_thresh = c[OB_BELOW];
	st->over_cap = c[OB_OVER_CAP];
	st->over_cap_ns = c[OB_OVER_CAP_NS];
	st->threads_over = c[OB_THREADS_OVER];
	st->stacks_lost = c[OB_KSTACK_LOST] + c[OB_USTACK_LOST];
	st->stacks_unread = c[OB_STACK_UNREAD];
	st->follow_over = c[OB_FOLLOW_OVER];
	int sfd = bpf_map__fd(b->skel->maps.sums);
	struct ob_key key, nkey, *prev = NULL;
	int err = 0;
	while (!err && bpf_map_get_next_key(sfd, prev, &nkey) == 0) {
		uint64_t ns;
		key = nkey;
		prev = &key;
		if (bpf_map_lookup_elem(sfd, &key, &ns) == 0 && ns)
			err = emit(b, &key, ns, fn, arg);
	}
	if (!err)
		err = read_open(b, now, fn, arg, st);
	return err;
}

void offcpubpf_close(struct offcpubpf *b)
{
	if (!b)
		return;
	kiln_offcpu__destroy(b->skel);
	free(b);
}

#endif
