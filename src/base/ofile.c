/* ofile: atomic output files (base, L0). */
#include "base/ofile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xalloc.h"

int ofile_open(struct ofile *of, const char *path)
{
	memset(of, 0, sizeof(*of));
	if (!strcmp(path, "-")) {
		of->f = stdout;
		return 0;
	}
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0 || !(of->f = fdopen(fd, "w"))) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			return err_set(-e, "cannot open '%s': %s", path, strerror(e));
		}
		of->path = xstrdup(path);
		return 0;
	}
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 1;
	of->tmp = xasprintf("%.*s/.%s.kiln-tmp-%d", dirlen, slash ? path : ".",
			    slash ? slash + 1 : path, (int)getpid());
	int fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0) {
		int e = errno;
		err_set(-e, "cannot create '%s': %s", path, strerror(e));
		free(of->tmp);
		of->tmp = NULL;
		return -e;
	}
	of->f = fdopen(fd, "w");
	if (!of->f) {
		int e = errno;
		close(fd);
		unlink(of->tmp);
		free(of->tmp);
		of->tmp = NULL;
		return -e;
	}
	of->path = xstrdup(path);
	return 0;
}

int ofile_commit(struct ofile *of)
{
	if (!of->tmp && of->path) { /* written in place */
		int err = 0;
		if (fflush(of->f) || ferror(of->f))
			err = -(errno ? errno : EIO);
		if (fclose(of->f) && !err)
			err = -(errno ? errno : EIO);
		if (err)
			err_set(err, "cannot write '%s': %s", of->path, strerror(-err));
		free(of->path);
		of->path = NULL;
		of->f = NULL;
		return err;
	}
	if (!of->tmp) {
		if (fflush(of->f) || ferror(of->f))
			return err_set(-EIO, "cannot write to standard output: %s", strerror(errno));
		return 0;
	}
	int err = 0;
	if (fflush(of->f) || ferror(of->f))
		err = -(errno ? errno : EIO);
	if (fclose(of->f) && !err)
		err = -(errno ? errno : EIO);
	of->f = NULL;
	if (!err && rename(of->tmp, of->path) < 0)
		err = -errno;
	if (err) {
		err_set(err, "cannot write '%s': %s", of->path, strerror(-err));
		unlink(of->tmp);
	}
	free(of->tmp);
	free(of->path);
	of->tmp = of->path = NULL;
	return err;
}

void ofile_abort(struct ofile *of)
{
	if (!of->tmp && of->path) { /* written in place: nothing to remove */
		fclose(of->f);
		free(of->path);
		of->path = NULL;
		of->f = NULL;
		return;
	}
	if (!of->tmp)
		return;
	if (of->f)
		fclose(of->f);
	unlink(of->tmp);
	free(of->tmp);
	free(of->path);
	of->tmp = of->path = NULL;
	of->f = NULL;
}
