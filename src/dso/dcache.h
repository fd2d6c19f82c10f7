/*
 * dcache: a per-user cache of expanded debug files (dso, L2).
 *
 * Debian and Fedora ship debug files with compressed DWARF; every run
 * that reads one decompresses it again (libc's: 10 MB, libLLVM's: more
 * than a gigabyte). The expanded image (dso/elf_expand.h) is kept in a
 * cache directory, as gdb keeps its index cache, and later runs map it
 * instead of decompressing.
 *
 * Directory (from the environment the caller passes, base/env.h;
 * none: no cache): $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else
 * $HOME/.cache/kiln; KILN_CACHE_DIR=off (or empty) turns the cache off.
 * Entries live in its "expanded-v1" subdirectory, created 0700; a
 * directory not owned by this user, or a symbolic link, is not used.
 *
 * An entry's name is the identity of the file it was made from (device,
 * inode, size, modification time) and nothing else, so a changed file
 * never meets an old entry, and one file has one entry however it was
 * reached (by build-id or by path); its length is checked when it is
 * mapped. Entries are 0600 in a 0700 directory (they name other
 * binaries' paths): an entry or the entries' directory found open to
 * others is made private again. Entries are written through a
 * temporary file and renamed into place (base/ofile), so a reader never
 * sees a partial one. The directory is kept under DCACHE_MAX_BYTES (or
 * $KILN_CACHE_MAX_MB megabytes): when a new entry would pass it, the
 * least recently used entries are removed first; an image of more than
 * half of it is not kept. Temporary files over an hour old (left by a
 * writer that died) are removed then too. Every failure (no space, no
 * permission, a damaged entry) means only that the file is decompressed
 * as if there were no cache: the cache never changes what kiln prints.
 */
#ifndef KILN_DSO_DCACHE_H
#define KILN_DSO_DCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "base/env.h"

#define DCACHE_MAX_BYTES ((uint64_t)2 << 30)

struct dcache_key {
	char name[192]; /* the entry's file name; empty: no key */
};

/* The key of an expanded image of the file 'st' describes (fstat of the open file). */
void dcache_key(struct dcache_key *k, const struct stat *st);
/*
 * The cached image for 'k', mapped private and writable (changes stay in
 * this process): 0 and *map, *len; or -errno (-ENOENT: none; the cache
 * off or not usable). Release with dcache_unmap().
 */
int dcache_get(const struct kiln_env *e, const struct dcache_key *k, uint8_t **map, size_t *len);
void dcache_unmap(uint8_t *map, size_t len);
/* The size the directory is kept under. */
uint64_t dcache_max_bytes(const struct kiln_env *e);
/* Keeps 'len' bytes of image 'p' under 'k' (best effort: errors are dropped). */
void dcache_put(const struct kiln_env *e, const struct dcache_key *k, const uint8_t *p, size_t len);

#endif
