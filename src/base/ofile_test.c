/*
 * ofile unit tests (base, L0): a symbolic link planted at the output path
 * is replaced, never followed (to a file or to a device); a character
 * device the path names is written in place; a write error (/dev/full)
 * is reported as itself with the file's name; /dev/fd/N and
 * /proc/self/fd/N are the descriptor itself, appended to, never replaced; a failed write keeps the
 * old file whole and leaves no temporary file; a directory is refused;
 * a read-only directory fails cleanly; SIGTERM during a write removes the
 * temporary file. In the background mode (ofile_background): many
 * writes, small and large, arrive in order; nothing takes the name before
 * the commit, with the writer started lazily or at once (a large output
 * announced); an output under one block and empty ones are written;
 * the writer thread's errors (EFBIG past RLIMIT_FSIZE, EPIPE) are the
 * close's, with the file's name; SIGPIPE still ends the process; SIGTERM
 * still removes the temporary file; threads=1, a device and a second
 * call leave the stream synchronous.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/ofile.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/kiln-ofile-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "chmod -R u+w '%s'; rm -rf '%s'", dir, dir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *at(const char *name)
{
	static char p[4][160];
	static int i;
	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void assert_content(const char *path, const char *want)
{
	char buf[256] = { 0 };
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

/* No ".kiln-tmp-" file in the directory. */
static void assert_no_temp(const char *d)
{
	DIR *dh = opendir(d);
	assert_non_null(dh);
	struct dirent *de;
	while ((de = readdir(dh)))
		assert_null(strstr(de->d_name, ".kiln-tmp-"));
	closedir(dh);
}

static int write_text(struct ofile *of, const char *text)
{
	return fputs(text, of->f) < 0 ? -EIO : 0;
}

static void test_symlink_replaced(void **state)
{
	(void)state;
	struct ofile of;
	struct stat st;
	/* A link to a file: the link becomes the new file, its target is untouched. */
	put(at("victim"), "precious\n");
	assert_int_equal(symlink(at("victim"), at("out.svg")), 0);
	assert_int_equal(ofile_open(&of, at("out.svg")), 0);
	assert_int_equal(ofile_close(&of, write_text(&of, "new\n")), 0);
	assert_int_equal(lstat(at("out.svg"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_content(at("out.svg"), "new\n");
	assert_content(at("victim"), "precious\n");
	/* A link to a device: replaced, the device never opened. */
	if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) {
		assert_int_equal(symlink("/dev/full", at("dev.svg")), 0);
		assert_int_equal(ofile_open(&of, at("dev.svg")), 0);
		assert_int_equal(ofile_close(&of, write_text(&of, "svg\n")), 0);
		assert_int_equal(lstat(at("dev.svg"), &st), 0);
		assert_true(S_ISREG(st.st_mode));
		assert_content(at("dev.svg"), "svg\n");
	}
	assert_no_temp(dir);
}

/* A device the path names is written in place, never replaced by a rename. */
static void test_device(void **state)
{
	struct stat st;
	struct ofile of;
	(void)state;
	if (stat("/dev/null", &st) || !S_ISCHR(st.st_mode))
		skip();
	assert_int_equal(ofile_open(&of, "/dev/null"), 0);
	assert_true(fputs("discarded\n", of.f) >= 0);
	assert_int_equal(ofile_commit(&of), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(ofile_open(&of, "/dev/null"), 0);
	ofile_abort(&of);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
}

/*
 * /dev/fd/N and /proc/self/fd/N name the process's own descriptor: written
 * as it is (appending), never replaced. (/dev/stdout is the same rule; not
 * tried here, so that a broken rule cannot replace the machine's link.)
 */
static void test_own_descriptor(void **state)
{
	(void)state;
	struct ofile of;
	char name[64];
	put(at("log"), "x\n");
	int fd = open(at("log"), O_WRONLY | O_APPEND | O_CLOEXEC);
	assert_true(fd >= 0);
	snprintf(name, sizeof(name), "/dev/fd/%d", fd);
	assert_int_equal(ofile_open(&of, name), 0);
	assert_int_equal(ofile_close(&of, write_text(&of, "y\n")), 0);
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	assert_int_equal(ofile_open(&of, name), 0);
	assert_int_equal(ofile_close(&of, write_text(&of, "z\n")), 0);
	assert_content(at("log"), "x\ny\nz\n");
	assert_true(fcntl(fd, F_GETFD) >= 0); /* still open: the caller's */
	close(fd);
	/* A descriptor not open: an error naming it. */
	assert_int_equal(ofile_open(&of, name), -EBADF);
	assert_non_null(strstr(err_last()->msg, name));
	assert_no_temp(dir);
}

/* /dev/full: the write error itself, with the file's name. */
static void test_full(void **state)
{
	struct stat st;
	struct ofile of;
	(void)state;
	if (stat("/dev/full", &st) || !S_ISCHR(st.st_mode))
		skip();
	err_set(-ENOENT, "cannot open 'some.debug': No such file or directory");
	assert_int_equal(ofile_open(&of, "/dev/full"), 0);
	for (int i = 0; i < 10000; i++)
		fputs("0123456789abcdef0123456789abcdef\n", of.f);
	int err = ofile_close(&of, ferror(of.f) ? -EIO : 0);
	assert_int_equal(err, -ENOSPC);
	assert_non_null(strstr(err_last()->msg, "/dev/full"));
	assert_non_null(strstr(err_last()->msg, strerror(ENOSPC)));
}

/* A writer that fails: the old file stays whole, no temporary file is left. */
static void test_failed_write_keeps_old(void **state)
{
	(void)state;
	struct ofile of;
	put(at("keep.svg"), "old and whole\n");
	assert_int_equal(ofile_open(&of, at("keep.svg")), 0);
	fputs("half of a new", of.f);
	assert_int_equal(ofile_close(&of, -EIO), -EIO);
	assert_content(at("keep.svg"), "old and whole\n");
	assert_non_null(strstr(err_last()->msg, "keep.svg"));
	/* An abort the same. */
	assert_int_equal(ofile_open(&of, at("keep.svg")), 0);
	fputs("other half", of.f);
	ofile_abort(&of);
	ofile_abort(&of); /* closed: nothing to do */
	assert_content(at("keep.svg"), "old and whole\n");
	assert_no_temp(dir);
}

static void test_refused(void **state)
{
	(void)state;
	struct ofile of;
	assert_int_equal(mkdir(at("d"), 0700), 0);
	assert_int_equal(ofile_open(&of, at("d")), -EISDIR);
	assert_null(of.f);
	ofile_abort(&of);
	assert_int_equal(ofile_open(&of, at("no/such/dir/x.svg")), -ENOENT);
	assert_non_null(strstr(err_last()->msg, "x.svg"));
	/* A read-only directory (root may write anyway: not checked then). */
	assert_int_equal(mkdir(at("ro"), 0500), 0);
	if (geteuid() != 0) {
		assert_int_equal(ofile_open(&of, at("ro/x.svg")), -EACCES);
		assert_non_null(strstr(err_last()->msg, "ro/x.svg"));
	}
	assert_no_temp(at("ro"));
	assert_no_temp(dir);
}

/* A FIFO the path names is written in place, to its reader. */
static void test_fifo(void **state)
{
	(void)state;
	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *f = fopen(at("fifo"), "r");
		char buf[64] = { 0 };
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		_exit(n == 6 && !memcmp(buf, "piped\n", 6) ? 0 : 1);
	}
	struct ofile of;
	assert_int_equal(ofile_open(&of, at("fifo")), 0);
	assert_int_equal(ofile_close(&of, write_text(&of, "piped\n")), 0);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	struct stat st;
	assert_int_equal(lstat(at("fifo"), &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
}

/* SIGTERM in the middle of a write: the temporary file goes, the old file stays. */
static void test_signal_cleanup(void **state)
{
	(void)state;
	put(at("sig.svg"), "before\n");
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct ofile of;
		if (ofile_open(&of, at("sig.svg")))
			_exit(3);
		for (int i = 0; i < 100000; i++)
			fputs("<rect/>\n", of.f);
		raise(SIGTERM);
		_exit(4); /* not reached */
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	assert_content(at("sig.svg"), "before\n");
	assert_no_temp(dir);
}

/* A private file (the debug cache's entries) gets the mode asked for. */
static void test_mode(void **state)
{
	(void)state;
	struct ofile of;
	struct stat st;
	mode_t old = umask(0);
	assert_int_equal(ofile_open_mode(&of, at("private"), 0600), 0);
	assert_int_equal(ofile_commit(&of), 0);
	assert_int_equal(stat(at("private"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	umask(old);
}

/* The byte at offset i of the background tests' output. */
static unsigned char bg_byte(size_t i)
{
	return (unsigned char)(i * 131u + (i >> 13) + (i >> 21));
}

/* 'total' bytes of bg_byte in writes of 1 byte to ~700 KiB, some flushed. */
static void bg_fill(FILE *f, size_t total)
{
	static unsigned char buf[700 << 10];
	uint64_t r = 0x9e3779b97f4a7c15ULL;
	size_t at = 0;
	while (at < total) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		size_t n = (r >> 8) % 5 == 0 ? (size_t)(r >> 20) % sizeof(buf)
					     : (size_t)(r >> 20) % 300 + 1;
		if (n > total - at)
			n = total - at;
		for (size_t i = 0; i < n; i++)
			buf[i] = bg_byte(at + i);
		if (n == 1)
			fputc(buf[0], f);
		else
			fwrite(buf, 1, n, f);
		if ((r & 63) == 0)
			fflush(f);
		at += n;
	}
}

static void assert_bg_content(const char *path, size_t total)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((size_t)st.st_size, total);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t i = 0;
	for (int c; (c = getc(f)) != EOF; i++)
		if ((unsigned char)c != bg_byte(i))
			fail_msg("byte %zu: %d, want %d", i, c, bg_byte(i));
	fclose(f);
	assert_int_equal(i, total);
}

/* 9 MiB in many writes: in order, and the name only taken at the commit. */
static void test_background_order(void **state)
{
	(void)state;
	struct ofile of;
	size_t total = (9 << 20) + 12345;
	put(at("bg.out"), "old\n");
	assert_int_equal(ofile_open(&of, at("bg.out")), 0);
	assert_true(ofile_background(&of, 2, 0));
	assert_false(ofile_background(&of, 2, 0)); /* already on */
	bg_fill(of.f, total);
	assert_content(at("bg.out"), "old\n");
	assert_int_equal(ofile_commit(&of), 0);
	assert_bg_content(at("bg.out"), total);
	/* A large output announced: the writer starts before the first byte. */
	assert_int_equal(ofile_open(&of, at("early.out")), 0);
	assert_true(ofile_background(&of, 2, 64 << 20));
	bg_fill(of.f, total);
	assert_int_equal(ofile_commit(&of), 0);
	assert_bg_content(at("early.out"), total);
	assert_no_temp(dir);
	/* The same through a pipe (standard output's usual kind). */
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[1]);
		FILE *in = fdopen(p[0], "r");
		size_t i = 0;
		int c;
		while (in && (c = getc(in)) != EOF && (unsigned char)c == bg_byte(i))
			i++;
		_exit(i == total && feof(in) ? 0 : 1);
	}
	close(p[0]);
	char name[32];
	snprintf(name, sizeof(name), "/dev/fd/%d", p[1]);
	assert_int_equal(ofile_open(&of, name), 0);
	/* kiln's choice (a CPU free now, or not): the same bytes either way. */
	bool bg = ofile_background(&of, 0, 0);
	assert_true(!bg || sysconf(_SC_NPROCESSORS_ONLN) > 1);
	bg_fill(of.f, total);
	assert_int_equal(ofile_commit(&of), 0);
	close(p[1]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Under one block (no thread), nothing at all, and threads=1. */
static void test_background_small(void **state)
{
	(void)state;
	struct ofile of;
	assert_int_equal(ofile_open(&of, at("small.out")), 0);
	assert_true(ofile_background(&of, 2, 0));
	bg_fill(of.f, 5000);
	assert_int_equal(ofile_commit(&of), 0);
	assert_bg_content(at("small.out"), 5000);
	assert_int_equal(ofile_open(&of, at("empty.out")), 0);
	assert_true(ofile_background(&of, 2, 0));
	assert_int_equal(ofile_commit(&of), 0);
	assert_bg_content(at("empty.out"), 0);
	/* The writer started at once, and nothing written. */
	assert_int_equal(ofile_open(&of, at("empty2.out")), 0);
	assert_true(ofile_background(&of, 2, 64 << 20));
	assert_int_equal(ofile_commit(&of), 0);
	assert_bg_content(at("empty2.out"), 0);
	assert_int_equal(ofile_open(&of, at("one.out")), 0);
	assert_false(ofile_background(&of, 1, 0));
	bg_fill(of.f, 3 << 20);
	assert_int_equal(ofile_commit(&of), 0);
	assert_bg_content(at("one.out"), 3 << 20);
	/* A device: synchronous, its error as ever. */
	struct stat st;
	if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) {
		assert_int_equal(ofile_open(&of, "/dev/full"), 0);
		assert_false(ofile_background(&of, 2, 0));
		bg_fill(of.f, 1 << 20);
		assert_int_equal(ofile_close(&of, 0), -ENOSPC);
	}
	assert_no_temp(dir);
}

/*
 * The writer thread's own errors, in a child: past RLIMIT_FSIZE (EFBIG,
 * SIGXFSZ ignored) and into a pipe with no reader (EPIPE, SIGPIPE
 * ignored), each reported by the close as itself, with the name.
 */
static void test_background_errors(void **state)
{
	(void)state;
	put(at("big.out"), "old\n");
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 1 << 20, 1 << 20 };
		signal(SIGXFSZ, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		struct ofile of;
		if (setrlimit(RLIMIT_FSIZE, &rl) || ofile_open(&of, at("big.out")) ||
		    !ofile_background(&of, 2, 64 << 20))
			_exit(2);
		bg_fill(of.f, 4 << 20);
		if (ofile_close(&of, 0) != -EFBIG || !strstr(err_last()->msg, "big.out") ||
		    !strstr(err_last()->msg, strerror(EFBIG)))
			_exit(3);
		int p[2];
		char name[32];
		if (pipe(p))
			_exit(4);
		close(p[0]);
		snprintf(name, sizeof(name), "/dev/fd/%d", p[1]);
		if (ofile_open(&of, name) || !ofile_background(&of, 2, 0))
			_exit(5);
		bg_fill(of.f, 4 << 20);
		if (ofile_close(&of, 0) != -EPIPE || !strstr(err_last()->msg, name))
			_exit(6);
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_content(at("big.out"), "old\n");
	assert_no_temp(dir);
}

/* SIGPIPE at its default: the writer thread's write ends the process, as
 * the caller's own would. */
static void test_background_sigpipe(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct ofile of;
		char name[32];
		signal(SIGPIPE, SIG_DFL);
		close(p[0]);
		snprintf(name, sizeof(name), "/dev/fd/%d", p[1]);
		if (ofile_open(&of, name) || !ofile_background(&of, 2, 0))
			_exit(2);
		bg_fill(of.f, 4 << 20);
		ofile_close(&of, 0);
		_exit(3);
	}
	close(p[0]);
	close(p[1]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGPIPE);
}

/* SIGTERM to the process while the writer thread runs: the temporary
 * file goes, the old file stays. */
static void test_background_signal(void **state)
{
	(void)state;
	put(at("bgsig.svg"), "before\n");
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct ofile of;
		if (ofile_open(&of, at("bgsig.svg")) || !ofile_background(&of, 2, 0))
			_exit(3);
		bg_fill(of.f, 3 << 20);
		kill(getpid(), SIGTERM);
		for (;;)
			pause();
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	assert_content(at("bgsig.svg"), "before\n");
	assert_no_temp(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symlink_replaced),
		cmocka_unit_test(test_device),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_own_descriptor),
		cmocka_unit_test(test_failed_write_keeps_old),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_signal_cleanup),
		cmocka_unit_test(test_mode),
		cmocka_unit_test(test_background_order),
		cmocka_unit_test(test_background_small),
		cmocka_unit_test(test_background_errors),
		cmocka_unit_test(test_background_sigpipe),
		cmocka_unit_test(test_background_signal),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
