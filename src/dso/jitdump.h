/*
 * jitdump: the symbols of a JIT's jit-PID.dump file (dso, L2).
 *
 * A JIT that supports perf's jitdump format writes every function it
 * generates to jit-PID.dump and maps that file executable once, so the
 * recording holds an MMAP of it; that MMAP is how kiln knows where the
 * file is. Layout (host byte order, little-endian here):
 *   header: magic "JiTD" (0x4A695444), version, total_size, elf_mach,
 *           pad, pid, timestamp, flags            (40 bytes at least)
 *   records: id, total_size, timestamp            (16-byte prefix)
 *     JIT_CODE_LOAD (0): pid, tid, vma, code_addr, code_size, code_index,
 *                        NUL-terminated name, code bytes
 *     JIT_CODE_MOVE (1): pid, tid, vma, old_code_addr, new_code_addr,
 *                        code_size, code_index
 *     others (debug info, unwinding info, close) are skipped by size.
 * Records are read within the bytes present and within their own
 * total_size; a record that does not fit ends the parse (the symbols read
 * so far are kept, as a JIT killed mid-write leaves a torn last record).
 */
#ifndef KILN_DSO_JITDUMP_H
#define KILN_DSO_JITDUMP_H

#include <stddef.h>
#include <stdint.h>

#include "dso/perfmap.h"

/* Parse 'len' bytes into a symbol table (names copied). 0, or -EBADMSG
 * (err_last()) when the header is not a jitdump header. */
int jitdump_parse(struct perfmap **out, const void *data, size_t len);
/* perfmap_load's ownership rule, then read and parse 'path'. */
int jitdump_load(struct perfmap **out, const char *path, uint32_t pid);

#endif
