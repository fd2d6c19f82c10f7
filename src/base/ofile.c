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
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xalloc.h"

/*
 * Background writing (ofile_background): the stream's bytes are copied
 * into blocks of OFILE_BLOCK bytes; a full block is queued for one writer
 * thread, which writes the blocks in order. At most OFILE_BLOCKS exist
 * (the caller waits for a written one when it is that far ahead). The
 * writer makes the blocks and faults their pages in while it is idle, and
 * unmaps them at the end, so the caller's copy finds its pages there (a
 * fresh page costs ~3 us to fault) and its core does no munmap. The first
 * block is handed on at OFILE_FIRST bytes, which starts the thread: an
 * output smaller than that is one write at the close, with no thread.
 */
#define OFILE_BLOCK ((size_t)256 << 10)
#define OFILE_FIRST ((size_t)64 << 10)
#define OFILE_BLOCKS 4
#define OFILE_EARLY ((size_t)1 << 20)

struct ofile_bg {
	pthread_mutex_t mu;
	pthread_cond_t work; /* a block queued, or the end */
	pthread_cond_t room; /* a block ready for the caller */
	bool started, end;
	bool done;  /* the writer has written all (under mu) */
	int refs;   /* the caller and the writer: the last frees this */
	int err;    /* the writer's first error, -errno (under mu) */
	char *cur;  /* the block being filled (the caller's) */
	char *first; /* the first block (filled to OFILE_FIRST only) */
	size_t cur_n, cur_cap;
	size_t made; /* blocks mapped (under mu once started) */
	/* blocks ready to fill (a stack) */
	char *spare[OFILE_BLOCKS];
	size_t nspare;
	/* queued blocks, in order (a ring) */
	struct {
		char *p;
		size_t n;
	} q[OFILE_BLOCKS];
	size_t qhead, qn;
};

struct ofile_stream {
	int fd;
	bool own; /* close fd with the stream (not standard output) */
	int err;  /* first write error, -errno */
	struct ofile_bg *bg; /* NULL: written in the caller's thread */
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

/* Write all of buf to fd: the bytes written, and *err = -errno (or
 * -EIO for a write of 0) when fewer. */
static size_t write_all(int fd, const char *buf, size_t n, int *err)
{
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			*err = w < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)w;
	}
	return done;
}

/* A block of OFILE_BLOCK bytes, a mapping of its own (page-aligned, and
 * no malloc arena made for the writer thread). */
static char *block_new(void)
{
	void *p = mmap(NULL, OFILE_BLOCK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		xalloc_die("an output block");
	return p;
}

/* Every page of a block faulted in (a write to each). */
static void block_touch(char *p)
{
	for (size_t i = 0; i < OFILE_BLOCK; i += 4096)
		p[i] = 0;
}

/* The blocks and the queue's state (no thread running). */
static void bg_free(struct ofile_bg *bg)
{
	if (bg->cur)
		munmap(bg->cur, OFILE_BLOCK);
	pthread_mutex_destroy(&bg->mu);
	pthread_cond_destroy(&bg->work);
	pthread_cond_destroy(&bg->room);
	free(bg);
}

static void *writer_main(void *arg)
{
	struct ofile_stream *s = arg;
	struct ofile_bg *bg = s->bg;
	pthread_setname_np(pthread_self(), "kiln-writer"); /* for top and perf */
	pthread_mutex_lock(&bg->mu);
	for (;;) {
		if (!bg->nspare && bg->made < OFILE_BLOCKS && !bg->end) {
			/* One block always ready for the caller, made here. */
			bg->made++;
			pthread_mutex_unlock(&bg->mu);
			char *p = block_new();
			block_touch(p);
			pthread_mutex_lock(&bg->mu);
			bg->spare[bg->nspare++] = p;
			pthread_cond_signal(&bg->room);
			continue;
		}
		if (!bg->qn) {
			if (bg->end)
				break;
			pthread_cond_wait(&bg->work, &bg->mu);
			continue;
		}
		char *p = bg->q[bg->qhead].p;
		size_t n = bg->q[bg->qhead].n;
		bool failed = bg->err != 0;
		pthread_mutex_unlock(&bg->mu);
		int err = 0;
		if (!failed) /* after an error, the rest is dropped */
			write_all(s->fd, p, n, &err);
		if (p == bg->first)
			block_touch(p); /* the rest of its pages, once */
		bg->first = p == bg->first ? NULL : bg->first;
		pthread_mutex_lock(&bg->mu);
		if (err && !bg->err)
			bg->err = err;
		bg->qhead = (bg->qhead + 1) % OFILE_BLOCKS;
		bg->qn--;
		bg->spare[bg->nspare++] = p;
		pthread_cond_signal(&bg->room);
	}
	/* All written: the caller goes on while the blocks are unmapped
	 * here (the descriptor and the stream are the caller's again). */
	char *blocks[OFILE_BLOCKS];
	size_t n = bg->nspare;
	memcpy(blocks, bg->spare, n * sizeof(*blocks));
	bg->nspare = 0;
	bg->done = true;
	pthread_cond_signal(&bg->room);
	bool last = --bg->refs == 0;
	pthread_mutex_unlock(&bg->mu);
	for (size_t i = 0; i < n; i++)
		munmap(blocks[i], OFILE_BLOCK);
	if (last)
		bg_free(bg);
	return NULL;
}

/*
 * The writer thread, with the signals the process handles blocked in it
 * (SIGINT's cleanup runs in the main thread, as without it); SIGPIPE and
 * SIGXFSZ stay as they are, raised by the writer's own write as they
 * would be by the caller's. False when no thread could be made.
 */
static bool writer_start(struct ofile_stream *s)
{
	sigset_t all, old;
	sigfillset(&all);
	sigdelset(&all, SIGPIPE);
	sigdelset(&all, SIGXFSZ);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGABRT);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	s->bg->refs = 2;
	pthread_t th;
	bool ok = pthread_create(&th, NULL, writer_main, s) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ok)
		pthread_detach(th); /* it ends on its own after the last write */
	return ok;
}

/* The stream's own, synchronous write, keeping the first error. */
static ssize_t sync_write(struct ofile_stream *s, const char *buf, size_t n)
{
	int err = 0;
	size_t done = write_all(s->fd, buf, n, &err);
	if (err && !s->err)
		s->err = err;
	return (ssize_t)done; /* short on an error (never negative: fopencookie(3)) */
}

/*
 * The current block handed on: queued for the writer (started on the
 * first), and with 'more', a ready one taken. False once the writer has
 * failed (the stream reports it at close). When no thread can be made,
 * the block is written here and the stream stays synchronous.
 */
static bool hand_block(struct ofile_stream *s, bool more)
{
	struct ofile_bg *bg = s->bg;
	if (!bg->started && !writer_start(s)) {
		bool ok = sync_write(s, bg->cur, bg->cur_n) == (ssize_t)bg->cur_n;
		bg_free(bg);
		s->bg = NULL;
		return ok;
	}
	bg->started = true;
	pthread_mutex_lock(&bg->mu);
	bool ok = !bg->err;
	if (ok) {
		size_t tail = (bg->qhead + bg->qn) % OFILE_BLOCKS;
		bg->q[tail].p = bg->cur;
		bg->q[tail].n = bg->cur_n;
		bg->qn++;
		bg->cur = NULL;
		pthread_cond_signal(&bg->work);
		/* The writer makes one while it can, else frees one as it
		 * writes the queue (never empty here). */
		while (more && !bg->nspare)
			pthread_cond_wait(&bg->room, &bg->mu);
		if (more)
			bg->cur = bg->spare[--bg->nspare];
	}
	pthread_mutex_unlock(&bg->mu);
	bg->cur_n = 0;
	bg->cur_cap = OFILE_BLOCK;
	return ok;
}

/* The first block: the writer's when it runs (waited for), else made here
 * and handed on at OFILE_FIRST bytes, which starts the writer. */
static void first_block(struct ofile_bg *bg)
{
	if (bg->started) {
		pthread_mutex_lock(&bg->mu);
		while (!bg->nspare)
			pthread_cond_wait(&bg->room, &bg->mu);
		bg->cur = bg->spare[--bg->nspare];
		pthread_mutex_unlock(&bg->mu);
		bg->cur_cap = OFILE_BLOCK;
	} else {
		bg->cur = bg->first = block_new();
		bg->cur_cap = OFILE_FIRST;
		bg->made = 1;
	}
}

static ssize_t bg_write(struct ofile_stream *s, const char *buf, size_t n)
{
	struct ofile_bg *bg = s->bg;
	size_t done = 0;
	while (done < n) {
		if (!bg->cur)
			first_block(bg);
		size_t k = n - done < bg->cur_cap - bg->cur_n ? n - done : bg->cur_cap - bg->cur_n;
		memcpy(bg->cur + bg->cur_n, buf + done, k);
		bg->cur_n += k;
		done += k;
		if (bg->cur_n == bg->cur_cap && !hand_block(s, true))
			return 0; /* stdio marks the stream in error; close says why */
		if (!s->bg && done < n) /* no thread could be made: the rest as without */
			return (ssize_t)done + sync_write(s, buf + done, n - done);
	}
	return (ssize_t)n;
}

static ssize_t stream_write(void *cookie, const char *buf, size_t n)
{
	struct ofile_stream *s = cookie;
	return s->bg ? bg_write(s, buf, n) : sync_write(s, buf, n);
}

/* The last block written and the writer's first error kept; the writer
 * then unmaps the blocks and ends on its own. */
static void bg_finish(struct ofile_stream *s)
{
	struct ofile_bg *bg = s->bg;
	if (!bg->started) {
		if (bg->cur_n)
			sync_write(s, bg->cur, bg->cur_n);
	} else {
		if (bg->cur_n)
			hand_block(s, false);
		pthread_mutex_lock(&bg->mu);
		if (bg->cur) /* empty (or not queued after an error): the writer unmaps it */
			bg->spare[bg->nspare++] = bg->cur;
		bg->cur = NULL;
		bg->end = true;
		pthread_cond_signal(&bg->work);
		while (!bg->done)
			pthread_cond_wait(&bg->room, &bg->mu);
		if (bg->err && !s->err)
			s->err = bg->err;
		bool last = --bg->refs == 0;
		pthread_mutex_unlock(&bg->mu);
		if (!last)
			bg = NULL; /* the writer frees it */
	}
	if (bg)
		bg_free(bg);
	s->bg = NULL;
}

static int stream_close(void *cookie)
{
	struct ofile_stream *s = cookie;
	if (s->bg)
		bg_finish(s);
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

/*
 * Whether a CPU is free now: fewer tasks running (this one among them,
 * /proc/loadavg's fourth field) than CPUs online. A writer thread that
 * must share this thread's CPU only adds its cost (measured: the SVG of
 * a 4.7 MB folded file 24 ms -> 31 ms with the other CPU busy).
 */
static bool cpu_free(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 2)
		return false;
	char buf[128];
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return true; /* not known: by the CPUs alone */
	buf[n] = '\0';
	long running = 0;
	const char *p = buf;
	for (int field = 0; field < 3 && p; field++) {
		p = strchr(p, ' ');
		p = p ? p + 1 : NULL;
	}
	if (!p || sscanf(p, "%ld/", &running) != 1)
		return true;
	return running < cpus;
}

bool ofile_background(struct ofile *of, int threads, size_t expect)
{
	struct stat st;
	if (!of->f || of->s->bg || threads == 1 || (threads != 2 && !cpu_free()) ||
	    fstat(of->s->fd, &st) != 0 ||
	    !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return false;
	if (fflush(of->f) != 0) /* what stdio holds goes first, in this thread */
		return false;
	struct ofile_bg *bg = xcalloc(1, sizeof(*bg));
	pthread_mutex_init(&bg->mu, NULL);
	pthread_cond_init(&bg->work, NULL);
	pthread_cond_init(&bg->room, NULL);
	of->s->bg = bg;
	/* A large output: the writer starts now, and its first blocks are
	 * ready when the caller's first bytes come. */
	if (expect >= OFILE_EARLY && writer_start(of->s))
		bg->started = true;
	return true;
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
