/*
 * buildids: the build-id table of a recording (pipeline, L8; used by
 * record.c).
 *
 * As `perf record` does, kiln's perf.data lists the build-id of the
 * binaries its samples may come from, so that readers check the file on
 * disk is the one that ran (kiln: a mismatch is never used, and said
 * once; perf likewise) and can find it in perf's build-id cache. Listed:
 * the running kernel ("[kernel.kallsyms]", from /sys/kernel/notes) and
 * every host file mapped executable while recording (perf lists only
 * the binaries samples hit, unless --buildid-all; kiln lists them all,
 * without a second pass over the samples). Files of processes in other
 * mount namespaces are nscache's (nscache.h). Bounded: at most
 * BUILDIDS_MAX_FILES paths, each read once, when the recording ends.
 */
#ifndef KILN_PIPELINE_BUILDIDS_H
#define KILN_PIPELINE_BUILDIDS_H

#include <stddef.h>
#include <stdint.h>

#include "base/hashmap.h"
#include "base/vec.h"
#include "source/perffile/perffile.h"

#define BUILDIDS_MAX_FILES 4096

struct buildids {
	struct hashmap seen; /* hash(path) -> 1 */
	VEC(char *) paths;   /* in first-mapped order */
};

void buildids_init(struct buildids *b);
void buildids_release(struct buildids *b);
/* Look at one record as it is written (executable MMAP2 records of host
 * file paths are noted). */
void buildids_record(struct buildids *b, const void *rec, size_t len);
/* Read the noted files' build-ids and the running kernel's; append them
 * to h->build_ids. Files without one (or gone) are left out. */
void buildids_take(struct buildids *b, struct perf_header_info *h);
/* The file of an executable MMAP2 record (its path form, absolute, not
 * " (deleted)"): the path (inside the record, *plen bytes) and *pid, or
 * NULL. Shared with nscache. */
const char *buildids_exec_path(const void *rec, size_t len, uint32_t *pid, size_t *plen);
/* The running kernel's GNU build-id (/sys/kernel/notes): its length, 0 if
 * unknown. */
size_t buildids_running_kernel(uint8_t *out, size_t cap);

#endif
