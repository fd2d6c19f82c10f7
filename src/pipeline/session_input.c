/*
 * session_input: what an input is, from its first bytes (pipeline, L8).
 *
 * The first bytes are peeked with pread() where the input can seek. A
 * pipe cannot give bytes back, so when a perf.data arrives on a piped
 * standard input, a child process replays the bytes already read and then
 * copies the rest, and the perf.data reader streams from that pipe as it
 * would from the original. Text is mapped (a named regular file, guarded:
 * it may shrink) or read into memory, at most TEXT_INPUT_MAX bytes.
 * Named inputs are opened without blocking: a FIFO without a writer
 * reads as empty, a device or directory is refused before any read.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aggregate/scripttext.h"
#include "base/err.h"
#include "base/mapguard.h"
#include "base/xalloc.h"
#include "pipeline/session_int.h"

#define PERF_MAGIC_LEN 8
#define TEXT_INPUT_MAX ((size_t)4 << 30) /* text read into memory */

/*
 * "PERFILE2" starts a perf.data; its byte-swapped form and version 1's
 * "PERFFILE" go to the perf.data reader too, which says why it cannot
 * read them. Anything else is text.
 */
static bool is_perf_magic(const char *b)
{
	return !memcmp(b, "PERFILE2", PERF_MAGIC_LEN) || !memcmp(b, "2ELIFREP", PERF_MAGIC_LEN) ||
	       !memcmp(b, "PERFFILE", PERF_MAGIC_LEN);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static _Noreturn void relay_child(int out, const char *prefix, size_t n)
{
	char chunk[16384];
	if (write_all(out, prefix, n))
		_exit(1);
	for (;;) {
		ssize_t k = read(0, chunk, sizeof(chunk));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			_exit(k < 0);
		if (write_all(out, chunk, (size_t)k))
			_exit(1);
	}
}

/* Make standard input read 'prefix' and then the rest of the original. */
static int relay_stdin(const char *prefix, size_t n, pid_t *child)
{
	int p[2];
	if (pipe(p) < 0)
		return err_set(-errno, "cannot create a pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return err_set(-e, "cannot fork: %s", strerror(e));
	}
	if (pid == 0) {
		close(p[0]);
		relay_child(p[1], prefix, n);
	}
	close(p[1]);
	if (dup2(p[0], 0) < 0) {
		int e = errno;
		close(p[0]);
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		return err_set(-e, "cannot redirect standard input: %s", strerror(e));
	}
	close(p[0]);
	*child = pid;
	return 0;
}

static void relay_finish(pid_t child)
{
	/* The reader may have stopped early: detach it, then stop the copier. */
	int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (nul >= 0) {
		dup2(nul, 0);
		close(nul);
	}
	kill(child, SIGTERM);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Read fd to its end into in->data, which holds in->len bytes already. */
static int read_rest(int fd, struct session_input *in, size_t cap, const char *name)
{
	for (;;) {
		if (in->len == cap) {
			if (cap >= TEXT_INPUT_MAX) {
				char probe;
				ssize_t k;
				while ((k = read(fd, &probe, 1)) < 0 && errno == EINTR)
					;
				if (k <= 0)
					return 0;
				return err_set(-EFBIG, "text input larger than %zu GiB",
					       TEXT_INPUT_MAX >> 30);
			}
			cap = cap > TEXT_INPUT_MAX / 2 ? TEXT_INPUT_MAX : cap * 2;
			in->data = xrealloc(in->data, cap);
		}
		ssize_t k = read(fd, in->data + in->len, cap - in->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return err_set(-errno, "cannot read '%s': %s", name, strerror(errno));
		if (k == 0)
			return 0;
		in->len += (size_t)k;
	}
}

/* Text never starts with NUL bytes: stop at once (stdin from /dev/zero)
 * instead of reading up to TEXT_INPUT_MAX. */
static int not_text(void)
{
	return err_set(-EINVAL,
		       "not a perf.data file, nor perf script output (NUL bytes in its first 8)");
}

/* A regular file: peek at the magic, then map (named) or read (stdin) the text. */
static int open_regular(int fd, bool is_stdin, const struct stat *st, const char *name,
			struct session_input *in)
{
	size_t cap = 1 << 20;
	off_t off = is_stdin ? lseek(0, 0, SEEK_CUR) : 0;
	char magic[PERF_MAGIC_LEN];
	ssize_t k = off < 0 ? -1 : pread(fd, magic, sizeof(magic), off);
	if (k == (ssize_t)sizeof(magic) && is_perf_magic(magic)) {
		in->perfdata = true;
		return 0;
	}
	if (k > 0 && memchr(magic, 0, (size_t)k))
		return not_text();
	if (off >= 0 && st->st_size > off) {
		if ((uint64_t)(st->st_size - off) > TEXT_INPUT_MAX)
			return err_set(-EFBIG, "text input larger than %zu GiB", TEXT_INPUT_MAX >> 30);
		cap = (size_t)(st->st_size - off) + 1;
	}
	/* A named regular file is mapped, not copied (guarded: it may shrink). */
	void *map = !is_stdin && st->st_size > 0
			    ? mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0)
			    : MAP_FAILED;
	if (map != MAP_FAILED) {
		in->data = map;
		in->len = in->map_len = (size_t)st->st_size;
		in->guard = mapguard_add(map, in->map_len);
		return 0;
	}
	in->data = xmalloc(cap);
	return read_rest(fd, in, cap, name);
}

/* Read fd into in->data (room for 'want' bytes) until it holds 'want' or fd ends. */
static int read_upto(int fd, struct session_input *in, size_t want, const char *name)
{
	while (in->len < want) {
		ssize_t k = read(fd, in->data + in->len, want - in->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return err_set(-errno, "cannot read '%s': %s", name, strerror(errno));
		if (k == 0)
			break;
		in->len += (size_t)k;
	}
	return 0;
}

/*
 * The first bytes of a text on a pipe decide whether to read the rest
 * (up to TEXT_INPUT_MAX): what cannot start perf script text (nor, if
 * 'folded_ok', folded stacks) is refused after SCRIPTTEXT_SNIFF_BYTES.
 */
static int sniff_text(int fd, struct session_input *in, size_t *cap, const char *name,
		      bool folded_ok)
{
	if (*cap < SCRIPTTEXT_SNIFF_BYTES) {
		*cap = SCRIPTTEXT_SNIFF_BYTES;
		in->data = xrealloc(in->data, *cap);
	}
	int err = read_upto(fd, in, SCRIPTTEXT_SNIFF_BYTES, name);
	if (err || in->len < SCRIPTTEXT_SNIFF_BYTES)
		return err; /* all of it read: the parser says what it is */
	if (scripttext_sniff(in->data, in->len, folded_ok) < 0)
		return err_set(-EINVAL,
			       "not a perf.data file, nor perf script output%s (judged by its "
			       "first %u lines or %zu KiB)",
			       folded_ok ? ", nor folded stacks" : "", SCRIPTTEXT_SNIFF_LINES,
			       SCRIPTTEXT_SNIFF_BYTES >> 10);
	return 0;
}

/* A pipe or FIFO: what is read is gone, so read the magic for real. */
static int open_stream(int fd, bool is_stdin, const char *name, const char *hint,
		       bool folded_ok, struct session_input *in)
{
	size_t cap = 1 << 20;
	in->data = xmalloc(cap);
	int err = read_upto(fd, in, PERF_MAGIC_LEN, name);
	if (err)
		return err;
	if (in->len == PERF_MAGIC_LEN && is_perf_magic(in->data)) {
		if (!is_stdin)
			return err_set(-EINVAL, "a perf.data but not a regular file; pipe it into %s",
				       hint ? hint : "standard input ('-')");
		err = relay_stdin(in->data, in->len, &in->relay);
		if (!err)
			in->perfdata = true;
		return err;
	}
	if (memchr(in->data, 0, in->len))
		return not_text();
	err = sniff_text(fd, in, &cap, name, folded_ok);
	if (err)
		return err;
	return read_rest(fd, in, cap, name);
}

int session_input_open(const char *path, const char *hint, bool perfdata_only, bool folded_ok,
		       struct session_input *in)
{
	memset(in, 0, sizeof(*in));
	in->guard = -1;
	if (perfdata_only) {
		in->perfdata = true;
		return 0;
	}
	bool is_stdin = !strcmp(path, "-");
	const char *name = is_stdin ? "<stdin>" : path;
	int fd = 0;
	if (!is_stdin) {
		/* Not blocking on a FIFO without a writer (it then reads as empty). */
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			return err_set(-errno, "cannot open '%s': %s", path, strerror(errno));
	}
	int err = 0;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		err = err_set(-errno, "cannot stat '%s': %s", name, strerror(errno));
	} else if (!is_stdin && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
		/* /dev/zero or /dev/urandom would be read as text without end. */
		err = err_set(-EINVAL, "a device, not a perf.data or text");
	} else if (!is_stdin && S_ISDIR(st.st_mode)) {
		err = err_set(-EISDIR, "a directory, not a perf.data or text");
	} else if (!is_stdin && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		err = err_set(-EINVAL, "not a regular file");
	} else {
		if (!is_stdin)
			(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		err = S_ISREG(st.st_mode) ? open_regular(fd, is_stdin, &st, name, in)
					  : open_stream(fd, is_stdin, name, hint, folded_ok, in);
	}
	if (!is_stdin)
		close(fd);
	if (err || in->perfdata) {
		pid_t relay = in->relay;
		in->relay = 0;
		session_input_close(in);
		in->relay = err ? 0 : relay;
		in->perfdata = !err && in->perfdata;
	}
	return err;
}

bool session_input_faulted(const struct session_input *in, uint64_t *offset)
{
	return in->map_len && mapguard_faulted(in->guard, offset);
}

void session_input_close(struct session_input *in)
{
	if (in->map_len) {
		mapguard_remove(in->guard);
		munmap(in->data, in->map_len);
	} else {
		free(in->data);
	}
	if (in->relay)
		relay_finish(in->relay);
	in->data = NULL;
	in->relay = 0;
	in->len = in->map_len = 0;
	in->guard = -1;
}
