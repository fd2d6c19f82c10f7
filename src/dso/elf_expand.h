/*
 * elf_expand: an ELF file with its compressed sections decompressed, as a
 * new image in memory (dso, L2).
 *
 * libdw decompresses SHF_COMPRESSED debug sections itself, one after the
 * other, with zlib. For a file that has them, this builds the same file
 * with every such section already decompressed (libdeflate for zlib, and
 * zstd), the biggest on a second thread while this one does the rest, so
 * libdw finds nothing left to do. Sections 'skip' names are not
 * decompressed at all: they become empty (SHT_NOBITS, no name), which is
 * how a reader that never needs them can avoid the cost. With
 * ELF_EXPAND_DROP_LOADED, the loaded contents of a binary (SHF_ALLOC
 * PROGBITS: code, read-only and initialised data) are left out too (their
 * headers stay, as SHT_NOBITS), so a big binary with compressed DWARF is
 * not copied whole for its debug sections.
 *
 * Input is untrusted: ELF64 little-endian only, every header and section
 * checked against the input's length, each section's declared size capped
 * at UNPACK_MAX and the whole image at UNPACK_MAX, and a section that does
 * not decompress to exactly its declared size fails the whole image.
 */
#ifndef KILN_DSO_ELF_EXPAND_H
#define KILN_DSO_ELF_EXPAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The expanded image of the 'n' bytes at 'p' in *out (heap memory, 8-byte
 * aligned, *outlen bytes). Returns 0; -ENOENT when there is nothing to
 * expand (no compressed section, or not an ELF64 little-endian file: use
 * the file as it is); -E2BIG past the caps; -EBADMSG (err_last() names the
 * section and offset) on malformed headers or compressed data.
 */
#define ELF_EXPAND_DROP_LOADED 1u

int elf_expand(const uint8_t *p, size_t n, bool (*skip)(const char *name), unsigned flags,
	       uint8_t **out, size_t *outlen);
/* What elf_expand would return, from the headers alone (nothing is
 * decompressed): 0 when there is something to expand. */
int elf_expand_check(const uint8_t *p, size_t n, bool (*skip)(const char *name), unsigned flags);

#endif
