/*
 * nsroot: opening a containerised process's binaries through
 * /proc/PID/root without leaving that root (dso, L2).
 */
#include "dso/nsroot.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/err.h"

/* The identity of a /proc/<who>/<what> link target: its device and inode. */
static bool link_id(const char *who, const char *what, struct stat *st)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%s/%s", who, what);
	return stat(p, st) == 0;
}

bool nsroot_foreign(uint32_t pid)
{
	char who[16];
	struct stat a, b;
	snprintf(who, sizeof(who), "%u", pid);
	if (!link_id(who, "ns/mnt", &a) || !link_id("self", "ns/mnt", &b))
		return false; /* gone, or not ours to look at */
	if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return true;
	if (!link_id(who, "root", &a) || !link_id("self", "root", &b))
		return false;
	return a.st_dev != b.st_dev || a.st_ino != b.st_ino;
}

int nsroot_open_nofollow(const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd < 0) {
		int e = errno;
		return err_set(-e, "cannot open '%s'%s: %s", path,
			       e == ELOOP ? " without following symlinks" : "", strerror(e));
	}
	return fd;
}

int nsroot_open(uint32_t pid, const char *path)
{
	char root[64];
	snprintf(root, sizeof(root), "/proc/%u/root", pid);
	int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return err_set(-errno, "cannot open '%s': %s", root, strerror(errno));
	struct open_how how = {
		.flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, rfd, path, &how, sizeof(how));
	int e = errno;
	close(rfd);
	if (fd < 0)
		return err_set(-e, "cannot open '%s' in %s: %s", path, root, strerror(e));
	return fd;
}
