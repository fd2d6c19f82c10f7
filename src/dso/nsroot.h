/*
 * nsroot: files as a process in another mount namespace (a container)
 * sees them (dso, L2).
 *
 * A binary mapped by a containerised process lives under that process's
 * root, reachable from the host as /proc/PID/root while the process runs.
 * Paths are resolved with openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)
 * against that root, so an absolute symlink or ".." inside the container
 * stays inside it and never reaches the host's files. Without openat2
 * (kernels before 5.6) nothing is opened.
 */
#ifndef KILN_DSO_NSROOT_H
#define KILN_DSO_NSROOT_H

#include <stdbool.h>
#include <stdint.h>

/* True if process 'pid' exists now and its root or mount namespace is not
 * ours (a container, or a chroot). */
bool nsroot_foreign(uint32_t pid);
/* Open 'path' (absolute) inside pid's root, read-only, non-blocking.
 * Returns an fd, or -errno with err_last() naming the path. */
int nsroot_open(uint32_t pid, const char *path);
/* Open a host 'path' without following any symlink in it (a mapped file's
 * recorded path never has one: the kernel writes canonical paths). Used
 * for a containerised process's files seen from the host, whose
 * directories the container controls. An fd or -errno (err_last()). */
int nsroot_open_nofollow(const char *path);

#endif
