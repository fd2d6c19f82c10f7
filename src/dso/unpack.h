/*
 * unpack: bounded decompression of the compressed payloads ELF files carry
 * (dso, L2).
 *
 * - SHF_COMPRESSED sections: an Elf32/Elf64_Chdr (type, size, align) then
 *   a zlib or zstd stream of exactly 'size' bytes;
 * - the older GNU ".zdebug_*" sections: "ZLIB", a big-endian 64-bit size,
 *   then a zlib stream;
 * - MiniDebugInfo (.gnu_debugdata): an xz stream holding a small ELF file.
 *
 * Every function takes (pointer, length), never reads outside it, grows
 * its output only as data really decompresses, and refuses more than
 * UNPACK_MAX bytes or more than the header declared. Errors are -EBADMSG
 * with err_last() naming the offset (within the payload) and the problem.
 * The output is heap memory the caller frees.
 */
#ifndef KILN_DSO_UNPACK_H
#define KILN_DSO_UNPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most any payload may decompress to. */
#define UNPACK_MAX ((size_t)512 << 20)

/* An SHF_COMPRESSED section's bytes (header included), for an ELF64 or
 * ELF32 file. */
int unpack_chdr(const uint8_t *p, size_t n, bool is64, uint8_t **out, size_t *outlen);
/* A ".zdebug_*" section's bytes. */
int unpack_zdebug(const uint8_t *p, size_t n, uint8_t **out, size_t *outlen);
/* An xz stream (MiniDebugInfo), at most 'cap' bytes out (<= UNPACK_MAX). */
int unpack_xz(const uint8_t *p, size_t n, size_t cap, uint8_t **out, size_t *outlen);

#endif
