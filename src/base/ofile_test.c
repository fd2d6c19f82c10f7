/*
 * ofile unit tests (base, L0): a symbolic link planted at the output path
 * is replaced, never followed (to a file or to a device); a character
 * device the path names is written in place; a write error (/dev/full)
 * is reported as itself with the file's name; /dev/fd/N and
 * /proc/self/fd/N are the descriptor itself, appended to, never replaced; a failed write keeps the
 * old file whole and leaves no temporary file; a directory is refused;
 * a read-only directory fails cleanly; SIGTERM during a write removes the
 * temporary file.
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
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
