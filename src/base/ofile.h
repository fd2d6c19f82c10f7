/*
 * ofile: output files written whole or not at all (base, L0).
 *
 * What the target path is decides how it is written (lstat, never
 * following a symbolic link at the path itself):
 *  - "-": standard output, written straight through; so are /dev/stdout,
 *    /dev/stderr, /dev/fd/N and /proc/self/fd/N: they name the process's
 *    own descriptor (as it is: a shell's '>>' keeps appending), which is
 *    written, never the link replaced;
 *  - a FIFO or a character device (/dev/null, /dev/full, a terminal):
 *    written straight through, opened with O_NOFOLLOW and checked to be
 *    the node lstat saw (renaming over it would replace the device);
 *  - nothing, a regular file, or a symbolic link: a temporary file beside
 *    the target (".NAME.kiln-tmp-PID-N", created O_EXCL | O_NOFOLLOW) is
 *    written and renamed over the path by a successful commit, so a
 *    half-written SVG never takes the real name and the previous file stays
 *    whole until the new one is complete. A symbolic link at the path is
 *    replaced by the new file, never followed: a link planted there cannot
 *    point kiln's output at a device or another user's file;
 *  - a directory, a block device or a socket: refused.
 * A write error of the stream (ENOSPC, EFBIG, EIO) is kept as it happens
 * and reported by the commit with the file's name. A SIGINT, SIGTERM or
 * SIGHUP that arrives while temporary files are open removes them before
 * the signal takes its default action (the handlers are installed on the
 * first open, only for signals whose action is the default one).
 */
#ifndef KILN_BASE_OFILE_H
#define KILN_BASE_OFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct ofile_stream; /* ofile.c: the descriptor under 'f' and its first error */

struct ofile {
	FILE *f;
	char *path; /* target, NULL for stdout */
	char *tmp;  /* temporary name, NULL for stdout and straight-through targets */
	struct ofile_stream *s;
	int slot; /* the temporary name's place in the signal cleanup list, -1 */
};

/* 0 or -errno (err_last() says why). New files get mode 0666 less the umask. */
int ofile_open(struct ofile *of, const char *path);
/* The same with another mode for a new file (0600: private). */
int ofile_open_mode(struct ofile *of, const char *path, mode_t mode);
/*
 * Finish the output: with 'err' 0 (the writer succeeded), flush, close and
 * rename into place; else discard (the temporary file is removed). 0 or
 * -errno, with err_last() naming the file and the cause: the stream's own
 * write error first (No space left on device), else 'err'.
 */
int ofile_close(struct ofile *of, int err);
/* ofile_close(of, 0). */
int ofile_commit(struct ofile *of);
/*
 * Write in the background from now on: the stream's bytes are copied into
 * blocks of 256 KiB, and a thread of the stream's own writes the full
 * blocks in order while the caller goes on (the kernel's copy into the
 * page cache and its block allocation overlap with the caller's work, on
 * another CPU). At most 1 MiB is held: the caller waits when the writer
 * is that far behind. 'expect' is about how many bytes will be written (0:
 * not known): from 1 MiB the thread starts at once and has its blocks
 * mapped and faulted in before the first bytes come; below, it starts
 * once 64 KiB are written, so a smaller output is one write at the close,
 * with no thread. fflush hands bytes over, not to the kernel; the close
 * writes what is left and reports the writer's first error as a
 * synchronous stream would (the same errno and message; a write after the
 * writer failed fails at once); SIGPIPE and SIGXFSZ are raised by the
 * writer's write as by the caller's, and the other signals are left to
 * the caller's threads. 'threads' is $KILN_THREADS (base/env.h): 1 never
 * a thread, 2 always, 0 when a CPU is free now (fewer tasks running than
 * CPUs online: a writer sharing the caller's CPU only adds its cost).
 * Only for a regular file, a pipe or a socket (a terminal or /dev/null
 * gains nothing). Call it before the first write; for one-shot outputs
 * (nothing reaches the descriptor until a block fills or the close). True
 * when turned on.
 */
bool ofile_background(struct ofile *of, int threads, size_t expect);
/* Discard: remove the temporary file. Does nothing for a closed ofile. */
void ofile_abort(struct ofile *of);

#endif
