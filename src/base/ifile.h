/*
 * ifile: opening input files defensively (base, L0).
 *
 * Paths come from profiles (MMAP records, build-id links), so a name may
 * point at a FIFO, a device or a directory: open without blocking and
 * accept regular files only.
 */
#ifndef KILN_BASE_IFILE_H
#define KILN_BASE_IFILE_H

#include <sys/stat.h>

/* Open 'path' read-only (O_NONBLOCK, O_CLOEXEC) and check it is a regular
 * file; fills *st. Returns the fd, or -errno with err_last() naming the
 * path (-EINVAL: not a regular file). */
int ifile_open(const char *path, struct stat *st);

#endif
