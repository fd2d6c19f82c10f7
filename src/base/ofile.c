/*
 * ofile: output files written whole or not at all (base, L0). The stream
 * is a stdio cookie over the descriptor, so the first write error (and its
 * errno) is kept where it happens rather than guessed from errno later.
 * The temporary names in use are listed for the signal handler, the one
 * piece of process state here: a handler has nowhere else to look.
 */
#include "base/ofile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xalloc.h"

struct ofile_stream {
	int fd;
	bool own; /* close fd with the stream (not standard output) */
	int err;  /* first write error, -errno */
};

/* Temporary files a signal must remove (names owned by their ofiles). */
#define OFILE_PENDING_MAX 16
static _Atomic(char *) pending[OFILE_PENDING_MAX];
static atomic_flag handlers_set = ATOMIC_FLAG_INIT;
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void on_signal(int sig)
{
	int e = errno;
	for (size_t i = 0; i < OFILE_PENDING_MAX; i++) {
		char *p = atomic_load(&pending[i]);
		if (p)
			unlink(p);
	}
	signal(sig, SIG_DFL);
	raise(sig); /* delivered when the handler returns: the default action */
	errno = e;
}

static void set_handlers(void)
{
	if (atomic_flag_test_and_set(&handlers_set))
		return;
	for (size_t i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++) {
		struct sigaction cur, sa;
		if (sigaction(cleanup_signals[i], NULL, &cur) != 0 || (cur.sa_flags & SA_SIGINFO) ||
		    cur.sa_handler != SIG_DFL)
			continue; /* ignored, or someone else's: left alone */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESTART;
		sigaction(cleanup_signals[i], &sa, NULL);
	}
}

static int pending_add(char *name)
{
	set_handlers();
	for (int i = 0; i < OFILE_PENDING_MAX; i++) {
		char *none = NULL;
		if (atomic_compare_exchange_strong(&pending[i], &none, name))
			return i;
	}
	return -1; /* more at once than listed: removed on errors, not on signals */
}

static void pending_remove(int slot)
{
	if (slot >= 0)
		atomic_store(&pending[slot], NULL);
}

static ssize_t stream_write(void *cookie, const char *buf, size_t n)
{
	struct ofile_stream *s = cookie;
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(s->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!s->err)
				s->err = w < 0 ? -errno : -EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

static int stream_close(void *cookie)
{
	struct ofile_stream *s = cookie;
	if (s->own && close(s->fd) != 0 && !s->err && errno != EINTR)
		s->err = -errno;
	return s->err ? -1 : 0;
}

/* The stream over 'fd' (owned unless standard output). */
static int start(struct ofile *of, int fd, bool own)
{
	of->s = xcalloc(1, sizeof(*of->s));
	of->s->fd = fd;
	of->s->own = own;
	cookie_io_functions_t io = { .write = stream_write, .close = stream_close };
	of->f = fopencookie(of->s, "w", io);
	if (!of->f) {
		int e = errno ? errno : ENOMEM;
		if (own)
			close(fd);
		free(of->s);
		of->s = NULL;
		return -e;
	}
	setvbuf(of->f, NULL, _IOFBF, 64 << 10);
	return 0;
}

/* A FIFO or character device the path itself names: opened as lstat saw it. */
static int open_through(struct ofile *of, const char *path, const struct stat *seen)
{
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		return err_set(-e, "cannot open '%s': %s", path, strerror(e));
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_dev != seen->st_dev || st.st_ino != seen->st_ino ||
	    (st.st_mode & S_IFMT) != (seen->st_mode & S_IFMT)) {
		close(fd);
		return err_set(-EAGAIN, "cannot open '%s': it changed while being opened", path);
	}
	int err = start(of, fd, true);
	if (err)
		return err_set(err, "cannot open '%s': %s", path, strerror(-err));
	of->path = xstrdup(path);
	return 0;
}

/* A new temporary file beside 'path'. */
static int open_temp(struct ofile *of, const char *path, mode_t mode)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dirlen = slash ? (int)(slash - path) : 1;
	int baselen = strlen(base) > 200 ? 200 : (int)strlen(base); /* room under NAME_MAX */
	int fd = -1;
	for (unsigned n = 0; fd < 0 && n < 1000; n++) {
		free(of->tmp);
		of->tmp = xasprintf("%.*s/.%.*s.kiln-tmp-%d-%u", dirlen, slash ? path : ".",
				    baselen, base, (int)getpid(), n);
		fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int e = errno;
		free(of->tmp);
		of->tmp = NULL;
		return err_set(-e, "cannot create '%s': %s", path, strerror(e));
	}
	of->slot = pending_add(of->tmp);
	int err = start(of, fd, true);
	if (err) {
		unlink(of->tmp);
		pending_remove(of->slot);
		free(of->tmp);
		of->tmp = NULL;
		of->slot = -1;
		return err_set(err, "cannot create '%s': %s", path, strerror(-err));
	}
	of->path = xstrdup(path);
	return 0;
}

/*
 * The descriptor a path names as the process's own (/dev/stdout,
 * /dev/stderr, /dev/fd/N, /proc/self/fd/N), or -1. Such a path is the
 * descriptor, written as it is (a shell's '>>' keeps appending), never a
 * link to replace.
 */
static int own_descriptor(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };
	if (!strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t n = strlen(dirs[i]);
		if (strncmp(path, dirs[i], n))
			continue;
		size_t len = strlen(path + n);
		if (!len || len > 6 || strspn(path + n, "0123456789") != len)
			return -1;
		return atoi(path + n);
	}
	return -1;
}

int ofile_open_mode(struct ofile *of, const char *path, mode_t mode)
{
	memset(of, 0, sizeof(*of));
	of->slot = -1;
	int fd = !strcmp(path, "-") ? STDOUT_FILENO : own_descriptor(path);
	if (fd >= 0) {
		if (fd == STDOUT_FILENO)
			fflush(stdout);
		int err = fcntl(fd, F_GETFL) < 0 ? -errno : start(of, fd, false);
		if (err && fd == STDOUT_FILENO && !strcmp(path, "-"))
			return err_set(err, "cannot write to standard output: %s", strerror(-err));
		if (err)
			return err_set(err, "cannot write '%s': %s", path, strerror(-err));
		if (strcmp(path, "-"))
			of->path = xstrdup(path);
		return 0;
	}
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
			return open_through(of, path, &st);
		if (S_ISDIR(st.st_mode))
			return err_set(-EISDIR, "cannot write '%s': %s", path, strerror(EISDIR));
		if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
			return err_set(-EINVAL,
				       "cannot write '%s': not a regular file, FIFO or character device",
				       path);
	} else if (errno != ENOENT) {
		int e = errno;
		return err_set(-e, "cannot write '%s': %s", path, strerror(e));
	}
	return open_temp(of, path, mode);
}

int ofile_open(struct ofile *of, const char *path)
{
	return ofile_open_mode(of, path, 0666);
}

int ofile_close(struct ofile *of, int err)
{
	if (!of->f)
		return err;
	bool bad = fflush(of->f) != 0 || ferror(of->f);
	int serr = of->s->err;
	if (fclose(of->f) != 0 || bad)
		serr = of->s->err ? of->s->err : -EIO;
	of->f = NULL;
	if (serr)
		err = serr; /* the stream's own cause first: ENOSPC, not the writer's EIO */
	if (of->tmp) {
		if (!err && rename(of->tmp, of->path) != 0)
			err = -errno;
		if (err)
			unlink(of->tmp);
		pending_remove(of->slot);
		free(of->tmp);
		of->tmp = NULL;
	}
	if (err && of->path)
		err_set(err, "cannot write '%s': %s", of->path, strerror(-err));
	else if (err)
		err_set(err, "cannot write to standard output: %s", strerror(-err));
	free(of->path);
	free(of->s);
	of->path = NULL;
	of->s = NULL;
	of->slot = -1;
	return err;
}

int ofile_commit(struct ofile *of)
{
	return ofile_close(of, 0);
}

void ofile_abort(struct ofile *of)
{
	if (of->f) {
		struct err_report saved = *err_last(); /* the caller's error, not the close's */
		ofile_close(of, -ECANCELED);
		err_restore(&saved);
	}
}
