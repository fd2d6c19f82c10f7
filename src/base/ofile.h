/*
 * ofile: output files written atomically (base, L0).
 *
 * Output goes to a temporary file beside the target (created O_EXCL with
 * O_NOFOLLOW, so a planted file or symlink is never written through) and
 * is renamed over the target only by ofile_commit(), so a half-written
 * SVG or folded file never takes the real name, and the previous file
 * stays intact until the new one is complete. The path "-" means stdout.
 * A target that exists and is neither a regular file nor a directory (a
 * device such as /dev/null, a FIFO) is written in place: renaming over it
 * would replace the device with a regular file.
 */
#ifndef KILN_BASE_OFILE_H
#define KILN_BASE_OFILE_H

#include <stdio.h>

struct ofile {
	FILE *f;
	char *path; /* target, NULL for stdout */
	char *tmp;  /* temporary name, NULL for stdout and in-place targets */
};

/* 0 or -errno (err_last() says why). */
int ofile_open(struct ofile *of, const char *path);
/* Flush, close and rename into place. 0 or -errno (the temporary file is removed). */
int ofile_commit(struct ofile *of);
/* Remove the temporary file. */
void ofile_abort(struct ofile *of);

#endif
