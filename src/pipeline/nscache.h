/*
 * nscache: binaries of containerised processes kept while recording
 * (pipeline, L8; used by record.c).
 *
 * A process in another mount namespace maps files the host cannot see
 * once it has exited: its root (/proc/PID/root) goes with it. So while
 * recording, each executable MMAP2 of such a process is resolved inside
 * its root at once (dso/nsroot.h: openat2 RESOLVE_IN_ROOT), the file's
 * build-id is read, the file is copied into perf's build-id cache
 * (~/.debug/.build-id/xx/rest/elf, as `perf record` caches binaries), and
 * the (pid, path, build-id) triple is written to the perf.data build-id
 * table. Readers (kiln, and perf) then find the binary by build-id after
 * the process is gone. Files without a build-id cannot be cached; a path
 * the host also has, as another file, is cached but not listed (readers
 * know binaries by path, and the host's processes would get this file).
 * Bounded: at most NSCACHE_MAX_FILES files of at most NSCACHE_MAX_SIZE
 * bytes each; failures are said once per path through log_warn.
 */
#ifndef KILN_PIPELINE_NSCACHE_H
#define KILN_PIPELINE_NSCACHE_H

#include <stddef.h>

#include "base/hashmap.h"
#include "base/vec.h"
#include "source/perffile/perffile.h"

#define NSCACHE_MAX_FILES 1024
#define NSCACHE_MAX_SIZE ((size_t)512 << 20)

struct nscache {
	const char *home; /* $HOME: the build-id cache is under it; NULL: none */
	struct hashmap seen; /* hash(pid, path) -> 1 */
	VEC(struct perf_build_id) ids;
};

void nscache_init(struct nscache *c, const char *home);
void nscache_release(struct nscache *c);
/* Look at one record as it is written (only executable MMAP2 records of
 * file paths matter). */
void nscache_record(struct nscache *c, const void *rec, size_t len);
/* Move the build-ids found into h->build_ids (appended). */
void nscache_take(struct nscache *c, struct perf_header_info *h);

#endif
