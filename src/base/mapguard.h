/*
 * mapguard: reading mapped files that may shrink (base, L0).
 *
 * A read of a file mapping past the file's current end raises SIGBUS,
 * which kills the process: another process truncating a perf.data or a
 * binary while kiln reads it would crash kiln. A mapping registered here
 * is guarded instead: the process-wide SIGBUS handler (installed on the
 * first registration) recognises a fault inside a registered range, maps
 * a page of zeros over the faulting page (MAP_FIXED, anonymous), records
 * the lowest faulting offset and returns, so the read goes on and sees
 * zeros. The owner asks mapguard_faulted() and reports the file as cut
 * there. A SIGBUS outside every registered range goes to the handler
 * that was installed before (a sanitizer's, or the default action).
 *
 * Registration and the fault record are atomic: any thread may read a
 * guarded mapping while another registers or removes others. Remove a
 * range before unmapping it. At most MAPGUARD_SLOTS ranges are guarded at
 * once; mapguard_add returns -1 beyond that (the range is then read
 * unguarded, as before).
 *
 * Under AddressSanitizer the handler is installed only if the sanitizer
 * lets programs install their own (allow_user_segv_handler, the default);
 * ASAN_OPTIONS=handle_sigbus=0 also works.
 */
#ifndef KILN_BASE_MAPGUARD_H
#define KILN_BASE_MAPGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAPGUARD_SLOTS 8192

/* Guard [p, p + len) (a page-aligned file mapping); the slot, or -1. */
int mapguard_add(const void *p, size_t len);
/* Stop guarding a slot (-1: nothing). */
void mapguard_remove(int slot);
/* Whether a read in the slot's range faulted; *off (may be NULL) is then
 * the lowest faulting page's offset from the range's start. */
bool mapguard_faulted(int slot, uint64_t *off);
/* Read one byte of every page in [p, p + n), so that a fault for those
 * bytes happens now rather than later, wherever they are used. */
void mapguard_touch(const void *p, size_t n);

#endif
