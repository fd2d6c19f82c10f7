/*
 * debugfile: finding a binary's separate debug information the way gdb
 * and perf do (dso, L2).
 *
 * For a binary with build-id B (hex "xxrest") and a .gnu_debuglink naming
 * NAME with CRC C, the candidates are, in order:
 *   1. DEBUGDIR/.build-id/xx/rest.debug        (build-id must match)
 *   2. ~/.debug/.build-id/xx/rest/debug        (perf's build-id cache)
 *   3. DIR/NAME, DIR/.debug/NAME, DEBUGDIR/DIR/NAME   (CRC-32 of the whole
 *      file must equal C, and its build-id, if both have one, must match)
 * where DIR is the binary's directory and DEBUGDIR is --debug-dir, or
 * /usr/lib/debug under --symfs. A debug file that fails its check is never
 * used (one warning). Without any, the binary's MiniDebugInfo
 * (.gnu_debugdata: an xz-compressed ELF with the .symtab entries .dynsym
 * lacks) adds its symbols to the binary's own.
 *
 * The parsers of file bytes here (.gnu_debuglink, the xz payload through
 * unpack_xz and elf_image_parse) take (pointer, length), are bounded, and
 * report through err_last().
 */
#ifndef KILN_DSO_DEBUGFILE_H
#define KILN_DSO_DEBUGFILE_H

#include <stddef.h>
#include <stdint.h>

#include "dso/elf_image.h"

#define DEBUGLINK_NAME_MAX 255
/* The most a MiniDebugInfo payload may decompress to. */
#define MINIDEBUG_MAX ((size_t)64 << 20)

struct debuglink {
	char name[DEBUGLINK_NAME_MAX + 1]; /* a file name, no '/' */
	uint32_t crc;
};

/* Parse a .gnu_debuglink section: a NUL-terminated file name, zero padding
 * to a multiple of 4, a little-endian CRC-32. 0 or -EBADMSG. */
int debuglink_parse(const uint8_t *p, size_t n, struct debuglink *out);
/* The CRC-32 gdb's .gnu_debuglink uses (zlib's crc32) of n bytes. */
uint32_t debuglink_crc(const uint8_t *p, size_t n);

/*
 * Symbols from MiniDebugInfo: decompress (at most MINIDEBUG_MAX bytes)
 * and parse the .gnu_debugdata payload 'p'/'n'. The returned image owns
 * its bytes. 0 or -errno (err_last()).
 */
int minidebug_open(struct elf_image **out, const uint8_t *p, size_t n);

struct dso_set;
struct dso;
/*
 * The debug file for dso 'd' (whose image is 'img') by the rules above,
 * or NULL; *found is then its path (to free), else NULL. Warnings (CRC or
 * build-id mismatch) go through log_warn, once
 * per dso.
 */
struct elf_image *debugfile_find(const struct dso_set *s, const struct dso *d,
				 const struct elf_image *img, char **found);

#endif
