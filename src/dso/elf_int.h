/*
 * elf_int: what the ELF reader's files share (dso, L2): the format's
 * constants, the image (struct elf_image), the parse-time state (struct
 * elf_parse) and the checked accessors that elf_image.c (headers,
 * sections, notes, the API) gives its two helpers: elf_syms.c (symbol
 * tables into the address-sorted table) and elf_plt.c (the synthesized
 * "name@plt" stubs). Not an API: only dso/elf_*.c include it.
 */
#ifndef KILN_DSO_ELF_INT_H
#define KILN_DSO_ELF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"
#include "base/hugebuf.h"
#include "base/vec.h"
#include "dso/elf_image.h"

/* The few ELF constants we need; <elf.h> is not used so the layouts below
 * are the only description of the format. */
enum {
	ELFCLASS32 = 1,
	ELFCLASS64 = 2,
	ELFDATA2LSB = 1,
	ELFDATA2MSB = 2,
	EM_386 = 3,
	EM_X86_64 = 62,
	PT_LOAD = 1,
	PT_NOTE = 4,
	PN_XNUM = 0xffff,
	SHT_PROGBITS = 1,
	SHT_SYMTAB = 2,
	SHT_STRTAB = 3,
	SHT_RELA = 4,
	SHT_NOBITS = 8,
	SHT_REL = 9,
	SHT_NOTE = 7,
	SHT_DYNSYM = 11,
	SHT_SYMTAB_SHNDX = 18,
	SHF_EXECINSTR = 0x4,
	SHF_COMPRESSED = 0x800,
	SHN_UNDEF = 0,
	SHN_LORESERVE = 0xff00,
	SHN_XINDEX = 0xffff,
	STB_LOCAL = 0,
	STB_GLOBAL = 1,
	STB_WEAK = 2,
	STT_NOTYPE = 0,
	STT_FUNC = 2,
	STT_GNU_IFUNC = 10,
	NT_GNU_BUILD_ID = 3,
	R_X86_JUMP_SLOT = 7, /* same number on x86_64 and i386 */
	R_X86_GLOB_DAT = 6,  /* ditto */
	R_X86_64_IRELATIVE = 37,
	R_386_IRELATIVE = 42,
	X86_PLT_ENTRY = 16,
};

/* A section header, widened to 64 bits whatever the class. */
struct shdr {
	uint64_t flags, addr, offset, size, addralign, entsize;
	uint32_t name, type, link, info;
};

struct load_seg {
	uint64_t offset, filesz, vaddr;
};

/* The final table: sorted by start, one entry per address, start < end. */
struct elf_sym {
	uint64_t start, end;
	const char *name; /* in the image data, or in 'owned' */
};

/* A candidate symbol while the table is being built. */
struct cand {
	uint64_t start, size;
	uint64_t sec_start, sec_end; /* its section's [addr, addr + size) */
	const char *name;
	uint8_t bind;
};

enum zkind {
	Z_NONE = 0,
	Z_CHDR,   /* SHF_COMPRESSED: Elf_Chdr + zlib/zstd */
	Z_ZDEBUG, /* .zdebug_*: "ZLIB" + size + zlib */
};

struct named_section {
	const char *name; /* in the image's section-name table */
	struct elf_section s; /* the bytes as stored; decompressed once asked for */
	uint8_t zkind;
	bool unpacked; /* zkind != Z_NONE: s now holds the decompressed bytes */
	bool bad;      /* zkind != Z_NONE: decompression failed */
};

struct elf_image {
	const uint8_t *data;
	size_t len;
	void *map; /* owned mapping (elf_image_open), or NULL */
	size_t map_len;
	int guard; /* the mapping's mapguard slot, or -1 */
	bool is64;
	unsigned type, machine;
	VEC(struct load_seg) loads;
	VEC(struct elf_sym) syms;
	VEC(char *) owned; /* synthesized names, decompressed sections */
	uint8_t build_id[ELF_BUILD_ID_MAX];
	size_t build_id_len;
	VEC(struct named_section) sections; /* sections with bytes in the file */
};

/* Parse-time state; freed when elf_image_parse returns. */
struct elf_parse {
	struct elf_image *img;
	struct shdr *sh;
	size_t shnum;
	size_t shstrndx; /* 0: no section names */
	uint64_t phoff;
	size_t phnum, phentsize;
	HVEC(struct cand) cands; /* huge pages once large (base/hugebuf.h) */
	struct zsec *z; /* shnum entries once a compressed section was read */
};

/* A compressed section as parsing reads it: decompressed on first use. */
struct zsec {
	const uint8_t *p;
	size_t n;
	int state; /* 0 not tried, 1 ok, -1 bad */
};

/* A symbol or relocation table, validated: 'n' entries of 'entsize' bytes
 * at 'p', names in [str, str + strsz). */
struct table {
	const uint8_t *p;
	size_t n, entsize;
	const char *str;
	size_t strsz;
};

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* An address-sized field: 4 bytes in ELF32, 8 in ELF64. */
static inline uint64_t rdw(const struct elf_image *img, const uint8_t *p)
{
	return img->is64 ? le64(p) : le32(p);
}

/* True if [off, off + size) lies inside the image. */
static inline bool in_file(const struct elf_image *img, uint64_t off, uint64_t size)
{
	return off <= img->len && size <= img->len - off;
}

static inline uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

struct rawsym {
	uint64_t value, size;
	uint32_t name, shndx;
	uint8_t type, bind;
};

/* ---- elf_image.c ---- */

/* A section's bytes, decompressed if it is compressed; false if they are
 * not all in the file or do not decompress. */
bool elf_sec_data(struct elf_parse *ps, size_t idx, const uint8_t **p, size_t *n);
/* The NUL-terminated string at 'off' in a string table, or NULL. */
const char *elf_str_at(const char *str, size_t strsz, uint64_t off);
/* Index of the first section with this name (and type, if non-zero), or 0. */
size_t elf_find_section(struct elf_parse *ps, const char *name, uint32_t type);

/* ---- elf_syms.c ---- */

/* Validate a symbol (or relocation) table section and, if need_str, its
 * string table (sh_link); false if either is unusable. */
bool elf_table_open(struct elf_parse *ps, size_t idx, size_t recsz, bool need_str,
		    struct table *t);
/* elf_table_open for a symbol table of this image's class. */
bool elf_symtab_open(struct elf_parse *ps, size_t idx, struct table *t);
/* The i-th entry of a symbol table opened by elf_symtab_open. */
void elf_read_sym(const struct elf_image *img, const struct table *t, size_t i,
		  struct rawsym *s);
/* Add a candidate symbol (its section, if known, ends a sizeless last one). */
void elf_add_cand(struct elf_parse *ps, uint64_t start, uint64_t size, const char *name,
		  uint8_t bind, const struct shdr *sec);
/* The function symbols, the PLT stubs, then the final table (img->syms). */
void elf_load_symbols(struct elf_parse *ps);

/* ---- elf_plt.c ---- */

/* Add "name@plt" candidates for x86 PLT and .plt.got stubs (other
 * machines: nothing). */
void elf_plt_synth(struct elf_parse *ps);

#endif
