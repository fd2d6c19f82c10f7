/*
 * elf_image: one ELF file's symbols, load segments and build-id
 * (dso, L2).
 *
 * The parser reads ELF32 and ELF64 little-endian images from memory
 * (elf_image_parse: pointer and length, no I/O, fuzzable); elf_image_open
 * maps a file read-only and parses it. Every offset, size and count read
 * from the file is checked against the bytes that are really there before
 * use, so a truncated or hostile file gives an error, never a crash or an
 * allocation larger than the file.
 *
 * Symbols: function symbols (STT_FUNC, STT_GNU_IFUNC, and STT_NOTYPE in
 * executable sections) from .symtab, or from .dynsym when there is no
 * .symtab; PLT stubs named "name@plt" (x86: .plt/.plt.sec from .rela.plt in
 * GOT-slot order, and .plt.got from .rela.dyn). Sizeless symbols end where the next
 * one starts. Aliases at one address resolve to one name, chosen as perf
 * chooses (sized over sizeless, non-weak over weak, global over local,
 * fewer leading underscores, longer name, then first seen).
 * Sections the parser reads (symbol and string tables, notes) may be
 * SHF_COMPRESSED: they are decompressed first, with the same bounds.
 */
#ifndef KILN_DSO_ELF_IMAGE_H
#define KILN_DSO_ELF_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_BUILD_ID_MAX 64

struct elf_image;

/* Parse 'len' bytes at 'data' (borrowed: must outlive the image). 0 or -errno
 * (-EBADMSG with err_last() describing the problem). */
int elf_image_parse(struct elf_image **out, const void *data, size_t len);
/* Like elf_image_parse, but takes ownership of 'heap' (malloc'd): freed
 * with the image, or at once on error. */
int elf_image_parse_take(struct elf_image **out, void *heap, size_t len);
/* Open and parse a file: regular files only, opened O_NONBLOCK so FIFOs and
 * devices never block. 0 or -errno. The file stays mapped; the pages the
 * parse read are handed back (see elf_image_drop_pages). */
int elf_image_open(struct elf_image **out, const char *path);
/* Hand the file pages read so far back to the kernel (madvise DONTNEED on
 * the read-only private mapping): everything stays readable, pages come
 * back from the page cache when touched. For opened images only; a no-op
 * for parsed memory. Keeps resident memory to what lookups really use. */
void elf_image_drop_pages(const struct elf_image *img);
/* Parse the regular file open on 'fd' (borrowed: the caller closes it;
 * the mapping outlives it); 'path' names it in errors. 0 or -errno. */
int elf_image_open_fd(struct elf_image **out, int fd, const char *path);
/* What elf_image_parse_flags reads besides headers, segments and sections. */
#define ELF_IMAGE_NO_SYMBOLS 1u /* no symbol table (nor PLT names): an image for CFI only */
int elf_image_parse_flags(struct elf_image **out, const void *data, size_t len, unsigned flags);
int elf_image_open_fd_flags(struct elf_image **out, int fd, const char *path, unsigned flags);
int elf_image_open_flags(struct elf_image **out, const char *path, unsigned flags);
void elf_image_free(struct elf_image *img);
/* An opened image's file shrank after it was mapped and a read past its
 * new end gave zeros (base/mapguard.h): true, *off = the first lost page's
 * offset. Symbols and CFI read from there on may be wrong. */
bool elf_image_shrank(const struct elf_image *img, uint64_t *off);

/* ET_EXEC, ET_DYN, ... (the e_type field). */
unsigned elf_image_type(const struct elf_image *img);
/* Map a file offset to its link-time virtual address through the PT_LOAD
 * segment that contains it. False if no segment contains it. */
bool elf_image_offset_to_vaddr(const struct elf_image *img, uint64_t off, uint64_t *vaddr);
/* The same, with the file offsets [*lo, *hi) of that segment (every offset
 * in it maps by the same difference). */
bool elf_image_offset_segment(const struct elf_image *img, uint64_t off, uint64_t *vaddr,
			      uint64_t *lo, uint64_t *hi);
/* The symbol containing link-time address 'vaddr', or NULL. Sets *start
 * to the symbol's address (so vaddr - *start is the offset into it). The
 * returned name is borrowed from the image. */
const char *elf_image_lookup(const struct elf_image *img, uint64_t vaddr, uint64_t *start);
/* Like elf_image_lookup, and *end gets the symbol's end (exclusive). */
const char *elf_image_lookup_range(const struct elf_image *img, uint64_t vaddr, uint64_t *start,
				   uint64_t *end);
/* Number of symbols kept (after alias resolution). */
size_t elf_image_nsyms(const struct elf_image *img);
/* A section's bytes as they are in the file. */
struct elf_section {
	const uint8_t *data; /* borrowed from the image */
	size_t size;
	uint64_t vaddr; /* sh_addr: link-time address (0 for non-allocated sections) */
};
/* The first section with this name (".eh_frame", ".eh_frame_hdr",
 * ".debug_frame", ...) whose bytes lie in the file; false if none.
 * Compressed sections (SHF_COMPRESSED zlib or zstd, and ".zdebug_x" found
 * as ".debug_x") are decompressed on first use, at most UNPACK_MAX bytes,
 * into memory the image owns; one that does not decompress is absent. */
bool elf_image_section(const struct elf_image *img, const char *name, struct elf_section *out);
/* The e_machine field: 62 x86-64, 3 i386, 183 AArch64, 40 ARM, ... */
unsigned elf_image_machine(const struct elf_image *img);
/*
 * The file bytes of link-time range [vaddr, vaddr + size), for
 * disassembly: from the section that holds the whole range when the file
 * has section headers (a NOBITS section, as in a debug-only file, holds
 * none), else from the PT_LOAD segment whose file part holds it. *out is
 * borrowed from the image. 0, or -ENODATA when the file lacks the bytes.
 */
int elf_image_code(const struct elf_image *img, uint64_t vaddr, uint64_t size, const uint8_t **out);
/* True for ELFCLASS64 images. */
bool elf_image_is64(const struct elf_image *img);

/* The whole file the image was parsed from (borrowed). */
const uint8_t *elf_image_data(const struct elf_image *img, size_t *len);
/* Add the symbols of 'from' whose start address 'img' has no symbol at
 * (MiniDebugInfo's static functions next to .dynsym). Names are copied. */
void elf_image_add_symbols(struct elf_image *img, const struct elf_image *from);
/* Add the "name@plt" stubs of 'from' (the binary) to 'img' (its debug
 * file, whose PLT has no contents to synthesize them from), as perf adds
 * the runtime binary's. */
void elf_image_add_plt_symbols(struct elf_image *img, const struct elf_image *from);

/* Copy the GNU build-id (NT_GNU_BUILD_ID) into out; returns its length, 0 if none. */
size_t elf_image_build_id(const struct elf_image *img, uint8_t out[ELF_BUILD_ID_MAX]);

#endif
