/* ifile: defensive opening of input files (base, L0). */
#include "base/ifile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"

int ifile_open(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return err_set(-errno, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, st) < 0) {
		int e = errno;
		close(fd);
		return err_set(-e, "cannot stat '%s': %s", path, strerror(e));
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return err_set(-EINVAL, "'%s' is not a regular file", path);
	}
	return fd;
}
