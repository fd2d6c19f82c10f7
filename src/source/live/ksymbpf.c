/*
 * ksymbpf: the kernel-symbol iterator's loader (source/live, L2). See
 * ksymbpf.h; the program is bpf/ksym.bpf.c.
 */
#include "source/live/ksymbpf.h"

#include <errno.h>
#include <string.h>

#include "base/err.h"

#ifndef KILN_HAVE_BPF

bool ksymbpf_built(void)
{
	return false;
}

int ksymbpf_open(struct ksymbpf **out)
{
	*out = NULL;
	return err_set(-ENOTSUP, "this kiln was built without BPF");
}

int ksymbpf_fd(const struct ksymbpf *b)
{
	(void)b;
	return -1;
}

void ksymbpf_close(struct ksymbpf *b)
{
	(void)b;
}

#else

#include <stdlib.h>
#include <unistd.h>

#include <linux/types.h>
#include <bpf/bpf.h>

#include "base/xalloc.h"
/* The generated light skeleton computes a size from two void pointers. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpointer-arith"
#include "kiln_ksym.skel.h"
#pragma GCC diagnostic pop

struct ksymbpf {
	struct kiln_ksym *skel;
	int fd; /* the iterator */
};

bool ksymbpf_built(void)
{
	return true;
}

int ksymbpf_open(struct ksymbpf **out)
{
	struct ksymbpf *b = xcalloc(1, sizeof(*b));
	const char *what = "loading the symbol iterator";
	int err = 0;

	*out = NULL;
	b->fd = -1;
	b->skel = kiln_ksym__open();
	if (!b->skel) {
		err = -ENOMEM;
	} else if ((err = kiln_ksym__load(b->skel)) != 0) {
		if (err == -1) /* a system call's result, its errno set */
			err = errno ? -errno : -EINVAL;
	} else if (kiln_ksym__attach(b->skel)) {
		what = "attaching the symbol iterator";
		err = errno ? -errno : -EINVAL;
	} else if ((b->fd = bpf_iter_create(b->skel->links.kiln_ksym_fd)) < 0) {
		what = "opening the symbol iterator";
		err = b->fd;
	}
	if (err) {
		ksymbpf_close(b);
		return err_set(err, "BPF kernel symbols are not available (%s: %s)", what,
			       strerror(-err));
	}
	*out = b;
	return 0;
}

int ksymbpf_fd(const struct ksymbpf *b)
{
	return b->fd;
}

void ksymbpf_close(struct ksymbpf *b)
{
	if (!b)
		return;
	if (b->fd >= 0)
		close(b->fd);
	if (b->skel)
		kiln_ksym__destroy(b->skel);
	free(b);
}

#endif
